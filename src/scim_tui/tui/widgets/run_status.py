"""The progress of a run and its summary: the count of each status, the elapsed time, the outcome."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from dataclasses import field
from datetime import datetime
from enum import StrEnum

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.containers import Vertical
from textual.widgets import ProgressBar
from textual.widgets import Static

from scim_tui.checker import Status
from scim_tui.reports.summary import plural
from scim_tui.reports.text import left_on_server
from scim_tui.tui.run_state import Mark
from scim_tui.tui.widgets.status import STATUS_STYLES
from scim_tui.tui.widgets.status import mark_text
from scim_tui.tui.widgets.steady import update_steady


class Phase(StrEnum):
    IDLE = "idle"
    RUNNING = "running"
    CANCELLING = "cancelling"
    FINISHED = "finished"
    CANCELLED = "cancelled"
    FAILED = "failed"
    PAST = "past"
    """A run read back from the history, shown until a run starts."""


@dataclass
class Progress:
    """Everything the status line shows."""

    phase: Phase = Phase.IDLE
    done: int = 0
    planned: int = 0
    size: str = ""
    """How many checks and results there are, as every report says it: ``78 checks · 286 results``."""
    counts: Counter[Status] = field(default_factory=Counter)
    marks: Counter[Mark] = field(default_factory=Counter)
    shown: set[Status] = field(default_factory=lambda: set(Status))
    elapsed: float = 0.0
    error: str | None = None
    leftovers: list[str] = field(default_factory=list)
    """Resources the run created and could not delete."""
    waiting: str | None = None
    """What a request of the running run waits for (a busy server), while it does."""
    compared: int | None = None
    """How many checks the last run and the one before it both ran (None: no run before it)."""
    open_failures: int = 0
    accepted: int = 0
    """Failures the profile's baseline accepts: counted apart from the open ones."""
    baseline: str | None = None
    """What the baseline says beyond that: entries fixed or expired, or why it could not be read."""
    untouched: bool = False
    """Cancelled before its checks began: nothing was created on the server."""
    ran_at: datetime | None = None
    """When the run shown started, for a run read back from the history."""


def outcome_text(progress: Progress) -> Text:
    phase = progress.phase
    if phase is Phase.IDLE:
        return Text("Press r to run the selected checks.", style="dim")
    seconds = f"{progress.elapsed:.1f}s"  # one word: a narrow line never wraps the number from its unit
    if phase is Phase.FAILED:
        return Text(f"Run failed after {seconds}: {progress.error}", style="bold red")
    if phase is Phase.PAST and progress.ran_at is not None:
        return Text(f"Last run {progress.ran_at.astimezone():%Y-%m-%d %H:%M}, from history: {progress.size} · {seconds} · r runs again", style="bold cyan")
    label = {
        Phase.RUNNING: f"Running… {progress.done}/{progress.planned} checks" if progress.planned else f"Running… {plural(progress.done, 'check')}",
        Phase.CANCELLING: "Cancelling: the current check finishes and cleans up…",
        Phase.FINISHED: f"Finished: {progress.size}",
        Phase.CANCELLED: "Run cancelled before any check ran: nothing was created on the server"
        if progress.untouched
        else f"Run cancelled after {progress.size}",
    }[phase]
    text = Text(f"{label} · {seconds}", style="bold yellow" if phase is Phase.CANCELLED else "")
    if progress.waiting and phase in (Phase.RUNNING, Phase.CANCELLING):
        text.append(f" · {progress.waiting}", style="yellow")
    if progress.leftovers:
        text.append(f" · left on the server: {left_on_server(progress.leftovers)}", style="bold red")
    return text


def counts_text(progress: Progress) -> Text:
    """The count of each status some result has, in the order of keys 1 to 7, and each status
    hidden (struck through, whatever its count): one line, even on a narrow terminal."""
    text = Text()
    for status in Status:
        hidden = status not in progress.shown
        if progress.counts[status] or hidden:
            text.append(f"{status.name} {progress.counts[status]}", style="dim strike" if hidden else STATUS_STYLES[status])
            text.append("  ")
    for mark, count in progress.marks.items():
        text.append_text(mark_text(mark))
        text.append(f" {count}  ")
    if progress.accepted:
        text.append(f"{plural(progress.open_failures, 'failure')}, {progress.accepted} accepted  ", style="bold")
    if progress.compared is not None:
        text.append(f"(against the previous run: {plural(progress.compared, 'check')} both ran)", style="dim")
    text.rstrip()
    return text


class RunStatus(Vertical):
    """A progress bar (done vs planned checks) beside the outcome, and the counts below."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="run-line"):
            yield ProgressBar(total=None, show_eta=False, id="run-progress")
            yield Static(id="run-outcome")
        yield Static(id="run-counts")
        yield Static(id="run-baseline")

    def show(self, progress: Progress) -> None:
        bar = self.query_one(ProgressBar)
        bar.display = progress.phase in (Phase.RUNNING, Phase.CANCELLING)  # once it ended, the outcome takes the whole line
        bar.update(total=max(progress.planned, progress.done, 1) if progress.planned else None, progress=progress.done)
        update_steady(self.query_one("#run-outcome", Static), outcome_text(progress))
        counts, summary = self.query_one("#run-counts", Static), counts_text(progress)
        counts.display = bool(summary.plain)
        update_steady(counts, summary)
        line = self.query_one("#run-baseline", Static)
        line.display = bool(progress.baseline)
        update_steady(line, Text(progress.baseline or ""))
