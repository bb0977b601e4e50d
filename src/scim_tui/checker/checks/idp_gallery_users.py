"""Microsoft's gallery validation, its user lifecycle tests: the requests Entra's provisioning
engine sends for each (idp_gallery.py has the sources and the verdict)."""

from __future__ import annotations

from functools import partial
from typing import Any

from scim2_models import Resource

from scim_tui.checker.checks.idp import ENTERPRISE
from scim_tui.checker.checks.idp import USER_SCHEMA
from scim_tui.checker.checks.idp import applied
from scim_tui.checker.checks.idp import empty_list
from scim_tui.checker.checks.idp import finds
from scim_tui.checker.checks.idp import has
from scim_tui.checker.checks.idp import reads_inactive
from scim_tui.checker.checks.idp import shared_users
from scim_tui.checker.checks.idp_entra import CAPITALISED
from scim_tui.checker.checks.idp_entra import ENTRA
from scim_tui.checker.checks.idp_entra import FALSE_STRING
from scim_tui.checker.checks.idp_entra import MANAGER
from scim_tui.checker.checks.idp_entra import entra_patched
from scim_tui.checker.checks.idp_entra import entra_user
from scim_tui.checker.checks.idp_entra import entra_user_body
from scim_tui.checker.checks.idp_entra import lower_op
from scim_tui.checker.checks.idp_gallery import TAGS
from scim_tui.checker.checks.idp_gallery import not_applicable
from scim_tui.checker.checks.idp_gallery import not_replayable
from scim_tui.checker.checks.idp_lifecycle import create_step
from scim_tui.checker.checks.idp_lifecycle import deletion
from scim_tui.checker.checks.idp_lifecycle import phases
from scim_tui.checker.checks.idp_lifecycle import restore
from scim_tui.checker.checks.idp_readiness import replay
from scim_tui.checker.checks.idp_readiness import step
from scim_tui.checker.checks.probes import steps
from scim_tui.checker.context import CheckContext
from scim_tui.checker.filling import unique_string
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

NO_MATCH = "Entra creates a user only after a lookup that finds none"
MAPPED_UPDATES = ("displayName", "title", f"{ENTERPRISE}:department")
"""The attributes Update_User_Test changes (the overview names jobTitle and department), those the server's User has."""


@checker(*TAGS, section="3.3", schema=USER_SCHEMA)
@replay(ENTRA)
def gallery_create_user(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Create_User_Test (mandatory): Entra looks the user up, creates it, and the user is then found by userName (RFC 7644 §3.3, §3.4.2.2).

    Per Microsoft's test overview (AzureAD/SCIMReferenceCode, SCIM-Validation-Test-Overview.md)
    and Entra's tutorial (https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups):
    ``GET /Users?filter=userName eq "…"`` (200 and an empty list), POST of
    Entra's body (201), ``GET /Users?filter=userName eq "…"`` (the user
    alone). One result each: SUCCESS when the answer is the RFC's; ERROR
    otherwise.
    """
    body = entra_user_body(model)
    name = str(body.get("userName"))
    lookup = steps(context, [("look the user up", partial(empty_list, context, ENTRA, model, {"filter": f'userName eq "{name}"'}, NO_MATCH))])
    made, target = create_step(context, ENTRA, model, body)
    found = steps(context, [("find the user", partial(finds, context, ENTRA, target, "userName", name))]) if target else []
    return [*lookup, made, *found]


@checker(*TAGS, section="3.5.2.3", schema=USER_SCHEMA)
@replay(ENTRA)
def gallery_update_user(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Update_User_Test (mandatory): Entra replaces the mapped attributes that changed, in one PATCH, and they read back (RFC 7644 §3.5.2.3).

    Per Microsoft's test overview (AzureAD/SCIMReferenceCode, SCIM-Validation-Test-Overview.md):
    ``{"op": "Replace", "path": …, "value": …}`` for displayName, title (Entra's
    jobTitle) and the enterprise department, those the server's User has, as
    Entra's tutorial writes them. SUCCESS when the answer (or a GET after a
    204) holds every new value; a DEVIATION when only the lower-case ops of the
    RFC pass; ERROR otherwise.
    """
    changes = {path: unique_string(path.rsplit(":", 1)[-1]) for path in MAPPED_UPDATES if has(model, ENTERPRISE if path.startswith("urn:") else path)}
    if not changes:
        return not_applicable(f"the server's {model.__name__} has none of {', '.join(MAPPED_UPDATES)}.")
    target = entra_user(context, model)
    operations = [{"op": "Replace", "path": path, "value": value} for path, value in changes.items()]
    label = f"Replace {', '.join(changes)}"
    run, plain = (partial(applied, context, ENTRA, target, label, ops, changes, "every new value") for ops in (operations, [lower_op(op) for op in operations]))
    return [step(context, ENTRA, label, run, CAPITALISED, plain, (operations, [lower_op(op) for op in operations]))]


