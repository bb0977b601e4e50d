"""The bridge between a profile's selection and the engine, run inside a thread worker.

Nothing here touches a widget: results go to the screen as batched messages, at most
about ten a second, because one table update per result stalls the UI at thousands of rows.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field

from scim2_models import ResourceType
from textual.message import Message

from scim_tui.checker import CheckResult
from scim_tui.checker.discovery import DISCOVERY_QUERY
from scim_tui.checker.exchanges import describe_error
from scim_tui.net.connect import open_client
from scim_tui.net.cutoff import Cutoff
from scim_tui.run import RunOptions
from scim_tui.run import Stage
from scim_tui.run import run
from scim_tui.selection import Selection
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
    """What one run checks: a profile, its selection, and how (for a rerun, the exact checks)."""

    run_id: int
    profile: Profile
    selection: Selection
    options: RunOptions = field(default_factory=lambda: RunOptions(recover=False))

    @property
    def cutoff(self) -> Cutoff:
        """Ends the run at once while it has created nothing: until its checks begin."""
        return self.options.cutoff


class Runner:
    """Runs one request in the calling thread (the run pipeline) and posts its progress.

    The end of the run (`RunFinished`) goes to `ended`, once, from the thread itself, and
    nowhere else: the app's `run_ended` keeps it, since the app may have stopped listening for
    messages by then (it quit, or a signal ended it), and passes it on to the run's screen.
    Without `ended`, the end is posted with the progress.
    """

    def __init__(
        self, post: Post, cancelled: Callable[[], bool], interval: float = BATCH_INTERVAL, ended: Callable[[RunFinished], object] | None = None
    ) -> None:
        self.post = post
        self.cancelled = cancelled
        self.interval = interval
        self.ended = ended or post

    def run(self, request: RunRequest) -> None:
        finished = RunFinished(request.run_id)
        observer = Poster(request.run_id, self.post, self.cancelled, self.interval)
        try:
            outcome = run(request.profile, request.selection, observer, request.options)
        except Exception as exc:  # a bad profile, a target that cannot be checked: one line, never a traceback
            finished.error = None if self.cancelled() else describe_error(exc)
        else:
            if outcome is not None:
                finished = RunFinished(request.run_id, report=outcome.report, changes=outcome.changes)
                finished.warnings = outcome.warnings
        finally:
            observer.flush()
        finished.notes = observer.notes
        finished.cancelled = self.cancelled()
        self.ended(finished)


class Poster:
    """The run's observer in the app: results posted in batches, at most one per `interval`."""

    def __init__(self, run_id: int, post: Post, cancelled: Callable[[], bool], interval: float) -> None:
        self.run_id = run_id
        self.post = post
        self.cancelled = cancelled
        self.interval = interval
        self.batch: list[CheckResult] = []
        self.sent = time.monotonic()
        self.notes: list[str] = []

    def stage(self, stage: Stage) -> None:
        pass  # the run screen says "running" from the start

    def planned(self, total: int, whole: bool) -> None:
        self.post(RunPlanned(self.run_id, total, whole=whole))

    def waiting(self, line: str | None) -> None:
        self.post(RunWaiting(self.run_id, line))

    def note(self, line: str) -> None:
        self.notes.append(line)

    def result(self, result: CheckResult) -> None:
        self.batch.append(result)
        if time.monotonic() - self.sent >= self.interval:
            self.flush()

    def flush(self) -> None:
        if self.batch:
            self.post(ResultsBatch(self.run_id, self.batch))
        self.batch, self.sent = [], time.monotonic()


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
