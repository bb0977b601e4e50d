"""j, k, g and G move down, up, to the first and to the last line in every list and table of the app."""

from __future__ import annotations

from datetime import UTC
from datetime import datetime

import pytest
from textual.widgets import OptionList

from scim_tui.checker import CheckResult
from scim_tui.checker import Exchange
from scim_tui.checker import Status
from scim_tui.reports import RunReport
from scim_tui.store import history
from scim_tui.store.profiles import Profile
from scim_tui.store.profiles import save_profile
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.screens.result import ResultScreen
from scim_tui.tui.widgets.check_tree import CheckTree
from scim_tui.tui.widgets.exchange_list import ExchangeList
from scim_tui.tui.widgets.results_table import ResultsTable
from scim_tui.tui.widgets.run_status import Phase
from tests.tui.conftest import SIZE
from tests.tui.conftest import run_screen
from tests.tui.conftest import wait_until

pytestmark = pytest.mark.anyio


def past_run(profile: Profile) -> None:
    """A run of the profile in its history: four results, the last one with three exchanges."""
    exchanges = [Exchange("GET", f"{profile.url}/Users?count={n}", status_code=200) for n in range(3)]
    results = [CheckResult(Status.SUCCESS, title=f"check_{n}", reason="fine") for n in range(3)]
    results.append(CheckResult(Status.ERROR, title="check_3", reason="broken", exchanges=exchanges))
    history.record(RunReport.create(results, target=profile.url, started_at=datetime(2026, 11, 26, 14, 2, tzinfo=UTC), duration=1.0, profile=profile.name))


async def test_j_k_g_and_G_move_in_the_results_and_the_inspectors_exchanges(local):
    past_run(local)
    app = ScimTuiApp(local)
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(pilot)
        table = screen.query_one(ResultsTable)
        # A past run opens with the cursor on its first failure, placed after a refresh: g comes after.
        await wait_until(pilot, lambda: screen.progress.phase is Phase.PAST and table.selected_key == "check_3#0")
        table.focus()
        await pilot.press("g")
        assert table.cursor_row == 0
        await pilot.press("j", "j")
        assert table.cursor_row == 2
        await pilot.press("k")
        assert table.cursor_row == 1
        await pilot.press("G")
        assert table.cursor_row == table.row_count - 1 and table.selected_key == "check_3#0"
        await pilot.press("enter")
        assert isinstance(pilot.app.screen, ResultScreen)
        exchanges = pilot.app.screen.query_one(ExchangeList)
        await pilot.press("g")
        assert exchanges.highlighted == 0
        await pilot.press("G")
        assert exchanges.highlighted == 2


async def test_j_k_g_and_G_move_in_the_tag_tree_and_the_resource_types(local):
    app = ScimTuiApp(local)
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(pilot)
        tree = screen.query_one(CheckTree)
        tree.focus()
        await pilot.press("j", "j", "k")
        assert tree.cursor_line == 1
        await pilot.press("G")
        assert tree.cursor_line == tree.last_line
        await pilot.press("g")
        assert tree.cursor_line == 0
        types = screen.query_one("#resource-types", OptionList)
        await wait_until(pilot, lambda: types.option_count == 2)  # User and Group
        types.focus()
        await pilot.press("G")
        assert types.highlighted == 1
        await pilot.press("k")
        assert types.highlighted == 0


async def test_j_k_g_and_G_move_in_the_profiles(local):
    for name in ("Alpha", "Beta", "Gamma"):
        save_profile(local.model_copy(update={"name": name}))
    app = ScimTuiApp()
    async with app.run_test(size=SIZE) as pilot:
        profiles = pilot.app.screen.query_one("#profile-list", OptionList)
        await wait_until(pilot, lambda: profiles.option_count == 4)
        profiles.focus()
        await pilot.press("j", "j")
        assert profiles.highlighted == 2
        await pilot.press("G")
        assert profiles.highlighted == 3
        await pilot.press("k")
        assert profiles.highlighted == 2
        await pilot.press("g")
        assert profiles.highlighted == 0
