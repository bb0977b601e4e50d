"""Checks of PATCH: add, remove and replace, one result per attribute path (RFC 7644 §3.5.2)."""

from __future__ import annotations

import re
from collections.abc import Callable
from copy import deepcopy
from dataclasses import dataclass
from functools import partial
from typing import Any

from scim2_models import Mutability
from scim2_models import PatchOp
from scim2_models import PatchOperation
from scim2_models import Path
from scim2_models import Resource

from scim_tui.checker.answers import answer_name
from scim_tui.checker.answers import member
from scim_tui.checker.answers import shown
from scim_tui.checker.checks.comparison import attribute_at
from scim_tui.checker.checks.comparison import keys_of
from scim_tui.checker.checks.comparison import matches
from scim_tui.checker.checks.comparison import normalized
from scim_tui.checker.checks.comparison import paths_of
from scim_tui.checker.checks.comparison import unassigned
from scim_tui.checker.checks.comparison import value_at
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.crud import with_requested
from scim_tui.checker.checks.probes import Steps
from scim_tui.checker.checks.probes import checked
from scim_tui.checker.context import CheckContext
from scim_tui.checker.creations import not_kept
from scim_tui.checker.engine import failure_result
from scim_tui.checker.features import unclaimed
from scim_tui.checker.filling import Attribute
from scim_tui.checker.filling import attribute_value
from scim_tui.checker.filling import learnt_adaptation
from scim_tui.checker.filling import on_request
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

PATCH_ANSWERS = [200, 204]
"""RFC 7644 §3.5.2: 200 with the resource, or 204 with no body."""


@dataclass
class Target:
    """The resource a PATCH check works on, as last seen."""

    model: type[Resource[Any]]
    id: str
    url: str
    current: dict[str, Any]
    located: bool = False
    """Whether its creation answered no body, and `current` is what a GET of its Location answered."""


PATCH_ANSWER = "the PATCH answer"
READ_BACK = "a GET after the 204 answer"


def sent_patch(context: CheckContext, target: Target, operations: list[dict[str, Any]], **request: Any) -> dict[str, Any] | None:
    """Send PATCH operations (JSON) as clients do; return the resource the server answered 200
    with, as JSON, or None when it answered 204 without a body (RFC 7644 §3.5.2). `request` goes
    to the HTTP request (headers=...).

    No "attributes" goes with the request: a server that mishandles it would fail every PATCH
    for that one reason, and the projection checks test it once.
    """
    # The body a PatchOp model would give, built as JSON: the server, not the client, judges it.
    patch_op = {"schemas": [str(PatchOp.__schema__)], "Operations": operations}
    answer = context.client.modify(
        target.model, target.id, patch_op, check_request_payload=False, expected_status_codes=PATCH_ANSWERS, url=target.url, **request
    )
    if isinstance(answer, Resource):
        return answer.model_dump()
    if context.exchanges and context.exchanges[-1].status_code == 200:
        raise ValueError(f"the answer is {answer_name(answer)}, but a 200 must hold the resource; only a 204 has no body (RFC 7644 §3.5.2)")
    return None


def read_back(context: CheckContext, target: Target, **request: Any) -> dict[str, Any]:
    """The resource as a GET of its URL shows it now, as JSON (after a PATCH answered 204)."""
    found = context.client.query(target.model, target.id, expected_status_codes=context.expected_status_codes, **request)
    if not isinstance(found, Resource):
        raise ValueError(f"the answer is {answer_name(found)} instead of the {target.model.__name__}")
    return found.model_dump()


def send_patch(context: CheckContext, target: Target, operations: list[dict[str, Any]], **request: Any) -> tuple[dict[str, Any], str]:
    """Send PATCH operations (see `sent_patch`); return the resource seen, as JSON, and where it
    came from: the 200 answer (PATCH_ANSWER), or a GET after a 204 (READ_BACK)."""
    answer = sent_patch(context, target, operations, **request)
    seen, source = (answer, PATCH_ANSWER) if answer is not None else (read_back(context, target, **request), READ_BACK)
    return requested_after(context, target, operations, seen, source)


def requested_after(context: CheckContext, target: Target, operations: list[dict[str, Any]], seen: dict[str, Any], source: str) -> tuple[dict[str, Any], str]:
    """The resource seen after PATCH operations, with the values of the attributes they change that
    the schema returns only on request read by a GET asking for them (crud.with_requested), and
    where they came from."""
    names = patched_names(operations)
    asked = on_request(target.model, names)
    if not asked:  # each returned by default: the answer (or the GET after a 204) shows them
        return seen, source
    return with_requested(context, target.model, target.id, seen, names), f"a GET asking for {asked['attributes']}"


