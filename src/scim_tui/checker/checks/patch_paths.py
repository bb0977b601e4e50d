"""PATCH in the shapes identity providers send it (RFC 7644 §3.5.2).

Entra ID and Okta select one value of a multi-valued attribute with a value filter
(``emails[type eq "work"].value``, ``members[value eq "<id>"]``), send attributes without
a path, and put several operations in one request. The checks of patch.py judge one
attribute path at a time (sending paths together, each judged again alone when that request
failed); these send those shapes, on attributes found in the schema.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from scim2_models import Mutability
from scim2_models import Path
from scim2_models import Resource

from scim_tui.checker.answers import shown
from scim_tui.checker.checks.comparison import matches
from scim_tui.checker.checks.comparison import normalized
from scim_tui.checker.checks.comparison import unassigned
from scim_tui.checker.checks.comparison import value_at
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.kept import held
from scim_tui.checker.checks.patch import Target
from scim_tui.checker.checks.patch import send_patch
from scim_tui.checker.checks.probes import checked
from scim_tui.checker.checks.probes import steps
from scim_tui.checker.context import CheckContext
from scim_tui.checker.creations import not_kept
from scim_tui.checker.features import unclaimed
from scim_tui.checker.filling import Attribute
from scim_tui.checker.filling import attribute_value
from scim_tui.checker.filling import attributes_of
from scim_tui.checker.filling import complex_lists
from scim_tui.checker.filling import linking_attribute
from scim_tui.checker.filling import object_value
from scim_tui.checker.filling import scalar_value
from scim_tui.checker.filling import string_value
from scim_tui.checker.filling import sub_attributes
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

PREFERRED_TYPE = "work"
"""The type identity providers select most (``emails[type eq "work"]``), when the schema offers it."""


def _complex_multi_valued(model: type[Resource[Any]]) -> list[tuple[Attribute, dict[str, Attribute]]]:
    """The modifiable multi-valued complex attributes of a model, with their sub-attributes by name."""
    return [(attribute, subs) for attribute, subs in complex_lists(model) if attribute.mutability is Mutability.read_write]


def typed_attribute(model: type[Resource[Any]]) -> Attribute | None:
    """A multi-valued attribute whose values have a `type` and a modifiable `value` (emails ...)."""
    return next(
        (
            attribute
            for attribute, subs in _complex_multi_valued(model)
            if "type" in subs and subs["type"].writable and "value" in subs and subs["value"].mutability is Mutability.read_write and not subs["value"].hidden
        ),
        None,
    )


def simple_attributes(model: type[Resource[Any]]) -> list[Attribute]:
    """The optional, modifiable, single-valued attributes of a simple type, never hidden, of the core schema."""
    return [
        attribute
        for attribute in attributes_of(model)
        if attribute.mutability is Mutability.read_write
        and not attribute.required
        and not attribute.multi_valued
        and not attribute.is_complex
        and not attribute.is_extension
        and not attribute.hidden
        and attribute.reference_types is None
    ]


def _created(context: CheckContext, model: type[Resource[Any]], values: dict[str, Any] | None = None) -> Target:
    """Create a resource (required attributes and `values`), deleted at the end of the check."""
    created = context.resource_manager.create_and_register(model, fill_all=False, values=values)
    return Target(model, str(created.id), resource_path(context, model, created.id), created.model_dump())


def _kept(context: CheckContext, target: Target, attributes: list[Attribute]) -> list[Attribute]:
    """The attributes of those given that the target's creation did not drop (the server keeps none
    of what it dropped: creations.py)."""
    dropped = context.creations.dropped(target.model, target.id)
    return [attribute for attribute in attributes if attribute.name not in dropped]


def _none_kept(target: Target, names: list[str]) -> list[CheckResult]:
    kind = target.model.__name__
    return [CheckResult(Status.SKIPPED, reason=f"Skipped: {'; '.join(not_kept(name, kind) for name in names)}.")]


def _path(model: type[Resource[Any]], name: str) -> Path[Any]:
    return Path[model](name)  # type: ignore[valid-type]  # the model is known at run time only


def _types(kind: Attribute) -> tuple[str, str]:
    """Two distinct values of a `type` sub-attribute: "work" first when the schema offers it."""
    canonical = sorted(kind.canonical_values, key=lambda value: value != PREFERRED_TYPE)
    if len(canonical) >= 2:
        return canonical[0], canonical[1]
    return string_value(kind), string_value(kind)


def _unmet(context: CheckContext, found: Any, missing: str) -> list[CheckResult] | None:
    """SKIPPED when the server does not claim PATCH support, or when the model lacks what a
    shape needs (nothing `found`: `missing` says what); None when the check can run."""
    skipped = unclaimed(context, "patch")
    if skipped:
        return [skipped]
    return None if found else [CheckResult(Status.SKIPPED, reason=missing)]


@checker("patch", "patch:filter", section="3.5.2.3")
def patch_filtered_replace(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """PATCH replace selects one value of a multi-valued attribute by a value filter (RFC 7644 §3.5.2.3).

    Creates a resource with two values of a multi-valued attribute that has a
    type and a value (emails: a "work" one and a "home" one), then sends
    replace with the path ``emails[type eq "work"].value``, as Entra ID and Okta
    do. "All matching record
    values SHALL be replaced": SUCCESS when the work value is the new one and
    the other keeps its own; ERROR when the request fails, the work value stays,
    or the other value changed too. SKIPPED when the model has no such
    attribute, or when the ServiceProviderConfig does not claim PATCH support.
    """
    attribute = typed_attribute(model)
    unmet = _unmet(
        context, attribute, f"{model.__name__} has no modifiable multi-valued attribute with a type and a value (such as emails) to select by a value filter."
    )
    if unmet or attribute is None:  # _unmet names an attribute not found
        return unmet or []
    subs = sub_attributes(attribute)
    chosen, other = _types(subs["type"])
    values = [{"type": kind, "value": scalar_value(context, subs["value"])} for kind in (chosen, other)]
    target = _created(context, model, {attribute.name: values})
    path = f"{attribute.name}[type eq {json.dumps(chosen)}].value"
    replacement = scalar_value(context, subs["value"], avoid=values[0]["value"])

    def replace() -> CheckResult:
        seen, source = send_patch(context, target, [{"op": "replace", "path": path, "value": replacement}])
        items = [item for item in value_at(seen, _path(model, attribute.name)) or [] if isinstance(item, dict)]
        selected = [item.get("value") for item in items if matches(chosen, item.get("type"))]
        others = [item.get("value") for item in items if matches(other, item.get("type"))]
        if not any(matches(replacement, value) for value in selected):
            return CheckResult(
                Status.ERROR,
                reason=f"{path}: after replace, {source} holds {shown(selected)} as the {chosen} value instead of {shown(replacement)}.",
                data=seen,
            )
        if not any(matches(values[1]["value"], value) for value in others):
            return CheckResult(
                Status.ERROR, reason=f"{path}: replace also changed the {other} value to {shown(others)}, which the filter does not select.", data=seen
            )
        return CheckResult(Status.SUCCESS, reason=f"{path}: replace changed the {chosen} value only, as {source} shows.", data=seen)

    return [checked(context, replace, path)]


@checker("patch", "patch:filter", section="3.5.2.2")
def patch_filtered_remove(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """PATCH remove takes one value of a multi-valued attribute, selected by a value filter (RFC 7644 §3.5.2.2).

    Creates two resources to reference and a resource holding both in a
    multi-valued attribute whose values reference resources (a group with two
    members), then sends remove with the path ``members[value eq "<id>"]``, as
    Entra ID and Okta remove a member. "The matching records are removed":
    SUCCESS when that member is gone and the other stays; ERROR when the
    request fails, the member stays, or the other member went too. SKIPPED when
    the model has no such attribute, or when the ServiceProviderConfig does not
    claim PATCH support; members the creation dropped are added by PATCH add
    first, and the check is SKIPPED naming the creation when they cannot be.
    """
    attribute = linking_attribute(model)
    unmet = _unmet(
        context,
        attribute,
        f"{model.__name__} has no modifiable multi-valued attribute whose values reference other resources (such as members) to select by a value filter.",
    )
    if unmet or attribute is None:  # _unmet names an attribute not found
        return unmet or []
    values = [object_value(context, attribute.root_type) for _ in range(2)]
    target = _created(context, model, {attribute.name: values})
    removed, kept = (value["value"] for value in values)
    path = f"{attribute.name}[value eq {json.dumps(removed)}]"
    dropped = held(context, target, attribute, values)
    if dropped:
        return [CheckResult(Status.SKIPPED, reason=f"{path}: Skipped: {dropped}.")]

    def remove() -> CheckResult:
        seen, source = send_patch(context, target, [{"op": "remove", "path": path}])
        left = [item.get("value") for item in value_at(seen, _path(model, attribute.name)) or [] if isinstance(item, dict)]
        if removed in left:
            return CheckResult(Status.ERROR, reason=f"{path}: after remove, {source} still holds {removed} in {attribute.name}.", data=seen)
        if kept not in left:
            return CheckResult(Status.ERROR, reason=f"{path}: remove also took {kept} out of {attribute.name}, which the filter does not select.", data=seen)
        return CheckResult(Status.SUCCESS, reason=f"{path}: remove took out that value only, as {source} shows.", data=seen)

    return [checked(context, remove, path)]


@checker("patch", "patch:no-path", section="3.5.2.1")
def patch_without_path(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """PATCH add and replace without a path give the resource the attributes of their value (RFC 7644 §3.5.2.1, §3.5.2.3).

    Creates a resource, then sends add with no path and an object of two
    optional single-valued attributes as its value (externalId and displayName
    for a User), then replace with no path and new values for both, as Okta
    sends ``{"op": "replace", "value": {"active": false}}``. "If omitted, the target location is assumed to be the
    resource itself": one result per operation, SUCCESS when the answer holds
    every value sent; ERROR when the request fails or a value is missing.
    SKIPPED when the model has no such attribute, or when the
    ServiceProviderConfig does not claim PATCH support. An attribute the
    resource's creation answered without (the server keeps none of it) gives
    its place to the next one.
    """
    unmet = _unmet(
        context, simple_attributes(model), f"{model.__name__} has no optional, modifiable, single-valued attribute of a simple type to send without a path."
    )
    if unmet:
        return unmet
    target = _created(context, model)
    attributes = _kept(context, target, simple_attributes(model))[:2]
    if not attributes:
        return _none_kept(target, [attribute.name for attribute in simple_attributes(model)])
    added = {attribute.name: attribute_value(context, attribute) for attribute in attributes}
    replaced = {attribute.name: attribute_value(context, attribute, avoid=added[attribute.name]) for attribute in attributes}
    labelled = []
    for op, value in (("add", added), ("replace", replaced)):
        label = f"{op} without a path, value {{{', '.join(value)}}}"
        labelled.append((label, partial(applied, context, target, label, [{"op": op, "value": value}], value, "every value sent")))
    return steps(context, labelled)


def applied(
    context: CheckContext, target: Target, label: str, operations: list[dict[str, Any]], expected: dict[str, Any], outcome: str, **request: Any
) -> CheckResult:
    """Send operations, then tell whether the resource holds each expected value (None: unassigned) at
    its attribute path, `outcome` in words. `request` goes to the HTTP requests (headers=...)."""
    seen, source = send_patch(context, target, operations, **request)
    return holds(target, label, seen, source, expected, outcome)


def holds(target: Target, label: str, seen: dict[str, Any], source: str, expected: dict[str, Any], outcome: str) -> CheckResult:
    """Whether a resource `seen` (in `source`) holds each expected value (None: unassigned) at its attribute path."""
    for name, value in expected.items():
        path = _path(target.model, name)
        actual = value_at(seen, path)
        if value is None and not unassigned(actual):
            return CheckResult(Status.ERROR, reason=f"{label}: {source} still holds {name} = {shown(actual)}, which the last operation removed.", data=seen)
        if value is not None and not matches(normalized(target.model, path, value), actual):
            return CheckResult(Status.ERROR, reason=f"{label}: {source} holds {name} = {shown(actual)} instead of {shown(value)}.", data=seen)
    return CheckResult(Status.SUCCESS, reason=f"{label}: {source} holds {outcome}.", data=seen)


@checker("patch", "patch:order", section="3.5.2")
def patch_operations_in_order(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Several operations in one PATCH request are applied in the order they come (RFC 7644 §3.5.2).

    Creates a resource with a value for one optional single-valued attribute
    (externalId for a User), then sends two requests on it, as identity
    providers batch their changes: add a value then replace it with another,
    and add a value then remove it. "The
    general form of the SCIM PATCH request is based on JSON Patch", whose
    operations "are applied sequentially in the order they appear in the
    array" (RFC 6902 §3): one result per request, SUCCESS when the attribute
    holds the value of the last operation (none after the remove); ERROR when
    the request fails or an earlier value is left. SKIPPED when the model has
    no such attribute, or when the ServiceProviderConfig does not claim PATCH
    support. When the creation answered without the attribute's value (the
    server keeps none of it), a resource is made with the next such attribute;
    SKIPPED when its creation drops that one too.
    """
    attributes = simple_attributes(model)
    unmet = _unmet(context, attributes[:1], f"{model.__name__} has no optional, modifiable, single-valued attribute of a simple type to patch.")
    if unmet:
        return unmet
    attribute = attributes[0]
    initial = attribute_value(context, attribute)
    # A value from the start, so that a server applying nothing is caught by the add then remove too.
    target = _created(context, model, {attribute.name: initial})
    if not _kept(context, target, [attribute]):
        others = _kept(context, target, attributes)
        if not others:
            return _none_kept(target, [attribute.name])
        dropped, attribute = attribute.name, others[0]
        initial = attribute_value(context, attribute)
        target = _created(context, model, {attribute.name: initial})
        if not _kept(context, target, [attribute]):
            return _none_kept(target, [dropped, attribute.name])
    first = attribute_value(context, attribute, avoid=initial)
    second = attribute_value(context, attribute, avoid=first)
    sequences = {
        f"add then replace {attribute.name} in one request": ([("add", first), ("replace", second)], second),
        f"add then remove {attribute.name} in one request": ([("add", first), ("remove", None)], None),
    }
    labelled = []
    for label, (sequence, last) in sequences.items():
        operations = [{"op": op, "path": attribute.name} | ({} if op == "remove" else {"value": value}) for op, value in sequence]
        labelled.append((label, partial(applied, context, target, label, operations, {attribute.name: last}, "the outcome of the last operation")))
    return steps(context, labelled)
