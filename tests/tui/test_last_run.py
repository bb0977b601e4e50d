"""Reopening a profile shows its last run, read back from the run history, until a run starts."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from scim_tui.checker.exchanges import request_line
from scim_tui.store import history
from scim_tui.store.profiles import Profile
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.widgets.run_status import Phase
from scim_tui.tui.widgets.run_status import outcome_text
from tests.support.history import report_with
from tests.tui.conftest import FEW
from tests.tui.conftest import SIZE
from tests.tui.conftest import broken_random_url
from tests.tui.conftest import open_row
from tests.tui.conftest import run_checks
from tests.tui.conftest import run_screen
from tests.tui.conftest import table_of
from tests.tui.conftest import wait_until

pytestmark = pytest.mark.anyio


async def test_reopening_a_profile_shows_its_last_run_from_the_history(serve):
    profile = Profile(name="Broken", url=serve(broken_random_url()).url, selection=FEW)
    first = ScimTuiApp(profile)
    async with first.run_test(size=SIZE) as pilot:
        ran = await run_checks(pilot)
        keys = list(ran.state.order)
        counts = ran.state.counts()
        sent = [request_line(exchange) for exchange in ran.state.rows["random_url#0"].result.exchanges]
    report = history.latest("Broken")
    assert report is not None and keys

    app = ScimTuiApp(profile)
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(pilot)
        await wait_until(pilot, lambda: screen.progress.phase is Phase.PAST)
        assert screen.state.order == keys
        assert screen.state.counts() == counts
        outcome = outcome_text(screen.progress).plain
        assert f"Last run {report.started_at.astimezone():%Y-%m-%d %H:%M}, from history" in outcome
        assert screen.state.size() in outcome
        await wait_until(pilot, lambda: table_of(pilot).selected_key == "random_url#0")  # on its first failure, as a run ends

        detail = await open_row(pilot, "random_url")
        assert [request_line(exchange) for exchange in detail.row.result.exchanges] == sent
        await pilot.press("escape")

        # a success's exchanges are not kept in the history: the inspector says so, never "no request"
        detail = await open_row(pilot, "service_provider_config_endpoint")
        assert detail.row.result.exchanges == [] and detail.row.result.exchanges_left_out == 1
        said = str(detail.query_one("#no-exchanges", Static).render())
        assert said.startswith("Its 1 request and response were not kept: a saved run keeps those of the results that are not a SUCCESS."), said
        await pilot.press("escape")
        await run_checks(pilot)  # a run replaces it
        assert screen.progress.phase is Phase.FINISHED
        assert "from history" not in outcome_text(screen.progress).plain
        assert screen.state.facts is not None and screen.state.facts.started_at > report.started_at


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("20250101T000000000000Z.json.gz", b"not gzip at all"),
        ("20250101T000000000000Z.json", report_with(schema_version=0)),
    ],
    ids=["unreadable", "an older format"],
)
async def test_a_history_file_that_does_not_read_is_one_line_and_kept(local, name, content):
    folder = history.profile_dir(local.name)
    folder.mkdir(parents=True)
    (folder / name).write_bytes(content)
    app = ScimTuiApp(local)
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(pilot)
        await wait_until(pilot, lambda: any(name in notification.message for notification in app._notifications))
        lines = [notification.message for notification in app._notifications if name in notification.message]
        assert len(lines) == 1 and "\n" not in lines[0] and "Traceback" not in lines[0]
        assert screen.progress.phase is Phase.IDLE and not screen.state.rows
    kept = [path.read_bytes() for path in folder.rglob(f"{name}*")]
    assert kept == [content]  # set aside as it was, never rewritten
