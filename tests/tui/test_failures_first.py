"""The run screen's triage: failures first, the reason's preview, help, a small terminal."""

from __future__ import annotations

import pytest

from scim_tui.checker import Status
from scim_tui.selection import Selection
from scim_tui.store.profiles import Profile
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.run_state import severity
from scim_tui.tui.screens.help import HelpScreen
from scim_tui.tui.widgets.results_table import ResultsTable
from tests.support.profiles import screen_text
from tests.support.profiles import widget_text
from tests.support.servers import SCIM2_SERVER_BREAKS
from tests.tui.conftest import run_checks
from tests.tui.conftest import table_of

pytestmark = pytest.mark.anyio
SMALL = (80, 24)


def failing_profile(scim_server) -> Profile:
    """The checks scim2-server really fails (two ERRORs), among a few that pass."""
    rfc_breaks = {tag for tag in SCIM2_SERVER_BREAKS if not tag.startswith("idp")}  # the providers' refusals are DEVIATIONs
    return Profile(name="Local", url=scim_server.url, selection=Selection(include_tags=sorted(rfc_breaks | {"misc"})))


def failed_keys(table: ResultsTable) -> list[str]:
    return [key for key in table.keys if not key.startswith("group:") and table.row_cells(key)[0].plain in ("ERROR", "CRITICAL")]


async def test_a_run_ends_on_its_first_failure_and_n_p_go_from_failure_to_failure(scim_server):
    app = ScimTuiApp(failing_profile(scim_server))
    async with app.run_test(size=SMALL) as pilot:
        await run_checks(pilot)
        await pilot.pause()
        table = table_of(pilot)
        failures = failed_keys(table)
        assert len(failures) >= 2
        assert table.selected_key == failures[0]
        top = round(table.scroll_y)
        assert top <= table.cursor_row < top + table.scrollable_content_region.height - 1, "the first failure is on screen"
        await pilot.press("n")
        assert table.selected_key == failures[1] and table.has_focus
        await pilot.press("p")
        assert table.selected_key == failures[0]
        await pilot.press("p")
        assert table.selected_key == failures[-1], "round the end"


async def test_s_puts_each_groups_failures_first(scim_server):
    app = ScimTuiApp(failing_profile(scim_server))
    async with app.run_test(size=(130, 40)) as pilot:
        screen = await run_checks(pilot)
        await pilot.press("s")
        rows = screen.state.visible(screen.view)
        for group in {row.group for row in rows}:
            ranks = [severity(row.result.status) for row in rows if row.group == group]
            assert ranks == sorted(ranks)
        assert rows[0].group == "Server"
        await pilot.press("s")
        assert [row.key for row in screen.state.visible(screen.view)] == screen.state.order


async def test_the_highlighted_results_whole_reason_shows_under_the_table(scim_server):
    app = ScimTuiApp(failing_profile(scim_server))
    async with app.run_test(size=SMALL) as pilot:
        screen = await run_checks(pilot)
        table = table_of(pilot)
        for key in failed_keys(table)[:2]:
            table.select_key(key)
            await pilot.pause()
            result = screen.state.rows[key].result
            shown = widget_text(app, "#preview")
            assert " ".join(result.reason.split()) in shown, "the whole reason, wrapped, not cut at the column's edge"
            assert f"RFC {result.rfc} §{result.section}" in shown


async def test_at_80_by_24_the_footer_keeps_quit_run_and_help(scim_server):
    """The sidebar at 80 columns: tests/tui/test_small_terminals.py."""
    app = ScimTuiApp(failing_profile(scim_server))
    async with app.run_test(size=SMALL) as pilot:
        await run_checks(pilot)
        footer = screen_text(app).splitlines()[-1]
        for key in ("r Run", "? Help", "q Quit"):
            assert key in footer, footer


@pytest.mark.parametrize("key", ["f1", "question_mark"])
async def test_help_shows_the_keys_of_the_screen_and_what_each_status_means(scim_server, key):
    app = ScimTuiApp(failing_profile(scim_server))
    async with app.run_test(size=(100, 50)) as pilot:
        await run_checks(pilot)
        await pilot.press(key)
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = screen_text(app)
        for shown in ("Next failure", "Previous failure", "Failures first", "Rerun failed", "Export"):
            assert shown in text
        for status in Status:
            assert status.name in text
        assert "A MUST of the RFC, broken" in text
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)
