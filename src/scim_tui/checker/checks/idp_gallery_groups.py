"""Microsoft's gallery validation, its group lifecycle tests: the requests Entra's provisioning
engine sends for each (idp_gallery.py has the sources and the verdict). Without a Group resource
type they do not run, and Microsoft's validation counts them failed: group provisioning is
mandatory for the gallery."""

from __future__ import annotations

from functools import partial
from typing import Any

from scim2_models import Resource

from scim_tui.checker.checks.idp import GROUP_SCHEMA
from scim_tui.checker.checks.idp import applied
from scim_tui.checker.checks.idp import empty_list
from scim_tui.checker.checks.idp import finds
from scim_tui.checker.checks.idp_entra import CAPITALISED
from scim_tui.checker.checks.idp_entra import ENTRA
from scim_tui.checker.checks.idp_entra import GROUP_URN
from scim_tui.checker.checks.idp_entra import core_schema_only
from scim_tui.checker.checks.idp_entra import entra_add_members
from scim_tui.checker.checks.idp_entra import entra_group
from scim_tui.checker.checks.idp_entra import entra_group_body
from scim_tui.checker.checks.idp_entra import entra_remove_member
from scim_tui.checker.checks.idp_entra import lower_op
from scim_tui.checker.checks.idp_gallery import TAGS
from scim_tui.checker.checks.idp_gallery import not_replayable
from scim_tui.checker.checks.idp_lifecycle import create_step
from scim_tui.checker.checks.idp_lifecycle import deletion
from scim_tui.checker.checks.idp_lifecycle import restore
from scim_tui.checker.checks.idp_readiness import replay
from scim_tui.checker.checks.idp_readiness import step
from scim_tui.checker.checks.probes import steps
from scim_tui.checker.context import CheckContext
from scim_tui.checker.filling import unique_string
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult

NO_MATCH = "Entra creates a group only after a lookup that finds none"


