"""A keymap file in the config dir rebinds the app's keys by binding id; one that does not read, or
names an id the app has not, is one line on screen."""

from __future__ import annotations

import pytest

from scim_tui.store.keymap import keymap_file
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.screens.help import HelpScreen
from scim_tui.tui.widgets.results_table import ResultsTable
from tests.tui.conftest import SIZE
from tests.tui.conftest import run_screen
from tests.tui.conftest import wait_until

pytestmark = pytest.mark.anyio


def write_keymap(content: str) -> None:
    path = keymap_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)


def lines_naming(app: ScimTuiApp, text: str) -> list[str]:
    return [notification.message for notification in app._notifications if text in notification.message]


async def test_a_keymap_file_rebinds_keys_by_their_binding_id(local):
    write_keymap('"run.failures-first" = "x"\n\n[list]\ndown = "ctrl+n"\n')
    app = ScimTuiApp(local)
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(pilot)
        table = screen.query_one(ResultsTable)
        table.focus()
        await pilot.press("s")
        assert not screen.view.failures_first  # s is no longer the key
        await pilot.press("x")
        assert screen.view.failures_first
        await pilot.press("f1")
        assert isinstance(pilot.app.screen, HelpScreen)
        keys = dict(pilot.app.screen.keys)
        assert keys.get("x") == "Failures first: each group's results by severity"
        assert [key for key, meaning in keys.items() if meaning == "Down in the list"] == ["^n"]  # ctrl+n, as Textual shows it
        await wait_until(pilot, lambda: not any(worker.group == "load" for worker in app.workers))
        assert not lines_naming(app, str(keymap_file()))


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("[run\n", "not TOML"),
        ('"run.run" = 5\n', "run.run is given 5"),
    ],
    ids=["not TOML", "keys not a string"],
)
async def test_a_keymap_file_that_does_not_read_is_one_line_and_the_apps_keys(local, content, problem):
    write_keymap(content)
    app = ScimTuiApp(local)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: bool(lines_naming(app, str(keymap_file()))))
        [line] = lines_naming(app, str(keymap_file()))
        assert problem in line and "\n" not in line
        screen = run_screen(pilot)
        screen.query_one(ResultsTable).focus()
        await pilot.press("s")
        assert screen.view.failures_first


async def test_an_unknown_binding_id_is_one_line_naming_it(local):
    write_keymap('"run.run" = "R"\n"run.nothing" = "z"\n')
    app = ScimTuiApp(local)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: bool(lines_naming(app, "'run.nothing'")))
        [line] = lines_naming(app, str(keymap_file()))
        assert "no binding id" in line and "run.run" not in line.replace("'run.nothing'", "")
