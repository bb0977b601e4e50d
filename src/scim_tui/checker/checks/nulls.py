"""null in a body means "unassigned" (RFC 7643 §2.5): a creation or a replacement carrying it is
taken, and a PATCH replacing a value with null (or "") does not keep the old value."""

from __future__ import annotations

from functools import partial
from typing import Any

from scim2_models import Resource
from scim2_models import Uniqueness

from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import member
from scim_tui.checker.answers import shown
from scim_tui.checker.checks.comparison import unassigned
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.patch import Target
from scim_tui.checker.checks.patch import send_patch
from scim_tui.checker.checks.patch import sent_patch
from scim_tui.checker.checks.probes import checked
from scim_tui.checker.checks.probes import method_refused
from scim_tui.checker.checks.probes import send_json
from scim_tui.checker.checks.probes import steps
from scim_tui.checker.context import CheckContext
from scim_tui.checker.exchanges import failure_reason
from scim_tui.checker.features import claims
from scim_tui.checker.filling import UNIQUE
from scim_tui.checker.filling import Attribute
from scim_tui.checker.filling import attributes_of
from scim_tui.checker.filling import creatable
from scim_tui.checker.filling import creation_json
from scim_tui.checker.filling import identifying
from scim_tui.checker.filling import name_attribute
from scim_tui.checker.filling import unique_for
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import PrerequisiteFailed
from scim_tui.checker.results import Status

UNASSIGNED = 'RFC 7643 §2.5: "assigning an attribute with the value null ... has the effect of making the attribute unassigned"'
REPLACED = "RFC 7644 §3.5.2.3: a replace operation replaces the value at its path"


def nullable(model: type[Resource[Any]]) -> Attribute | None:
    """An optional single-valued string a client may change and read back, other than the resource's
    name and any unique value: one the run does not mark its resources with first (nickName), else
    externalId."""
    name = name_attribute(model)
    fits = [
        attribute
        for attribute in attributes_of(model)
        if attribute.changeable
        and not attribute.required
        and not attribute.multi_valued
        and attribute.root_type is str
        and attribute != name
        and attribute.owner.get_field_annotation(attribute.field, Uniqueness) not in UNIQUE
    ]
    return next((attribute for attribute in fits if not identifying(attribute)), fits[0] if fits else None)


