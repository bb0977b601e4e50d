"""The run screen against a real scim2-server: live results, summary, cancel, filters, rerun failed."""

from __future__ import annotations

import asyncio
import json
import stat
import time
from pathlib import Path

import pytest
from textual.widgets import Input
from textual.widgets import Static

from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.demo import make_app
from scim_tui.selection import Selection
from scim_tui.store import history
from scim_tui.store import selections
from scim_tui.store.profiles import Auth
from scim_tui.store.profiles import AuthKind
from scim_tui.store.profiles import Profile
from scim_tui.store.profiles import find_profile
from scim_tui.store.profiles import profiles_dir
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.commands import ScreenCommands
from scim_tui.tui.export import exports_dir
from scim_tui.tui.messages import ResultsBatch
from scim_tui.tui.messages import RunFinished
from scim_tui.tui.run_state import Mark
from scim_tui.tui.screens.export import ExportScreen
from scim_tui.tui.screens.run import RunScreen
from scim_tui.tui.widgets.check_tree import CheckTree
from scim_tui.tui.widgets.run_status import Phase
from scim_tui.tui.widgets.run_status import counts_text
from scim_tui.tui.widgets.run_status import outcome_text
from tests.support.history import report_with
from tests.support.servers import Busy
from tests.support.servers import Hanging
from tests.tui.conftest import CEILING
from tests.tui.conftest import FEW
from tests.tui.conftest import SIZE
from tests.tui.conftest import assert_nothing_left
from tests.tui.conftest import broken_random_url
from tests.tui.conftest import move_to
from tests.tui.conftest import plain
from tests.tui.conftest import run_checks
from tests.tui.conftest import run_from_palette
from tests.tui.conftest import run_screen
from tests.tui.conftest import settle
from tests.tui.conftest import table_of
from tests.tui.conftest import wait_until

pytestmark = pytest.mark.anyio


def titles(rows) -> list[tuple[str | None, str | None, Status]]:
    return [(row.result.resource_type, row.result.title, row.result.status) for row in rows]


async def test_a_run_shows_every_result_live_and_the_summary(local, full_run):
    expected = [result for result in full_run if not result.deselected]  # the opt-in checks are not rows
    batches: set[int] = set()
    app = ScimTuiApp(local)
    async with app.run_test(size=SIZE, message_hook=lambda m: batches.add(id(m)) if isinstance(m, ResultsBatch) else None) as pilot:
        screen = await run_checks(pilot)
        rows = screen.state.visible(screen.view)
        assert sorted(titles(rows), key=str) == sorted(((r.resource_type, r.title, r.status) for r in expected), key=str)
        assert len(batches) > 1, "results must arrive while the run goes on, not all at the end"
        table = table_of(pilot)
        groups = [key for key in table.keys if key.startswith("group:")]
        assert groups[0] == "group:Server" and set(groups) == {"group:Server", "group:User", "group:Group"}
        assert table.row_count == len(expected) + len(groups)
        progress = screen.progress
        assert progress.phase is Phase.FINISHED
        assert progress.done == progress.planned > 0
        # the numbers every report gives, summaries not counted twice
        line = screen.state.report().summary_line()
        checks = len({r.check_id for r in expected if not r.check_id.is_summary})
        assert line.startswith(f"{checks} checks · {sum(not r.check_id.is_summary for r in expected)} results")
        assert outcome_text(progress).plain.startswith(f"Finished: {line.split(' · ')[0]} · {line.split(' · ')[1]}")
        assert progress.planned == checks
        summary = counts_text(progress).plain
        for status in Status:
            count = sum(r.status is status and not r.check_id.is_summary for r in expected)
            assert (f"{status.name} {count}" in summary) == bool(count), "each status some result has, with its count"
        assert app.sub_title == "" and screen.sub_title == "Local"


async def start_and_wait_for_resource_checks(pilot, hanging: Hanging) -> RunScreen:
    """Start a run and wait until it is into the resource checks, which create resources:
    their PATCHes hang, so it waits there, with twenty checks or more done."""
    screen = run_screen(pilot)
    await settle(pilot)
    await pilot.press("r")
    await wait_until(pilot, lambda: hanging.arrived > 0 and screen.state.checks_done() >= 20)
    assert screen.running
    return screen


