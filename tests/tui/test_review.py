"""The run screen's counts, review and lines, kept up to date batch by batch, always equal what a
recount of every row gives: long random sequences of runs, reruns, marks, baselines and filters."""

from __future__ import annotations

import random
from collections import Counter
from datetime import date

import pytest

from scim_tui.checker import CheckId
from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.checker.causes import shared_causes
from scim_tui.checker.exchanges import Exchange
from scim_tui.checker.results import SUMMARY_CHECKER
from scim_tui.checker.results import result_keys
from scim_tui.reports.summary import counts
from scim_tui.reports.summary import size_of
from scim_tui.store import baseline
from scim_tui.store.baseline import Entry
from scim_tui.tui.run_state import SERVER_GROUP
from scim_tui.tui.run_state import Filter
from scim_tui.tui.run_state import Mark
from scim_tui.tui.run_state import Row
from scim_tui.tui.run_state import RunState
from scim_tui.tui.widgets.result_lines import CauseLine
from scim_tui.tui.widgets.result_lines import Lines

CHECKERS = ["create", "read", "patch", "filter", SUMMARY_CHECKER]
TYPES = [None, "User", "Group"]
FAILING_REQUESTS = ["GET /v2/Users/0123456789abcdef", "PATCH /v2/Groups/0123456789abcdef", "POST /v2/Users", "PUT /v2/Users/0123456789abcdef", "GET /v2/Groups"]
TODAY = date(2026, 11, 26)


def random_result(rng: random.Random) -> CheckResult:
    status = rng.choice([*Status, Status.ERROR, Status.ERROR, Status.SUCCESS])
    result = CheckResult(status, title=rng.choice(CHECKERS), resource_type=rng.choice(TYPES), reason=f"reason {rng.randrange(3)}")
    shape = rng.randrange(6)
    if shape == 0:  # a request failing as a whole
        method, path = rng.choice(FAILING_REQUESTS).split(" ")
        result.exchanges = [Exchange(method, f"http://127.0.0.1:8000{path}", status_code=rng.choice([500, 503, 200]))]
    elif shape == 1:  # a request that got no answer
        result.exchanges = [Exchange("GET", "http://127.0.0.1:8000/v2/Users", error="refused")]
    elif shape == 2:  # a cause named by the engine (a feature failing as a whole)
        result.cause = "PATCH /v2/Users/{id} answered 501"
    if rng.randrange(8) == 0:
        result.leftovers = [f"/Users/{rng.randrange(4)}"]
    return result


def random_entries(rng: random.Random) -> list[Entry]:
    entries = []
    for _ in range(rng.randrange(5)):
        check = rng.choice(CHECKERS[:-1])
        until = rng.choice([None, date(2026, 1, 1), date(2027, 1, 1)])
        entries.append(Entry(check=check, resource_type=rng.choice(TYPES), status=rng.choice(["DEVIATION", "ERROR", "CRITICAL"]), until=until))
    return entries


def recount(state: RunState, entries: list[Entry]) -> dict[str, object]:
    """What the state should say, counted over every row from scratch, as it was before it kept tallies."""
    rows = [state.rows[key] for key in state.order]
    results = [row.result for row in rows]
    counted = [row for row in rows if not row.summary]
    judgement = baseline.judge(entries, results, TODAY)
    causes = {id(result): cause for cause in shared_causes(results) for result in cause.results}
    return {
        "counts": Counter(counts(results)),
        "size": size_of(results),
        "marks": Counter(row.mark for row in rows if row.mark is not None),
        "failed_checks": frozenset(row.result.check_id for row in rows if row.result.status.failed),
        "failures": (sum(row.open_failure for row in counted), sum(row.accepted is not None for row in counted)),
        "leftovers": set(dict.fromkeys(item for result in results for item in result.leftovers)),
        "accepted": [judgement.accepted.get(key) for key in result_keys(results)],
        "fixed": judgement.fixed,
        "expired": judgement.expired,
        "causes": [(causes[id(r)].request, sorted(map(id, causes[id(r)].results))) if id(r) in causes else None for r in results],
    }


def kept(state: RunState, entries: list[Entry]) -> dict[str, object]:
    """What the state says from its tallies."""
    judgement = state.review(entries, TODAY)
    rows = [state.rows[key] for key in state.order]
    return {
        "counts": state.counts(),
        "size": state.size(),
        "marks": state.marks(),
        "failed_checks": state.failed_checks(),
        "failures": state.failures(),
        "leftovers": set(state.leftovers()),
        "accepted": [row.accepted for row in rows],
        "fixed": judgement.fixed,
        "expired": judgement.expired,
        "causes": [(row.cause.request, sorted(map(id, row.cause.results))) if row.cause else None for row in rows],
    }


def shape(lines: Lines) -> list[tuple[str, bool, list[str] | None]]:
    """The lines as keys, and each cause's line with the keys of its rows."""
    return [(line.key, line.nested, [row.key for row in line.item.rows] if isinstance(line.item, CauseLine) else None) for line in lines.entries]


def fresh_lines(state: RunState, view: Filter, streamed: Lines) -> Lines:
    lines = Lines()
    lines.by_cause, lines.expanded = streamed.by_cause, set(streamed.expanded)
    lines.lay_out(state.visible(view))
    return lines


