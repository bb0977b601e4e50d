"""The lines of the results pane: group headings, results, and by cause one line for the results
that share one (a server answering 500 to every GET of a User fails a hundred checks: one line
says so, with the count, and expands to list them).

Laid out whole when the filter, the order or a rerun changes what shows; while a run streams in,
each batch only adds its lines, at the end or under the last line of their check or group (a
summary of the server's group, which shows first, coming last), and turns the line of a result
into its cause's when a new result shares that cause: a batch costs what it holds.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import NamedTuple

from scim_tui.checker import Status
from scim_tui.checker.causes import Cause
from scim_tui.tui.run_state import Row
from scim_tui.tui.run_state import severity

GROUP_PREFIX = "group:"
CAUSE_PREFIX = "cause:"


@dataclass
class CauseLine:
    """The results shown that share one cause, on one line."""

    cause: Cause
    rows: list[Row] = field(default_factory=list)
    """Its results that the filter shows, in the order shown."""
    group: str = ""
    """The group of the first of them, under whose heading the line is."""
    expanded: bool = False
    """Whether its results are listed under it."""

    @property
    def key(self) -> str:
        return f"{CAUSE_PREFIX}{self.cause.request}"

    @property
    def worst(self) -> Status:
        return min((row.result.status for row in self.rows), key=severity)

    @property
    def open_failure(self) -> bool:
        return any(row.open_failure for row in self.rows)

    @property
    def accepted(self) -> bool:
        """Whether it holds failures, each accepted by the baseline."""
        return not self.open_failure and any(row.accepted is not None for row in self.rows)


class Line(NamedTuple):
    """A displayed line: a group heading (its name), a result, or a cause's; `nested` for a
    result listed under its expanded cause."""

    key: str
    item: Row | CauseLine | str
    nested: bool = False


class Lines:
    """The lines shown, and where each key is."""

    def __init__(self) -> None:
        self.entries: list[Line] = []
        self.index: dict[str, int] = {}
        self.by_cause = True
        """One line per shared cause (else one per result)."""
        self.expanded: set[str] = set()
        """The causes (their requests) whose results are listed under their line."""
        self._group: str | None = None
        """The group of the last line that is not nested."""

    def lay_out(self, rows: Iterable[Row]) -> None:
        """Lay these rows out (RunState's filtered order): a cause's line at the place of its first row."""
        rows = list(rows)
        self.entries, self.index, self._group = [], {}, None
        members: dict[str, list[Row]] = {}
        if self.by_cause:
            for row in rows:
                if row.cause is not None:
                    members.setdefault(row.cause.request, []).append(row)
        for row in rows:
            if row.cause is None or not self.by_cause:
                self._add(Line(row.key, row), row.group)
            elif row.cause.request in members:  # the first of its cause
                self._add_cause(CauseLine(row.cause, members.pop(row.cause.request), row.group))

    def extend(self, rows: Iterable[Row], joined: Iterable[Row], placed: Mapping[str, str] | None = None) -> list[Line] | None:
        """Add rows placed after every other (a run streaming in), or right after the row `placed`
        names for theirs (RunState's Change), and give the rows shown that now share a cause
        (`joined`) their cause's line; the lines added or changed, or None when that takes laying
        out whole (an expanded cause grows, a row placed before the end shares a cause or follows
        a row without a line of its own)."""
        placed = placed or {}
        touched: list[Line] = []
        if self.by_cause:
            for row in joined:
                place = self.index.get(row.key)
                if place is None or self.entries[place].nested:
                    continue
                if row.cause is None or row.cause.request in self.expanded:
                    return None
                line = Line(f"{CAUSE_PREFIX}{row.cause.request}", CauseLine(row.cause, [row], row.group))
                self.entries[place] = line
                del self.index[row.key]
                self.index[line.key] = place
                touched.append(line)
        for row in rows:
            if row.key in placed:
                inserted = self._insert(row, placed[row.key])
                if inserted is None:
                    return None
                touched.append(inserted)
                continue
            if not self.by_cause or row.cause is None:
                touched.append(self._add(Line(row.key, row), row.group))
                continue
            if row.cause.request in self.expanded:
                return None
            place = self.index.get(f"{CAUSE_PREFIX}{row.cause.request}")
            if place is None:
                touched.append(self._add_cause(CauseLine(row.cause, [row], row.group)))
            else:
                self.entries[place].item.rows.append(row)  # type: ignore[union-attr]
                touched.append(self.entries[place])
        return touched

    def _insert(self, row: Row, after: str) -> Line | None:
        """Put a row's line right after the line of the row it follows, where laying out whole
        puts it; None when that place is not so plain: the row shares a cause (by cause), or the
        row it follows has no line of its own (it does not show, it is under its cause's line, it
        is the top)."""
        place = self.index.get(after)
        if (self.by_cause and row.cause is not None) or place is None or self.entries[place].nested:
            return None
        line = Line(row.key, row)
        self.entries.insert(place + 1, line)
        for moved in range(place + 1, len(self.entries)):
            self.index[self.entries[moved].key] = moved
        return line

    def _add(self, line: Line, group: str) -> Line:
        if group != self._group:
            self._group = group
            self._append(Line(f"{GROUP_PREFIX}{group}", group))
        self._append(line)
        return line

    def _add_cause(self, cause: CauseLine) -> Line:
        line = self._add(Line(cause.key, cause), cause.group)
        cause.expanded = cause.cause.request in self.expanded
        if cause.expanded:
            for row in cause.rows:
                self._append(Line(row.key, row, nested=True))
        return line

    def _append(self, line: Line) -> None:
        self.index[line.key] = len(self.entries)
        self.entries.append(line)

    def cause_at(self, place: int) -> CauseLine | None:
        """The cause of a line: its own, or the one it is listed under."""
        if not 0 <= place < len(self.entries):
            return None
        line = self.entries[place]
        if isinstance(line.item, CauseLine):
            return line.item
        if line.nested and isinstance(line.item, Row) and line.item.cause is not None:
            return self.entries[self.index[f"{CAUSE_PREFIX}{line.item.cause.request}"]].item  # type: ignore[return-value]
        return None
