"""The app at 80x24 as at 200x60: the sidebar hides itself on a narrow terminal, the status above
the results takes two lines, the results keep a screenful of readable rows, and every footer
shows the keys that matter first."""

from __future__ import annotations

import pytest
from textual.widgets import Button

from scim_tui.selection import Selection
from scim_tui.store.profiles import Profile
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.screens.changed_on_disk import ChangedOnDiskScreen
from scim_tui.tui.widgets.check_tree import CheckTree
from scim_tui.tui.widgets.results_table import HEADER_LINES
from scim_tui.tui.widgets.results_table import ResultsTable
from scim_tui.tui.widgets.run_status import Phase
from tests.support.network import closed_port_url
from tests.support.profiles import screen_text
from tests.support.profiles import widget_text
from tests.support.servers import RawServer
from tests.tui.conftest import SIZE
from tests.tui.conftest import broken_random_url
from tests.tui.conftest import open_row
from tests.tui.conftest import run_checks
from tests.tui.conftest import run_screen
from tests.tui.conftest import settle
from tests.tui.conftest import start_hanging_run
from tests.tui.conftest import table_of
from tests.tui.conftest import wait_until

pytestmark = pytest.mark.anyio
SMALL = (80, 24)
SIZES = pytest.mark.parametrize("size", [SMALL, (100, 30), SIZE, (200, 60)], ids=["80x24", "100x30", "130x40", "200x60"])
SHOWN = Selection(include_tags=["misc", "discovery", "crud"], resource_types=["User"])
"""A run of more results than a small terminal shows, random_url failing among them."""
RUN_KEYS = ("r Run", "? Help", "q Quit", "esc Profiles", "f Rerun failed", "a Accept", "s Worst first", "b Sidebar")
RESULT_KEYS = ("esc Back", "t Tab", "/ Find", "y Curl", "u URL", "h Headers", "b Body", "p Pager", "r Rerun", "a Accept")


def sidebar_shown(app) -> bool:
    return run_screen_of(app).query_one("#run-sidebar").display


def run_screen_of(app):
    return app.screen_stack[-1] if not app.screen.is_modal else app.screen_stack[-2]


async def test_below_100_columns_the_sidebar_hides_itself_and_b_shows_it(local):
    app = ScimTuiApp(local)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        assert not sidebar_shown(app) and isinstance(app.focused, ResultsTable), "the results take the keys"
        await pilot.press("b")
        await pilot.pause()
        assert sidebar_shown(app) and isinstance(app.focused, CheckTree)
        await pilot.press("b")
        await pilot.pause()
        assert not sidebar_shown(app) and isinstance(app.focused, ResultsTable)
        await pilot.resize_terminal(*SIZE)
        await pilot.pause()
        assert sidebar_shown(app), "wide enough again: the sidebar is back"
        app.screen.query_one(CheckTree).focus()
        await pilot.resize_terminal(*SMALL)
        await wait_until(pilot, lambda: isinstance(app.focused, ResultsTable))  # no key goes to a hidden tree
        await pilot.resize_terminal(*SIZE)
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        assert not sidebar_shown(app), "b hides it at any width"


@SIZES
async def test_the_results_keep_a_screenful_of_rows_with_their_names_whole(serve, size):
    app = ScimTuiApp(Profile(name="Broken", url=serve(broken_random_url()).url, selection=SHOWN))
    async with app.run_test(size=size) as pilot:
        screen = await run_checks(pilot)
        await pilot.pause()
        assert screen.query_one("#run-status").region.height <= 2, "the status above the results: two lines at most"
        table = table_of(pilot)
        rows = table.scrollable_content_region.height - HEADER_LINES
        assert rows >= (12 if size == SMALL else size[1] - 12)
        lines = screen_text(app).splitlines()[table.region.y + HEADER_LINES : table.region.y + HEADER_LINES + rows]
        names = [table.row_cells(key)[1].plain for key in table.keys[round(table.scroll_y) :][:rows] if not key.startswith("group:")]
        assert names and all(name in line for name, line in zip(names, [line for line in lines if "━━" not in line], strict=False)), lines


