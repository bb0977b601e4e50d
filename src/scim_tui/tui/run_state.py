"""What the run screen shows: the results of the last run, keyed, grouped, marked and filtered.

`RunState` is the one owner of the run on screen: its rows, and the facts of the complete run
they belong to (target, start, duration...). The export, the readiness verdicts, the counts and
the review all derive from it, and a rerun replaces rows there, and only there.

A row's key names its check and its place among that check's results (a check may
report several), so a rerun replaces exactly the rows it ran again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from datetime import date
from enum import StrEnum
from functools import partial

from scim_tui.checker import CheckId
from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.checker.causes import Cause
from scim_tui.checker.registry import verdict_names
from scim_tui.checker.results import result_keys
from scim_tui.reports import RunReport
from scim_tui.reports.summary import size_line
from scim_tui.store import baseline
from scim_tui.store.baseline import Entry
from scim_tui.store.baseline import Judgement
from scim_tui.tui.review import Review
from scim_tui.tui.review import Tally

SERVER_GROUP = "Server"
"""The group of the checks that do not run for a resource type (discovery, misc)."""


class Mark(StrEnum):
    """How a result changed against the one before it (a rerun, or the previous run)."""

    FIXED = "fixed"
    STILL_FAILING = "still failing"
    NEW_FAILURE = "new failure"


def mark_between(before: Status | None, after: Status) -> Mark | None:
    was_failing = before is not None and before.failed
    if was_failing:
        return Mark.STILL_FAILING if after.failed else Mark.FIXED
    return Mark.NEW_FAILURE if after.failed and before is not None else None


def row_key(check_id: CheckId, index: int) -> str:
    return f"{check_id}#{index}"


def group_of(result: CheckResult) -> str:
    return result.resource_type or SERVER_GROUP


@dataclass
class Row:
    key: str
    index: int
    """The place of this result among those of its check."""
    result: CheckResult
    mark: Mark | None = None
    accepted: Entry | None = None
    """The baseline's entry that accepts this failure, if one does."""
    cause: Cause | None = None
    """The failed request this result shares with other failed results, if it does."""

    @property
    def group(self) -> str:
        return group_of(self.result)

    @property
    def open_failure(self) -> bool:
        """A failure no baseline entry accepts: what `n` and `p` go to (a suite's summary restates
        its suite's failures: it is none of its own)."""
        return self.result.status.failed and self.accepted is None and not self.summary

    @property
    def summary(self) -> bool:
        """A suite's summary (resource_type_tests): no count counts it."""
        return self.result.check_id.is_summary

    def failures_first_key(self, worst: Callable[[Cause], int]) -> tuple[int, int, str, int]:
        """Its place within its group when failures come first: the open failures by severity, the
        results of one cause together (at the place of its worst one, `worst`), then the accepted
        ones, then the rest."""
        status = self.result.status
        tier = 1 if self.accepted is not None else 0 if status in baseline.FAILING else 2
        if self.cause is None:
            return tier, severity(status), "", severity(status)
        return tier, worst(self.cause), self.cause.request, severity(status)

    def matches(self, statuses: set[Status], needle: str) -> bool:
        """Whether the filter shows it: its status is shown, and its title or reason holds the
        needle (lower case, stripped; empty: any)."""
        if self.result.status not in statuses:
            return False
        return not needle or needle in (self.result.title or "").lower() or needle in (self.result.reason or "").lower()


def severity(status: Status) -> int:
    """The place of a status when failures come first: CRITICAL, ERROR, DEVIATION ... SUCCESS, then SKIPPED."""
    return len(Status) if status is Status.SKIPPED else -status.value


@dataclass
class Filter:
    statuses: set[Status] = field(default_factory=lambda: set(Status))
    text: str = ""
    failures_first: bool = False
    """Each group's rows by severity (the group order stays), instead of the run's order."""

    @property
    def active(self) -> bool:
        return self.statuses != set(Status) or bool(self.needle)

    @property
    def needle(self) -> str:
        return self.text.strip().lower()

    def shows(self, row: Row) -> bool:
        return row.matches(self.statuses, self.needle)


class Change:
    """What a batch did to the rows, for the table to follow it without laying every row out again."""

    def __init__(self) -> None:
        self.appended: list[Row] = []
        """New rows, in the order they came: each placed at the end (a run streaming in), unless
        `placed` names it."""
        self.placed: dict[str, str] = {}
        """The new rows placed before the end (a result of the server's group coming after the
        resource types' began, a rerun's check giving more results), by key: the key of the row
        each was placed right after."""
        self.updated: set[str] = set()
        """The keys of rows a rerun replaced."""
        self.joined: list[Row] = []
        """Rows there before the batch whose cause a new row now shares."""


