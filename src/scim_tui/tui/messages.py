"""Messages from the thread workers to the screens (the threads never touch a widget), and
between the run screen and the result screens above it, which never hold each other.

A message bubbles up the DOM, from a screen to the App, never sideways to another screen. So the
two directions take two routes:
- a result screen asks the run screen that opened it (the screen below it in the stack) for a
  rerun or an acceptance by posting `RerunAsked` or `AcceptAsked` to that screen: a request has
  one addressee, the opener, which is the one that owns the rows;
- the run screen tells what changed (`RowsChanged`) on the App's `rows_signal`, which every result
  screen open subscribes to: the run screen need not know who shows its rows, and a screen that
  closed stops hearing at once.
"""

from __future__ import annotations

from collections.abc import Collection
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

from scim_tui.checker import CheckId
from scim_tui.checker import CheckResult
from scim_tui.reports import RunReport
from scim_tui.store.history import RunChanges

if TYPE_CHECKING:
    from scim_tui.tui.run_state import Row


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


class RerunAsked(Message):
    """A screen above the run screen asks it to run these checks again (their rows are replaced
    in place, and marked)."""

    bubble = False  # for the run screen it is posted to, and no one else

    def __init__(self, checks: frozenset[CheckId]) -> None:
        super().__init__()
        self.checks = checks


class AcceptAsked(Message):
    """A screen above the run screen asks it to accept the failure of this row in the profile's
    baseline, or to un-accept it when it is accepted."""

    bubble = False

    def __init__(self, key: str) -> None:
        super().__init__()
        self.key = key


@dataclass(frozen=True)
class RowsChanged:
    """What the run screen tells on the App's `rows_signal`: rows changed (a rerun replaced them,
    an acceptance marked them), or a run began or ended."""

    rows: Mapping[str, Row]
    """Every row of the run screen now, by key (the run state's own: read it, never change it)."""
    changed: Collection[str]
    """The keys of the rows that changed."""
    running: bool
    """Whether a run goes (a rerun waits for its end)."""
