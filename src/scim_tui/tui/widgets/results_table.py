"""The results pane: one row per result, grouped by resource type, kept in step with RunState.

Rows are keyed (see run_state.row_key), so a batch appends rows or updates cells in
place; only a change of order (a filter, a rerun that adds rows) rebuilds the table.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.widgets import DataTable
from textual.widgets.data_table import RowKey

from scim_tui.tui.run_state import Row
from scim_tui.tui.widgets.status import mark_text
from scim_tui.tui.widgets.status import status_text

GROUP_PREFIX = "group:"
COLUMNS = (("status", "Status"), ("check", "Check"), ("change", "Change"), ("reason", "Reason"))
FIXED_WIDTHS = {"status": 10, "check": 36, "change": 9}
"""The reason takes the rest of the width, so it never needs a horizontal scroll."""
MIN_REASON_WIDTH = 30

Entry = tuple[str, Row | str]
"""A displayed line: a result row, or the name of a group heading."""


def layout(rows: Iterable[Row]) -> list[Entry]:
    entries: list[Entry] = []
    group = None
    for row in rows:
        if row.group != group:
            group = row.group
            entries.append((f"{GROUP_PREFIX}{group}", group))
        entries.append((row.key, row))
    return entries


def cells(item: Row | str) -> tuple[Text, Text, Text, Text]:
    if isinstance(item, str):
        return Text("━━"), Text(item, style="bold"), Text(""), Text("")
    result = item.result
    reason = " ".join((result.reason or "").split())
    return status_text(result.status), Text(result.title or ""), mark_text(item.mark, short=True), Text(reason)


class ResultsTable(DataTable[Text]):
    """The results of the run, with their group headings."""

    BINDINGS = [Binding("enter", "select_cursor", "Open result", id="results.open")]

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", **kwargs)
        self.keys: list[str] = []
        self.entries: list[Entry] = []
        self.reason_width = MIN_REASON_WIDTH
        self._add_columns()

    def _add_columns(self) -> None:
        for key, label in COLUMNS:
            self.add_column(label, key=key, width=FIXED_WIDTHS.get(key, self.reason_width))

    def on_resize(self, event: events.Resize) -> None:
        padding = 2 * self.cell_padding * len(COLUMNS)
        width = max(MIN_REASON_WIDTH, event.size.width - sum(FIXED_WIDTHS.values()) - padding - 2)
        if width != self.reason_width:
            self.reason_width = width
            self._rebuild(self.entries, columns=True)

    def show(self, rows: list[Row], updated: Iterable[str] = ()) -> None:
        """Display these rows: append what is new, update what changed, rebuild if the order changed."""
        entries = layout(rows)
        self.entries = entries
        shown = len(self.keys)
        if [key for key, _ in entries[:shown]] != self.keys:
            self._rebuild(entries)
            return
        for key, item in entries[shown:]:
            self.add_row(*cells(item), key=key)
            self.keys.append(key)
        by_key = dict(entries[:shown])
        for key in updated:
            if key in by_key:
                for (column, _), value in zip(COLUMNS, cells(by_key[key]), strict=True):
                    self.update_cell(key, column, value)

    def _rebuild(self, entries: list[Entry], columns: bool = False) -> None:
        selected = self.selected_key
        self.clear(columns=columns)
        if columns:
            self._add_columns()
        self.keys = []
        for key, item in entries:
            self.add_row(*cells(item), key=key)
            self.keys.append(key)
        if selected in self.keys:
            self.move_cursor(row=self.keys.index(selected), animate=False)

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        """Skip DataTable's measure of every cell of every new row, which stalls the UI for a second
        at 10,000 rows: every column here has a fixed width and every row one line."""
        new_rows = list(new_rows)
        irregular = self._labelled_row_exists or any(self.rows[key].auto_height for key in new_rows if key in self.rows)
        if irregular or any(column.auto_width for column in self.columns.values()):
            super()._update_dimensions(new_rows)
            return
        width = sum(column.get_render_width(self) for column in self.columns.values())
        self.virtual_size = Size(width, self._total_row_height + (self.header_height if self.show_header else 0))

    @property
    def selected_key(self) -> str | None:
        """The key of the result under the cursor (None on a group heading or an empty table)."""
        if not self.keys or not 0 <= self.cursor_row < len(self.keys):
            return None
        key = self.keys[self.cursor_row]
        return None if key.startswith(GROUP_PREFIX) else key

    def select_key(self, key: str) -> None:
        if key in self.keys:
            self.move_cursor(row=self.keys.index(key), animate=False)
