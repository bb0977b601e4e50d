"""The one run pipeline: a profile, a selection and an observer in, the run's report out.

`scim-tui check` and the app's thread worker both call `run`. It opens the client, stops before
the checks when the target cannot be checked (nothing answers, the credentials are refused, it
is not a SCIM server: one line, `CannotRun`), runs the checks telling the observer as they go,
builds the report, and keeps a complete run in the profile's history.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from collections.abc import Generator
from contextlib import closing
from dataclasses import dataclass
from dataclasses import field
from datetime import UTC
from datetime import datetime
from enum import Enum
from typing import Protocol

from scim_tui.checker import CheckId
from scim_tui.checker import CheckResult
from scim_tui.checker import iter_checks
from scim_tui.checker.exchanges import Redactor
from scim_tui.checker.exchanges import describe_error
from scim_tui.checker.secrets import Secrets
from scim_tui.errors import UserError
from scim_tui.net.connect import open_client
from scim_tui.net.connect import unusable
from scim_tui.net.cutoff import Cutoff
from scim_tui.reports import RunReport
from scim_tui.reports.model import redacted
from scim_tui.reports.summary import RunSummary
from scim_tui.selection import Selection
from scim_tui.signals import RunInterrupted
from scim_tui.store import history
from scim_tui.store.history import RunChanges
from scim_tui.store.journal import journal_lines
from scim_tui.store.journal import run_journal
from scim_tui.store.profiles import Profile


class CannotRun(UserError):
    """The target cannot be checked (nothing answers, the credentials are refused, it is not a
    SCIM server): one line naming the problem and the fix, said before any check ran."""


class Stage(Enum):
    """Where a run is, for what a front end shows before the first result."""

    CONNECTING = "connecting"
    CHECKING = "checking"


class Observer(Protocol):
    """What a front end hears of a run as it goes (called from the run's thread, and `waiting`
    from the thread that waits)."""

    def stage(self, stage: Stage) -> None: ...

    def planned(self, total: int, whole: bool) -> None:
        """How many checks are planned; `whole` is False for a first plan that counts only the
        server's checks, until discovery tells the resource types."""

    def result(self, result: CheckResult) -> None:
        """A result as soon as its check ended, its secrets already taken out."""

    def waiting(self, line: str | None) -> None:
        """A request waits for a busy server (a line), or the wait is over (None)."""

    def note(self, line: str) -> None:
        """Something else the run did (what a killed run of the target had left, deleted)."""

    def cancelled(self) -> bool:
        """Whether to stop: the running checks then end and delete what they created."""


@dataclass(frozen=True)
class RunOptions:
    """How a run is made, beyond its profile and selection."""

    only: frozenset[CheckId] | None = None
    """Run exactly these checks (a rerun of some); such a run is never recorded."""
    recover: bool = True
    """Whether to look for what runs of the target that ended before their clean-up left, and
    delete what the run proves its own."""
    record: bool = True
    """Whether a complete run goes to the profile's history."""
    named: bool = True
    """Whether the report names the profile (a bare --url has no name worth keeping)."""
    secrets: Secrets = field(default_factory=Secrets)
    """Secrets the profile carries outside its authentication (an API key in a header)."""
    cutoff: Cutoff = field(default_factory=Cutoff, compare=False)
    """Ends the run at once while it has created nothing: until its checks begin."""
    review: Callable[[RunReport], None] | None = None
    """Looks at the report before the history keeps it: marks the failures a baseline accepts,
    or refuses the run (raises) as bad usage, so that it is not kept."""


@dataclass
class RunOutcome:
    """A run that reached its end (or was cancelled) and what the history says of it."""

    report: RunReport
    recorded: bool = False
    previous: RunSummary | None = None
    """The profile's previous recorded run, when this one was recorded."""
    changes: RunChanges | None = None
    """What changed since `previous`."""
    warnings: list[str] = field(default_factory=list)
    """Problems that did not stop the run (a history file set aside), a line each."""


