"""Microsoft Entra ID provisioning, replayed step by step (docs/identity-providers.md).

Sources: https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups
(the tutorial) and https://learn.microsoft.com/en-us/entra/identity/app-provisioning/application-provisioning-config-problem-scim-compatibility
(known issues). Entra sends capitalised ops and ``"False"`` as a string by default; with the
``aadOptscim062020`` flag it sends the compliant shapes (tag ``idp:entra:compliant``).
"""

from __future__ import annotations

import json
import uuid
from functools import partial
from typing import Any

from scim2_models import Resource

from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import member
from scim_tui.checker.answers import shown
from scim_tui.checker.checks.idp import ENTERPRISE
from scim_tui.checker.checks.idp import GROUP_SCHEMA
from scim_tui.checker.checks.idp import USER_SCHEMA
from scim_tui.checker.checks.idp import applied
from scim_tui.checker.checks.idp import asked
from scim_tui.checker.checks.idp import creation
from scim_tui.checker.checks.idp import empty_list
from scim_tui.checker.checks.idp import finds
from scim_tui.checker.checks.idp import get
from scim_tui.checker.checks.idp import has
from scim_tui.checker.checks.idp import kept
from scim_tui.checker.checks.idp import member_ids
from scim_tui.checker.checks.idp import membership
from scim_tui.checker.checks.idp import reads_inactive
from scim_tui.checker.checks.idp import shared_users
from scim_tui.checker.checks.idp import user_body
from scim_tui.checker.checks.idp import with_members
from scim_tui.checker.checks.idp_readiness import readiness
from scim_tui.checker.checks.idp_readiness import replay
from scim_tui.checker.checks.idp_readiness import step
from scim_tui.checker.checks.idp_wire import Provider
from scim_tui.checker.checks.idp_wire import created as wire_created
from scim_tui.checker.checks.idp_wire import patched
from scim_tui.checker.checks.patch import Target
from scim_tui.checker.checks.probes import steps
from scim_tui.checker.context import CheckContext
from scim_tui.checker.filling import unique_address
from scim_tui.checker.filling import unique_string
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import PrerequisiteFailed
from scim_tui.checker.results import Status

ENTRA = Provider("Entra ID", "idp:entra", "entra")
ENTRA_GROUP = "http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group"
"""The second schema URN of the groups Entra creates (the tutorial's Create Group)."""
TAGS = ("idp", "idp:entra")
COMPLIANT = (*TAGS, "idp:entra:compliant")
CAPITALISED = "Entra sends capitalised ops; RFC 7644 §3.5.2 names them in lower case, and Entra's documentation asks servers to accept both."
FALSE_STRING = (
    'Entra sends active as the string "False" by default (and a capitalised op); RFC 7643 §4.1.1 types active boolean, and Entra\'s '
    "known-issues page asks servers to accept both until the app opts in to aadOptscim062020."
)
DOTTED_KEYS = (
    'Entra (aadOptscim062020) sends a replace without a path whose keys are attribute paths ("name.givenName", the extension URN '
    "with the attribute), which RFC 7644 §3.5.2.3 reads as the target location of each value."
)
MANAGER = (
    'Entra sends the path "manager" without the enterprise extension\'s URN, and an array of one {"$ref": …, "value": …} '
    "though manager is single-valued (RFC 7643 §4.3); its tutorial shows this shape."
)
HIDDEN_WHEN_DISABLED = (
    "RFC 7643 §4.1.1 leaves what active means to the service provider, but Entra looks a user it disabled up again by userName, "
    "and creates it anew when it is not found."
)
GROUP_URN = (
    f"Entra creates groups with a second schema URN, {ENTRA_GROUP}, beside the core one (its tutorial's Create Group); "
    "a server that refuses a URN it does not know refuses Entra's groups."
)
MEMBER_VALUE = (
    'Entra removes a member with path "members" and the member in "value"; RFC 7644 §3.5.2.2 selects values with a filter in the path, '
    "but Entra's tutorial shows this shape, and servers must honour it for the member alone."
)


