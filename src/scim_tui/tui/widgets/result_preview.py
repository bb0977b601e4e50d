"""The highlighted result's whole reason under the table, wrapped: read without opening it."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from scim_tui.tui.run_state import Row
from scim_tui.tui.widgets.status import mark_text
from scim_tui.tui.widgets.status import status_text

HINT = Text("The highlighted result's reason shows here; enter opens it with its HTTP exchanges.", style="dim")


def preview_of(row: Row | None) -> Text:
    if row is None:
        return HINT
    result = row.result
    where = result.resource_type or "server"
    section = f" · RFC {result.rfc} §{result.section}" if result.section else ""
    head = Text.assemble(status_text(result.status), "  ", (result.title or "", "bold"), f" · {where}{section}  ", mark_text(row.mark))
    return Text.assemble(head.rstrip() or head, "\n", " ".join((result.reason or "(no reason given)").split()))


class ResultPreview(Static):
    """One result in short: its status, check, RFC section and whole reason."""

    shown: Row | None = None

    def show_row(self, row: Row | None) -> None:
        """Show a row (a rerun's replaces the one before); the same row again changes nothing,
        so a batch of results does not lay the screen out once more."""
        if row is not self.shown:
            self.shown = row
            self.update(preview_of(row))
