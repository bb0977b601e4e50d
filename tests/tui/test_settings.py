"""The theme and the view choices persist in the settings file, read at start-up; F2 edits them."""

from __future__ import annotations

import tomllib

import pytest
from textual.widgets import Select

from scim_tui.checker import Status
from scim_tui.store.settings import settings_file
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.commands import ScreenCommands
from scim_tui.tui.screens.help import HelpScreen
from scim_tui.tui.screens.settings import SettingsScreen
from scim_tui.tui.widgets.results_table import ResultsTable
from tests.tui.conftest import SIZE
from tests.tui.conftest import plain
from tests.tui.conftest import run_screen
from tests.tui.conftest import wait_until

pytestmark = pytest.mark.anyio


def saved() -> dict:
    return tomllib.loads(settings_file().read_text(encoding="utf-8"))


def sidebar_shown(pilot) -> bool:
    return run_screen(pilot).query_one("#run-sidebar").display


async def test_the_view_choices_are_saved_and_read_at_start_up(local):
    app = ScimTuiApp(local)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: sidebar_shown(pilot))
        run_screen(pilot).query_one(ResultsTable).focus()
        await pilot.press("s", "7", "c", "b")
        await pilot.pause()
    assert saved() == {"theme": "textual-dark", "sort": "failures first", "hidden_statuses": ["SKIPPED"], "sidebar": False, "by_cause": False}

    app = ScimTuiApp(local)
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(pilot)
        await pilot.pause()
        assert screen.view.failures_first
        assert screen.view.statuses == set(Status) - {Status.SKIPPED}
        assert not screen.query_one(ResultsTable).by_cause
        assert not sidebar_shown(pilot)


async def test_the_settings_screen_edits_them_live_and_saves_them(local):
    app = ScimTuiApp(local)
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(pilot)
        await wait_until(pilot, lambda: sidebar_shown(pilot))
        assert "Settings" in [command.name for command in ScreenCommands(screen).commands()]  # the footer's keys, and the palette's
        await pilot.press("f1")
        assert ("f2", "Settings: the theme and how the results show") in pilot.app.screen.keys
        await pilot.press("escape", "f2")
        assert isinstance(pilot.app.screen, SettingsScreen)
        await pilot.press("enter", "down", "enter")  # the theme after the default one
        theme = pilot.app.screen.query_one("#settings-theme", Select).value
        assert theme != "textual-dark" and app.theme == theme
        await pilot.press("tab", "tab", "space", "j", "space")  # the sidebar off, then one line per result
        await wait_until(pilot, lambda: not screen.query_one("#run-sidebar").display)
        assert not screen.query_one(ResultsTable).by_cause
        await pilot.press("G", "space")  # the last status: SKIPPED hidden
        await wait_until(pilot, lambda: Status.SKIPPED not in screen.view.statuses)
        await pilot.press("escape")
        assert pilot.app.screen is screen
    assert saved() == {"theme": theme, "sort": "run order", "hidden_statuses": ["SKIPPED"], "sidebar": False, "by_cause": False}

    app = ScimTuiApp(local)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.theme == theme


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("theme = [\n", "not TOML"),
        ('sort = "by name"\n', "sort:"),
        ("colour = 1\n", "colour is no setting"),
    ],
    ids=["not TOML", "a bad value", "an unknown key"],
)
async def test_a_malformed_settings_file_is_one_line_the_defaults_and_left_as_it_is(local, content, problem):
    path = settings_file()
    path.parent.mkdir(parents=True)
    path.write_text(content)
    app = ScimTuiApp(local)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: any(str(path) in notification.message for notification in app._notifications))
        [line] = [notification.message for notification in app._notifications if str(path) in notification.message]
        assert problem in line and "\n" not in line and "defaults" in line
        screen = run_screen(pilot)
        assert not screen.view.failures_first and screen.view.statuses == set(Status)
        run_screen(pilot).query_one(ResultsTable).focus()
        await pilot.press("s", "f2")
        assert "not saved" in plain(pilot.app.screen.query_one("#settings-note").render())
    assert path.read_text() == content


async def test_the_help_lists_the_keys_that_move_in_a_list(local):
    app = ScimTuiApp(local)
    async with app.run_test(size=SIZE) as pilot:
        run_screen(pilot).query_one(ResultsTable).focus()
        await pilot.press("f1")
        help_screen = pilot.app.screen
        assert isinstance(help_screen, HelpScreen)
        assert {("j", "Down in the list"), ("k", "Up in the list"), ("g", "First in the list"), ("G", "Last in the list")} <= set(help_screen.keys)