def entra_user_body(model: type[Resource[Any]], **values: Any) -> dict[str, Any]:
    """The body Entra sends for a new user: its schemas, meta.resourceType, an empty roles, and the
    mapped attributes the server's User has (the enterprise extension's among them)."""
    body = user_body("entra")
    body["name"]["formatted"] = unique_string("formatted")
    body = {**body, ENTERPRISE: {"employeeNumber": unique_string("employee"), "department": unique_string("department")}, **values}
    schemas = [USER_SCHEMA, *([ENTERPRISE] if has(model, ENTERPRISE) else [])]
    return {"schemas": schemas, "meta": {"resourceType": "User"}, "roles": [], **kept(model, body)}


def entra_user(context: CheckContext, model: type[Resource[Any]], **values: Any) -> Target:
    """A user created with the body Entra sends (entra_user_body)."""
    return wire_created(context, ENTRA, model, entra_user_body(model, **values))


def entra_patched(
    context: CheckContext, target: Target, label: str, operation: dict[str, Any], expected: dict[str, Any], note: str = "", plain: dict[str, Any] | None = None
) -> CheckResult:
    """One PATCH operation as Entra sends it, then each expected value read back; when it fails,
    the `plain` operation (the RFC's spelling of the same change) tells whether `note` is the cause."""
    outcome = "the value sent" if any(value is not None for value in expected.values()) else "no value any more"
    run = partial(applied, context, ENTRA, target, label, [operation], expected, outcome)
    rfc = partial(applied, context, ENTRA, target, label, [plain], expected, outcome) if plain else None
    return step(context, ENTRA, label, run, note, rfc, (operation, plain))


def lower_op(operation: dict[str, Any]) -> dict[str, Any]:
    return {**operation, "op": operation["op"].lower()}


def no_enterprise(model: type[Resource[Any]]) -> list[CheckResult] | None:
    if has(model, ENTERPRISE):
        return None
    return [
        CheckResult(Status.SKIPPED, reason=f"Skipped: the server's {model.__name__} has no enterprise extension ({ENTERPRISE}), whose attributes Entra maps.")
    ]


