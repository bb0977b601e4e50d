"""Checks of PATCH: add, remove and replace, one result per attribute path (RFC 7644 §3.5.2)."""

from __future__ import annotations

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
from scim_tui.checker.checks.comparison import attribute_at
from scim_tui.checker.checks.comparison import matches
from scim_tui.checker.checks.comparison import normalized
from scim_tui.checker.checks.comparison import paths_of
from scim_tui.checker.checks.comparison import shown
from scim_tui.checker.checks.comparison import unassigned
from scim_tui.checker.checks.comparison import value_at
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.probes import steps
from scim_tui.checker.context import CheckContext
from scim_tui.checker.features import unclaimed
from scim_tui.checker.filling import Attribute
from scim_tui.checker.filling import attribute_value
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


PATCH_ANSWER = "the PATCH answer"
READ_BACK = "a GET after the 204 answer"


def send_patch(context: CheckContext, target: Target, operations: list[dict[str, Any]], **request: Any) -> tuple[dict[str, Any], str]:
    """Send PATCH operations (JSON) as clients do; return the resource seen, as JSON, and where it
    came from (PATCH_ANSWER or READ_BACK). `request` goes to both HTTP requests (headers=...).

    The server answers 200 with the resource or 204 without a body (RFC 7644 §3.5.2); after a
    204 the resource is read back with a GET. No "attributes" goes with the request: a server
    that mishandles it would fail every PATCH for that one reason, and the projection checks
    test it once.
    """
    # The body a PatchOp model would give, built as JSON: the server, not the client, judges it.
    patch_op = {"schemas": [str(PatchOp.__schema__)], "Operations": operations}
    answer = context.client.modify(
        target.model, target.id, patch_op, check_request_payload=False, expected_status_codes=PATCH_ANSWERS, url=target.url, **request
    )
    if isinstance(answer, Resource):
        return answer.model_dump(), PATCH_ANSWER
    if context.exchanges and context.exchanges[-1].status_code == 200:
        raise ValueError(f"the answer is {answer_name(answer)}, but a 200 must hold the resource; only a 204 has no body (RFC 7644 §3.5.2)")
    found = context.client.query(target.model, target.id, expected_status_codes=context.expected_status_codes, **request)
    if not isinstance(found, Resource):
        raise ValueError(f"the answer is {answer_name(found)} instead of the {target.model.__name__}")
    return found.model_dump(), READ_BACK


def _patch(context: CheckContext, target: Target, op: PatchOperation.Op, path: Path[Any], value: Any = None) -> tuple[dict[str, Any], str]:
    """Send one PATCH operation, and update what is known of the resource."""
    operation = {"op": op.value, "path": str(path)} | ({} if op is PatchOperation.Op.remove else {"value": value})
    seen, source = send_patch(context, target, [operation])
    target.current = deepcopy(seen)  # later answers replace it; the result keeps what was seen
    return seen, source


def _run(
    context: CheckContext,
    model: type[Resource[Any]],
    verb: str,
    wanted: Callable[[Attribute], bool],
    fill_all: bool,
    check_one: Callable[[CheckContext, Target, Path[Any], Attribute], CheckResult],
    children_first: bool = False,
) -> list[CheckResult]:
    """Check each wanted path of a resource in turn; results come in the order of the paths.

    With `children_first`, sub-attributes are patched before the attribute holding them.
    """
    skipped = unclaimed(context, "patch")
    if skipped:
        return [skipped]
    paths = [(path, attribute) for path in paths_of(model) if (attribute := attribute_at(model, path)) and wanted(attribute)]
    if not paths:
        return [CheckResult(Status.SKIPPED, reason=f"No attribute of {model.__name__} can be {verb}.")]
    created = context.resource_manager.create_and_register(model, fill_all=fill_all)
    target = Target(model, str(created.id), resource_path(context, model, created.id), created.model_dump())
    # An immutable value given at creation (a unique one, to tell the resource apart) is set for good.
    paths = [(path, attribute) for path, attribute in paths if attribute.mutability != Mutability.immutable or unassigned(value_at(target.current, path))]
    ordered = list(reversed(paths)) if children_first else paths
    results = steps(context, [(str(path), partial(check_one, context, target, path, attribute)) for path, attribute in ordered])
    return results[::-1] if children_first else results


