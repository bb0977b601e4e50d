"""The results pane: one line per result, grouped by resource type, drawn from RunState's filtered rows;
by cause, one line for the results that share one, expanded with space (result_lines.py).

A Line API widget: it holds the displayed lines as a list and draws only the lines on screen.
A rerun or a filter lays the list out in one pass, whatever its length; a batch of a run
streaming in adds its lines; nothing is built per row (a DataTable's refresh grows with its
rows: 0.5 s for 10,000).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from rich.cells import set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from scim_tui.checker import Status
from scim_tui.checker.results import STATUS_WIDTH
from scim_tui.reports.summary import plural
from scim_tui.reports.text import told
from scim_tui.tui.run_state import Mark
from scim_tui.tui.run_state import Row
from scim_tui.tui.run_state import severity
from scim_tui.tui.widgets.motion import motion_bindings
from scim_tui.tui.widgets.result_lines import CauseLine
from scim_tui.tui.widgets.result_lines import Line
from scim_tui.tui.widgets.result_lines import Lines
from scim_tui.tui.widgets.status import mark_text
from scim_tui.tui.widgets.status import status_text
from scim_tui.tui.widgets.status import suite_text

HEADINGS = (Text("Status"), Text("Check"), Text("Change"), Text("Reason"))
GAP = 2
MARGIN = 1
"""Blank cells before the first column."""
MIN_REASON_WIDTH = 16
"""The reason's least width beside the longest check names: the preview below shows it whole."""
HEADER_LINES = 1
NESTED = "  "
"""Before the check of a result listed under its cause."""


def cells(line: Line) -> tuple[Text, Text, Text, Text]:
    item = line.item
    if isinstance(item, str):
        return Text("━━"), Text(item, style="bold"), Text(""), Text("")
    if isinstance(item, CauseLine):
        return status_text(item.worst, item.accepted), Text(check_of_cause(item), style="bold"), Text(""), Text(reason_of_cause(item))
    result = item.result
    reason = told(result)
    status = suite_text(result.status) if item.summary else status_text(result.status, item.accepted is not None)
    return status, Text(f"{NESTED if line.nested else ''}{result.title or ''}"), mark_text(item.mark, short=True), Text(reason)


def check_of_cause(cause: CauseLine) -> str:
    """``▸ 133 results``: how many results shown share it (▾ once they are listed under it)."""
    return f"{'▾' if cause.expanded else '▸'} {plural(len(cause.rows), 'result')}"


def reason_of_cause(cause: CauseLine) -> str:
    """``one cause: GET /v2/Users answered 500``, after the count of each status when they differ."""
    statuses = Counter(row.result.status for row in cause.rows)
    if len(statuses) == 1:
        return f"one cause: {cause.cause.request}"
    each = ", ".join(f"{statuses[status]} {status.name}" for status in sorted(statuses, key=severity))
    return f"{each} · one cause: {cause.cause.request}"


def failed(line: Line) -> bool:
    """An open failure (one the baseline does not accept), or a cause holding one: where `n` and `p` stop."""
    return not isinstance(line.item, str) and line.item.open_failure


def fit(text: str, width: int) -> str:
    """The text in exactly `width` cells: padded, or cut with an ellipsis."""
    if cell_len(text) <= width:
        return set_cell_size(text, width)
    return set_cell_size(text, width - 1) + "…" if width > 0 else ""