@checker(*TAGS, section="3.5.2.3", schema=USER_SCHEMA)
@replay(ENTRA)
def gallery_disable_user(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Disable_User_Test (mandatory): Entra disables a user with ``{"op": "Replace", "path": "active", "value": "False"}``, and the user stays
    readable (RFC 7644 §3.5.2.3).

    Per Microsoft's test overview (AzureAD/SCIMReferenceCode, SCIM-Validation-Test-Overview.md):
    soft delete is required. Entra's default dialect, per its known issues page
    (https://learn.microsoft.com/en-us/entra/identity/app-provisioning/application-provisioning-config-problem-scim-compatibility).
    One result for the PATCH (SUCCESS when active is then false; a DEVIATION
    when only the RFC's spelling passes; ERROR otherwise), one for the GET.
    """
    if not has(model, "active"):
        reason = f"Skipped: the server's {model.__name__} has no active attribute, and the gallery requires soft delete (active false)."
        return [CheckResult(Status.SKIPPED, reason=reason, blocks=True)]
    target = entra_user(context, model)
    operation = {"op": "Replace", "path": "active", "value": "False"}
    plain = {"op": "replace", "path": "active", "value": False}
    disabled = entra_patched(context, target, 'Replace active with "False"', operation, {"active": False}, FALSE_STRING, plain)
    return [disabled, *steps(context, [("read the disabled user", partial(reads_inactive, context, ENTRA, target))])]


@checker(*TAGS, section="3.6", schema=USER_SCHEMA)
@replay(ENTRA)
def gallery_delete_user(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Delete_User_Test (optional): Entra deletes a user, which is then gone (RFC 7644 §3.6).

    Per Microsoft's test overview (AzureAD/SCIMReferenceCode, SCIM-Validation-Test-Overview.md):
    ``DELETE /Users/{id}`` answers 204, then the user is not found (404, or no
    match for its userName). SUCCESS then; ERROR otherwise ("MUST return 404",
    "MUST omit it from queries"). Microsoft counts a failure as a WARNING.
    """
    target = entra_user(context, model)
    return steps(context, [("delete", partial(deletion, context, ENTRA, target, "userName", str(target.current.get("userName") or "")))])


@checker(*TAGS, section="3.5.2.1", schema=USER_SCHEMA, shares=("members",))
@replay(ENTRA)
def gallery_user_manager(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """User_Update_Manager_Test (mandatory): Entra sets a user's manager, changes it, and removes it (RFC 7644 §3.5.2).

    Per Microsoft's test overview (AzureAD/SCIMReferenceCode, SCIM-Validation-Test-Overview.md):
    three phases, each read back. Set and change are Entra's
    ``{"op": "Add", "path": "manager", "value": [{"$ref": …, "value": …}]}`` (the
    tutorial's example 5, https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups);
    the removal is ``{"op": "Remove", "path": "manager"}``, its default
    dialect's removal of a single-valued attribute (the tutorial's nickName).
    One result per phase: SUCCESS when the enterprise manager then holds the
    manager's id (none after the removal); a DEVIATION when only the RFC's
    spelling passes; ERROR otherwise. Skipped (as Microsoft skips it) when the
    server's User has no enterprise extension to map a manager to. The managers
    are users made as Entra makes them, shared with the run's other checks
    pointing at users (idp.shared_users).
    """
    if not has(model, ENTERPRISE):
        return not_applicable(f"the server's {model.__name__} has no enterprise extension, so no manager is mapped.")
    managers = shared_users(context, 2, entra_user)
    if isinstance(managers, CheckResult):
        return [managers]
    target, (first, second) = entra_user(context, model), managers
    path = f"{ENTERPRISE}:manager"

    def setting(manager: Any, label: str) -> Any:
        operation = {"op": "Add", "path": "manager", "value": [{"$ref": f"{context.guard.base_url}{manager.url}", "value": manager.id}]}
        return partial(
            entra_patched,
            context,
            target,
            label,
            operation,
            {path: {"value": manager.id}},
            MANAGER,
            {"op": "add", "path": path, "value": {"value": manager.id}},
        )

    removal = partial(
        entra_patched, context, target, "Remove manager", {"op": "Remove", "path": "manager"}, {path: None}, MANAGER, {"op": "remove", "path": path}
    )
    return phases(
        context,
        [("set the manager", setting(first, "Add manager")), ("change the manager", setting(second, "Add another manager")), ("remove the manager", removal)],
    )


@checker(*TAGS, section="3.6", schema=USER_SCHEMA)
@replay(ENTRA)
def gallery_restore_user(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Restore_User_Test (mandatory): a user unassigned is deleted, and assigned again is created anew (RFC 7644 §3.3, §3.6).

    Per Microsoft's test overview (AzureAD/SCIMReferenceCode, SCIM-Validation-Test-Overview.md):
    Entra deletes a user unassigned from the app, and POSTs the same user
    again when it is reassigned; the user must then be found. One result per
    phase: SUCCESS when the DELETE leaves nothing (404, no match), the new POST
    answers 201 (a 409 means the server kept the deleted user's userName) and
    the filter finds the new user; ERROR otherwise.
    """
    return restore(context, ENTRA, model, entra_user_body(model), "userName")


@checker(*TAGS, section="3.3", schema=USER_SCHEMA)
def gallery_provision_user_on_demand(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """POD_User_Test (mandatory): provision on demand; not replayable without an Entra tenant.

    Per Microsoft's test overview (AzureAD/SCIMReferenceCode, SCIM-Validation-Test-Overview.md):
    a call to Microsoft Graph (``POST /servicePrincipals/{id}/synchronization/jobs/{jobId}/provisionOnDemand``)
    in the vendor's tenant, whose SCIM requests are those of
    gallery_create_user. Always SKIPPED, named as not replayed.
    """
    return not_replayable("provision on demand is a call to Microsoft Graph in an Entra tenant; its SCIM requests are those of gallery_create_user.")