@checker("bodies", "bodies:null", section="2.5", rfc=7643)
def null_values(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """null in a body is "unassigned", and a PATCH replace with null or "" drops the old value (RFC 7643 §2.5, RFC 7644 §3.5).

    Works on one optional string the schema declares readWrite and returned by default (nickName,
    else externalId; RFC 7643 §2.2). POSTs a resource with it null; then creates one with a value,
    PUTs it back with that attribute null, and PATCHes it twice each time: add a value, then
    replace it with null; add a value, then replace it with "" (each add a request of its own, as
    a server may take one operation a request; SKIPPED when it fails or answers without the
    value). One result per request: SUCCESS when the POST and the PUT are taken and their
    resource holds no value there, when the PATCH with null leaves it unassigned and the PATCH
    with "" leaves it empty or unassigned ("assigning an attribute with the value null ... has the effect of making the
    attribute unassigned", §2.5; §3.5.2.3: replace replaces); ERROR when a request is refused or
    the old value stays (Microsoft's SCIM_Null_Update). SKIPPED when the schema has no such
    attribute, for the PATCHes when the ServiceProviderConfig does not claim patch, for the
    PUT when it is answered 405 (the server refuses PUT itself: object_replacement judges it), and
    for the POST refused with a 4xx when the run's least creation is refused too (object_creation
    reports it).
    """
    attribute = nullable(model)
    if attribute is None:
        return [CheckResult(Status.SKIPPED, reason=f"Skipped: the {model.__name__} schema declares no optional string a client may change and read back.")]
    results = [checked(context, partial(_posted, context, model, attribute), "POST with null")]
    try:
        created = context.resource_manager.create_and_register(model, fill_all=False, values={attribute.name: unique_for(attribute)})
    except PrerequisiteFailed as exc:
        return [*results, CheckResult(Status.SKIPPED, reason=f"PUT and PATCH with null: Skipped: {exc}.")]
    target = Target(model, str(created.id), resource_path(context, model, created.id), created.model_dump())
    changes: list[tuple[str | None, Any]] = [("PUT with null", partial(_replaced, context, target, attribute))]
    for value, label in ((None, "PATCH replace with null"), ("", 'PATCH replace with ""')):
        if claims(context, "patch"):
            changes.append((label, partial(_patched, context, target, attribute, value)))
        else:
            changes.append((label, partial(_unclaimed, label)))
    return [*results, *steps(context, changes)]


def _posted(context: CheckContext, model: type[Resource[Any]], attribute: Attribute) -> CheckResult:
    path = resource_path(context, model)
    request = f"POST {context.root_path(path)} with {attribute.name} null"
    response = send_json(context, "POST", path, creation_json(context, model) | {attribute.name: None})
    creatable(context, model, response.status_code)  # refused as every creation is: no finding of null
    return _judged(request, response.status_code, body_of(response), attribute, None)


def _replaced(context: CheckContext, target: Target, attribute: Attribute) -> CheckResult:
    """PUT the resource as it is, with the attribute null."""
    request = f"PUT {context.root_path(target.url)} with {attribute.name} null"
    body = {key: value for key, value in target.current.items() if key != "meta"} | {attribute.name: None}
    response = send_json(context, "PUT", target.url, body)
    refused = method_refused(request, response)
    if refused:
        return refused
    seen = body_of(response)
    if response.status_code == 204:
        seen = body_of(context.client.request("GET", target.url))
    return _judged(request, response.status_code, seen, attribute, target.current.get(attribute.name))


def _patched(context: CheckContext, target: Target, attribute: Attribute, value: Any) -> CheckResult:
    """PATCH add a value (a request of its own, as a server may take one operation a request), then
    PATCH replace it with `value` (null or ""): the replace is judged."""
    added = unique_for(attribute)
    mark = len(context.exchanges)
    try:
        given = sent_patch(context, target, [{"op": "add", "path": attribute.name, "value": added}])  # no GET after a 204
    except Exception as exc:
        raise PrerequisiteFailed(f"the value to replace could not be given first: {failure_reason(exc, context.exchanges[mark:])}") from exc
    if given is not None and member(given, attribute.name) != added:
        raise PrerequisiteFailed(f"the PATCH adding {attribute.name} {shown(added)} answered without it, so there is no value to replace")
    seen, source = send_patch(context, target, [{"op": "replace", "path": attribute.name, "value": value}])
    left = member(seen, attribute.name)
    request = f"PATCH {context.root_path(target.url)} replacing {attribute.name} {shown(added)} with {shown(value)}"
    if left == added:
        rule = UNASSIGNED if value is None else REPLACED
        return CheckResult(Status.ERROR, reason=f"{request}: {source} still holds {shown(added)} ({rule}).", data={attribute.name: left})
    if value is None and not unassigned(left):
        return CheckResult(Status.ERROR, reason=f"{request}: {source} holds {shown(left)} instead of no value ({UNASSIGNED}).", data={attribute.name: left})
    return CheckResult(Status.SUCCESS, reason=f"{request}: {source} holds {'no value' if unassigned(left) else shown(left)}.", data={attribute.name: left})


def _unclaimed(label: str) -> CheckResult:
    return CheckResult(Status.SKIPPED, reason=f"{label}: Skipped: the ServiceProviderConfig does not claim patch support.")


def _judged(request: str, code: int, seen: Any, attribute: Attribute, old: Any) -> CheckResult:
    """A POST or PUT carrying null: taken (2xx), and the resource holds no value there."""
    if not 200 <= code < 300:
        detail = member(seen, "detail")
        said = f" ({detail})" if isinstance(detail, str) and detail.strip() else ""
        return CheckResult(Status.ERROR, reason=f"{request} answered {code}{said}, though null is a value any attribute may take ({UNASSIGNED}).", data=seen)
    left = member(seen, attribute.name)
    if not unassigned(left):
        kept = " (the value it had)" if left == old else ""
        return CheckResult(Status.ERROR, reason=f"{request} answered {code}, and the resource holds {shown(left)}{kept} ({UNASSIGNED}).", data=seen)
    return CheckResult(Status.SUCCESS, reason=f"{request} answered {code}, and the resource holds no value there.", data=seen)
