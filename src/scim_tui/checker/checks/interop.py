"""The SCIM 2.0 Interoperability Profile (draft-zollner-scim-interop-profile-02): a profile that
narrows what RFC 7643 and RFC 7644 let a service provider choose, so that any identity provider
provisions it alike.

Its checks run only when asked for by their tag (profile:interop, registry.OPT_IN_TAGS): a server
may follow the RFCs and not the profile, which also forbids what Entra ID and Okta send (a PATCH
operation without a path), so no default run and no provider's readiness counts them. Each rule
broken is an ERROR: the profile words each as a MUST.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from scim2_models import PatchOp
from scim2_models import Resource

from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import member
from scim_tui.checker.answers import shown
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.errors import unique_attribute
from scim_tui.checker.checks.narrowing import quoted
from scim_tui.checker.checks.nulls import nullable
from scim_tui.checker.checks.probes import Refusal
from scim_tui.checker.checks.probes import checked
from scim_tui.checker.checks.probes import judge_refusal
from scim_tui.checker.checks.probes import send_json
from scim_tui.checker.context import NEEDED_CREATION_ANSWERS
from scim_tui.checker.context import CheckContext
from scim_tui.checker.features import unclaimed
from scim_tui.checker.filling import creation_json
from scim_tui.checker.filling import name_attribute
from scim_tui.checker.filling import unique_for
from scim_tui.checker.filling import unique_string
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

PROFILE = "interop profile"
"""How reasons name draft-zollner-scim-interop-profile-02, before its section."""
TAG = "profile:interop"
UNKNOWN_NAMES = Refusal(400, "invalidSyntax", f"{PROFILE} §5.3, MUST")
UNKNOWN_FILTER = Refusal(400, "invalidFilter", f"{PROFILE} §6.3, MUST")
PATH_LESS = Refusal(400, "invalidSyntax", f"{PROFILE} §6.5.1.1, MUST")
CONFLICT = Refusal(409, "uniqueness", f"{PROFILE} §6.9.1, MUST")
UNKNOWN_ATTRIBUTE = "scimTuiUnknownAttribute"
UNKNOWN_SCHEMA = "urn:scim-tui:params:scim:schemas:unknown:2.0:Nothing"
PAGE = 100
"""The count a service provider MUST support (§6.4)."""


def served(context: CheckContext, path: str) -> Any:
    """The JSON a GET answers with 200, or None."""
    response = context.client.request("GET", path)
    return body_of(response) if response.status_code == 200 else None


def listed(document: Any) -> list[dict[str, Any]]:
    """The resources of a ListResponse (or of a bare array), as served."""
    items = member(document, "Resources") if isinstance(document, dict) else document
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


@checker(TAG, section="4")
def interop_discovery(context: CheckContext) -> list[CheckResult]:
    """The discovery documents as the interoperability profile asks (draft-zollner-scim-interop-profile-02 §4, §5.1, §5.4).

    Reads /ServiceProviderConfig, /ResourceTypes and /Schemas as served. One result each:
    interopProfileConformant is true (a conformant service provider MUST include it, §4);
    every ResourceType's id equals its name (§5.1, MUST); every multi-valued complex attribute
    with a "type" sub-attribute of the schemas the resource types use declares its canonicalValues
    (§5.4, MUST). SUCCESS, else ERROR naming what is not so; SKIPPED when a document is not served.
    """
    config, types, schemas = (served(context, path) for path in ("/ServiceProviderConfig", "/ResourceTypes", "/Schemas"))
    return [_claim(config), _type_ids(types), _canonical_types(types, schemas)]


def _unread(what: str) -> CheckResult:
    return CheckResult(Status.SKIPPED, reason=f"Skipped: {what} could not be read (the discovery checks say why).")


def _claim(config: Any) -> CheckResult:
    if not isinstance(config, dict):
        return _unread("the ServiceProviderConfig")
    claimed = member(config, "interopProfileConformant")
    if claimed is True:
        return CheckResult(Status.SUCCESS, reason="The ServiceProviderConfig says interopProfileConformant: true.")
    said = "has no interopProfileConformant" if claimed is None else f"says interopProfileConformant: {shown(claimed)}"
    rule = f"a service provider claiming conformance MUST include interopProfileConformant with the value true ({PROFILE} §4)"
    return CheckResult(Status.ERROR, reason=f"The ServiceProviderConfig {said}: {rule}.")


def _type_ids(types: Any) -> CheckResult:
    if types is None:
        return _unread("/ResourceTypes")
    differing = [
        f"{shown(member(item, 'name'))} has the id {shown(member(item, 'id'))}" for item in listed(types) if member(item, "id") != member(item, "name")
    ]
    if differing:
        rule = f"every ResourceType MUST have an id equal to its name ({PROFILE} §5.1)"
        return CheckResult(Status.ERROR, reason=f"/ResourceTypes: {'; '.join(differing)}: {rule}.")
    return CheckResult(Status.SUCCESS, reason="/ResourceTypes: every ResourceType's id equals its name.")


def _canonical_types(types: Any, schemas: Any) -> CheckResult:
    if types is None or schemas is None:
        return _unread("/ResourceTypes or /Schemas")
    used = {str(member(item, "schema")) for item in listed(types)} | {
        str(member(extension, "schema")) for item in listed(types) for extension in member(item, "schemaExtensions") or [] if isinstance(extension, dict)
    }
    undeclared = [
        f"{str(member(schema, 'id')).rsplit(':', 1)[-1]}.{member(attribute, 'name')}"
        for schema in listed(schemas)
        if member(schema, "id") in used
        for attribute in member(schema, "attributes") or []
        if isinstance(attribute, dict) and member(attribute, "multiValued") is True
        for sub in member(attribute, "subAttributes") or []
        if isinstance(sub, dict) and str(member(sub, "name")).lower() == "type" and not member(sub, "canonicalValues")
    ]
    if undeclared:
        rule = f'the acceptable "type" values of each such attribute MUST be declared in canonicalValues ({PROFILE} §5.4)'
        return CheckResult(Status.ERROR, reason=f"/Schemas: {', '.join(undeclared)} declare no canonicalValues for their type: {rule}.")
    return CheckResult(Status.SUCCESS, reason='/Schemas: every multi-valued attribute with a "type" declares its canonicalValues.')


@checker(TAG, section="3.12")
def interop_unknown_names(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Unknown attributes, schemas and filter attributes are refused (draft-zollner-scim-interop-profile-02 §5.3, §6.3).

    POSTs a resource with an attribute no schema defines, then one naming a schema the resource
    type does not have (with a value for it): each MUST get 400 invalidSyntax (§5.3). Then GETs
    the endpoint filtered on an attribute no schema defines: 400 invalidFilter (§6.3). SUCCESS on
    that answer with a SCIM Error; ERROR otherwise (a creation accepted is deleted). The filter is
    SKIPPED when the ServiceProviderConfig does not claim filter.
    """
    path = resource_path(context, model)
    unknown_schema = creation_json(context, model)
    unknown_schema = unknown_schema | {"schemas": [*unknown_schema.get("schemas", []), UNKNOWN_SCHEMA], UNKNOWN_SCHEMA: {"note": unique_string()}}
    sends: list[tuple[str, dict[str, Any]]] = [
        (
            f"POST {context.root_path(path)} with the attribute {UNKNOWN_ATTRIBUTE} (no schema defines it)",
            creation_json(context, model) | {UNKNOWN_ATTRIBUTE: "x"},
        ),
        (f"POST {context.root_path(path)} naming the schema {UNKNOWN_SCHEMA} (the resource type does not have it)", unknown_schema),
    ]
    results = [checked(context, partial(_refusal_of, context, path, request, body)) for request, body in sends]
    expression = f'{UNKNOWN_ATTRIBUTE} eq "x"'
    request = f"GET {context.root_path(path)}?filter={expression} (no schema defines the attribute)"
    skipped = _unclaimed(context, "filter", "GET with a filter on an unknown attribute")
    results.append(
        skipped or checked(context, lambda: judge_refusal(request, context.client.request("GET", path, params={"filter": expression}), UNKNOWN_FILTER))
    )
    return results