@dataclass(frozen=True)
class Columns:
    """The widths the content asks for; the reason takes what the pane has left. The change
    column shows only when a row is marked (a rerun, a run compared with the previous one)."""

    status: int = STATUS_WIDTH
    check: int = len("Check")
    change: int = 0

    @classmethod
    def of(cls, lines: Iterable[Line]) -> Columns:
        names: set[str] = set()
        marks: set[Mark] = set()
        accepted: set[Status] = set()
        for line in lines:
            item = line.item
            if isinstance(item, str):
                names.add(item)
            elif isinstance(item, CauseLine):
                names.add(check_of_cause(item))
                if item.accepted:
                    accepted.add(item.worst)
            else:
                names.add(f"{NESTED if line.nested else ''}{item.result.title or ''}")
                if item.mark is not None:
                    marks.add(item.mark)
                if item.accepted is not None:
                    accepted.add(item.result.status)
        return cls(
            status=max([cls.status, *(cell_len(status_text(status, accepted=True).plain) for status in accepted)]),
            check=max([cls.check, *(cell_len(name) for name in names)]),
            change=max([len("Change"), *(cell_len(mark_text(mark, short=True).plain) for mark in marks)]) if marks else 0,
        )

    def widest(self, other: Columns) -> Columns:
        """Wide enough for both."""
        return Columns(max(self.status, other.status), max(self.check, other.check), max(self.change, other.change))

    def widths(self, total: int) -> tuple[int, int, int, int]:
        fixed = MARGIN + self.status + self.change + (3 if self.change else 2) * GAP
        check = max(len("Check"), min(self.check, total - fixed - MIN_REASON_WIDTH))
        return self.status, check, self.change, max(0, total - fixed - check)


class _LineMessage(Message):
    """A message about one line of a results table: the key of its result (None for a heading)."""

    def __init__(self, table: ResultsTable, key: str | None) -> None:
        super().__init__()
        self.table = table
        self.key = key

    @property
    def control(self) -> ResultsTable:
        return self.table