@pytest.mark.parametrize("seed", range(10))
def test_the_tallies_the_review_and_the_lines_equal_a_recount_after_every_step(seed):
    rng = random.Random(seed)
    state, view, streamed = RunState(), Filter(), Lines()
    entries: list[Entry] = []
    followed = 0
    """Batches placing rows before the end whose lines were put in place, not laid out whole."""
    state.review(entries, TODAY)
    for _step in range(400):
        action = rng.choices(["run", "batch", "rerun", "marks", "baseline", "view"], weights=[2, 12, 2, 1, 2, 2])[0]
        if action == "run":
            state.start()
            streamed.lay_out([])
        elif action == "batch":
            change = state.add([random_result(rng) for _ in range(rng.randrange(1, 12))])
            state.review(entries, TODAY)
            shown, joined = [r for r in change.appended if view.shows(r)], [r for r in change.joined if view.shows(r)]
            if change.updated or streamed.extend(shown, joined, change.placed) is None:
                streamed.lay_out(state.visible(view))
            else:
                followed += bool(change.placed)
        elif action == "rerun" and state.rows:
            checks = frozenset(rng.sample(sorted({row.result.check_id for row in state.rows.values()}, key=str), k=1))
            state.start(rerun=checks)
            again = []
            for check in checks:
                for _ in range(rng.randrange(0, 4)):
                    result = random_result(rng)
                    result.title, result.resource_type = check.checker, check.resource_type
                    again.append(result)
            state.add(again)
            state.finish()
            streamed.lay_out(state.visible(view))
        elif action == "marks" and state.rows:
            checks = {row.result.check_id for row in state.rows.values()}
            state.mark_checks({check: rng.choice(list(Mark)) for check in rng.sample(sorted(checks, key=str), k=min(2, len(checks)))})
        elif action == "baseline":
            entries = random_entries(rng)
        elif action == "view":
            view.statuses = set(rng.sample(list(Status), k=rng.randrange(1, len(Status) + 1)))
            streamed.by_cause = rng.random() < 0.8
            streamed.expanded = {rng.choice([*FAILING_REQUESTS, "PATCH /v2/Users/{id} answered 501"])} if rng.random() < 0.3 else set()
            streamed.lay_out(state.visible(view))
        assert kept(state, entries) == recount(state, entries)
        assert shape(streamed) == shape(fresh_lines(state, view, streamed))
    assert followed, "no batch placing rows before the end was followed line by line"


def test_a_cause_shared_from_the_second_result_on_takes_the_first_ones_line():
    """By cause, the first result of a cause shows alone until a second shares it: then one line holds both."""
    state, lines = RunState(), Lines()
    failing = [
        CheckResult(Status.ERROR, title=f"check_{i}", resource_type="User", exchanges=[Exchange("GET", "http://h/v2/Users", status_code=500)]) for i in range(3)
    ]
    change = state.add([CheckResult(Status.SUCCESS, title="fine", resource_type="User"), failing[0]])
    lines.extend(change.appended, change.joined)
    assert [line.key for line in lines.entries] == ["group:User", "User/fine#0", "User/check_0#0"]
    change = state.add(failing[1:])
    lines.extend(change.appended, change.joined)
    assert [line.key for line in lines.entries] == ["group:User", "User/fine#0", "cause:GET /v2/Users answered 500"]
    assert [row.key for row in lines.entries[-1].item.rows] == ["User/check_0#0", "User/check_1#0", "User/check_2#0"]
    assert state.counts()[Status.ERROR] == 3 and state.rows["User/check_0#0"].cause is state.rows["User/check_2#0"].cause
    assert CheckId("check_1", "User") in state.failed_checks()


def place_by_looking_at_every_row(order: list[Row], row: Row) -> int:
    """Where a new row goes, found over every row: after the last one of its check, else at the end
    of its group, the server's group first, any new other group last."""
    same_check = [i for i, other in enumerate(order) if other.result.check_id == row.result.check_id]
    if same_check:
        return same_check[-1] + 1
    groups = [other.group for other in order]
    if row.group in groups:
        return len(groups) - groups[::-1].index(row.group)
    if row.group == SERVER_GROUP:
        return next((i for i, group in enumerate(groups) if group != SERVER_GROUP), len(groups))
    return len(groups)


@pytest.mark.parametrize("seed", range(10))
def test_rows_are_placed_as_a_look_at_every_row_places_them(seed):
    """Each new row is placed by its check's and its group's last keys: in the place a look at every
    row gives, through runs, batches of any group and reruns giving more or fewer results."""
    rng = random.Random(seed)
    state, expected = RunState(), []
    for _step in range(300):
        action = rng.choices(["run", "batch", "rerun"], weights=[1, 12, 3])[0]
        if action == "run":
            state.start()
            expected = []
        elif action == "batch" or not state.rows:
            change = state.add([random_result(rng) for _ in range(rng.randrange(1, 12))])
            for row in change.appended:
                expected.insert(place_by_looking_at_every_row(expected, row), row)
        else:
            check = rng.choice(sorted({row.result.check_id for row in state.rows.values()}, key=str))
            state.start(rerun=frozenset({check}))
            again = [CheckResult(rng.choice(list(Status)), title=check.checker, resource_type=check.resource_type) for _ in range(rng.randrange(0, 4))]
            for row in state.add(again).appended:
                expected.insert(place_by_looking_at_every_row(expected, row), row)
            state.finish()
            expected = [row for row in expected if row.key in state.rows]
        assert state.order == [row.key for row in expected]
