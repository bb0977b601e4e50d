"""The highlighted result's whole reason under the table, wrapped: read without opening it."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from scim_tui.checker.causes import Cause
from scim_tui.reports.summary import plural
from scim_tui.reports.text import told
from scim_tui.store.baseline import Entry
from scim_tui.tui.run_state import Row
from scim_tui.tui.widgets.status import mark_text
from scim_tui.tui.widgets.status import status_text
from scim_tui.tui.widgets.steady import update_steady

HINT = Text("The highlighted result's reason shows here; enter opens it with its HTTP exchanges.", style="dim")


def preview_of(row: Row | None) -> Text:
    if row is None:
        return HINT
    result = row.result
    where = result.resource_type or "server"
    section = f" · RFC {result.rfc} §{result.section}" if result.section else ""
    head = Text.assemble(
        status_text(result.status, row.accepted is not None), "  ", (result.title or "", "bold"), f" · {where}{section}  ", mark_text(row.mark)
    )
    if row.summary:
        head.append(" · the summary of its suite's results, counted there", style="dim")
    head.rstrip()
    lines = [head, Text(told(result) or "(no reason given)")]
    if row.cause is not None:
        lines.append(Text(f"{len(row.cause.results)} results share one cause: {row.cause.request}", style="bold"))
    if row.accepted is not None:
        lines.append(Text(f"Accepted by the baseline: {acceptance(row.accepted)} (a un-accepts)", style="dim"))
    return Text("\n").join(lines)


def cause_preview(cause: Cause, shown: int, expanded: bool) -> Text:
    """A cause's line in short: how many results share it, which checks, and what space does."""
    count = plural(len(cause.results), "result") + (f" ({shown} shown)" if shown != len(cause.results) else "")
    lines = [
        Text.assemble((f"{count} share one cause: ", "bold"), cause.request),
        Text(f"Checks: {named(cause.checks)}"),
        Text(f"space {'folds them' if expanded else 'lists them'}; c shows one line per result.", style="dim"),
    ]
    return Text("\n").join(lines)


def named(checks: list[str], most: int = 6) -> str:
    """The first few checks, and how many more."""
    more = f" and {len(checks) - most} more" if len(checks) > most else ""
    return ", ".join(checks[:most]) + more


def acceptance(entry: Entry) -> str:
    """An entry's note and date, as the preview says them."""
    until = f" until {entry.until}" if entry.until else ""
    return f"{entry.note or '(no note)'}{until}"


class ResultPreview(Static):
    """One result in short: its status, check, RFC section and whole reason."""

    shown: str | None = None
    """The text shown, so that showing the same again changes nothing."""

    def show_row(self, row: Row | None) -> None:
        """Show a row (a rerun's replaces the one before); the same text again changes nothing,
        so a batch of results does not lay the screen out once more."""
        self._show(preview_of(row))

    def show_cause(self, cause: Cause, shown: int, expanded: bool) -> None:
        """Show the line of a cause: the results sharing it, and their checks."""
        self._show(cause_preview(cause, shown, expanded))

    def _show(self, text: Text) -> None:
        if text.plain != self.shown:
            self.shown = text.plain
            update_steady(self, text)