class ResultsTable(ScrollView, can_focus=True):
    """The results of the run, with their group headings, under a fixed header line."""

    COMPONENT_CLASSES = {"results-table--header", "results-table--cursor"}
    BINDINGS = [
        Binding("enter", "open", "Open result", show=False, id="results.open"),  # the preview says it
        Binding("up", "cursor_up", "Up", show=False),
        Binding("down", "cursor_down", "Down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("home", "first", "First", show=False),
        Binding("end", "last", "Last", show=False),
        *motion_bindings(),
    ]

    class Opened(_LineMessage):
        """Enter (or a click on the cursor's line) on a result."""

    class CursorMoved(_LineMessage):
        """The cursor is on another line; key is None on a group heading or a cause's line."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.lines = Lines()
        self.rows: list[Row] = []
        """The rows shown (RunState's filtered order), laid out again when causes expand."""
        self._keys: list[str] = []
        """The keys of `rows`, in their order: where a row placed after another goes is found at C speed."""
        self.columns = Columns()
        self.cursor_row = 0

    # What is shown

    @property
    def entries(self) -> list[Line]:
        return self.lines.entries

    def show(self, rows: Iterable[Row]) -> None:
        """Display these rows (RunState's filtered order); the cursor stays on its line if it still shows."""
        self.rows = list(rows)
        self._keys = [row.key for row in self.rows]
        self._lay_out()

    def extend(self, rows: Iterable[Row], joined: Iterable[Row] = (), placed: Mapping[str, str] | None = None) -> bool:
        """Display these rows after the others (a batch of a run streaming in), or right after the
        row `placed` names for theirs (RunState's Change), and the causes the rows shown
        (`joined`) now share: the cost is the batch's, not the run's. False when a row placed
        follows one not shown: then the rows are to be shown whole (`show`)."""
        rows = list(rows)
        placed = placed or {}
        if not self._take_rows(rows, placed):
            return False
        current, shown = self._key_at(self.cursor_row), len(self.entries)
        touched = self.lines.extend(rows, joined, placed)
        if touched is None:
            self._lay_out()
            return True
        moved = any(row.key in placed for row in rows)  # lines went before the end: those below them moved down
        columns = self.columns.widest(Columns.of(touched))
        # The virtual size set as `virtual_size = ...` would draw every line again: set quietly, the
        # layout (for the scrollbar) draws none, and only the lines added and those that changed are.
        self.set_reactive(ResultsTable.virtual_size, Size(0, len(self.entries) + HEADER_LINES))
        self.refresh(layout=True, repaint=moved)
        if columns != self.columns:
            self.columns = columns
            self.refresh()
        elif not moved:
            self.refresh_lines(shown + HEADER_LINES, len(self.entries) - shown)
            for line in touched:
                if (place := self.lines.index[line.key]) < shown:
                    self.refresh_line(place + HEADER_LINES)
        row = self.lines.index.get(current, self.cursor_row) if current is not None else self.cursor_row
        self._place_cursor(row, current, scroll=row != self.cursor_row)
        return True

    def _take_rows(self, rows: list[Row], placed: Mapping[str, str]) -> bool:
        """Keep the rows shown in RunState's order: each after the others, or after the one `placed`
        names; False when that one is not shown."""
        for row in rows:
            after = placed.get(row.key)
            if after is None:
                self.rows.append(row)
                self._keys.append(row.key)
                continue
            try:
                place = self._keys.index(after)
            except ValueError:
                return False
            self.rows.insert(place + 1, row)
            self._keys.insert(place + 1, row.key)
        return True

    def _lay_out(self) -> None:
        current = self._key_at(self.cursor_row)
        self.lines.lay_out(self.rows)
        self.columns = Columns.of(self.entries)
        self.virtual_size = Size(0, len(self.entries) + HEADER_LINES)
        self.refresh()
        row = self.lines.index.get(current, self.cursor_row) if current is not None else self.cursor_row
        self._place_cursor(row, current, scroll=row != self.cursor_row)

    @property
    def by_cause(self) -> bool:
        return self.lines.by_cause

    def show_by_cause(self, by_cause: bool) -> None:
        """One line per shared cause, or one per result; the cursor stays on its result or cause."""
        self.lines.by_cause = by_cause
        self._lay_out()

    @property
    def keys(self) -> list[str]:
        """The keys of the lines, in the order shown."""
        return [line.key for line in self.entries]

    @property
    def row_count(self) -> int:
        return len(self.entries)

    def row_cells(self, key: str) -> tuple[Text, Text, Text, Text]:
        """The status, check, change and reason shown on the line of this key."""
        return cells(self.entries[self.lines.index[key]])

    def _key_at(self, row: int) -> str | None:
        return self.entries[row].key if 0 <= row < len(self.entries) else None

    # The cursor

    @property
    def selected_key(self) -> str | None:
        """The key of the result under the cursor (None on a group heading, a cause's line or an empty table)."""
        line = self.entries[self.cursor_row] if 0 <= self.cursor_row < len(self.entries) else None
        return line.key if line is not None and isinstance(line.item, Row) else None

    @property
    def selected_cause(self) -> CauseLine | None:
        """The cause of the line under the cursor: its own, or the one it is listed under."""
        return self.lines.cause_at(self.cursor_row)

    def select_key(self, key: str) -> None:
        """Put the cursor on the line of this key; a result folded in its cause's line is listed first."""
        row = next((row for row in self.rows if row.key == key), None) if key not in self.lines.index else None
        if row is not None and row.cause is not None and self.by_cause:
            self.lines.expanded.add(row.cause.request)
            self._lay_out()
        if key in self.lines.index:
            self.move_cursor(self.lines.index[key])

    def action_toggle_cause(self) -> None:
        """Expand the cause under the cursor (list its results under it), or collapse it."""
        cause = self.selected_cause
        if cause is None:
            self.notify("Put the cursor on a line of results sharing one cause (▸) to expand it.")
            return
        self.lines.expanded ^= {cause.cause.request}
        self.cursor_row = self.lines.index[cause.key]
        self._lay_out()
        self.post_message(self.CursorMoved(self, self.selected_key))  # the preview tells what space does now

    def next_failure(self, forward: bool = True) -> bool:
        """Move the cursor to the next (or previous) failed result, round the end; False when none shows."""
        count = len(self.entries)
        rows = [(self.cursor_row + (step if forward else -step)) % count for step in range(1, count + 1)]
        return self._move_to_failure(rows)

    def first_failure(self) -> bool:
        """Put the cursor on the first failed result shown; False when none shows."""
        return self._move_to_failure(range(len(self.entries)))

    def _move_to_failure(self, rows: Iterable[int]) -> bool:
        row = next((row for row in rows if failed(self.entries[row])), None)
        if row is not None:
            self.move_cursor(row)
        return row is not None

    def move_cursor(self, row: int) -> None:
        """Put the cursor on this line (clamped to the lines there are) and scroll it into view."""
        self._place_cursor(row, self._key_at(self.cursor_row), scroll=True)

    def _place_cursor(self, row: int, before: str | None, scroll: bool) -> None:
        """Move the cursor; the lines it left and reached are drawn again (all of them, if it scrolled)."""
        left, self.cursor_row = self.cursor_row, max(0, min(row, len(self.entries) - 1))
        if scroll and self._scroll_to_cursor():
            self.refresh()
        else:
            self.refresh_line(left + HEADER_LINES)
            self.refresh_line(self.cursor_row + HEADER_LINES)
        if self._key_at(self.cursor_row) != before:
            self.post_message(self.CursorMoved(self, self.selected_key))

    @property
    def _page(self) -> int:
        return max(1, self.scrollable_content_region.height - HEADER_LINES)

    def _scroll_to_cursor(self) -> bool:
        """Scroll the cursor's line into view; whether that took a scroll."""
        top = round(self.scroll_y)
        if self.cursor_row < top:
            self.scroll_to(y=self.cursor_row, animate=False, immediate=True)
        elif self.cursor_row >= top + self._page:
            self.scroll_to(y=self.cursor_row - self._page + 1, animate=False, immediate=True)
        else:
            return False
        return True

    def on_resize(self) -> None:
        """A pane that shrank (the preview below grew, the terminal did) keeps the cursor in view."""
        self._scroll_to_cursor()

    def action_cursor_up(self) -> None:
        self.move_cursor(self.cursor_row - 1)

    def action_cursor_down(self) -> None:
        self.move_cursor(self.cursor_row + 1)

    def action_page_up(self) -> None:
        self.move_cursor(self.cursor_row - self._page)

    def action_page_down(self) -> None:
        self.move_cursor(self.cursor_row + self._page)

    def action_first(self) -> None:
        self.move_cursor(0)

    def action_last(self) -> None:
        self.move_cursor(len(self.entries) - 1)

    def action_open(self) -> None:
        """Open the result under the cursor; on a cause's line, expand or collapse it."""
        if (key := self.selected_key) is not None:
            self.post_message(self.Opened(self, key))
        elif isinstance(self.entries[self.cursor_row].item if self.entries else None, CauseLine):
            self.action_toggle_cause()

    def on_click(self, event: events.Click) -> None:
        """A click puts the cursor on a line; a click on the cursor's line opens it."""
        offset = event.get_content_offset(self)
        if offset is None or offset.y < HEADER_LINES:
            return
        row = round(self.scroll_y) + offset.y - HEADER_LINES
        if row >= len(self.entries):
            return
        if row == self.cursor_row:
            self.action_open()
        else:
            self.move_cursor(row)

    # Drawing

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        if y < HEADER_LINES:
            return self._strip(HEADINGS, width, self.get_component_rich_style("results-table--header"))
        row = round(self.scroll_y) + y - HEADER_LINES
        if row >= len(self.entries):
            return Strip.blank(width, self.rich_style)
        if row == self.cursor_row:
            return self._strip(cells(self.entries[row]), width, self.get_component_rich_style("results-table--cursor"), over=True)
        return self._strip(cells(self.entries[row]), width, self.rich_style)

    def _strip(self, texts: Sequence[Text], width: int, base: Style, over: bool = False) -> Strip:
        """One line of cells; `over` lets the base style win over the cells' own (the cursor line)."""
        gap = Segment(" " * GAP, base)
        segments = [Segment(" " * MARGIN, base)]
        for text, cell_width in zip(texts, self.columns.widths(width), strict=True):
            if not cell_width:
                continue
            own = Style.parse(text.style) if isinstance(text.style, str) else text.style
            segments += [Segment(fit(text.plain, cell_width), own + base if over else base + own), gap]
        return Strip(segments).crop_extend(0, width, base)
