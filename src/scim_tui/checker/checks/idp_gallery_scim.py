"""Microsoft's gallery validation, its direct SCIM tests of schema and resources: what the Logic
App sends itself, bypassing Entra's engine (idp_gallery.py has the sources and the verdict)."""

from __future__ import annotations

from functools import partial
from typing import Any

from scim2_models import Resource

from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import member
from scim_tui.checker.answers import shown
from scim_tui.checker.checks.idp import ENTERPRISE
from scim_tui.checker.checks.idp import GROUP_SCHEMA
from scim_tui.checker.checks.idp import USER_SCHEMA
from scim_tui.checker.checks.idp import has
from scim_tui.checker.checks.idp import kept
from scim_tui.checker.checks.idp import list_problem
from scim_tui.checker.checks.idp import resources_in
from scim_tui.checker.checks.idp import unanswered
from scim_tui.checker.checks.idp import user_body
from scim_tui.checker.checks.idp_entra import ENTRA
from scim_tui.checker.checks.idp_gallery import TAGS
from scim_tui.checker.checks.idp_lifecycle import create_step
from scim_tui.checker.checks.idp_lifecycle import patched_then_read
from scim_tui.checker.checks.idp_lifecycle import phases
from scim_tui.checker.checks.idp_readiness import replay
from scim_tui.checker.checks.idp_wire import created
from scim_tui.checker.checks.idp_wire import send
from scim_tui.checker.checks.patch import Target
from scim_tui.checker.context import CheckContext
from scim_tui.checker.filling import unique_string
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

USER_MAPPING = ("userName", "active", "displayName", 'emails[type eq "work"].value', "name.givenName", "name.familyName", "externalId")
"""The user attributes a typical mapping of Entra's sends (its default for a SCIM app, those every app keeps)."""
ENTERPRISE_MAPPING = tuple(f"{ENTERPRISE}:{name}" for name in ("employeeNumber", "department", "manager"))
"""The enterprise attributes the default mapping sends, when the server publishes the extension."""
GROUP_MAPPING = ("displayName", "externalId", "members")
COMMON = frozenset({"id", "externalid", "meta"})
"""Attributes of every resource (RFC 7643 §3.1) that /Schemas need not list."""
NULLABLE = ("displayName", "title", "name.givenName", "name.familyName", f"{ENTERPRISE}:department", f"{ENTERPRISE}:employeeNumber")
"""The mapped optional single-valued attributes SCIM_Null_Update_Test and SCIM_User_Update_Test change, those the server's User has."""


def flattened(schema: dict[str, Any], prefix: str = "") -> set[str]:
    """A schema's attributes as Microsoft's test names them, lower-cased: ``emails[type eq "work"].value``
    for each canonical type of a multi-valued complex attribute (``[primary eq "True"]`` without
    types), ``name.givenName`` for a complex one, the name itself for a simple one or a reference
    named manager or members; an extension's attributes as ``<URN>:<name>``."""
    names: set[str] = set()
    for attribute in schema.get("attributes") or []:
        if not isinstance(attribute, dict):
            continue
        name, kind, subs = str(attribute.get("name")), attribute.get("type"), [s for s in attribute.get("subAttributes") or [] if isinstance(s, dict)]
        if prefix:
            names.add(f"{prefix}:{name}")
        elif name in ("manager", "members") or (kind not in ("complex", "reference")):
            names.add(name)
        elif kind == "complex" and attribute.get("multiValued"):
            names |= _typed(name, subs)
        elif kind == "complex":
            names |= {f"{name}.{s.get('name')}" for s in subs if s.get("type") not in ("complex", "reference")}
    return {name.lower() for name in names}


def _typed(name: str, subs: list[dict[str, Any]]) -> set[str]:
    kinds = next((s.get("canonicalValues") or [] for s in subs if s.get("name") == "type"), [])
    if kinds:
        return {f'{name}[type eq "{kind}"].{s.get("name")}' for kind in kinds for s in subs if s.get("name") not in ("type", "primary")}
    return {f'{name}[primary eq "True"].{s.get("name")}' for s in subs if s.get("name") != "primary"}