def run(profile: Profile, selection: Selection, observer: Observer, options: RunOptions | None = None) -> RunOutcome | None:
    """Run the selected checks on the profile's server and return the outcome; None when the
    run was cancelled before its checks began (nothing was created).

    CannotRun (or a ConnectError) when the target cannot be checked; RunInterrupted on Ctrl-C,
    SIGTERM or SIGHUP, once the running checks deleted what they created.
    """
    options = options or RunOptions()
    conf = selection.check_config(profile.jobs, profile.max_rate, profile.max_resource_types, profile.require_ready)
    started_at, started = datetime.now(UTC), time.monotonic()
    observer.stage(Stage.CONNECTING)
    with open_client(profile, options.cutoff) as connection, run_journal(profile, connection.url, options.recover) as journal:
        connection.secrets.add(*options.secrets)
        problem = unusable(profile, connection)
        if not options.cutoff.commit():  # cut off while it connected: nothing was created
            return None
        if problem is not None:
            raise CannotRun(problem)
        conf.documents = connection.documents or None
        observer.stage(Stage.CHECKING)
        plans = itertools.count()  # a full run's first plan counts its server checks only
        late: list[str] = []
        checks = iter_checks(
            connection.client,
            conf,
            only=options.only,
            secrets=connection.secrets,
            on_plan=lambda total: observer.planned(total, whole=next(plans) > 0 or options.only is not None),
            cancelled=observer.cancelled,
            on_leftovers=late.extend,
            on_wait=observer.waiting,
            exchanges=connection.exchanges,
            journal=journal,
            notes=connection.notes,
        )
        redactor = Redactor(connection.secrets)
        try:
            results = _collected(checks, redactor, observer, late)
        finally:
            for line in journal_lines(journal):
                observer.note(redactor.text(line) or "")
    report = RunReport.create(
        results,
        target=connection.url,
        started_at=started_at,
        duration=time.monotonic() - started,
        profile=profile.name if options.named else None,
        selection=selection,
        secrets=connection.secrets,
        closing_leftovers=late,
        exchanges=connection.exchanges,
    )
    outcome = RunOutcome(report)
    if options.review is not None:
        options.review(report)
    if options.record and options.only is None and not observer.cancelled():
        _remember(outcome)
    return outcome


def _collected(checks: Generator[CheckResult], redactor: Redactor, observer: Observer, late: list[str]) -> list[CheckResult]:
    """The results of the checks, each told to the observer as it comes, until the run ends or
    the observer cancels it; RunInterrupted on Ctrl-C once the running checks cleaned up (`late`:
    what the run-wide clean-up could not delete)."""
    results: list[CheckResult] = []
    try:
        with closing(checks):  # closing lets the running checks delete what they created
            for found in checks:
                result = redacted(found, redactor)  # a server may echo a secret in a body shown on screen
                results.append(result)
                observer.result(result)
                if observer.cancelled():
                    break
    except KeyboardInterrupt as interrupt:
        left_by_the_interrupted = getattr(interrupt, "leftovers", [])  # its clean-up's, told with the interruption
        leftovers = list(dict.fromkeys([item for result in results for item in result.leftovers] + late + left_by_the_interrupted))
        raise RunInterrupted(len(results), [redactor.text(item) or "" for item in leftovers], interrupt) from None
    return results


def _remember(outcome: RunOutcome) -> None:
    """Keep a complete run in the history, and tell what changed since the previous one. A
    history file that cannot be read is set aside with a warning; the run is not affected."""
    report, warn = outcome.report, outcome.warnings.append
    try:
        outcome.previous = history.latest_summary(report.profile or "", warn=warn)
        history.record(report, warn=warn)
    except OSError as exc:
        warn(f"The run was not saved in the history: {describe_error(exc)}")
        return
    outcome.recorded = True
    if outcome.previous is not None:
        outcome.changes = history.compare(outcome.previous, report)
