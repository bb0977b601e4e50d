"""What the run screen counts and judges of its rows, kept up to date as rows come and go.

A batch of results, or a tick of the clock, costs what the batch holds, not what the run holds:
at 10,000 rows a recount on each batch took the event loop's time from the keys. Each row adds
its share when it comes and takes it back when it goes (a rerun replaces it, its mark or its
acceptance changes); tests/tui/test_review.py holds the tallies equal to a recount.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable
from collections.abc import Sequence
from datetime import date
from typing import TYPE_CHECKING
from typing import Any

from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker.causes import Cause
from scim_tui.checker.causes import cause_of
from scim_tui.store.baseline import FAILING
from scim_tui.store.baseline import Entry
from scim_tui.store.baseline import Judgement

if TYPE_CHECKING:
    from scim_tui.tui.run_state import Mark
    from scim_tui.tui.run_state import Row


def bump(counter: Counter[Any], key: Hashable, by: int) -> None:
    """Add to a count, and forget the key when it comes to nothing (so len() counts the keys in use)."""
    counter[key] += by
    if not counter[key]:
        del counter[key]


class Tally:
    """The counts the status line shows, as every report counts them (a suite's summary aside)."""

    def __init__(self) -> None:
        self.statuses: Counter[Status] = Counter()
        self.checks: Counter[CheckId] = Counter()
        """The rows of each check, summaries aside."""
        self.marks: Counter[Mark] = Counter()
        self.failed: Counter[CheckId] = Counter()
        """The failed rows (ERROR, CRITICAL) of each check, summaries included: what `f` runs again."""
        self.leftovers: Counter[str] = Counter()
        self.open_failures = 0
        self.accepted = 0

    def count(self, row: Row, sign: int) -> None:
        """Add a row's share (sign 1), or take it back (sign -1)."""
        result = row.result
        if not row.summary:
            bump(self.statuses, result.status, sign)
            bump(self.checks, result.check_id, sign)
            self.open_failures += sign * row.open_failure
            self.accepted += sign * (row.accepted is not None)
        if row.mark is not None:
            bump(self.marks, row.mark, sign)
        if result.status.failed:
            bump(self.failed, result.check_id, sign)
        for item in result.leftovers:
            bump(self.leftovers, item, sign)


class Review:
    """The baseline's judgement of the rows (the profile's accepted failures) and the causes
    they share, each row judged when it comes."""

    def __init__(self) -> None:
        self.entries: tuple[Entry, ...] = ()
        self.today: date | None = None
        self.live: dict[CheckId, list[Entry]] = {}
        self.expired: list[Entry] = []
        self.ran: Counter[CheckId] = Counter()
        """The rows of each check that ran (not SKIPPED: a skipped check tells nothing of a fix)."""
        self.failing: Counter[CheckId] = Counter()
        self.causes: dict[str, Cause] = {}
        self.members: dict[str, list[Row]] = {}
        """The rows of each cause, in the order they came."""

    def emptied(self) -> Review:
        """A review of no rows yet, by the same entries."""
        review = Review()
        if self.today is not None:
            review.judge_by(self.entries, self.today)
        return review

    def judge_by(self, entries: Sequence[Entry], today: date) -> bool:
        """Judge by these entries from now on; whether they differ from those before (then every row is judged again)."""
        if tuple(entries) == self.entries and today == self.today:
            return False
        self.entries, self.today = tuple(entries), today
        self.expired = [entry for entry in entries if entry.until is not None and entry.until < today]
        self.live = {}
        for entry in entries:
            if entry not in self.expired:
                self.live.setdefault(entry.check_id, []).append(entry)
        return True

    def accepting(self, row: Row) -> Entry | None:
        """The live entry that accepts this row's failure, if one does."""
        result = row.result
        if result.status not in FAILING:
            return None
        return next((entry for entry in self.live.get(result.check_id, ()) if entry.accepts(result)), None)

    def judgement(self) -> Judgement:
        """The entries fixed (their check ran and fails no more) and expired; the rows carry what each accepts."""
        fixed = [entry for check_id, kept in self.live.items() if self.ran[check_id] and not self.failing[check_id] for entry in kept]
        return Judgement(fixed=fixed, expired=list(self.expired))

    def take(self, row: Row) -> list[Row]:
        """Count a new row and give it its shared cause; returns the row that came first with
        the same cause when this one makes it shared (that row shares it from now on)."""
        self._count(row, 1)
        request = cause_of(row.result)
        if request is None:
            return []
        cause = self.causes.setdefault(request, Cause(request))
        members = self.members.setdefault(request, [])
        cause.results.append(row.result)
        members.append(row)
        if len(members) > 1:
            row.cause = cause
        if len(members) != 2:
            return []
        members[0].cause = cause
        return [members[0]]

    def drop(self, row: Row) -> list[Row]:
        """Forget a row (a rerun replaced it); returns the row left alone in its cause, if one is."""
        self._count(row, -1)
        request = cause_of(row.result)
        members = self.members.get(request) if request is not None else None
        if request is None or not members:
            return []
        place = next(i for i, member in enumerate(members) if member is row)
        del members[place]
        del self.causes[request].results[place]
        row.cause = None
        if not members:
            del self.members[request], self.causes[request]
        if len(members) == 1:
            members[0].cause = None
            return members
        return []

    def _count(self, row: Row, sign: int) -> None:
        result = row.result
        if result.status is not Status.SKIPPED:
            bump(self.ran, result.check_id, sign)
        if result.status in FAILING:
            bump(self.failing, result.check_id, sign)