@checker(*TAGS, section="3.3", schema=GROUP_SCHEMA)
@replay(ENTRA)
def gallery_create_group(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Create_Group_Test (mandatory): Entra looks the group up, creates it with its body, and the group is then found by displayName (RFC 7644 §3.3, §3.4.2.2).

    Per Microsoft's test overview (AzureAD/SCIMReferenceCode, SCIM-Validation-Test-Overview.md)
    and Entra's tutorial's Create Group (https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups):
    ``GET /Groups?filter=displayName eq "…"`` (200, an empty list), POST with
    two schema URNs (201), then the filter finds it. One result each: SUCCESS
    when the answer is the RFC's; a DEVIATION when only Entra's second schema
    URN is refused; ERROR otherwise.
    """
    body = entra_group_body(model)
    name = str(body.get("displayName"))
    lookup = steps(context, [("look the group up", partial(empty_list, context, ENTRA, model, {"filter": f'displayName eq "{name}"'}, NO_MATCH))])
    made, target = create_step(context, ENTRA, model, body, GROUP_URN, core_schema_only(body))
    found = steps(context, [("find the group", partial(finds, context, ENTRA, target, "displayName", name))]) if target else []
    return [*lookup, made, *found]


@checker(*TAGS, section="3.5.2.3", schema=GROUP_SCHEMA)
@replay(ENTRA)
def gallery_update_group(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Update_Group_Test (mandatory): Entra renames a group with ``{"op": "Replace", "path": "displayName", "value": …}`` (RFC 7644 §3.5.2.3).

    Per Microsoft's test overview (AzureAD/SCIMReferenceCode, SCIM-Validation-Test-Overview.md)
    and the tutorial's Update Group (https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups).
    SUCCESS when the group then has the new displayName; a DEVIATION when only
    the RFC's lower-case op passes; ERROR otherwise.
    """
    target = entra_group(context, model)
    name = unique_string("displayName")
    operation = {"op": "Replace", "path": "displayName", "value": name}
    label = "Replace displayName"
    run, plain = (
        partial(applied, context, ENTRA, target, label, [op], {"displayName": name}, "the new displayName") for op in (operation, lower_op(operation))
    )
    return [step(context, ENTRA, label, run, CAPITALISED, plain, (operation, lower_op(operation)))]


@checker(*TAGS, section="3.6", schema=GROUP_SCHEMA)
@replay(ENTRA)
def gallery_delete_group(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Delete_Group_Test (optional): Entra deletes a group, which is then gone (RFC 7644 §3.6).

    Per Microsoft's test overview (AzureAD/SCIMReferenceCode, SCIM-Validation-Test-Overview.md):
    ``DELETE /Groups/{id}`` answers 204, then a GET answers 404 and
    ``filter=displayName eq "…"`` no group. SUCCESS then; ERROR otherwise.
    Microsoft counts a failure as a WARNING.
    """
    target = entra_group(context, model)
    return steps(context, [("delete", partial(deletion, context, ENTRA, target, "displayName", str(target.current.get("displayName") or "")))])


@checker(*TAGS, section="3.5.2.1", schema=GROUP_SCHEMA, shares=("members",))
@replay(ENTRA)
def gallery_add_member(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Group_Update_Add_Member_Test (mandatory): Entra adds members with ``{"op": "Add", "path": "members", "value": [{"$ref": null, "value": …}]}``
    (RFC 7644 §3.5.2.1).

    Per Microsoft's test overview (AzureAD/SCIMReferenceCode, SCIM-Validation-Test-Overview.md);
    the requests of entra_add_members (Entra's tutorial). SUCCESS when the group
    then holds the users; a DEVIATION when only the RFC's spelling passes;
    ERROR otherwise.
    """
    return entra_add_members(context, model)


@checker(*TAGS, section="3.5.2.2", schema=GROUP_SCHEMA, shares=("members",))
@replay(ENTRA)
def gallery_remove_member(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Group_Update_Remove_Member_Test (mandatory): Entra removes a member with ``{"op": "Remove", "path": "members", "value": [{"value": …}]}`` (RFC
    7644 §3.5.2.2).

    Per Microsoft's test overview (AzureAD/SCIMReferenceCode, SCIM-Validation-Test-Overview.md);
    the requests of entra_remove_member (Entra's default dialect). SUCCESS when
    that member is gone and the other stays; a DEVIATION when only the RFC's
    filter in the path passes; ERROR otherwise.
    """
    return entra_remove_member(context, model)


@checker(*TAGS, section="3.3", schema=GROUP_SCHEMA)
def gallery_provision_group_on_demand(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """POD_Group_Test (mandatory): provision on demand for a group; not replayable without an Entra tenant.

    Per Microsoft's test overview (AzureAD/SCIMReferenceCode, SCIM-Validation-Test-Overview.md):
    a call to Microsoft Graph in the vendor's tenant, whose SCIM requests are
    those of gallery_create_group. Always SKIPPED, named as not replayed.
    """
    return not_replayable("provision on demand is a call to Microsoft Graph in an Entra tenant; its SCIM requests are those of gallery_create_group.")


@checker(*TAGS, section="3.6", schema=GROUP_SCHEMA)
@replay(ENTRA)
def gallery_restore_group(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Restore_Group_Test (optional): a group unassigned is deleted, and assigned again is created anew (RFC 7644 §3.3, §3.6).

    Per Microsoft's test overview (AzureAD/SCIMReferenceCode, SCIM-Validation-Test-Overview.md):
    one result per phase: SUCCESS when the DELETE leaves nothing, the new POST
    answers 201 and the filter on displayName finds it; ERROR otherwise.
    Microsoft counts a failure as a WARNING. Made with the core schema alone,
    gallery_create_group judging Entra's second URN.
    """
    return restore(context, ENTRA, model, core_schema_only(entra_group_body(model)), "displayName")
