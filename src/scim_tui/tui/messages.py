"""Messages from the thread workers to the screens (the threads never touch a widget)."""

from __future__ import annotations

from textual.message import Message

from scim_tui.checker import CheckResult
from scim_tui.reports import RunReport
from scim_tui.store.history import RunChanges


class RunMessage(Message):
    """A message about one run; ``run_id`` lets a screen ignore a cancelled run's stragglers."""

    def __init__(self, run_id: int) -> None:
        super().__init__()
        self.run_id = run_id


class RunPlanned(RunMessage):
    """How many checks the run plans (sent again once discovery tells the resource types).

    ``whole`` is False for a first plan that may grow: a full run counts only its server
    checks until discovery tells the resource types."""

    def __init__(self, run_id: int, planned: int, whole: bool = True) -> None:
        super().__init__(run_id)
        self.planned = planned
        self.whole = whole

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, RunPlanned) and message.run_id == self.run_id


class ResultsBatch(RunMessage):
    """The results that arrived since the last batch, in order. Never replaced: it carries data."""

    def __init__(self, run_id: int, results: list[CheckResult]) -> None:
        super().__init__(run_id)
        self.results = results


class RunWaiting(RunMessage):
    """A request waits for a busy server (429, 503): what it waits for, or None once it is over."""

    def __init__(self, run_id: int, waiting: str | None) -> None:
        super().__init__(run_id)
        self.waiting = waiting


class RunFinished(RunMessage):
    """The run ended: completely, cancelled, or stopped by an error (one line, no traceback).

    ``report`` holds what the run gave; ``changes`` what changed since the profile's
    previous recorded run; ``warnings`` the problems that did not stop the run, a line each;
    ``notes`` what else the run did, a line each (what a killed run had left, deleted).
    """

    def __init__(
        self,
        run_id: int,
        cancelled: bool = False,
        error: str | None = None,
        report: RunReport | None = None,
        changes: RunChanges | None = None,
    ) -> None:
        super().__init__(run_id)
        self.cancelled = cancelled
        self.error = error
        self.report = report
        self.changes = changes
        self.warnings: list[str] = []
        self.notes: list[str] = []


class PastRunRead(Message):
    """The profile's last run, read from its history (None when it has none that reads), and a
    line for each history file that did not read."""

    def __init__(self, report: RunReport | None, warnings: list[str]) -> None:
        super().__init__()
        self.report = report
        self.warnings = warnings


class ResourceTypesFound(Message):
    """The names of the resource types the server publishes, or why they could not be read."""

    def __init__(self, names: list[str], error: str | None = None) -> None:
        super().__init__()
        self.names = names
        self.error = error