def _unclaimed(context: CheckContext, feature: str, label: str) -> CheckResult | None:
    """A rule's request needing a feature the ServiceProviderConfig does not claim is not sent: SKIPPED saying so."""
    skipped = unclaimed(context, feature)
    if skipped is not None:
        skipped.reason = f"{label}: {skipped.reason}"
    return skipped


def _refusal_of(context: CheckContext, path: str, request: str, body: dict[str, Any]) -> CheckResult:
    return judge_refusal(request, send_json(context, "POST", path, body), UNKNOWN_NAMES)


@checker(TAG, section="3.5.2")
def interop_operations(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """count=100, PATCH operations with a path, and uniqueness, as the interoperability profile asks (draft-zollner-scim-interop-profile-02 §6.4,
    §6.5.1.1, §6.9.1).

    Creates two resources, then: lists the endpoint with count=100, which MUST be supported
    (§6.4): the page holds every resource up to 100; PATCHes one with an operation without a
    path, which MUST be refused with 400 invalidSyntax (§6.5.1.1); POSTs a resource with the
    unique value (userName) of the first, and PATCHes the second to that value: each MUST get 409
    uniqueness (§6.9.1). SUCCESS, else ERROR; the uniqueness rules are SKIPPED when the schema
    declares no unique attribute, the PATCH without a path when it has no attribute to change, and
    both PATCHes when the ServiceProviderConfig does not claim patch.
    """
    first = context.resource_manager.create_and_register(model, fill_all=False)
    second = context.resource_manager.create_and_register(model, fill_all=False)
    return [
        checked(context, lambda: _page_of_100(context, model)),
        checked(context, lambda: _path_less(context, model, str(first.id))),
        *_conflicts(context, model, first, str(second.id)),
    ]


def _page_of_100(context: CheckContext, model: type[Resource[Any]]) -> CheckResult:
    path = resource_path(context, model)
    request = f"GET {context.root_path(path)}?count={PAGE}"
    response = context.client.request("GET", path, params={"count": PAGE})
    page = body_of(response)
    total, resources = member(page, "totalResults"), listed(page)
    if response.status_code != 200 or not isinstance(total, int):
        return CheckResult(Status.ERROR, reason=f"{request} answered {response.status_code} without a ListResponse and its totalResults.", data=page)
    if len(resources) < min(PAGE, total):
        rule = f"a service provider MUST support a client-requested count of at least {PAGE} ({PROFILE} §6.4)"
        return CheckResult(Status.ERROR, reason=f"{request} answered {len(resources)} of {total} resources: {rule}.", data=page)
    return CheckResult(Status.SUCCESS, reason=f"{request} answered {len(resources)} of {total} resources.", data=page)


def _path_less(context: CheckContext, model: type[Resource[Any]], resource_id: str) -> CheckResult:
    attribute = nullable(model)
    if attribute is None:
        return CheckResult(
            Status.SKIPPED, reason=f"PATCH without a path: Skipped: the {model.__name__} schema declares no optional string a client may change."
        )
    skipped = _unclaimed(context, "patch", "PATCH without a path")
    if skipped:
        return skipped
    path = resource_path(context, model, resource_id)
    operation = {"op": "replace", "value": {attribute.name: unique_for(attribute)}}
    response = send_json(context, "PATCH", path, {"schemas": [str(PatchOp.__schema__)], "Operations": [operation]})
    return judge_refusal(f"PATCH {context.root_path(path)} with a replace operation without a path", response, PATH_LESS)


def _conflicts(context: CheckContext, model: type[Resource[Any]], first: Resource[Any], second: str) -> list[CheckResult]:
    unique = unique_attribute(model)
    taken = member(first.model_dump(), unique.name) if unique else None
    if unique is None or not isinstance(taken, str):
        why = f"the {model.__name__} schema declares no unique attribute a client writes"
        return [CheckResult(Status.SKIPPED, reason=f"409 uniqueness on {method}: Skipped: {why}.") for method in ("POST", "PATCH")]
    path = resource_path(context, model)
    target = resource_path(context, model, second)
    operation = {"op": "replace", "path": unique.name, "value": taken}
    patch = {"schemas": [str(PatchOp.__schema__)], "Operations": [operation]}
    taken_by = f"the {unique.name} {quoted(taken)} of another {model.__name__}"
    return [
        checked(
            context,
            lambda: judge_refusal(
                f"POST {context.root_path(path)} with {taken_by}",
                send_json(context, "POST", path, creation_json(context, model, {unique.name: taken})),
                CONFLICT,
            ),
        ),
        _unclaimed(context, "patch", "409 uniqueness on PATCH")
        or checked(
            context,
            lambda: judge_refusal(
                f"PATCH {context.root_path(target)} replacing its {unique.name} with {taken_by}", send_json(context, "PATCH", target, patch), CONFLICT
            ),
        ),
    ]


@checker(TAG, section="3.6")
def interop_lifecycle(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """DELETE deletes, and the identifiers of a deleted resource are free again (draft-zollner-scim-interop-profile-02 §6.6).

    Creates a resource, deletes it, reads it, then creates another with its name (userName,
    displayName). One result each: the DELETE succeeds and the GET answers 404 ("a successful
    DELETE request MUST result in the resource being deleted", and "MUST return 404 Not Found"
    for it); the new creation answers 201 (its unique identifiers "MUST be available for
    reassignment"). SUCCESS, else ERROR; the second is SKIPPED when the first fails. What is
    created is deleted.
    """
    name = name_attribute(model)
    value = unique_for(name) if name else unique_string()
    created = context.resource_manager.create_and_register(model, fill_all=False, values={name.name: value} if name else None)
    path = resource_path(context, model, created.id)
    gone = checked(context, lambda: _deleted(context, path))
    if gone.status is not Status.SUCCESS:
        return [gone, CheckResult(Status.SKIPPED, reason="Identifiers reused: Skipped: the resource was not deleted (the result before says why).")]
    context.resource_manager.forget(str(created.id))
    if name is None:
        return [gone, CheckResult(Status.SKIPPED, reason=f"Identifiers reused: Skipped: the {model.__name__} schema has no name attribute to reuse.")]
    endpoint = resource_path(context, model)
    request = f"POST {context.root_path(endpoint)} with the {name.name} {quoted(value)} of the {model.__name__} just deleted"
    return [gone, checked(context, lambda: _reused(request, send_json(context, "POST", endpoint, creation_json(context, model, {name.name: value}))))]


def _deleted(context: CheckContext, path: str) -> CheckResult:
    named = context.root_path(path)
    deleted = context.client.request("DELETE", path)
    if not 200 <= deleted.status_code < 300:
        return CheckResult(
            Status.ERROR, reason=f"DELETE {named} answered {deleted.status_code}: a DELETE request is how a resource is deleted ({PROFILE} §6.6)."
        )
    after = context.client.request("GET", path)
    if after.status_code != 404:
        rule = f"a successful DELETE request MUST result in the resource being deleted, and MUST be answered 404 after ({PROFILE} §6.6)"
        return CheckResult(
            Status.ERROR, reason=f"DELETE {named} answered {deleted.status_code}, and a GET then answered {after.status_code}: {rule}.", data=body_of(after)
        )
    return CheckResult(Status.SUCCESS, reason=f"DELETE {named} answered {deleted.status_code}, and a GET then answered 404.")


def _reused(request: str, response: Any) -> CheckResult:
    if response.status_code in NEEDED_CREATION_ANSWERS:  # the status is object_creation's to judge
        return CheckResult(Status.SUCCESS, reason=f"{request} answered {response.status_code}.", data=body_of(response))
    rule = f"the unique identifiers of a deleted resource MUST be available for reassignment ({PROFILE} §6.6)"
    return CheckResult(Status.ERROR, reason=f"{request} answered {response.status_code}: {rule}.", data=body_of(response))