async def test_escape_cancels_keeps_the_results_and_cleans_up(hanging_patch):
    hanging, url = hanging_patch
    app = ScimTuiApp(Profile(name="Slow", url=url))
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_and_wait_for_resource_checks(pilot, hanging)
        await pilot.press("escape")
        hanging.release()
        await settle(pilot)
        assert screen.progress.phase is Phase.CANCELLED
        assert "cancelled" in outcome_text(screen.progress).plain
        kept = screen.state.checks_done()
        assert 20 <= kept < screen.progress.planned
        assert len(table_of(pilot).keys) > kept
        assert isinstance(app.screen, RunScreen), "escape during a run cancels, it does not leave"
    assert_nothing_left(url)


async def test_quitting_during_a_run_stops_it_and_cleans_up(hanging_patch):
    hanging, url = hanging_patch
    app = ScimTuiApp(Profile(name="Slow", url=url))
    async with app.run_test(size=SIZE) as pilot:
        await start_and_wait_for_resource_checks(pilot, hanging)
        checks = [worker for worker in app.workers if worker.group == "checks"]
        await pilot.press("q")
        hanging.release()
    assert checks and all(worker.is_cancelled for worker in checks)
    assert_nothing_left(url, wait=CEILING)
    # the app stopped listening before the run's thread ended: its end is kept all the same (run_app reads it)
    deadline = time.monotonic() + CEILING
    while app.last_run_end is None and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    end = app.last_run_end
    assert end is not None and end.cancelled and end.error is None
    assert end.report is not None and end.report.results and end.report.leftovers == []


async def test_statuses_and_text_filter_the_results(serve):
    server = serve(broken_random_url())
    app = ScimTuiApp(Profile(name="Broken", url=server.url, selection=FEW))
    async with app.run_test(size=SIZE) as pilot:
        screen = await run_checks(pilot)
        everything = len(screen.state.rows)
        failed = [row for row in screen.state.rows.values() if row.result.status.failed]
        assert failed

        await pilot.press("1")  # hide SUCCESS
        shown = screen.state.visible(screen.view)
        assert all(row.result.status is not Status.SUCCESS for row in shown)
        assert {row.key for row in failed} <= {row.key for row in shown}
        assert set(table_of(pilot).keys) >= {row.key for row in failed}
        assert "SUCCESS" not in {table_of(pilot).row_cells(key)[0].plain for key in table_of(pilot).keys}
        await pilot.press("1")
        assert len(screen.state.visible(screen.view)) == everything

        await pilot.press("slash")
        await pilot.press(*"random_url")
        shown = screen.state.visible(screen.view)
        assert shown and {row.result.title for row in shown} == {"random_url"}
        assert [key for key in table_of(pilot).keys if not key.startswith("group:")] == [row.key for row in shown]
        await pilot.press("enter")
        assert table_of(pilot).has_focus
        await pilot.press("slash", "escape")
        assert len(screen.state.visible(screen.view)) == everything


async def test_rerun_failed_replaces_rows_in_place_and_marks_them_fixed(serve):
    broken = broken_random_url()
    server = serve(broken)
    app = ScimTuiApp(Profile(name="Broken", url=server.url, selection=FEW))
    async with app.run_test(size=SIZE) as pilot:
        screen = await run_checks(pilot)
        table = table_of(pilot)
        order = list(table.keys)
        failed = {row.key for row in screen.state.rows.values() if row.result.status.failed}
        assert failed

        await run_checks(pilot, "f")  # still broken
        assert {row.key for row in screen.state.rows.values() if row.mark is Mark.STILL_FAILING} == failed

        broken.repaired = True
        await run_checks(pilot, "f")
        assert table.keys == order, "rows are replaced in place"
        for key in failed:
            row = screen.state.rows[key]
            assert row.mark is Mark.FIXED and not row.result.status.failed
            assert table.row_cells(key)[2].plain == "✔ fixed"
        assert not screen.state.failed_checks()
        assert "fixed 1" in counts_text(screen.progress).plain.replace("✔ ", "")