def patched_names(operations: list[dict[str, Any]]) -> list[str]:
    """The attributes PATCH operations change: each path's first name, or the names of a value without a path."""
    names: list[str] = []
    for operation in operations:
        path, value = member(operation, "path"), member(operation, "value")
        if isinstance(path, str) and path:
            names.append(re.split(r"[\[.]", path, maxsplit=1)[0])
        elif isinstance(value, dict):
            names.extend(str(name) for name in value)
    return names


Judge = Callable[[dict[str, Any], str], CheckResult]
"""The verdict on one path, given the resource seen (JSON) and where it was seen."""


@dataclass
class Planned:
    """One path's PATCH operation (after `first`, an add giving a remove something to take), and
    how the resource after it is judged; `accepted` is the reason of a path whose value is never
    returned, for which a PATCH answered 2xx is all there is to see."""

    path: Path[Any]
    operation: dict[str, Any]
    judge: Judge
    accepted: str | None = None
    first: dict[str, Any] | None = None


Plan = Callable[[CheckContext, Target, Path[Any], Attribute], Planned]
"""What a check sends at a path, given the resource as last seen."""


def _operation(op: PatchOperation.Op, path: Path[Any], value: Any = None) -> dict[str, Any]:
    """One PATCH operation, as JSON (RFC 7644 §3.5.2): remove carries no value."""
    return {"op": op.value, "path": str(path)} | ({} if op is PatchOperation.Op.remove else {"value": value})


@dataclass
class Unread(CheckResult):
    """A path's PATCH answered 204: judged once a GET shows the resource. One GET shows the outcome
    of every PATCH of a round of paths none of which holds another (`_rounds`)."""

    judge: Judge | None = None
    label: str | None = None