@checker(*TAGS, section="4")
@replay(ENTRA)
def gallery_schema_discoverability(context: CheckContext) -> list[CheckResult]:
    """Schema_Discoverability_Test (mandatory): every attribute a typical mapping sends is found in ``GET /Schemas`` (RFC 7644 §4, RFC 7643 §7).

    Per Microsoft's test overview (AzureAD/SCIMReferenceCode, SCIM-Validation-Test-Overview.md):
    /Schemas flattened as the test does (``emails[type eq "work"].value``,
    ``name.givenName``, ``<URN>:<name>``), names compared without case,
    against Entra's typical mapping (userName, active, displayName, the work
    email, name, externalId; the enterprise employeeNumber, department and
    manager when the extension is published; a group's displayName,
    externalId and members). SUCCESS when none is missing; ERROR when /Schemas
    is not a ListResponse; a DEVIATION (the RFCs let a server publish what it
    wants) naming what is missing, or the Group schema when it is absent
    (group provisioning is mandatory for the gallery).
    """
    response = send(context, ENTRA, "GET", "/Schemas")
    problem = list_problem(response)
    if problem:
        return [CheckResult(Status.ERROR, reason=f"GET {context.root_path('/Schemas')} {problem}.", data=body_of(response))]
    schemas = {str(member(item, "id")): item for item in resources_in(response)}
    if GROUP_SCHEMA not in schemas:
        reason = f"GET {context.root_path('/Schemas')} has no Group schema ({GROUP_SCHEMA}): group provisioning is mandatory for the gallery."
        return [CheckResult(Status.DEVIATION, reason=reason, blocks=True)]
    found = flattened(schemas.get(USER_SCHEMA, {})) | COMMON | flattened(schemas.get(ENTERPRISE, {}), ENTERPRISE)
    wanted = [*USER_MAPPING, *(ENTERPRISE_MAPPING if ENTERPRISE in schemas else ())]
    missing = [name for name in wanted if name.lower() not in found]
    missing += [f"Group {name}" for name in GROUP_MAPPING if name.lower() not in flattened(schemas[GROUP_SCHEMA]) | COMMON]
    if missing:
        return [
            CheckResult(
                Status.DEVIATION,
                reason=f"GET {context.root_path('/Schemas')} does not describe {', '.join(missing)}, which Entra's mapping sends.",
                blocks=True,
            )
        ]
    return [
        CheckResult(
            Status.SUCCESS, reason=f"GET {context.root_path('/Schemas')} describes the {len(wanted) + len(GROUP_MAPPING)} attributes of a typical mapping."
        )
    ]


def _nullable(model: type[Resource[Any]]) -> list[str]:
    return [path for path in NULLABLE if has(model, ENTERPRISE if path.startswith("urn:") else path.split(".")[0])]


def _user(context: CheckContext, model: type[Resource[Any]]) -> Target:
    """A user made by the Logic App's own POST: the mapped attributes, the enterprise ones among them."""
    values = {
        **user_body("gallery"),
        "title": unique_string("title"),
        ENTERPRISE: {"employeeNumber": unique_string("employee"), "department": unique_string("department")},
    }
    schemas = [USER_SCHEMA, *([ENTERPRISE] if has(model, ENTERPRISE) else [])]
    return created(context, ENTRA, model, {"schemas": schemas, **kept(model, values)})


def _replaced(context: CheckContext, target: Target, values: dict[str, Any], label: str) -> CheckResult:
    """One PATCH replacing each path with its value, then a GET holding each (None: null or empty)."""
    operations = [{"op": "replace", "path": path, "value": value} for path, value in values.items()]
    return patched_then_read(context, ENTRA, target, operations, {path: None if value in ("", None) else value for path, value in values.items()}, label)


