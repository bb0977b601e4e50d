"""Each identity provider's readiness (entra_readiness, okta_readiness ...), shown above the results once a run gave it."""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Mapping

from rich.text import Text
from textual.widgets import Static

from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.tui.widgets.status import STATUS_STYLES


def readiness_text(verdicts: Iterable[CheckResult]) -> Text:
    """One line per verdict, cut with … at the edge: READY in green, NOT READY (naming the blocking
    steps) in the colour of an ERROR. The result of each verdict holds it whole."""
    text = Text()
    for verdict in verdicts:
        ready = verdict.status is Status.SUCCESS
        head, _, rest = (verdict.reason or "").partition(": ")
        text.append("✔ " if ready else "✘ ", style=STATUS_STYLES[verdict.status])
        text.append(head, style=STATUS_STYLES[verdict.status])
        text.append(f": {rest}\n" if rest else "\n")
    text.rstrip()
    return text


def summary_text(verdicts: Iterable[CheckResult]) -> Text:
    """Every verdict in one line, for a short terminal: the providers NOT READY, then those READY."""
    names = {
        ready: [(r.reason or "").partition(": ")[0].partition(" for ")[2] for r in verdicts if (r.status is Status.SUCCESS) is ready] for ready in (False, True)
    }
    text = Text()
    if names[False]:
        text.append(f"✘ NOT READY for {', '.join(names[False])}", style=STATUS_STYLES[Status.ERROR])
    if names[True]:
        text.append(" · " if names[False] else "")
        text.append(f"✔ READY for {', '.join(names[True])}", style=STATUS_STYLES[Status.SUCCESS])
    return text


class Readiness(Static):
    """The readiness verdicts of the run shown; hidden when the run gave none. A line each, or
    all in one line on a short terminal (`short`), so that the results keep their rows."""

    def __init__(self, **options: object) -> None:
        super().__init__(**options)  # type: ignore[arg-type]
        self.verdicts: dict[str, CheckResult] = {}
        """The verdicts shown (the run state's, when they last changed)."""
        self.short = False

    def shorten(self, short: bool) -> None:
        """Show the verdicts in one line (True) or a line each."""
        if short != self.short:
            self.short = short
            self._render_verdicts()

    def on_mount(self) -> None:
        self.display = False

    def show(self, verdicts: Mapping[str, CheckResult]) -> None:
        """Show these verdicts (RunState.verdicts); drawn again only when they changed."""
        if verdicts != self.verdicts:
            self.verdicts = dict(verdicts)
            self._render_verdicts()

    def _render_verdicts(self) -> None:
        self.display = bool(self.verdicts)
        self.update((summary_text if self.short else readiness_text)(self.verdicts.values()))