async def test_the_status_takes_two_lines_while_a_run_goes_on(hanging_patch):
    hanging, url = hanging_patch
    app = ScimTuiApp(Profile(name="Hanging", url=url, timeout=30))
    async with app.run_test(size=SMALL) as pilot:
        screen = run_screen(pilot)
        await settle(pilot)
        await pilot.press("r")
        await wait_until(pilot, lambda: hanging.arrived > 0 and screen.progress.planned > 0 and screen.state.checks_done() > 0)
        await pilot.pause()
        status = screen.query_one("#run-status")
        assert status.region.height == 2 and "Running…" in widget_text(app, "#run-outcome")
        await pilot.press("escape")
        hanging.release()
        await settle(pilot)


async def test_a_failed_run_says_why_on_the_whole_width(monkeypatch):
    """Once a run ended, its progress bar gives the outcome its place: no 16-column error."""
    app = ScimTuiApp(Profile(name="Nowhere", url=closed_port_url()))
    async with app.run_test(size=SMALL) as pilot:
        screen = await run_checks(pilot)
        await pilot.pause()
        assert screen.progress.phase is Phase.FAILED
        outcome = screen.query_one("#run-outcome")
        assert outcome.region.width >= SMALL[0] - 2 and outcome.region.height <= 3
        assert " ".join(screen.progress.error.split()) in widget_text(app, "#run-outcome")


async def test_a_finished_run_says_its_time_in_one_word(local):
    app = ScimTuiApp(local.model_copy(update={"selection": Selection(include_tags=["misc"])}))
    async with app.run_test(size=SMALL) as pilot:
        screen = await run_checks(pilot)
        await pilot.pause()
        line = widget_text(app, "#run-outcome")
        assert line.endswith(f"· {screen.progress.elapsed:.1f}s") and screen.query_one("#run-outcome").region.height == 1


@SIZES
async def test_the_footer_shows_the_keys_that_matter_first(serve, size):
    app = ScimTuiApp(Profile(name="Broken", url=serve(broken_random_url()).url, selection=SHOWN))
    async with app.run_test(size=size) as pilot:
        await run_checks(pilot)
        await pilot.pause()
        footer = widget_text(app, "Footer")
        assert all(key in footer for key in RUN_KEYS), footer
        await open_row(pilot, "random_url")
        await pilot.pause()
        footer = widget_text(app, "Footer")
        assert all(key in footer for key in RESULT_KEYS), footer


@SIZES
async def test_while_a_run_goes_the_footer_says_how_to_cancel_it(size):
    with RawServer() as server:
        app = ScimTuiApp(Profile(name="Silent", url=server.url, timeout=30))
        async with app.run_test(size=size) as pilot:
            screen = await start_hanging_run(pilot, server)
            footer = widget_text(app, "Footer")
            assert "esc Cancel run" in footer and "esc Profiles" not in footer, footer
            await pilot.press("escape")
            server.close()  # the hanging requests fail at once
            await wait_until(pilot, lambda: not screen.running)


@pytest.mark.parametrize("size", [SMALL, (200, 60)], ids=["80x24", "200x60"])
async def test_the_changed_on_disk_question_shows_whole(size):
    problem = (
        "/home/someone/.config/scim-tui/profiles/staging.toml was changed (by another scim-tui or an "
        "editor) since it was opened: saving now would undo that. What now?"
    )
    app = ScimTuiApp()
    async with app.run_test(size=size) as pilot:
        await app.push_screen(ChangedOnDiskScreen(problem))
        await pilot.pause()
        dialog = app.screen.query_one("#changed-dialog")
        assert dialog.region.right <= size[0] and dialog.region.bottom <= size[1]
        text = " ".join(screen_text(app).split())
        for button in app.screen.query(Button):
            assert button.region.right <= dialog.region.right and str(button.label) in text, str(button.label)
