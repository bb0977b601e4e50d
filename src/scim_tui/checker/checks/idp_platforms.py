"""OneLogin, PingFederate and JumpCloud provisioning, replayed where their SCIM dialects differ in
documented ways (each with its tag and its readiness verdict; idp_readiness.py judges them).

Sources: OneLogin's "Test your SCIM" (https://developers.onelogin.com/scim/test-your-scim), with
two third-party ones: django-scim2's adapters.py (emails as an object) and authentik's issue
11249 (group changes by PATCH); PingFederate's SCIM connector
(https://docs.pingidentity.com/integrations/scim/pf_scim_connector.html); JumpCloud's custom SCIM
integration (https://jumpcloud.com/support/provision-and-manage-users-and-groups-in-apps-using-custom-scim-identity-management-integration).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from scim2_models import Resource

from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import member
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.idp import GROUP_SCHEMA
from scim_tui.checker.checks.idp import USER_SCHEMA
from scim_tui.checker.checks.idp import finds
from scim_tui.checker.checks.idp import kept
from scim_tui.checker.checks.idp import list_problem
from scim_tui.checker.checks.idp import member_ids
from scim_tui.checker.checks.idp import membership
from scim_tui.checker.checks.idp import resources_in
from scim_tui.checker.checks.idp import user_body
from scim_tui.checker.checks.idp_lifecycle import create_step
from scim_tui.checker.checks.idp_lifecycle import deletion
from scim_tui.checker.checks.idp_lifecycle import patched_then_read
from scim_tui.checker.checks.idp_lifecycle import phases
from scim_tui.checker.checks.idp_lifecycle import read_back
from scim_tui.checker.checks.idp_readiness import readiness
from scim_tui.checker.checks.idp_readiness import replay
from scim_tui.checker.checks.idp_readiness import step
from scim_tui.checker.checks.idp_wire import Provider
from scim_tui.checker.checks.idp_wire import created
from scim_tui.checker.checks.idp_wire import patched
from scim_tui.checker.checks.idp_wire import read
from scim_tui.checker.checks.idp_wire import replaced
from scim_tui.checker.checks.idp_wire import send
from scim_tui.checker.checks.patch import Target
from scim_tui.checker.checks.probes import steps
from scim_tui.checker.context import CheckContext
from scim_tui.checker.filling import unique_address
from scim_tui.checker.filling import unique_string
from scim_tui.checker.lag import settled
from scim_tui.checker.limits import MAX_LISTING_PAGES
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

ONELOGIN = Provider("OneLogin", "idp:onelogin", "onelogin")
PING = Provider("PingFederate", "idp:pingfederate", "pingfederate")
JUMPCLOUD = Provider("JumpCloud", "idp:jumpcloud", "jumpcloud")
SCIM11_USER = "urn:scim:schemas:core:1.0"
EMAILS_OBJECT = (
    "OneLogin sends emails as one JSON object where RFC 7643 §4.1.2 makes it a list (a third-party source: django-scim2's adapters.py); "
    "a server must take both to take OneLogin's updates."
)
SCIM11 = "Some of OneLogin's templates name the SCIM 1.1 schema (urn:scim:schemas:core:1.0) in a new user's schemas, where RFC 7643 §8.7.1 names the 2.0 one."


def user(context: CheckContext, provider: Provider, model: type[Resource[Any]]) -> Target:
    """A user created with the attributes every provider sends: userName, name, a work email, externalId, active."""
    return created(context, provider, model, new_user(provider, model))


def new_user(provider: Provider, model: type[Resource[Any]]) -> dict[str, Any]:
    """The body of a user the provider creates (see `user`)."""
    return {"schemas": [USER_SCHEMA], **kept(model, user_body(provider.key))}


def judged_user(context: CheckContext, provider: Provider, model: type[Resource[Any]]) -> tuple[CheckResult, Target | None]:
    """A user created as `user` does, the creation judged (idp_lifecycle.create_step): every provider
    reads the new user's id in the answer's body, and goes on with it."""
    return create_step(context, provider, model, new_user(provider, model))


def group(context: CheckContext, provider: Provider, model: type[Resource[Any]]) -> Target:
    """A group created with a displayName (and no member)."""
    return created(context, provider, model, {"schemas": [GROUP_SCHEMA], "displayName": unique_string("displayName")})


@checker("idp", "idp:onelogin", section="3.5.2.3", schema=USER_SCHEMA)
@replay(ONELOGIN)
def onelogin_emails_as_an_object(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """OneLogin updates a user's emails as one JSON object, not a list (RFC 7644 §3.5.2.3, RFC 7643 §4.1.2).

    OneLogin's "Test your SCIM" (https://developers.onelogin.com/scim/test-your-scim) and a third-party
    source (django-scim2's adapters.py): ``{"op": "replace", "path": "emails", "value": {"value": …, "type": "work", "primary": true}}``.
    SUCCESS when the work email reads back; a DEVIATION (blocking OneLogin)
    when only the RFC's list passes; ERROR otherwise.
    """
    target = user(context, ONELOGIN, model)
    email: dict[str, Any] = {"value": unique_address(), "type": "work", "primary": True}
    shapes = ({"op": "replace", "path": "emails", "value": email}, {"op": "replace", "path": "emails", "value": [email]})
    run, plain = (partial(_emailed, context, target, operation, email["value"]) for operation in shapes)
    return [step(context, ONELOGIN, "replace emails with an object", run, EMAILS_OBJECT, plain, shapes)]


def _emailed(context: CheckContext, target: Target, operation: dict[str, Any], address: str) -> CheckResult:
    return patched_then_read(context, ONELOGIN, target, [operation], {'emails[type eq "work"].value': address}, "replace emails")


@checker("idp", "idp:onelogin", section="3.3", schema=USER_SCHEMA)
@replay(ONELOGIN)
def onelogin_scim11_schema(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Some OneLogin templates create users naming the SCIM 1.1 schema, ``urn:scim:schemas:core:1.0`` (RFC 7644 §3.3, RFC 7643 §8.7.1).

    OneLogin's "Test your SCIM" (https://developers.onelogin.com/scim/test-your-scim).
    SUCCESS on 201; a DEVIATION (blocking those templates) when only the 2.0
    schema's name passes; ERROR otherwise.
    """
    body = {"schemas": [SCIM11_USER], **kept(model, user_body("onelogin"))}
    made, _target = create_step(context, ONELOGIN, model, body, SCIM11, {**body, "schemas": [USER_SCHEMA]})
    return [made]


@checker("idp", "idp:onelogin", section="3.5.2.1", schema=GROUP_SCHEMA, shares=("members",))
@replay(ONELOGIN)
def onelogin_group_patch(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """OneLogin changes a group's members by PATCH, never by PUT (RFC 7644 §3.5.2.1).

    OneLogin's "Test your SCIM" (https://developers.onelogin.com/scim/test-your-scim) and a third-party
    source (authentik, GitHub #11249: a server that takes only PUT answers 405).
    ``{"op": "add", "path": "members", "value": [{"value": …}]}``: SUCCESS when
    the group then holds the user; ERROR otherwise.
    """
    return _member_added(context, ONELOGIN, model)


def _member_added(context: CheckContext, provider: Provider, model: type[Resource[Any]]) -> list[CheckResult]:
    users = member_ids(context, 1, partial(_user_of, provider))
    if isinstance(users, CheckResult):
        return [users]
    target = group(context, provider, model)

    def add() -> CheckResult:
        seen, source = patched(context, provider, target, [{"op": "add", "path": "members", "value": [{"value": users[0]}]}])
        return membership("add a member by PATCH", source, seen, users, [])

    return [step(context, provider, "add a member by PATCH", add)]


def _user_of(provider: Provider, context: CheckContext, model: type[Resource[Any]]) -> Target:
    return user(context, provider, model)


@checker("idp", "idp:onelogin", section="3")
def onelogin_readiness(context: CheckContext, results: list[CheckResult]) -> list[CheckResult]:
    """Will OneLogin provisioning work? READY when no OneLogin step blocks it (the ``idp:onelogin`` checks; idp_readiness.py).

    NOT READY naming the blocking steps, a DEVIATION (an ERROR with
    ``--require-ready onelogin``); SKIPPED when no step ran. Source: https://developers.onelogin.com/scim/test-your-scim.
    """
    return readiness(ONELOGIN, context, results)


@checker("idp", "idp:pingfederate", section="3.5.1", schema=USER_SCHEMA)
@replay(PING)
def pingfederate_update_user_put(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """PingFederate never PATCHes users: it updates them by PUT of the whole user, found by userName (RFC 7644 §3.5.1, §3.4.2.2).

    PingFederate's SCIM connector (https://docs.pingidentity.com/integrations/scim/pf_scim_connector.html):
    users matched on userName by default, then replaced whole. One result
    each: the user's creation (201 with the user: PingFederate reads its id
    there), the ``filter=userName eq "…"`` lookup (the user alone), the PUT
    read back. SUCCESS; ERROR otherwise.
    """
    made, target = judged_user(context, PING, model)
    if target is None:
        return [made]
    name = str(target.current.get("userName") or "")
    display = unique_string("displayName")

    def put() -> CheckResult:
        replaced(context, PING, target, {**read(context, PING, target), "displayName": display})
        return read_back(context, PING, target, {"displayName": display}, "PUT with a new displayName")

    return [made, *phases(context, [("find the user by userName", partial(finds, context, PING, target, "userName", name)), ("PUT the whole user", put)])]


@checker("idp", "idp:pingfederate", section="3.4.2.4", schema=GROUP_SCHEMA, shares=("members",))
@replay(PING)
def pingfederate_groups_listed(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """PingFederate finds a group by listing all of ``/Groups`` and matching it on its side, without a filter; then PATCHes it (RFC 7644 §3.4.2, §3.5.2).

    PingFederate's SCIM connector (https://docs.pingidentity.com/integrations/scim/pf_scim_connector.html).
    One result for the listing (SUCCESS when its pages, read by startIndex,
    hold the group; a reading during which the list's totalResults moved, as the
    run's other checks create and delete groups meanwhile, is read again), one
    for a member added by PATCH; ERROR otherwise, but SKIPPED (not blocking
    PingFederate) when the list kept moving without the group.
    """
    target = group(context, PING, model)
    return [*steps(context, [("list every group", partial(_listed, context, target))]), *_member_added(context, PING, model)]


READINGS = 4
"""How many times PingFederate's listing is read while the run's other checks move the list under it."""


def _listed(context: CheckContext, target: Target) -> CheckResult:
    """The group found in the pages of the whole list. The run's other checks create and delete
    groups meanwhile, and a deletion before the next page's start moves the group onto the page
    already read (RFC 7644 §3.4.2.4: "clients SHOULD never assume repeatable results"): the list is
    read again, READINGS times at most. ERROR once two readings whose totalResults stood still
    missed the group; SKIPPED (not blocking PingFederate: nothing was told) when they did not."""
    path = resource_path(context, target.model)

    def readings() -> CheckResult | None:
        """The verdict, or None when two readings whose totalResults stood still missed the group."""
        still = 0
        for _ in range(READINGS):
            totals: set[Any] = set()
            read = _pages(context, path, target, totals)
            if isinstance(read, CheckResult):
                return read
            still += len(totals) == 1  # a creation and a deletion may still cancel out: two such readings tell
            if still == 2:
                return None
        return CheckResult(
            Status.SKIPPED,
            reason=f"Skipped: the list of {context.root_path(path)} changed while {READINGS} readings went through it (the run's other checks "
            f"create and delete groups meanwhile), so whether PingFederate finds the Group {target.id} cannot be told.",
            blocks=False,
        )

    missed = f"Listing {context.root_path(path)} page by page (twice) did not find the Group {target.id}, so PingFederate would create it again."
    return settled(context, readings, lambda read: read is not None) or CheckResult(Status.ERROR, reason=missed)  # a list may lag (lag.py)


def _pages(context: CheckContext, path: str, target: Target, totals: set[Any]) -> CheckResult | None:
    """One reading of the list, page after page as PingFederate reads it: a result once the group is
    found (or a page is no list, or the list is longer than the run reads), else None; each page's
    totalResults goes to `totals`."""
    start = 1
    for _ in range(MAX_LISTING_PAGES):
        response = send(context, PING, "GET", path, params={"startIndex": start})
        problem = list_problem(response)
        if problem:
            return CheckResult(Status.ERROR, reason=f"GET {context.root_path(path)}?startIndex={start} {problem}.")
        totals.add(member(body_of(response), "totalResults"))
        found = resources_in(response)
        if any(str(member(item, "id")) == target.id for item in found):
            return CheckResult(Status.SUCCESS, reason=f"Listing {context.root_path(path)} page by page found the Group {target.id}.")
        if not found:
            return None
        start += len(found)
    reason = (
        f"Skipped: {context.root_path(path)} holds more than the {MAX_LISTING_PAGES} pages the run reads, none with the Group "
        f"{target.id}, so whether PingFederate, which reads on, finds it cannot be told."
    )
    return CheckResult(Status.SKIPPED, reason=reason, blocks=False)


@checker("idp", "idp:pingfederate", section="3")
def pingfederate_readiness(context: CheckContext, results: list[CheckResult]) -> list[CheckResult]:
    """Will PingFederate provisioning work? READY when no PingFederate step blocks it (the ``idp:pingfederate`` checks; idp_readiness.py).

    NOT READY naming the blocking steps, a DEVIATION (an ERROR with
    ``--require-ready pingfederate``); SKIPPED when no step ran. Source:
    https://docs.pingidentity.com/integrations/scim/pf_scim_connector.html.
    """
    return readiness(PING, context, results)


@checker("idp", "idp:jumpcloud", section="3.6", schema=USER_SCHEMA)
@replay(JUMPCLOUD)
def jumpcloud_test_user(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """JumpCloud's test connection, its user: a test user created, then deleted (RFC 7644 §3.3, §3.6).

    JumpCloud's custom SCIM integration guide (https://jumpcloud.com/support/provision-and-manage-users-and-groups-in-apps-using-custom-scim-identity-management-integration);
    the test user's email is in the app's verified domain (here example.com).
    One result for the creation (201), one for the deletion (204, then gone:
    404 and no match for its userName). SUCCESS; ERROR otherwise. (JumpCloud
    deactivates the user when DELETE is refused; the RFC's DELETE is judged
    here.)
    """
    return _made_then_deleted(context, model, new_user(JUMPCLOUD, model), "userName")


@checker("idp", "idp:jumpcloud", section="3.6", schema=GROUP_SCHEMA)
@replay(JUMPCLOUD)
def jumpcloud_test_group(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """JumpCloud's test connection, its group: a test group created, then deleted (RFC 7644 §3.3, §3.6).

    JumpCloud's custom SCIM integration guide (https://jumpcloud.com/support/provision-and-manage-users-and-groups-in-apps-using-custom-scim-identity-management-integration).
    One result for the creation (201), one for the deletion (204, then gone:
    404 and no match for its displayName). SUCCESS; ERROR otherwise.
    """
    return _made_then_deleted(context, model, {"schemas": [GROUP_SCHEMA], "displayName": unique_string("displayName")}, "displayName")


def _made_then_deleted(context: CheckContext, model: type[Resource[Any]], body: dict[str, Any], attribute: str) -> list[CheckResult]:
    made, target = create_step(context, JUMPCLOUD, model, body)
    if target is None:
        return [made]
    return [made, *steps(context, [("delete", partial(deletion, context, JUMPCLOUD, target, attribute, str(body[attribute])))])]


@checker("idp", "idp:jumpcloud", section="3")
def jumpcloud_readiness(context: CheckContext, results: list[CheckResult]) -> list[CheckResult]:
    """Will JumpCloud provisioning work? READY when no JumpCloud step blocks it (the ``idp:jumpcloud`` checks; idp_readiness.py).

    NOT READY naming the blocking steps, a DEVIATION (an ERROR with
    ``--require-ready jumpcloud``); SKIPPED when no step ran. Source:
    https://jumpcloud.com/support/provision-and-manage-users-and-groups-in-apps-using-custom-scim-identity-management-integration.
    """
    return readiness(JUMPCLOUD, context, results)