def _written(context: CheckContext, target: Target, op: PatchOperation.Op, path: Path[Any], attribute: Attribute) -> CheckResult:
    """PATCH add or replace a new value at `path`, then check the resource holds it."""
    value = attribute_value(context, attribute, avoid=value_at(target.current, path))
    seen, source = _patch(context, target, op, path, value)
    data = examined(seen, path)
    if attribute.hidden:
        return CheckResult(Status.SUCCESS, reason=f"{path}: {op.value} accepted; {attribute.declaration}, so the value cannot be read back.", data=data)
    expected, actual = normalized(target.model, path, value), value_at(seen, path)
    if not matches(expected, actual):
        return CheckResult(Status.ERROR, reason=f"{path}: after {op.value}, {source} holds {shown(actual)} instead of {shown(expected)}.", data=data)
    return CheckResult(Status.SUCCESS, reason=f"{path}: the value given by {op.value} is in {source}.", data=data)


def examined(resource: dict[str, Any], path: Path[Any]) -> dict[str, Any]:
    """What a result keeps of the resource it judged: the value at its path (the exchange holds
    the whole answer; thousands of results holding whole resources would weigh hundreds of MB)."""
    return {str(path): value_at(resource, path)}


def _add_one(context: CheckContext, target: Target, path: Path[Any], attribute: Attribute) -> CheckResult:
    return _written(context, target, PatchOperation.Op.add, path, attribute)


def _replace_one(context: CheckContext, target: Target, path: Path[Any], attribute: Attribute) -> CheckResult:
    return _written(context, target, PatchOperation.Op.replace_, path, attribute)


def _remove_one(context: CheckContext, target: Target, path: Path[Any], attribute: Attribute) -> CheckResult:
    """PATCH remove `path` (given a value first when it has none), then check the resource no longer holds it."""
    if not attribute.hidden and unassigned(value_at(target.current, path)):
        _patch(context, target, PatchOperation.Op.add, path, attribute_value(context, attribute))
    seen, source = _patch(context, target, PatchOperation.Op.remove, path)
    data = examined(seen, path)
    if attribute.hidden:
        return CheckResult(Status.SUCCESS, reason=f"{path}: remove accepted; {attribute.declaration}, so its absence cannot be read back.", data=data)
    left = value_at(seen, path)
    if not unassigned(left):
        return CheckResult(Status.ERROR, reason=f"{path}: after remove, {source} still holds {shown(left)}.", data=data)
    return CheckResult(Status.SUCCESS, reason=f"{path}: the attribute is gone from {source}.", data=data)


def _addable(attribute: Attribute) -> bool:
    return attribute.writable and not attribute.required


def _removable(attribute: Attribute) -> bool:
    return attribute.mutability in (Mutability.read_write, Mutability.write_only) and not attribute.required


def _replaceable(attribute: Attribute) -> bool:
    return attribute.mutability in (Mutability.read_write, Mutability.write_only)


@checker("crud", "crud:update", section="3.5.2.1")
def check_add_attribute(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """PATCH add gives a resource each attribute it lacked (RFC 7644 §3.5.2.1).

    Creates a resource with its required attributes only, then adds a value to
    every writable, optional attribute path in turn: base attributes, the
    sub-attributes of complex attributes, and extension attributes addressed by
    their schema URN, each PATCH sent as clients send it (no "attributes").
    One result per path: SUCCESS when the 200 answer holds the value (or a GET
    does, after a 204); ERROR when the request fails or the value is missing.
    SKIPPED when nothing can be added, or when the ServiceProviderConfig does not
    claim PATCH support.
    """
    return _run(context, model, "added", _addable, False, _add_one)


@checker("crud", "crud:update", section="3.5.2.2")
def check_remove_attribute(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """PATCH remove takes each attribute off a resource (RFC 7644 §3.5.2.2).

    Creates a resource with every writable attribute filled, then removes every
    optional, mutable attribute path in turn (base attributes, sub-attributes,
    extension attributes by URN; sub-attributes before the attribute holding
    them), giving it a value first when an earlier removal took it away. One
    result per path: SUCCESS when the answer (or a GET after a 204) no longer
    holds the attribute; ERROR when the request fails or the attribute is still
    there. SKIPPED when nothing can be removed, or when the ServiceProviderConfig
    does not claim PATCH support.
    """
    # Children first: removing `name` first would leave each name.* path to be given a value again.
    return _run(context, model, "removed", _removable, True, _remove_one, children_first=True)


@checker("crud", "crud:update", section="3.5.2.3")
def check_replace_attribute(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """PATCH replace gives each attribute of a resource a new value (RFC 7644 §3.5.2.3).

    Creates a resource with every writable attribute filled, then replaces the
    value of every mutable attribute path in turn (base attributes,
    sub-attributes, extension attributes by URN). One result per path: SUCCESS when the answer (or a GET
    after a 204) holds the new value; ERROR when the request fails or the old
    value stays. SKIPPED when nothing can be replaced, or when the
    ServiceProviderConfig does not claim PATCH support.
    """
    return _run(context, model, "replaced", _replaceable, True, _replace_one)
