"""The run on screen has one owner, RunState: the facts of the complete run and its rows, from
which the export, the readiness verdicts and the leftovers derive; a rerun replaces rows there.
The end of a run reaches it by one path."""

from __future__ import annotations

from datetime import UTC
from datetime import datetime

from textual.message import Message

from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.reports import RunReport
from scim_tui.store.profiles import Profile
from scim_tui.tui.messages import ResultsBatch
from scim_tui.tui.messages import RunFinished
from scim_tui.tui.run_state import RunState
from scim_tui.tui.runner import Runner
from scim_tui.tui.runner import RunRequest
from tests.tui.conftest import FEW

STARTED = datetime(2026, 11, 26, 9, 0, tzinfo=UTC)
TARGET = "https://scim.example.test/v2"


def report_of(results: list[CheckResult], started_at: datetime = STARTED, duration: float = 42.0, closing: tuple[str, ...] = ()) -> RunReport:
    return RunReport.create(results, target=TARGET, started_at=started_at, duration=duration, profile="Local", closing_leftovers=closing)


def ran(state: RunState, results: list[CheckResult], **report: object) -> None:
    """A full run of these results, to its end."""
    state.start()
    state.add(results)
    state.finish(report_of(results, **report))  # type: ignore[arg-type]


def test_a_rerun_joins_the_run_the_report_holds_its_rows_and_the_runs_start():
    state = RunState()
    failing = CheckResult(Status.ERROR, title="object_creation", resource_type="User", reason="POST /v2/Users answered 500.")
    passing = CheckResult(Status.SUCCESS, title="object_query", resource_type="User", reason="found")
    ran(state, [failing, passing], closing=("/Users/left-by-clean-up",))

    state.start(rerun=frozenset({failing.check_id}))
    assert state.joining
    fixed = CheckResult(Status.SUCCESS, title="object_creation", resource_type="User", reason="POST /v2/Users answered 201.")
    state.add([fixed])
    state.finish(report_of([fixed], started_at=datetime(2026, 11, 26, 10, 0, tzinfo=UTC), duration=1.0))

    report = state.report()
    assert report is not None
    assert report.results == [fixed, passing], "the rerun's row took its place"
    assert (report.started_at, report.duration, report.target, report.profile) == (STARTED, 42.0, TARGET, "Local"), "the run's facts stay"
    assert report.leftovers == state.leftovers() == ["/Users/left-by-clean-up"]


def test_a_full_run_forgets_the_run_before_until_it_ends():
    state = RunState()
    ran(state, [CheckResult(Status.SUCCESS, title="random_url")], closing=("/Users/x",))
    state.start()
    assert state.report() is None and state.leftovers() == [], "no export of the run before with the new rows"
    state.add([CheckResult(Status.ERROR, title="random_url")])
    state.finish(None)  # cancelled before it gave a report
    assert state.report() is None and not state.joining
    state.start(rerun=frozenset({CheckResult(Status.ERROR, title="random_url").check_id}))
    assert not state.joining, "a rerun with no run shown gives the facts itself"
    again = [CheckResult(Status.SUCCESS, title="random_url")]
    state.add(again)
    state.finish(report_of(again, duration=2.0))
    assert state.report() == report_of(again, duration=2.0)


def test_the_readiness_verdicts_come_from_the_rows():
    state = RunState()
    entra = CheckResult(Status.ERROR, title="entra_readiness", reason="NOT READY for Entra ID: 1 of 14 steps block.")
    okta = CheckResult(Status.SUCCESS, title="okta_readiness", reason="READY for Okta: every step passed.")
    skipped = CheckResult(Status.SKIPPED, title="entra_gallery_readiness", reason="no gallery test ran")
    ran(state, [entra, okta, skipped, CheckResult(Status.SUCCESS, title="random_url")])
    assert list(state.verdicts.items()) == [("entra_readiness", entra), ("okta_readiness", okta)], "a skipped verdict is none"

    state.start(rerun=frozenset({entra.check_id}))
    ready = CheckResult(Status.SUCCESS, title="entra_readiness", reason="READY for Entra ID: every step passed.")
    state.add([ready])
    state.finish(None)
    assert list(state.verdicts.values()) == [ready, okta], "the rerun's verdict in the place of the one before"

    state.start()
    assert state.verdicts == {}


def test_the_runner_tells_the_end_once_to_ended_and_posts_only_the_progress(scim_server):
    """The end of a run has one path, `ended` (the app keeps it, then posts it to the run screen)."""
    posted: list[Message] = []
    ended: list[RunFinished] = []
    request = RunRequest(1, Profile(name="Local", url=scim_server.url), FEW)
    Runner(posted.append, lambda: False, ended=ended.append).run(request)
    (finished,) = ended
    assert finished.report is not None and finished.error is None and not finished.cancelled
    assert not any(isinstance(message, RunFinished) for message in posted)
    assert [result for message in posted if isinstance(message, ResultsBatch) for result in message.results] == finished.report.results
