"""The bridge between a profile's selection and the engine, run inside a thread worker.

Nothing here touches a widget: results go to the screen as batched messages, at most
about ten a second, because one table update per result stalls the UI at thousands of rows.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from datetime import UTC
from datetime import datetime

from scim2_models import ResourceType
from textual.message import Message

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import CheckResult
from scim_tui.checker import iter_checks
from scim_tui.checker.discovery import DISCOVERY_QUERY
from scim_tui.checker.exchanges import Redactor
from scim_tui.checker.exchanges import describe_error
from scim_tui.net.connect import open_client
from scim_tui.net.connect import unusable
from scim_tui.net.cutoff import Cutoff
from scim_tui.reports import RunReport
from scim_tui.reports.model import redacted
from scim_tui.selection import Selection
from scim_tui.store import history
from scim_tui.store.journal import journal_lines
from scim_tui.store.journal import run_journal
from scim_tui.store.profiles import Profile
from scim_tui.tui.messages import ResourceTypesFound
from scim_tui.tui.messages import ResultsBatch
from scim_tui.tui.messages import RunFinished
from scim_tui.tui.messages import RunPlanned
from scim_tui.tui.messages import RunWaiting

BATCH_INTERVAL = 0.1
"""Seconds between two batches of results sent to the UI."""

Post = Callable[[Message], object]


@dataclass(frozen=True)
class RunRequest:
    """What one run checks: a profile, its selection, and for a rerun the exact checks."""

    run_id: int
    profile: Profile
    conf: CheckConfig
    selection: Selection
    only: frozenset[CheckId] | None = None
    recover: bool = False
    """Whether to look for what runs of the server that ended before their clean-up left, and
    delete what the run proves its own (the user said so)."""
    cutoff: Cutoff = field(default_factory=Cutoff, compare=False)
    """Ends the run at once while it has created nothing: until its checks begin."""

    @property
    def recorded(self) -> bool:
        """Complete runs go to the history; a rerun of a few checks does not."""
        return self.only is None


class Runner:
    """Runs one request in the calling thread and posts its progress.

    `ended` hears of the end too, from the thread itself: the app may have stopped listening
    for messages by then (it quit, or a signal ended it).
    """

    def __init__(self, post: Post, cancelled: Callable[[], bool], interval: float = BATCH_INTERVAL, ended: Callable[[RunFinished], None] | None = None) -> None:
        self.post = post
        self.cancelled = cancelled
        self.interval = interval
        self.ended = ended

    def run(self, request: RunRequest) -> None:
        finished = RunFinished(request.run_id)
        try:
            finished = self._stream(request)
        except Exception as exc:  # a bad profile or an unreachable server: one line, never a traceback
            finished.error = describe_error(exc)
        finished.cancelled = self.cancelled()
        if self.ended is not None:
            self.ended(finished)
        self.post(finished)

    def _stream(self, request: RunRequest) -> RunFinished:
        run_id = request.run_id
        started_at, started = datetime.now(UTC), time.monotonic()
        everything: list[CheckResult] = []
        late: list[str] = []
        plans = itertools.count()  # a full run's first plan counts its server checks only
        with open_client(request.profile, request.cutoff) as connection, run_journal(request.profile, connection.url, request.recover) as journal:
            problem = unusable(request.profile, connection)
            if not request.cutoff.commit():  # cut off while it connected: nothing was created
                return RunFinished(run_id)
            if problem is not None:  # nothing answers, or the credentials are refused: one line, as `scim-tui check` says it
                return RunFinished(run_id, error=None if self.cancelled() else problem)
            results = iter_checks(
                connection.client,
                replace(request.conf, documents=connection.documents or None),
                only=request.only,
                secrets=connection.secrets,
                on_plan=lambda planned: self.post(RunPlanned(run_id, planned, whole=next(plans) > 0 or request.only is not None)),
                cancelled=self.cancelled,
                on_leftovers=late.extend,
                on_wait=lambda waiting: self.post(RunWaiting(run_id, waiting)),
                exchanges=connection.exchanges,
                journal=journal,
            )
            batch: list[CheckResult] = []
            sent = time.monotonic()
            redactor = Redactor(connection.secrets)
            try:
                for found in results:
                    result = redacted(found, redactor)  # a server may echo a secret in a body shown on screen
                    batch.append(result)
                    everything.append(result)
                    if time.monotonic() - sent >= self.interval:
                        self.post(ResultsBatch(run_id, batch))
                        batch, sent = [], time.monotonic()
                    if self.cancelled():
                        break
            finally:
                results.close()  # the engine finishes the running check and cleans up
                if batch:
                    self.post(ResultsBatch(run_id, batch))
        report = RunReport.create(
            everything,
            target=connection.url,
            started_at=started_at,
            duration=time.monotonic() - started,
            profile=request.profile.name,
            selection=request.selection,
            secrets=connection.secrets,
            closing_leftovers=late,
            exchanges=connection.exchanges,
        )
        finished = RunFinished(run_id, report=report)
        finished.notes = [redactor.text(line) or "" for line in journal_lines(journal)]
        if request.recorded and not self.cancelled():
            remember_run(report, finished)
        return finished


def remember_run(report: RunReport, finished: RunFinished) -> None:
    """Record a complete run and tell, on ``finished``, what changed since the previous one.

    A history file that cannot be read is set aside with a warning; the run is not affected.
    """
    warn = finished.warnings.append
    try:
        previous = history.latest_summary(report.profile or "", warn=warn)
        history.record(report, warn=warn)
    except OSError as exc:
        warn(f"The run was not saved in the history: {describe_error(exc)}")
        return
    if previous is not None:
        finished.changes = history.compare(previous, report)


def find_resource_types(profile: Profile, post: Post, cutoff: Cutoff | None = None) -> None:
    """Post the names of the resource types the profile's server publishes."""
    try:
        with open_client(profile, cutoff) as connection:
            response = connection.client.query(ResourceType, **DISCOVERY_QUERY)
        names = [resource_type.name for resource_type in response.resources or [] if resource_type.name]
    except Exception as exc:
        post(ResourceTypesFound([], error=describe_error(exc)))
        return
    post(ResourceTypesFound(names))