class RunState:
    """The run on screen: the rows of the results pane, in display order (the server group first,
    then each resource type), and the facts of the complete run they belong to.

    What the status line counts (the tally), the review (the baseline's judgement, the shared
    causes) and the readiness verdicts follow each row as it comes, is replaced or goes: a batch
    costs what it holds."""

    def __init__(self) -> None:
        self.facts: RunReport | None = None
        """The last complete run's own facts (target, start, duration, profile, selection, what its
        clean-up left, its exchanges), without results: the rows hold them. None until a run
        ended (or was read from the history), and from the start of a full run until it ends."""
        self.verdicts: dict[str, CheckResult] = {}
        """The readiness verdicts among the rows (each identity provider's READY or NOT READY), by
        check, in the order they came; a rerun's verdict takes the place of the one before."""
        self._verdict_names: set[str] | None = None
        self.rows: dict[str, Row] = {}
        self.order: list[str] = []
        self._seen: Counter[CheckId] = Counter()
        self._done = 0
        """The checks of the current run seen so far, summaries aside."""
        self._rerun: frozenset[CheckId] | None = None
        self._last_of_check: dict[CheckId, str] = {}
        self._last_of_group: dict[str, str] = {}
        """The key of the last row of each check and of each group, where the next one goes."""
        self.tally = Tally()
        self._review = Review()
        self.revision = 0
        """Counts the changes to rows there before (a mark, an acceptance, a rerun's rows dropped)
        that a batch's Change does not tell: lines laid out before one no longer show the rows."""

    def start(self, rerun: frozenset[CheckId] | None = None) -> None:
        """Begin a run: a full run forgets every row and the run they belonged to, a rerun keeps
        them to replace its checks' rows."""
        if rerun is None:
            self.facts = None
            self.verdicts = {}
            self.rows.clear()
            self.order.clear()
            self._last_of_check.clear()
            self._last_of_group.clear()
            self.tally = Tally()
            self._review = self._review.emptied()
        self._seen.clear()
        self._done = 0
        self._rerun = rerun

    def add(self, results: Iterable[CheckResult]) -> Change:
        """Take a batch of results; returns what it changed."""
        change = Change()
        for result in results:
            if result.deselected:  # unticked checks are not rows
                continue
            check_id = result.check_id
            index = self._seen[check_id]
            key = row_key(check_id, index)
            self._seen[check_id] += 1
            self._done += index == 0 and not check_id.is_summary
            old = self.rows.get(key)
            if old is not None:
                self._forget(old)
                row = self.rows[key] = Row(key, index, result, mark_between(old.result.status, result.status))
                change.updated.add(key)
            else:
                mark = mark_between(Status.SUCCESS, result.status) if self._rerun is not None else None
                row = Row(key, index, result, mark)
                after = self._insert(row)
                if after is not None:
                    change.placed[key] = after
                change.appended.append(row)
            change.joined += self._take(row)
        return change

    def _take(self, row: Row) -> list[Row]:
        joined = self._review.take(row)
        row.accepted = self._review.accepting(row)
        self.tally.count(row, 1)
        result = row.result
        if result.status is not Status.SKIPPED and result.title in self._verdicts():  # a skipped one is no verdict
            self.verdicts[result.title] = result
        return joined

    def _verdicts(self) -> set[str]:
        """The names of the checks that give a verdict; the registry loads with the first result."""
        if self._verdict_names is None:
            self._verdict_names = verdict_names()
        return self._verdict_names

    def _forget(self, row: Row) -> None:
        self.tally.count(row, -1)
        self._review.drop(row)

    @property
    def joining(self) -> bool:
        """Whether the run going is a rerun of some checks of a run shown: its rows join that
        run, whose facts (start, duration...) stay."""
        return self._rerun is not None and self.facts is not None

    def finish(self, report: RunReport | None = None) -> None:
        """End a run, given its report (None when it gave none: it failed, or was cancelled
        before its checks began). A rerun check that now reports fewer results loses its extra
        rows; the report's facts become the run's, unless the run was a rerun joining one."""
        if self._rerun is not None:
            for key in [key for key in self.order if self._stale(self.rows[key])]:
                self._forget(self.rows.pop(key))
                self.revision += 1
            self.order = [key for key in self.order if key in self.rows]
            self._last_of_check = {self.rows[key].result.check_id: key for key in self.order}  # the last one of each wins
            self._last_of_group = {self.rows[key].group: key for key in self.order}
        if report is not None and not self.joining:
            self.facts = replace(report, results=[], accepted={})
        self._rerun = None

    def show_past(self, report: RunReport) -> None:
        """Show a run read back from the history, as it ended."""
        self.start()
        self.add(report.results)
        self.finish(report)

    def report(self) -> RunReport | None:
        """The run as a report, to export: its facts, its rows as they are now (a rerun's
        included) and the failures the baseline accepts; None before a run ended."""
        if self.facts is None:
            return None
        rows = [self.rows[key] for key in self.order]
        results = [row.result for row in rows]
        accepted = {key: row.accepted.note for key, row in zip(result_keys(results), rows, strict=True) if row.accepted is not None}
        return replace(self.facts, results=results, accepted=accepted)

    def _stale(self, row: Row) -> bool:
        seen = self._seen[row.result.check_id]
        return 0 < seen <= row.index

    def _insert(self, row: Row) -> str | None:
        """Place a new row after the last one of its check, else at the end of its group (the
        server's group first); None when it went at the end, else the key of the row it follows
        (or "" at the top). Its place is found by key, not by looking at every row: a batch costs
        what it holds, even when it goes before the end."""
        self.rows[row.key] = row
        check_id, group = row.result.check_id, row.group
        after = self._last_of_check.get(check_id) or self._last_of_group.get(group)
        if after is not None:
            position = self._place_of(after) + 1
        else:  # a new group: the server's goes first, any other last
            position = 0 if group == SERVER_GROUP else len(self.order)
        if after is None or after == self._last_of_group[group]:
            self._last_of_group[group] = row.key
        self._last_of_check[check_id] = row.key
        self.order.insert(position, row.key)
        return None if position == len(self.order) - 1 else self.order[position - 1] if position else ""

    def _place_of(self, key: str) -> int:
        """Where a row is in the order: the last one while a run streams in, else found by key."""
        return len(self.order) - 1 if self.order[-1] == key else self.order.index(key)

    def mark_checks(self, marks: dict[CheckId, Mark]) -> None:
        """Mark every row of these checks (changes since the previous run)."""
        for row in self.rows.values():
            if row.result.check_id in marks:
                self._change(row, lambda row: setattr(row, "mark", marks[row.result.check_id]))

    def _change(self, row: Row, change: Callable[[Row], object]) -> None:
        """Change what the tally counts of a row: its share goes, then comes back as it is now."""
        self.tally.count(row, -1)
        change(row)
        self.tally.count(row, 1)
        self.revision += 1

    def visible(self, view: Filter) -> list[Row]:
        needle = view.needle
        rows = [row for key in self.order if (row := self.rows[key]).matches(view.statuses, needle)]
        if view.failures_first:
            groups = {group: place for place, group in enumerate(dict.fromkeys(row.group for row in rows))}
            worst: dict[str, int] = {}

            def worst_of(cause: Cause) -> int:  # once per cause, not once per row of it
                if cause.request not in worst:
                    worst[cause.request] = min(severity(result.status) for result in cause.results)
                return worst[cause.request]

            rows.sort(key=lambda row: (groups[row.group], row.failures_first_key(worst_of)))
        return rows

    def review(self, entries: Sequence[Entry], today: date) -> Judgement:
        """Judge the rows by these baseline entries (each row is judged again only when they, or
        the day, changed: new rows are judged as they come); returns the baseline's judgement
        (entries fixed, expired). Each row carries the entry that accepts it and the cause it shares."""
        if self._review.judge_by(entries, today):
            for row in self.rows.values():
                accepted = self._review.accepting(row)
                if accepted != row.accepted:
                    self._change(row, partial(_accept, entry=accepted))
        return self._review.judgement()

    def failures(self) -> tuple[int, int]:
        """How many results are open failures, and how many failures the baseline accepts (summaries aside)."""
        return self.tally.open_failures, self.tally.accepted

    def counts(self) -> Counter[Status]:
        """How many results have each status, as every report counts them (summaries aside)."""
        return Counter({status: self.tally.statuses[status] for status in Status})

    def size(self) -> str:
        """``78 checks · 286 results``, as every report says it."""
        return size_line(len(self.tally.checks), self.tally.statuses.total())

    def marks(self) -> Counter[Mark]:
        return Counter(self.tally.marks)

    def failed_checks(self) -> frozenset[CheckId]:
        return frozenset(self.tally.failed)

    def checks_done(self) -> int:
        """How many distinct checks reported in the current (or last) run (summaries aside)."""
        return self._done

    def results(self) -> list[CheckResult]:
        return [self.rows[key].result for key in self.order]

    def leftovers(self) -> list[str]:
        """Resources the shown results created and could not delete, and those the run's own
        clean-up could not, each named once."""
        closing = self.facts.closing_leftovers if self.facts is not None else []
        return list(dict.fromkeys([*self.tally.leftovers, *closing]))


def _accept(row: Row, entry: Entry | None) -> None:
    row.accepted = entry