@checker(*TAGS, section="3.5.2.3", schema=USER_SCHEMA)
@replay(ENTRA)
def gallery_null_update(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """SCIM_Null_Update_Test (mandatory): optional attributes replaced with "" read back empty, then replaced with null stay empty (RFC 7644
    §3.5.2.3, RFC 7643 §2.5).

    Per Microsoft's test overview (AzureAD/SCIMReferenceCode, SCIM-Validation-Test-Overview.md):
    two phases on a user with every mapped optional attribute set (displayName,
    title, name.givenName, name.familyName, the enterprise department and
    employeeNumber, those the server has): ``{"op": "replace", "path": …, "value": ""}``,
    then ``"value": null``, each read back. One result per phase: SUCCESS when
    every value is then null or empty; ERROR when the PATCH is refused or a
    value stays (a replace SHALL replace; null is unassigned).
    """
    paths = _nullable(model)
    target = _user(context, model)
    return phases(
        context,
        [
            (f"replace with {spelled}", partial(_replaced, context, target, dict.fromkeys(paths, value), f"replace {', '.join(paths)} with {spelled}"))
            for value, spelled in (("", '""'), (None, "null"))
        ],
    )


def _round_trip(target: Target, attribute: str, sent: str) -> CheckResult:
    answered = member(target.current, attribute)
    if not isinstance(answered, str) or answered.casefold() != sent.casefold():
        return CheckResult(
            Status.DEVIATION, reason=f"The creation answered {attribute} {shown(answered)} instead of {shown(sent)}, which the test requires back.", blocks=True
        )
    return CheckResult(Status.SUCCESS, reason=f"The creation answered the {attribute} sent.")


def _direct_creation(context: CheckContext, model: type[Resource[Any]], body: dict[str, Any], attribute: str) -> list[CheckResult]:
    made, target = create_step(context, ENTRA, model, body)
    if target is None:
        return [made]
    return [made, unanswered(target, f"the {attribute}") or _round_trip(target, attribute, str(body[attribute]))]


@checker(*TAGS, section="3.3", schema=USER_SCHEMA)
@replay(ENTRA)
def gallery_scim_user_create(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """SCIM_User_Create_Test (mandatory): a direct ``POST /Users`` answers the user with an id and the userName sent (RFC 7644 §3.3).

    Per Microsoft's test overview (AzureAD/SCIMReferenceCode, SCIM-Validation-Test-Overview.md):
    200 or 201 with a non-empty id, the userName round-tripped. One result for
    the creation (SUCCESS on 201; ERROR on 200, which the RFC does not allow
    but Microsoft accepts, or a refusal), one for the userName (a DEVIATION
    when another comes back).
    """
    body = {"schemas": [USER_SCHEMA], **kept(model, user_body("gallery"))}
    return _direct_creation(context, model, body, "userName")


@checker(*TAGS, section="3.5.2.3", schema=USER_SCHEMA)
@replay(ENTRA)
def gallery_scim_user_update(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """SCIM_User_Update_Test (mandatory): a direct PATCH replacing each eligible single-valued attribute, then a GET holding every new value (RFC
    7644 §3.5.2.3).

    Per Microsoft's test overview (AzureAD/SCIMReferenceCode, SCIM-Validation-Test-Overview.md):
    the mapped single-valued attributes but groups, roles, id, schemas, meta
    and active (here displayName, title, name.givenName, name.familyName, the
    enterprise department and employeeNumber, those the server has). SUCCESS
    when every value reads back; ERROR otherwise.
    """
    paths = _nullable(model)
    target = _user(context, model)
    values = {path: unique_string(path.rsplit(":", 1)[-1].rsplit(".", 1)[-1]) for path in paths}
    return phases(context, [("replace every eligible attribute", partial(_replaced, context, target, values, "replace each eligible attribute"))])


def _group_body(model: type[Resource[Any]]) -> dict[str, Any]:
    return {"schemas": [GROUP_SCHEMA], **kept(model, {"displayName": unique_string("displayName"), "externalId": unique_string("gallery")})}


@checker(*TAGS, section="3.3", schema=GROUP_SCHEMA)
@replay(ENTRA)
def gallery_scim_group_create(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """SCIM_Group_Create_Test (mandatory): a direct ``POST /Groups`` answers the group with an id and the displayName sent (RFC 7644 §3.3).

    Per Microsoft's test overview (AzureAD/SCIMReferenceCode, SCIM-Validation-Test-Overview.md):
    200 or 201, a non-empty id, the displayName round-tripped. One result for
    the creation (SUCCESS on 201; ERROR otherwise), one for the displayName
    (a DEVIATION when another comes back).
    """
    return _direct_creation(context, model, _group_body(model), "displayName")


@checker(*TAGS, section="3.5.2.3", schema=GROUP_SCHEMA)
@replay(ENTRA)
def gallery_scim_group_update(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """SCIM_Group_Update_Test (mandatory): a direct PATCH replacing a group's displayName and externalId, then a GET holding both (RFC 7644 §3.5.2.3).

    Per Microsoft's test overview (AzureAD/SCIMReferenceCode, SCIM-Validation-Test-Overview.md):
    the single-valued, non-reference attributes but id, members, schemas and
    meta. SUCCESS when both read back; ERROR otherwise.
    """
    target = created(context, ENTRA, model, _group_body(model))
    values = kept(model, {"displayName": unique_string("displayName"), "externalId": unique_string("gallery")})
    return phases(context, [("replace displayName and externalId", partial(_replaced, context, target, values, "replace displayName and externalId"))])