def _patched(context: CheckContext, target: Target, operations: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Send PATCH operations; the resource answered (what is known of it from then on), or None after a 204."""
    seen = sent_patch(context, target, operations)
    if seen is not None:
        target.current = deepcopy(seen)  # later answers replace it; the result keeps what was seen
    return seen


def _verdict(path: Path[Any], seen: dict[str, Any] | None, judge: Judge) -> CheckResult:
    """The path's result from the PATCH answer, or one to judge once a GET read the resource."""
    return judge(seen, PATCH_ANSWER) if seen is not None else Unread(Status.SUCCESS, judge=judge, label=str(path))


def _alone(context: CheckContext, target: Target, plan: Plan, path: Path[Any], attribute: Attribute) -> CheckResult:
    """A path's own PATCH request, planned on the resource as last seen: its result stands."""
    planned = plan(context, target, path, attribute)
    if planned.first is not None:
        _patched(context, target, [planned.first])
    seen = _patched(context, target, [planned.operation])
    if planned.accepted is not None:
        return CheckResult(Status.SUCCESS, reason=planned.accepted, data=examined(seen or {}, path))
    return _verdict(path, seen, planned.judge)


def _together(context: CheckContext, target: Target, paths_round: Round, plan: Plan) -> dict[int, CheckResult]:
    """The paths of a round in one PATCH request (RFC 7644 §3.5.2: its operations apply in turn, as
    one), the resource after it read back once if it answered 204: the results of the paths it
    shows done, by their place. A path it does not show done (or all of them, when the request
    failed) is left out, to be checked with a PATCH of its own: a server that mishandles several
    operations in one request, or that judges the resource they leave, is judged path by path as
    before, and the requests that were not its own are in none of its results."""
    mark = len(context.exchanges)  # planning may make a resource to point a reference at
    try:
        plans = {index: plan(context, target, path, attribute) for index, path, attribute in paths_round}
    except Exception:  # each path plans again in its own step, whose result says what stopped it
        return {}
    try:
        if firsts := [planned.first for planned in plans.values() if planned.first is not None]:
            _patched(context, target, firsts)
        seen, source = send_patch(context, target, [planned.operation for planned in plans.values()])
    except Exception:
        _resync(context, target)  # an atomic PATCH changed nothing (RFC 7644 §3.5.2); a server may not be
        return {}
    target.current = deepcopy(seen)
    sent = context.exchanges[mark:]
    settled: dict[int, CheckResult] = {}
    for index, planned in plans.items():
        if planned.accepted is not None:
            result = CheckResult(Status.SUCCESS, reason=planned.accepted, data=examined(seen, planned.path))
        else:
            result = checked(context, partial(planned.judge, seen, source), str(planned.path))
        if result.status is Status.SUCCESS:
            result.exchanges = list(sent)
            settled[index] = result
    return settled


def _resync(context: CheckContext, target: Target) -> None:
    """Read the resource again after a PATCH that failed: the paths' own requests are planned on what it holds."""
    try:
        target.current = deepcopy(read_back(context, target))
    except Exception:  # the paths' own requests will meet what stops it, each in its result
        return


def _related(keys: tuple[str, ...], other: tuple[str, ...]) -> bool:
    """Whether one path holds the other (``name`` holds ``name.givenName``; an extension holds its
    attributes), given the keys leading to each: a PATCH of one may change the other's value."""
    shortest = min(len(keys), len(other))
    return keys[:shortest] == other[:shortest]


Round = list[tuple[int, Path[Any], Attribute]]
"""Paths none of which holds another, each with its place in the check's order: patched together."""


def _rounds(ordered: list[tuple[Path[Any], Attribute]]) -> list[Round]:
    """The paths cut into rounds: each goes in the round after the last one holding a path related
    to it, so that related paths are patched (and read) in their order, and the others together."""
    rounds: list[Round] = []
    placed: list[tuple[tuple[str, ...], int]] = []
    for index, (path, attribute) in enumerate(ordered):
        keys = tuple(key.lower() for key in keys_of(path))
        level = 1 + max((level for other, level in placed if _related(keys, other)), default=-1)
        placed.append((keys, level))
        if level == len(rounds):
            rounds.append([])
        rounds[level].append((index, path, attribute))
    return rounds


def _round(context: CheckContext, target: Target, paths_round: Round, plan: Plan, runner: Steps) -> dict[int, CheckResult]:
    """The results of a round's paths, by their place: those one PATCH of them all shows done, then
    each other with a PATCH of its own (those answered 204 read back together, `_read_unread`)."""
    settled = _together(context, target, paths_round, plan) if len(paths_round) > 1 and runner.lost is None else {}
    left = [(index, path, attribute) for index, path, attribute in paths_round if index not in settled]
    done = runner.run([(str(path), partial(_alone, context, target, plan, path, attribute)) for _, path, attribute in left])
    settled.update(zip((index for index, _, _ in left), _read_unread(context, target, done, runner), strict=True))
    return settled


def _read_unread(context: CheckContext, target: Target, results: list[CheckResult], runner: Steps) -> list[CheckResult]:
    """Judge the paths whose PATCH answered 204 with one GET of the resource; the others stay."""
    unread = [result for result in results if isinstance(result, Unread)]
    if not unread:
        return results
    if runner.lost is not None:
        return [runner.skipped(result.label) if isinstance(result, Unread) else result for result in results]
    mark = len(context.exchanges)
    failure: Exception | None = None
    try:
        seen = read_back(context, target)
    except Exception as exc:
        failure = exc
    else:
        target.current = deepcopy(seen)
    read = context.exchanges[mark:]
    judged = []
    for result in results:
        if isinstance(result, Unread) and result.judge is not None:
            verdict = _failed_read(failure, read, result.label) if failure else checked(context, partial(result.judge, seen, READ_BACK), result.label)
            verdict.exchanges = [*result.exchanges, *read]
            runner.note(verdict)
            result = verdict
        judged.append(result)
    return judged


def _failed_read(failure: Exception, read: list[Any], label: str | None) -> CheckResult:
    result = failure_result(failure, read)
    result.reason = f"{label}: {result.reason}"
    return result


def _run(
    context: CheckContext,
    model: type[Resource[Any]],
    verb: str,
    wanted: Callable[[Attribute], bool],
    fill_all: bool,
    plan: Plan,
    children_first: bool = False,
    refusals: Callable[[CheckContext, type[Resource[Any]], list[tuple[Path[Any], CheckResult]]], None] | None = None,
) -> list[CheckResult]:
    """Check each wanted path of a resource; results come in the order of the paths.

    `refusals` may read again the results of the paths, with their path, once all are in.
    With `children_first`, sub-attributes are patched before the attribute holding them. The
    paths go in rounds of paths none of which holds another (`_rounds`), each round first in one
    PATCH request, then path by path for those it did not show done (`_round`), each path keeping
    its own result.
    """
    skipped = unclaimed(context, "patch")
    if skipped:
        return [skipped]
    paths = [(path, attribute) for path in paths_of(model) if (attribute := attribute_at(model, path)) and wanted(attribute)]
    if not paths:
        return [CheckResult(Status.SKIPPED, reason=f"No attribute of {model.__name__} can be {verb}.")]
    created = context.references.fresh(context, model, fill_all=fill_all, handed_over=not fill_all)  # check_add_attribute takes object_creation's least
    target = Target(model, str(created.id), resource_path(context, model, created.id), created.model_dump())
    # An immutable value given at creation (a unique one, to tell the resource apart) is set for good.
    paths = [(path, attribute) for path, attribute in paths if attribute.mutability != Mutability.immutable or unassigned(value_at(target.current, path))]
    ordered = list(reversed(paths)) if children_first else paths
    runner = Steps(context)
    placed = _not_kept(context, target, ordered)
    for paths_round in _rounds(ordered):
        sent = [entry for entry in paths_round if entry[0] not in placed]
        if sent:
            placed.update(_round(context, target, sent, plan, runner))
    results = [placed[index] for index in range(len(ordered))]
    if refusals is not None:
        refusals(context, model, [(path, result) for (path, _), result in zip(ordered, results, strict=True)])
    return results[::-1] if children_first else results


def _not_kept(context: CheckContext, target: Target, ordered: list[tuple[Path[Any], Attribute]]) -> dict[int, CheckResult]:
    """SKIPPED, by their place, the paths of an attribute the target's creation sent and its answer
    held none of: the server keeps none of it (creations.py), so a PATCH of it judges nothing."""
    dropped = context.creations.dropped(target.model, target.id)
    kind = target.model.__name__
    return {
        index: CheckResult(Status.SKIPPED, reason=f"{path}: Skipped: {not_kept(keys_of(path)[0], kind)}.")
        for index, (path, _) in enumerate(ordered)
        if keys_of(path)[0] in dropped
    }


def _writing(op: PatchOperation.Op) -> Plan:
    """PATCH add or replace a new value at a path; the resource must hold it then."""

    def plan(context: CheckContext, target: Target, path: Path[Any], attribute: Attribute) -> Planned:
        value = attribute_value(context, attribute, avoid=value_at(target.current, path))

        def judge(resource: dict[str, Any], source: str) -> CheckResult:
            data = examined(resource, path)
            expected, actual = normalized(target.model, path, value), value_at(resource, path)
            if not matches(expected, actual):
                return CheckResult(Status.ERROR, reason=f"{path}: after {op.value}, {source} holds {shown(actual)} instead of {shown(expected)}.", data=data)
            return CheckResult(Status.SUCCESS, reason=f"{path}: the value given by {op.value} is in {source}.", data=data)

        accepted = f"{path}: {op.value} accepted; {attribute.declaration}, so the value cannot be read back." if attribute.hidden else None
        return Planned(path, _operation(op, path, value), judge, accepted)

    return plan


def examined(resource: dict[str, Any], path: Path[Any]) -> dict[str, Any]:
    """What a result keeps of the resource it judged: the value at its path (the exchange holds
    the whole answer; thousands of results holding whole resources would weigh hundreds of MB)."""
    return {str(path): value_at(resource, path)}


def _removing(context: CheckContext, target: Target, path: Path[Any], attribute: Attribute) -> Planned:
    """PATCH remove a path (given a value first when it has none); the resource must no longer hold it."""
    first = None
    if not attribute.hidden and unassigned(value_at(target.current, path)):
        first = _operation(PatchOperation.Op.add, path, attribute_value(context, attribute))

    def judge(resource: dict[str, Any], source: str) -> CheckResult:
        data, left = examined(resource, path), value_at(resource, path)
        if not unassigned(left):
            return CheckResult(Status.ERROR, reason=f"{path}: after remove, {source} still holds {shown(left)}.", data=data)
        return CheckResult(Status.SUCCESS, reason=f"{path}: the attribute is gone from {source}.", data=data)

    accepted = f"{path}: remove accepted; {attribute.declaration}, so its absence cannot be read back." if attribute.hidden else None
    return Planned(path, _operation(PatchOperation.Op.remove, path), judge, accepted, first)


def _addable(attribute: Attribute) -> bool:
    return attribute.writable and not attribute.required


def _removable(attribute: Attribute) -> bool:
    return attribute.mutability in (Mutability.read_write, Mutability.write_only) and not attribute.required


def _replaceable(attribute: Attribute) -> bool:
    return attribute.mutability in (Mutability.read_write, Mutability.write_only)


@checker("crud", "crud:update", section="3.5.2.1", start="early", takes="created")
def check_add_attribute(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """PATCH add gives a resource each attribute it lacked (RFC 7644 §3.5.2.1).

    Creates a resource with its required attributes only, then adds a value to
    every writable, optional attribute path: base attributes, the
    sub-attributes of complex attributes, and extension attributes addressed by
    their schema URN, each PATCH sent as clients send it (no "attributes"); the
    paths none of which holds another go in one PATCH, and a path it does not
    show done is sent again alone, whose answer judges it. One result per path:
    SUCCESS when the 200 answer holds the value (or a GET does, after a 204);
    ERROR when the request fails or the value is missing.
    SKIPPED when nothing can be added, or when the ServiceProviderConfig does not
    claim PATCH support. A value referencing a resource (a Group member) is held
    when its "value" is: the server may leave out its "$ref", "type" and
    "display" ("required": false, RFC 7643 §8.7.1; a "$ref" is OPTIONAL and may
    be relative, §2.3.7), and one answered naming another resource is missing.
    """
    return _run(context, model, "added", _addable, False, _writing(PatchOperation.Op.add))


@checker("crud", "crud:update", section="3.5.2.2", start="early")
def check_remove_attribute(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """PATCH remove takes each attribute off a resource (RFC 7644 §3.5.2.2).

    Creates a resource with every writable attribute filled, then removes every
    optional, mutable attribute path (base attributes, sub-attributes,
    extension attributes by URN; sub-attributes before the attribute holding
    them, the others together as check_add_attribute sends them), giving it a
    value first when an earlier removal took it away. One
    result per path: SUCCESS when the answer (or a GET after a 204) no longer
    holds the attribute; ERROR when the request fails or the attribute is still
    there, but DEVIATION when a removal refused with a 4xx takes away what the
    server requires though /Schemas declares it optional (the run's least creation
    was refused without it, which object_creation reports: creations.py): "a
    required attribute" SHALL NOT be removed (RFC 7644 §3.5.2.2), and the
    declaration is what is wrong. SKIPPED when nothing can be removed, or when the
    ServiceProviderConfig does not claim PATCH support.
    """
    # Children first: removing `name` first would leave each name.* path to be given a value again.
    return _run(context, model, "removed", _removable, True, _removing, children_first=True, refusals=_required_by_policy)


def _required_by_policy(context: CheckContext, model: type[Resource[Any]], judged: list[tuple[Path[Any], CheckResult]]) -> None:
    """Make DEVIATION each removal refused with a 4xx of an attribute (or a part of one) the server
    asked for beside the required ones in a creation (learnt by a least creation first)."""
    refused = [(path, result) for path, result in judged if result.status is Status.ERROR and _refused(result)]
    if not refused:
        return
    adaptation = learnt_adaptation(context, model)
    if adaptation is None:
        return
    required = {name.lower() for name in adaptation.added}
    for path, result in refused:
        top = keys_of(path)[0]
        if top.lower() in required:
            result.status = Status.DEVIATION
            result.reason = (
                f"{(result.reason or '').rstrip('.')}; the server requires {top} beside what its /Schemas declares required "
                f"(without it, {adaptation.refusal}), and a required attribute is not removed (RFC 7644 §3.5.2.2)."
            )


def _refused(result: CheckResult) -> bool:
    """Whether a path's result ended on a PATCH answered with a 4xx."""
    patches = [exchange for exchange in result.exchanges if exchange.method == "PATCH" and exchange.status_code is not None]
    return bool(patches) and 400 <= (patches[-1].status_code or 0) < 500


@checker("crud", "crud:update", section="3.5.2.3", start="early")
def check_replace_attribute(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """PATCH replace gives each attribute of a resource a new value (RFC 7644 §3.5.2.3).

    Creates a resource with every writable attribute filled, then replaces the
    value of every mutable attribute path (base attributes, sub-attributes,
    extension attributes by URN; together as check_add_attribute sends them).
    One result per path: SUCCESS when the answer (or a GET
    after a 204) holds the new value; ERROR when the request fails or the old
    value stays. SKIPPED when nothing can be replaced, or when the
    ServiceProviderConfig does not claim PATCH support. A Group member is held
    when its "value" is, with or without its "$ref", "type" and "display"
    (RFC 7643 §2.3.7, §8.7.1), as check_add_attribute judges it.
    """
    return _run(context, model, "replaced", _replaceable, True, _writing(PatchOperation.Op.replace_))