def hand_written_profile(url: str) -> Path:
    """A profile as a person writes it: comments, the keys in their own order, private."""
    profiles_dir().mkdir(parents=True)
    path = profiles_dir() / "saved.toml"
    path.write_text(f'# my server\nurl = "{url}"  # loopback\nname = "Saved"\ntimeout = 30\n\n[selection]\ninclude_tags = ["misc"]  # start small\n')
    path.chmod(0o600)
    return path


async def test_a_run_never_writes_the_profile_file_and_the_selection_is_remembered(scim_server):
    """Once, running a hand-written profile rewrote it (comments, timeout = 30, mode lost)."""
    path = hand_written_profile(scim_server.url)
    written = path.read_bytes()
    app = ScimTuiApp(find_profile("Saved"))
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(pilot)
        await settle(pilot)
        tree = screen.query_one(CheckTree)
        assert tree.checked == {"misc"}, "the profile's [selection] is where the first run starts"
        move_to(tree, "discovery")
        await pilot.press("space")  # tick a tag
        assert tree.checked == {"discovery", "discovery:strict", "misc"}
        options = screen.query_one("#resource-types")
        assert [options.get_option_at_index(i).value for i in range(options.option_count)] == ["User", "Group"]
        options.deselect("Group")
        await run_checks(pilot)
        ran = {row.result.title for row in screen.state.rows.values() if row.result.status is not Status.SKIPPED}
        assert ran and all("crud" not in row.result.tags or row.result.status is Status.SKIPPED for row in screen.state.rows.values())
    assert path.read_bytes() == written and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(selections.selection_file("Saved").read_text()) == {"include_tags": ["discovery", "misc"], "exclude_tags": [], "resource_types": ["User"]}

    app = ScimTuiApp(find_profile("Saved"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = run_screen(pilot)
        assert screen.query_one(CheckTree).checked == {"discovery", "discovery:strict", "misc"}
        assert screen.query_one("#resource-types").selected == ["User"]
    assert path.read_bytes() == written


async def test_a_corrupt_selection_state_is_one_warning_and_the_profiles_selection(scim_server):
    hand_written_profile(scim_server.url)
    state = selections.selection_file("Saved")
    state.parent.mkdir(parents=True)
    state.write_text('{"include_tags": "misc"')
    app = ScimTuiApp(find_profile("Saved"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert run_screen(pilot).query_one(CheckTree).checked == {"misc"}
        await wait_until(pilot, lambda: bool(app._notifications))
        [warning] = [n.message for n in app._notifications]
        assert warning.startswith(f"Ignored the app's remembered selection in {state} (Invalid JSON: EOF") and "\n" not in warning
        screen = await run_checks(pilot)
        assert screen.progress.phase is Phase.FINISHED
    assert json.loads(state.read_text())["include_tags"] == ["misc"], "the next run's selection replaces the bad file"


async def test_a_missing_secret_is_one_line_not_a_traceback(scim_server, monkeypatch):
    monkeypatch.delenv("SCIM_TUI_TEST_TOKEN", raising=False)
    profile = Profile(name="Env", url=scim_server.url, auth=Auth(kind=AuthKind.BEARER, token="env:SCIM_TUI_TEST_TOKEN"))
    app = ScimTuiApp(profile)
    async with app.run_test(size=SIZE) as pilot:
        screen = await run_checks(pilot)
        assert screen.progress.phase is Phase.FAILED
        line = outcome_text(screen.progress).plain
        assert "SCIM_TUI_TEST_TOKEN is not set" in line and "\n" not in line and "Traceback" not in line
        assert any("SCIM_TUI_TEST_TOKEN" in n.message for n in app._notifications)
        assert "SCIM_TUI_TEST_TOKEN" in plain(screen.query_one("#resource-types-note", Static).content)


async def test_q_quits_and_escape_goes_back_to_the_profiles(local):
    app = ScimTuiApp(local)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("escape")
        assert type(app.screen).__name__ == "ProfilesScreen"
        app.open_run(local)
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


async def test_each_run_is_recorded_and_changes_since_the_previous_run_are_marked(serve):
    broken = broken_random_url()
    server = serve(broken)
    app = ScimTuiApp(Profile(name="History", url=server.url, selection=FEW))
    async with app.run_test(size=SIZE) as pilot:
        screen = await run_checks(pilot)
        assert not screen.state.marks(), "the first run has nothing to compare with"
        failing = {row.key for row in screen.state.rows.values() if row.result.status.failed}

        broken.repaired = True
        await run_checks(pilot)
        assert {row.key for row in screen.state.rows.values() if row.mark is Mark.FIXED} == failing
        assert "✔ fixed 1" in counts_text(screen.progress).plain
        compared = len({row.result.check_id for row in screen.state.rows.values()})
        assert f"(against the previous run: {screen.progress.compared} checks both ran)" in counts_text(screen.progress).plain
        assert 0 < screen.progress.compared <= compared, "the screen says what was compared"

        broken.repaired = False
        await run_checks(pilot)
        assert {row.key for row in screen.state.rows.values() if row.mark is Mark.NEW_FAILURE} == failing
        assert {table_of(pilot).row_cells(key)[2].plain for key in failing} == {"✘ new"}
        assert table_of(pilot).columns.change, "the change column shows, laid out at the run's end"
    assert len(history.runs("History")) == 3
    assert history.latest("History").profile == "History"


async def test_e_exports_the_run_to_a_new_file_in_a_folder_of_ones_choice(serve, tmp_path, monkeypatch):
    """Once, the export went into the current directory, and after `f` it carried
    the rerun's start time and duration. After `f`, it holds the rerun's results in the run's
    report: the run's start and duration, the rerun's rows."""
    monkeypatch.chdir(tmp_path)
    app = ScimTuiApp(Profile(name="Local", url=serve(broken_random_url()).url, selection=FEW))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.is_mounted)
        await pilot.press("e")
        await wait_until(
            pilot, lambda: any("press r to run the checks first" in n.message for n in app._notifications)
        )  # e before a run says why nothing happens
        screen = await run_checks(pilot)
        started = screen.state.facts.started_at, screen.state.facts.duration
        asked = [exchange.url for exchange in screen.state.rows["random_url#0"].result.exchanges]
        await run_checks(pilot, "f")
        rerun = [exchange.url for exchange in screen.state.rows["random_url#0"].result.exchanges]
        assert rerun != asked, "the rerun asked for another random URL"
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, ExportScreen)
        await pilot.press("down", "enter")  # json, the second format, into the app's exports folder
        await pilot.pause()
        assert isinstance(app.screen, RunScreen)
        (first,) = exports_dir().glob("scim-tui-local-*.json")
        exported = json.loads(first.read_text())
        assert len(exported["results"]) == len(screen.state.rows)
        assert (exported["started_at"], exported["duration"]) == (started[0].isoformat(), round(started[1], 3))
        (random_url,) = [result for result in exported["results"] if result["check_id"] == "random_url"]
        assert [exchange["url"] for exchange in random_url["exchanges"]] == rerun
        assert any(str(first) in n.message for n in app._notifications)

        await pilot.press("e")
        await pilot.pause()
        app.screen.query_one("#export-folder", Input).value = str(tmp_path / "reports")
        await pilot.press("down", "enter")
        await pilot.pause()
        assert len(list((tmp_path / "reports").glob("scim-tui-local-*.json"))) == 1
        assert not list(tmp_path.glob("scim-tui-*")), "nothing written into the current directory"


async def test_the_palette_offers_the_keys_of_the_active_screen_and_run_commands(local):
    app = ScimTuiApp(local.model_copy(update={"selection": FEW}))
    async with app.run_test(size=SIZE) as pilot:
        screen = await run_checks(pilot)
        names = {command.name for command in ScreenCommands(screen).commands()}
        assert {"Run", "Filter", "Export", "Quit", "Show or hide SKIPPED results", "Show only failures"} <= names
        assert "Statuses" not in names  # a summary label

        await run_from_palette(pilot, "only failures", "Show only failures")
        assert screen.view.statuses == {Status.ERROR, Status.CRITICAL}

        await pilot.press("escape")
        await pilot.pause()
        profiles = ScreenCommands(app.screen).commands()
        assert {"New", "Edit", "Duplicate"} <= {command.name for command in profiles}


async def test_thousands_of_results_are_shown_in_batches_and_filtered(local):
    """5,000 results in batches of 250 (what ~0.1 s of a fast engine gives), then a filter.

    How fast is measured by bench/app_bench.py, not here."""
    groups = [None] * 1000 + ["User"] * 2000 + ["Group"] * 2000
    results = [CheckResult(Status(1 + i % 7), title=f"check_{i // 2}", reason=f"reason {i}", resource_type=group) for i, group in enumerate(groups)]
    app = ScimTuiApp(local)
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(pilot)
        await settle(pilot)
        screen.run_id = 99
        for start in range(0, len(results), 250):
            screen.post_message(ResultsBatch(99, results[start : start + 250]))
        await pilot.pause()
        assert len(table_of(pilot).keys) == 5000 + 3
        await pilot.press("1")
        await pilot.pause()
        assert len(table_of(pilot).keys) == 5000 - len(range(0, 5000, 7)) + 3


async def test_a_bad_history_file_is_set_aside_and_the_run_finishes(local):
    """Once, the app said "Run failed: int too large to convert to float"."""
    folder = history.profile_dir(local.name)
    folder.mkdir(parents=True)
    (folder / "20250101T000000000000Z.json").write_bytes(report_with(duration=10**400))
    app = ScimTuiApp(local.model_copy(update={"selection": Selection(include_tags=["misc"])}))
    async with app.run_test(size=SIZE) as pilot:
        screen = await run_checks(pilot)
        assert screen.progress.phase is Phase.FINISHED and screen.progress.error is None
        assert screen.state.rows
        [warning] = [n.message for n in app._notifications]
        assert warning.startswith("Set aside the unreadable history file 20250101T000000000000Z.json (duration: Input should be a finite number)")
    assert (folder / "set-aside" / "20250101T000000000000Z.json").exists()
    assert [path.name.endswith(".json.gz") for path in history.runs(local.name)] == [True]


async def test_a_wait_for_a_busy_server_shows_in_the_progress_line_and_a_cancel_ends_it(serve):
    # GETs only: the clean-up after the cancel (DELETEs) is not kept waiting
    busy = Busy(make_app(), 429, every=4, retry_after="59", methods=("GET",))
    app = ScimTuiApp(Profile(name="Busy", url=serve(busy).url))
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(pilot)
        await settle(pilot)
        await pilot.press("r")
        await wait_until(pilot, lambda: "waiting 59 s: the server answered" in outcome_text(screen.progress).plain)
        assert "with 429 (Retry-After: 59 s)" in outcome_text(screen.progress).plain
        await pilot.press("escape")
        await wait_until(pilot, lambda: screen.progress.phase is Phase.CANCELLED, timeout=30)  # the 59 s asked are not waited out
        assert "waiting" not in outcome_text(screen.progress).plain


async def test_unticked_checks_are_not_rows(local):
    """Once, a run of a few tags showed every other check as a SKIPPED row."""
    app = ScimTuiApp(local.model_copy(update={"selection": FEW}))
    ends: dict[int, RunFinished] = {}  # by identity: the hook hears a message at each node it bubbles through
    async with app.run_test(size=SIZE, message_hook=lambda m: ends.setdefault(id(m), m) if isinstance(m, RunFinished) else None) as pilot:
        screen = await run_checks(pilot)
        shown = [row.result for row in screen.state.rows.values()]
        assert shown and not any(result.deselected for result in shown)
        (finished,) = ends.values()
        engine = finished.report.results
        assert {result.check_id for result in engine if not result.deselected} == {result.check_id for result in shown}
        assert len(engine) > len(shown), "the engine still reports them, as SPEC.md says"
        assert screen.state.report().results == shown, "and the run's report on screen is its rows"
        assert outcome_text(screen.progress).plain.startswith(f"Finished: {finished.report.summary_line().split(' · ', 2)[0]}")