@checker(*TAGS, section="3.4.2.2", schema=USER_SCHEMA)
@replay(ENTRA)
def entra_test_connection(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Entra ID's "Test connection": a filter on userName with a random GUID answers 200 and an empty ListResponse (RFC 7644 §3.4.2).

    Entra's tutorial (https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups)
    sends ``GET /Users?filter=userName eq "<GUID>"`` and expects 200 with no
    resource. SUCCESS then; ERROR on a 404 or any other answer (Entra then
    reports the connection failed), or when resources come back.
    """
    params = {"filter": f'userName eq "{uuid.uuid4()}"'}
    why = "Entra ID reads any other answer as a failed test connection"
    return [step(context, ENTRA, "test connection", partial(empty_list, context, ENTRA, model, params, why))]


@checker(*TAGS, section="3.3", schema=USER_SCHEMA)
@replay(ENTRA)
def entra_create_user(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Entra ID creates a user with its own body, then finds it by userName and by externalId (RFC 7644 §3.3, §3.4.2.2).

    The body is Entra's (https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups):
    ``meta.resourceType``, ``roles: []``, ``externalId``, a work email, name
    and the enterprise extension (those the server's schema has). One result
    for the creation (SUCCESS on 201 with an id; ERROR otherwise), then one per
    lookup ``filter=userName eq "…"`` and ``filter=externalId eq "…"``, with the
    values Entra sent (it looks a user up by its own): SUCCESS when the list holds
    that user alone; ERROR otherwise.
    """
    body = entra_user_body(model)
    target = wire_created(context, ENTRA, model, body, checked=True)
    created_user = creation(context, ENTRA, target)
    lookups = [
        (f"find by {name}", partial(finds, context, ENTRA, target, name, str(body.get(name) or ""))) for name in ("userName", "externalId") if has(model, name)
    ]
    return [created_user, *steps(context, lookups)]


@checker(*TAGS, section="3.5.2", schema=USER_SCHEMA)
@replay(ENTRA)
def entra_capitalised_ops(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Entra ID's PATCH with capitalised ops: "Replace", "Add", "Remove" (RFC 7644 §3.5.2).

    Entra's known issues page (https://learn.microsoft.com/en-us/entra/identity/app-provisioning/application-provisioning-config-problem-scim-compatibility)
    says it sends ops capitalised and asks servers to read them without case.
    Creates a user with Entra's body, then sends ``Replace`` of displayName,
    ``Add`` of nickName and ``Remove`` of nickName, one result each: SUCCESS
    when the answer (or a GET after a 204) shows the change; ERROR otherwise,
    saying how Entra's request differs from the RFC's spelling.
    """
    target = entra_user(context, model)
    changes: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
    if has(model, "displayName"):
        value = unique_string("displayName")
        changes.append(("Replace displayName", {"op": "Replace", "path": "displayName", "value": value}, {"displayName": value}))
    if has(model, "nickName"):
        nick = unique_string("nickName")
        changes.append(("Add nickName", {"op": "Add", "path": "nickName", "value": nick}, {"nickName": nick}))
        changes.append(("Remove nickName", {"op": "Remove", "path": "nickName"}, {"nickName": None}))
    labelled = [
        (label, partial(entra_patched, context, target, label, operation, expected, CAPITALISED, lower_op(operation))) for label, operation, expected in changes
    ]
    return steps(context, labelled) or [CheckResult(Status.SKIPPED, reason=f"{model.__name__} has neither displayName nor nickName.")]


@checker(*TAGS, section="3.5.2.3", schema=USER_SCHEMA)
@replay(ENTRA)
def entra_disable_user(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Entra ID disables a user with ``{"op": "Replace", "path": "active", "value": "False"}``, a string (RFC 7644 §3.5.2.3).

    Entra's default dialect, per its known issues page
    (https://learn.microsoft.com/en-us/entra/identity/app-provisioning/application-provisioning-config-problem-scim-compatibility).
    SUCCESS when the user then has active false; ERROR when the request is
    refused or active stays true.
    """
    if not has(model, "active"):
        return [CheckResult(Status.SKIPPED, reason=f"{model.__name__} has no active attribute.")]
    target = entra_user(context, model)
    operation = {"op": "Replace", "path": "active", "value": "False"}
    plain = {"op": "replace", "path": "active", "value": False}
    return [entra_patched(context, target, 'Replace active with "False"', operation, {"active": False}, FALSE_STRING, plain)]


@checker(*COMPLIANT, section="3.5.2.3", schema=USER_SCHEMA)
@replay(ENTRA)
def entra_disable_user_boolean(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Entra ID (aadOptscim062020) disables a user with ``{"op": "replace", "path": "active", "value": false}`` (RFC 7644 §3.5.2.3).

    The compliant dialect of the known issues page
    (https://learn.microsoft.com/en-us/entra/identity/app-provisioning/application-provisioning-config-problem-scim-compatibility).
    SUCCESS when the user then has active false; ERROR otherwise.
    """
    if not has(model, "active"):
        return [CheckResult(Status.SKIPPED, reason=f"{model.__name__} has no active attribute.")]
    target = entra_user(context, model)
    operation = {"op": "replace", "path": "active", "value": False}
    return [entra_patched(context, target, "replace active with false", operation, {"active": False})]


@checker(*COMPLIANT, section="3.5.2.3", schema=USER_SCHEMA)
@replay(ENTRA)
def entra_replace_dotted_keys(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Entra ID (aadOptscim062020) replaces without a path, the value's keys being attribute paths (RFC 7644 §3.5.2.3).

    ``{"op": "replace", "value": {"displayName": …, "name.givenName": …, "<enterprise URN>:employeeNumber": …}}``,
    per the known issues page (https://learn.microsoft.com/en-us/entra/identity/app-provisioning/application-provisioning-config-problem-scim-compatibility).
    SUCCESS when the answer (or a GET after a 204) holds each value at its path;
    ERROR otherwise.
    """
    target = entra_user(context, model)
    value = {
        name: unique_string(name.rsplit(".", 1)[-1].rsplit(":", 1)[-1])
        for name, needs in (("displayName", "displayName"), ("name.givenName", "name"), (f"{ENTERPRISE}:employeeNumber", ENTERPRISE))
        if has(model, needs)
    }
    if not value:
        return [CheckResult(Status.SKIPPED, reason=f"{model.__name__} has none of displayName, name and the enterprise extension.")]
    label = f"replace without a path, value {{{', '.join(value)}}}"
    return [entra_patched(context, target, label, {"op": "replace", "value": value}, value, DOTTED_KEYS, {"op": "replace", "value": _nested(value)})]


def _nested(value: dict[str, Any]) -> dict[str, Any]:
    """A path-less replace's value as RFC 7644 §3.5.2.3 reads it: attribute names holding values."""
    nested: dict[str, Any] = {}
    for key, item in value.items():
        parent, _, name = key.rpartition(":") if key.startswith("urn:") else key.partition(".")
        if name:
            nested.setdefault(parent, {})[name] = item
        else:
            nested[key] = item
    return nested


@checker(*TAGS, section="3.5.2.3", schema=USER_SCHEMA)
@replay(ENTRA)
def entra_replace_work_email(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Entra ID replaces the work email with ``{"op": "Replace", "path": "emails[type eq \\"work\\"].value"}`` (RFC 7644 §3.5.2.3).

    The attribute mapping of the tutorial
    (https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups).
    SUCCESS when the work email holds the new value; ERROR otherwise.
    """
    if not has(model, "emails"):
        return [CheckResult(Status.SKIPPED, reason=f"{model.__name__} has no emails attribute.")]
    target = entra_user(context, model)
    address = unique_address()
    operation = {"op": "Replace", "path": 'emails[type eq "work"].value', "value": address}
    label = 'Replace emails[type eq "work"].value'

    def replace(operation: dict[str, Any]) -> CheckResult:
        seen, source = patched(context, ENTRA, target, [operation])
        work = [item.get("value") for item in seen.get("emails") or [] if isinstance(item, dict) and str(item.get("type")).lower() == "work"]
        if address.lower() not in [str(value).lower() for value in work]:
            return CheckResult(Status.ERROR, reason=f"{label}: {source} holds {shown(work)} as the work email instead of {shown(address)}.", data=seen)
        return CheckResult(Status.SUCCESS, reason=f"{label}: {source} holds the new work email.", data=seen)

    return [step(context, ENTRA, label, partial(replace, operation), CAPITALISED, partial(replace, lower_op(operation)), (operation, lower_op(operation)))]


@checker(*TAGS, section="3.5.2.3", schema=USER_SCHEMA)
@replay(ENTRA)
def entra_replace_employee_number(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Entra ID replaces the enterprise employeeNumber by its URN path (RFC 7644 §3.5.2.3).

    ``{"op": "Replace", "path": "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber", "value": …}``,
    per the tutorial (https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups).
    SUCCESS when the extension holds the new value; ERROR otherwise; SKIPPED
    when the server's User has no enterprise extension.
    """
    skipped = no_enterprise(model)
    if skipped:
        return skipped
    target = entra_user(context, model)
    path = f"{ENTERPRISE}:employeeNumber"
    value = unique_string("employee")
    operation = {"op": "Replace", "path": path, "value": value}
    return [entra_patched(context, target, f"Replace {path}", operation, {path: value}, CAPITALISED, lower_op(operation))]


@checker(*TAGS, section="3.5.2.1", schema=USER_SCHEMA, shares=("members",))
@replay(ENTRA)
def entra_set_manager(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Entra ID sets a user's manager with ``{"op": "Add", "path": "manager", "value": [{"$ref": "<manager's URL>", "value": "<id>"}]}`` (RFC 7644 §3.5.2.1).

    The tutorial's example 5 (https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups),
    its ``$ref`` the manager's URL under the tenant URL. Creates the user (the
    manager is a user made as Entra makes them, shared with the run's other
    checks pointing at users: idp.shared_users), then sends it: SUCCESS when the enterprise manager's value is the
    manager's id; ERROR otherwise; SKIPPED when the server's User has no
    enterprise extension.
    """
    skipped = no_enterprise(model)
    if skipped:
        return skipped
    managers = shared_users(context, 1, entra_user)
    if isinstance(managers, CheckResult):
        return [managers]
    manager, target = managers[0], entra_user(context, model)
    operation = {"op": "Add", "path": "manager", "value": [{"$ref": f"{context.guard.base_url}{manager.url}", "value": manager.id}]}
    path = f"{ENTERPRISE}:manager"
    plain = {"op": "add", "path": path, "value": {"value": manager.id}}
    return [entra_patched(context, target, "Add manager", operation, {path: {"value": manager.id}}, MANAGER, plain)]


@checker(*TAGS, section="3.4.2.2", schema=USER_SCHEMA)
@replay(ENTRA)
def entra_disabled_user_found(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """A user Entra disabled (active false) is still returned by GET and by the userName filter (RFC 7644 §3.4).

    Entra soft-deletes: it disables users, then looks them up again
    (https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups).
    Creates a user with active false, then one result for GET /Users/{id}
    (SUCCESS on 200 with active false) and one for ``filter=userName eq "…"``
    (SUCCESS when the list holds it); ERROR otherwise: Entra would then create
    the user again.
    """
    if not has(model, "active"):
        return [CheckResult(Status.SKIPPED, reason=f"{model.__name__} has no active attribute.")]
    target = entra_user(context, model, active=False)
    user_name = str(target.current.get("userName") or "")
    find = partial(finds, context, ENTRA, target, "userName", user_name, unlisted=HIDDEN_WHEN_DISABLED)
    return steps(context, [("GET the disabled user", partial(reads_inactive, context, ENTRA, target)), ("find the disabled user by userName", find)])


def entra_group_body(model: type[Resource[Any]]) -> dict[str, Any]:
    """Entra's body for a new group: its two schema URNs, externalId, displayName, meta.resourceType."""
    values = {"displayName": unique_string("displayName"), "externalId": unique_string("entra")}
    return {"schemas": [GROUP_SCHEMA, ENTRA_GROUP], "meta": {"resourceType": "Group"}, **kept(model, values)}


def core_schema_only(body: dict[str, Any]) -> dict[str, Any]:
    """A group's body as the RFC spells it: the core schema alone in "schemas"."""
    return {**body, "schemas": [GROUP_SCHEMA]}


def entra_group(context: CheckContext, model: type[Resource[Any]]) -> Target:
    """A group created with Entra's body for another step to work on; created with the core schema
    alone when the server refuses Entra's with a 4xx (entra_create_group reports that refusal), and
    so from then on in the run."""
    body = entra_group_body(model)
    refused = (ENTRA_GROUP, model)
    if not context.creations.refused(refused):
        try:
            return wire_created(context, ENTRA, model, body)
        except PrerequisiteFailed:
            if not 400 <= (context.exchanges[-1].status_code or 0) < 500:
                raise
        context.creations.refuse(refused)
    return wire_created(context, ENTRA, model, core_schema_only(body))


@checker(*TAGS, section="3.3", schema=GROUP_SCHEMA)
@replay(ENTRA)
def entra_create_group(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Entra ID creates a group, then reads it without its members, by id and by displayName (RFC 7644 §3.3, §3.9).

    Per the tutorial's Create Group (https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups):
    POST with two schema URNs (the core one and
    ``http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group``),
    ``externalId``, ``displayName`` and ``meta.resourceType``; then
    ``GET /Groups/{id}?excludedAttributes=members`` and
    ``GET /Groups?excludedAttributes=members&filter=displayName eq "…"``. One
    result each: SUCCESS on 201, on 200 with the group, on a list holding the
    group alone (beside a group of the check's own that it must leave out);
    ERROR otherwise; a DEVIATION when only Entra's second URN is refused (the
    core schema alone passes).
    """
    body = entra_group_body(model)
    made: list[Target] = []

    def create(sent: dict[str, Any]) -> CheckResult:
        made.append(wire_created(context, ENTRA, model, sent, checked=True))
        return creation(context, ENTRA, made[-1])

    plain = core_schema_only(body)
    result = step(context, ENTRA, "create", partial(create, body), GROUP_URN, partial(create, plain), (body, plain))
    if not made:
        return [result]
    target = made[-1]
    no_members = {"excludedAttributes": "members"}

    def read() -> CheckResult:
        response = get(context, ENTRA, target.url, no_members)
        payload = body_of(response)
        request = asked(context, target.url, no_members)
        if response.status_code != 200 or not isinstance(payload, dict) or str(member(payload, "id")) != target.id:
            return CheckResult(Status.ERROR, reason=f"{request} answered {response.status_code} without the Group {target.id}.", data=payload)
        return CheckResult(Status.SUCCESS, reason=f"{request} answered the Group.", data=payload)

    name = str(target.current.get("displayName") or "")
    return [
        result,
        *steps(
            context,
            [("read without members", read), ("find by displayName without members", partial(finds, context, ENTRA, target, "displayName", name, no_members))],
        ),
    ]


@checker(*TAGS, section="3.5.2.1", schema=GROUP_SCHEMA, shares=("members",))
@replay(ENTRA)
def entra_add_members(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Entra ID adds several members in one PATCH: ``{"op": "Add", "path": "members", "value": [{"$ref": null, "value": …}, …]}`` (RFC 7644 §3.5.2.1).

    Per the tutorial (https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups).
    SUCCESS when the group then holds both users; ERROR otherwise.
    """
    users = member_ids(context, 2, entra_user)
    if isinstance(users, CheckResult):
        return [users]
    target = entra_group(context, model)
    operation = {"op": "Add", "path": "members", "value": [{"$ref": None, "value": user} for user in users]}
    label = "Add two members"

    def add(operation: dict[str, Any]) -> CheckResult:
        seen, source = patched(context, ENTRA, target, [operation])
        return membership(label, source, seen, users, [])

    return [step(context, ENTRA, label, partial(add, operation), CAPITALISED, partial(add, lower_op(operation)), (operation, lower_op(operation)))]


def _removal(context: CheckContext, model: type[Resource[Any]], label: str, operation: Any, note: str = "") -> list[CheckResult]:
    """A group holding two members loses the first by `operation(id)`; the second stays. When that
    fails, the RFC's removal by a filter tells whether `note` is the cause."""
    users = member_ids(context, 2, entra_user)
    if isinstance(users, CheckResult):
        return [users]
    removed, stays = users
    target = entra_group(context, model)
    with_members(context, ENTRA, target, users)

    def remove(operation: dict[str, Any]) -> CheckResult:
        seen, source = patched(context, ENTRA, target, [operation])
        return membership(label, source, seen, [stays], [removed])

    plain = partial(remove, filtered_removal(removed)) if note else None
    return [step(context, ENTRA, label, partial(remove, operation(removed)), note, plain, (operation(removed), filtered_removal(removed)))]


def filtered_removal(user: str) -> dict[str, Any]:
    return {"op": "remove", "path": f"members[value eq {json.dumps(user)}]"}


@checker(*TAGS, section="3.5.2.2", schema=GROUP_SCHEMA, shares=("members",))
@replay(ENTRA)
def entra_remove_member(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Entra ID removes a member with ``{"op": "Remove", "path": "members", "value": [{"value": "<id>"}]}`` (RFC 7644 §3.5.2.2).

    The default shape of the tutorial and known issues page
    (https://learn.microsoft.com/en-us/entra/identity/app-provisioning/application-provisioning-config-problem-scim-compatibility),
    the most reported SCIM server bug. On a group of two members: SUCCESS when
    that member is gone and the other stays; ERROR when the request is refused,
    ignored, or removes every member.
    """
    operation = lambda user: {"op": "Remove", "path": "members", "value": [{"value": user}]}  # noqa: E731
    return _removal(context, model, "Remove members with a value", operation, MEMBER_VALUE)


@checker(*COMPLIANT, section="3.5.2.2", schema=GROUP_SCHEMA, shares=("members",))
@replay(ENTRA)
def entra_remove_member_filter(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Entra ID (aadOptscim062020) removes a member with ``{"op": "remove", "path": "members[value eq \\"<id>\\"]"}`` (RFC 7644 §3.5.2.2).

    The compliant shape of the known issues page
    (https://learn.microsoft.com/en-us/entra/identity/app-provisioning/application-provisioning-config-problem-scim-compatibility).
    SUCCESS when that member is gone and the other stays; ERROR otherwise.
    """
    return _removal(context, model, "remove members[value eq …]", filtered_removal)


@checker(*TAGS, section="3")
def entra_readiness(context: CheckContext, results: list[CheckResult]) -> list[CheckResult]:
    """Will Entra ID provisioning work? READY when every Entra ID step passed (the ``idp:entra`` checks).

    Given once every check ended (idp_readiness.py): SUCCESS (READY) when no
    Entra ID step blocks it, and none was kept from running but by the run's
    selection; NOT READY naming the blocking steps, a DEVIATION (an ERROR with
    ``--require-ready entra``); SKIPPED when no step ran. Microsoft's gallery
    validation (``idp:entra:gallery``) has a verdict of its own. Sources: https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups
    and https://learn.microsoft.com/en-us/entra/identity/app-provisioning/application-provisioning-config-problem-scim-compatibility.
    """
    return readiness(ENTRA, context, results, apart=("idp:entra:gallery",))
