"""Okta provisioning, replayed step by step (docs/identity-providers.md).

Source: https://developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20 (Okta and SCIM
Version 2.0). Every request carries ``User-Agent: Okta SCIM Client 1.0.0``, as Okta's do.
"""

from __future__ import annotations

import json
import uuid
from functools import partial
from typing import Any

from scim2_models import Resource

from scim_tui.checker.answers import body_kind
from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import member
from scim_tui.checker.answers import shown
from scim_tui.checker.checks.comparison import matches
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.idp import GROUP_SCHEMA
from scim_tui.checker.checks.idp import POPULATION
from scim_tui.checker.checks.idp import USER_SCHEMA
from scim_tui.checker.checks.idp import applied
from scim_tui.checker.checks.idp import asked
from scim_tui.checker.checks.idp import created
from scim_tui.checker.checks.idp import creation
from scim_tui.checker.checks.idp import empty_list
from scim_tui.checker.checks.idp import finds
from scim_tui.checker.checks.idp import get
from scim_tui.checker.checks.idp import has
from scim_tui.checker.checks.idp import list_problem
from scim_tui.checker.checks.idp import member_ids
from scim_tui.checker.checks.idp import membership
from scim_tui.checker.checks.idp import population
from scim_tui.checker.checks.idp import reads_inactive
from scim_tui.checker.checks.idp import resources_in
from scim_tui.checker.checks.idp import user_body
from scim_tui.checker.checks.idp import with_members
from scim_tui.checker.checks.idp_readiness import readiness
from scim_tui.checker.checks.idp_readiness import replay
from scim_tui.checker.checks.idp_readiness import step
from scim_tui.checker.checks.idp_wire import Provider
from scim_tui.checker.checks.idp_wire import patched
from scim_tui.checker.checks.idp_wire import send
from scim_tui.checker.checks.patch import Target
from scim_tui.checker.checks.probes import steps
from scim_tui.checker.context import CheckContext
from scim_tui.checker.exchanges import noted
from scim_tui.checker.features import service_provider_config
from scim_tui.checker.filling import unique_address
from scim_tui.checker.filling import unique_string
from scim_tui.checker.guard import MARK
from scim_tui.checker.lag import settled
from scim_tui.checker.limits import MAX_LISTING_PAGES
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

OKTA = Provider("Okta", "idp:okta", "okta", {"User-Agent": "Okta SCIM Client 1.0.0"})
TAGS = ("idp", "idp:okta")
PAGE = 100
"""Okta imports users in pages of this many."""
CONNECTION_COUNT = 2
"""Okta's test connection asks for this many users."""
NO_PATH = (
    "Okta deactivates with a replace without a path, which RFC 7644 §3.5.2.3 defines (the target is then the resource itself), "
    "so the refusal is the server's fault by the RFC too."
)
RENAME = (
    "Okta sends the group's id, unchanged, inside the value of a replace without a path, where RFC 7644 §3.5.2 says a client MUST NOT "
    "modify a readOnly attribute; Okta's documentation shows this shape, and a server must let the unchanged id through."
)


def okta_user(context: CheckContext, model: type[Resource[Any]], checked: bool = False) -> Target:
    """A user created with the body Okta sends: password, an empty groups, externalId, locale."""
    body = {**user_body("okta"), "locale": "en-US"}
    extra = {"schemas": [USER_SCHEMA], "password": f"Scim-tui-{uuid.uuid4().hex[:24]}", "groups": []}
    return created(context, OKTA, model, body, extra, checked=checked)


@checker(*TAGS, section="3.4.2.4", schema=USER_SCHEMA, shares=("population",))
@replay(OKTA)
def okta_test_connection(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Okta's test connection: ``GET /Users?startIndex=1&count=2`` answers a page of at most 2 users (RFC 7644 §3.4.2.4).

    Okta sends this when an admin saves the integration (third-party
    documentation; Okta's own guide, https://developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20,
    pages the same way). Three users the run holds are there first, so that a
    server ignoring count shows it (shared with the other checks that only list
    users: idp.population). SUCCESS on 200 with a ListResponse of integer
    counts and at most 2 resources; ERROR otherwise.
    """
    population(context, model, CONNECTION_COUNT + 1)
    path = resource_path(context, model)
    params = {"startIndex": 1, "count": CONNECTION_COUNT}

    def connect() -> CheckResult:
        response = get(context, OKTA, path, params)
        request = asked(context, path, params)
        problem = list_problem(response)
        if problem:
            return CheckResult(Status.ERROR, reason=f"{request} {problem}.", data=body_of(response))
        found = resources_in(response)
        if len(found) > CONNECTION_COUNT:
            return CheckResult(Status.ERROR, reason=f"{request} answered {len(found)} users: count is ignored (RFC 7644 §3.4.2.4).", data=body_of(response))
        return CheckResult(Status.SUCCESS, reason=f"{request} answered a page of {len(found)} users.", data=body_of(response))

    return [step(context, OKTA, "test connection", connect)]


@checker(*TAGS, section="3.4.2.2", schema=USER_SCHEMA)
@replay(OKTA)
def okta_lookup_missing_user(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Okta looks a user up before creating it: ``filter=userName eq "…"&startIndex=1&count=100`` with no match (RFC 7644 §3.4.2.2).

    Per https://developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20:
    SUCCESS on 200 with an empty ListResponse; DEVIATION on a 404, which Okta
    reads as no match too; ERROR on anything else, or when resources come back.
    """
    params = {"filter": f'userName eq "{unique_address()}"', "startIndex": 1, "count": PAGE}
    run = partial(empty_list, context, OKTA, model, params, "Okta cannot tell whether the user exists", "Okta reads it as no match")
    return [step(context, OKTA, "look up a user that does not exist", run)]


@checker(*TAGS, section="3.3", schema=USER_SCHEMA)
@replay(OKTA)
def okta_create_user(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Okta creates a user with ``password`` and ``groups: []`` in the body, then finds it by userName (RFC 7644 §3.3).

    Okta's body (https://developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20)
    holds a password, an empty groups (read-only), externalId and locale; the
    server must not fail on them. One result for the creation (SUCCESS on 201
    with an id, ERROR otherwise), one for ``filter=userName eq "…"&startIndex=1&count=100``
    (SUCCESS when the list holds that user alone).
    """
    target = okta_user(context, model, checked=True)
    created_user = creation(context, OKTA, target)
    user_name = str(target.current.get("userName") or "")
    lookup = partial(finds, context, OKTA, target, "userName", user_name, {"startIndex": 1, "count": PAGE})
    return [created_user, *steps(context, [("look the user up", lookup)])]


@checker(*TAGS, section="3.4.2.4", schema=USER_SCHEMA, shares=("population",))
@replay(OKTA)
def okta_import_users(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Okta imports users in pages: ``startIndex=1&count=100``, then ``startIndex`` += 100 (RFC 7644 §3.4.2.4).

    Per https://developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20.
    Eleven users the run holds are there first (shared with the other checks
    that only list users: idp.population); then reads the pages until
    totalResults. SUCCESS when each page is a ListResponse of integer counts
    answering the startIndex asked, no user comes twice (a stable order) and
    the run's users are all found; ERROR otherwise. A DEVIATION that blocks Okta when a
    page holds fewer users than count=100 while more follow it: RFC 7644
    §3.4.2.4 lets a server answer fewer, but Okta steps startIndex by 100
    whatever a page held, so its import would skip the users after that page's
    last (told apart from a totalResults that overstates: the page starting
    right after them must hold as many users, or the rest).
    """
    made = population(context, model, POPULATION)
    path = resource_path(context, model)

    def holds_all(imported: CheckResult | tuple[list[str], bool]) -> bool:
        return isinstance(imported, CheckResult) or not imported[1] or all(user in imported[0] for user in made)

    def pages() -> CheckResult:
        # Read again while users are missing: the run's other checks delete resources meanwhile (a
        # deletion before the page boundary between two reads moves a user to the page already
        # read), and a list may lag behind the users' creation (lag.py).
        imported = settled(context, partial(_imported, context, path, made), holds_all)
        if isinstance(imported, CheckResult):
            return imported
        seen, complete = imported
        missing = [user for user in made if user not in seen]
        if missing and complete:
            return CheckResult(Status.ERROR, reason=f"The {len(seen)} users imported lack {', '.join(missing)}, which the run made and holds.")
        if not complete:
            return CheckResult(
                Status.SUCCESS,
                reason=f"{len(seen)} users imported in pages of {PAGE}, each once, in the first {MAX_LISTING_PAGES} pages (the import read no further).",
            )
        return CheckResult(Status.SUCCESS, reason=f"{len(seen)} users imported in pages of {PAGE}, each once, the run's {len(made)} among them.")

    return [step(context, OKTA, "import users", pages)]


def _imported(context: CheckContext, path: str, made: list[str]) -> tuple[list[str], bool] | CheckResult:
    """The ids of the users Okta's import reads, page after page, and whether it read them all;
    an ERROR result on a page that is not a ListResponse answering the startIndex asked, or a
    user answered twice (an unstable order); a DEVIATION that blocks Okta on a page after which
    its import skips users (skipped). The run's other resources come and go while the
    pages are read, so only the users not made by the run, and `made`, are held to the order."""
    seen: list[str] = []
    start = 1
    for _ in range(MAX_LISTING_PAGES):
        params = {"startIndex": start, "count": PAGE}
        response = get(context, OKTA, path, params)
        problem = list_problem(response)
        answered = member(body_of(response), "startIndex")
        if problem or answered not in (None, start):
            return CheckResult(
                Status.ERROR, reason=f"{asked(context, path, params)} {problem or f'answered startIndex {shown(answered)}'}.", data=body_of(response)
            )
        resources = resources_in(response)
        found = [str(member(item, "id")) for item in resources]
        held = {str(member(item, "id")) for item in resources if str(member(item, "id")) in made or not str(member(item, "userName") or "").startswith(MARK)}
        twice = sorted(held & set(seen))
        if twice:
            return CheckResult(
                Status.ERROR,
                reason=f"{asked(context, path, params)} answered {', '.join(twice)} again: the order is not stable, or startIndex is ignored.",
                data=body_of(response),
            )
        short = skipped(context, path, start, response, "users")
        if short:
            return short
        seen += found
        if not found or start + PAGE > member(body_of(response), "totalResults"):
            return seen, True
        start += PAGE
    return seen, False


SKIPPING = (
    "RFC 7644 §3.4.2.4 lets a server answer fewer resources than count, but Okta asks for startIndex={next} next whatever a page held "
    '(its SCIM 2.0 reference: "the startIndex becomes startIndex+100", https://developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20)'
)
"""Why a page of fewer than count resources, more following it, loses resources in Okta's import."""
AFTER_NOTE = "sent by scim-tui, not Okta: the page right after a page holding fewer resources than count, which Okta's import never asks for"


def skipped(context: CheckContext, path: str, start: int, response: Any, kind: str) -> CheckResult | None:
    """A DEVIATION that blocks Okta when its import skips resources after this page (the one
    starting at `start`): it holds fewer than count while totalResults says more follow, and the
    page right after its last resource holds as many, or the rest of the list (so that neither a
    totalResults that overstates nor a resource another check made meanwhile passes for a page
    size); None otherwise."""
    held = len(resources_in(response))
    total = member(body_of(response), "totalResults")
    if held >= PAGE or not isinstance(total, int) or start - 1 + held >= total:
        return None
    with noted(AFTER_NOTE):
        after = context.client.request("GET", path, params={"startIndex": start + held, "count": PAGE})
    more, told = len(resources_in(after)), member(body_of(after), "totalResults")
    if list_problem(after) or not more or (more < held and not (isinstance(told, int) and start - 1 + held + more >= told)):
        return None  # no page of the same size follows, nor the rest of the list: what another check made meanwhile, at most
    last = min(start + PAGE - 1, total)
    capped = _max_results(context)
    said = f" (its ServiceProviderConfig says filter.maxResults {capped})" if capped is not None and capped < PAGE else ""
    reason = (
        f"{asked(context, path, {'startIndex': start, 'count': PAGE})} answered {held} of the {total} {kind} (totalResults){said}: "
        f"{SKIPPING.format(next=start + PAGE)}, so its import would skip {kind} {start + held} to {last}."
    )
    return CheckResult(Status.DEVIATION, reason=reason, data=body_of(response), blocks=True)


def _max_results(context: CheckContext) -> int | None:
    """filter.maxResults as the ServiceProviderConfig says it, when it does."""
    config = service_provider_config(context)
    value = getattr(getattr(config, "filter", None), "max_results", None)
    return value if isinstance(value, int) else None


@checker(*TAGS, section="3.5.1", schema=USER_SCHEMA)
@replay(OKTA)
def okta_update_user_put(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Okta updates a user by PUT of the whole resource: read, modify, write back (RFC 7644 §3.5.1).

    Per https://developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20.
    SUCCESS when the PUT answers 200 with the new displayName; ERROR otherwise.
    """
    if not has(model, "displayName"):
        return [CheckResult(Status.SKIPPED, reason=f"{model.__name__} has no displayName to change.")]
    target = okta_user(context, model)
    value = unique_string("displayName")

    def put() -> CheckResult:
        path = context.root_path(target.url)
        read = get(context, OKTA, target.url, {})
        current = body_of(read)
        if read.status_code != 200 or not isinstance(current, dict):
            return CheckResult(Status.ERROR, reason=f"GET {path} answered {read.status_code} with {body_kind(read.text)} instead of the User.", data=current)
        response = send(context, OKTA, "PUT", target.url, {**current, "displayName": value})
        payload = body_of(response)
        shown_name = member(payload, "displayName")
        if response.status_code != 200 or not matches(value, shown_name):
            return CheckResult(
                Status.ERROR,
                reason=f"PUT {path} answered {response.status_code} with displayName {shown(shown_name)} instead of 200 with {shown(value)}.",
                data=payload,
            )
        return CheckResult(Status.SUCCESS, reason=f"PUT {path} of the whole user answered 200 with the new displayName.", data=payload)

    return [step(context, OKTA, "PUT the whole user", put)]


@checker(*TAGS, section="3.5.2.3", schema=USER_SCHEMA)
@replay(OKTA)
def okta_deactivate_user(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Okta deactivates a user with ``{"op": "replace", "value": {"active": false}}``, no path (RFC 7644 §3.5.2.3).

    Okta never deletes users (https://developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20).
    One result for the PATCH (SUCCESS on 200 or 204 with active false), one
    for reading the user again (SUCCESS on 200 with active false); ERROR otherwise.
    """
    if not has(model, "active"):
        return [CheckResult(Status.SKIPPED, reason=f"{model.__name__} has no active attribute.")]
    target = okta_user(context, model)
    label = 'replace without a path, value {"active": false}'
    shapes = ({"op": "replace", "value": {"active": False}}, {"op": "replace", "path": "active", "value": False})
    deactivate, plain = (partial(applied, context, OKTA, target, label, [operation], {"active": False}, "active false") for operation in shapes)
    deactivated = step(context, OKTA, label, deactivate, NO_PATH, plain, shapes, provider_only=False)
    [read] = steps(context, [("read the deactivated user", partial(reads_inactive, context, OKTA, target))])
    if deactivated.status.failed and read.status.failed:  # neither spelling deactivated it: one fault, told once
        read = CheckResult(Status.SKIPPED, reason="Skipped: the user was not deactivated, so there is no deactivated user to read.", blocks=False)
    return [deactivated, read]


def okta_group(context: CheckContext, model: type[Resource[Any]], checked: bool = False) -> Target:
    """A group created with Okta's body: displayName and an empty members (members come by PATCH)."""
    return created(context, OKTA, model, {"displayName": unique_string("displayName")}, {"schemas": [GROUP_SCHEMA], "members": []}, checked=checked)


@checker(*TAGS, section="3.3", schema=GROUP_SCHEMA)
@replay(OKTA)
def okta_create_group(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Okta pushes a group with ``{"displayName": …, "members": []}`` (RFC 7644 §3.3).

    Per https://developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20.
    SUCCESS on 201 with an id; ERROR otherwise.
    """
    return [creation(context, OKTA, okta_group(context, model, checked=True))]


@checker(*TAGS, section="3.5.2.3", schema=GROUP_SCHEMA)
@replay(OKTA)
def okta_rename_group(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Okta renames a group with ``{"op": "replace", "value": {"id": …, "displayName": …}}`` (RFC 7644 §3.5.2.3).

    Per https://developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20.
    SUCCESS when the group then has the new displayName; ERROR otherwise.
    """
    return [renamed(context, okta_group(context, model), unique_string("displayName"))]


def renamed(context: CheckContext, target: Target, name: str) -> CheckResult:
    """Okta's rename of a group, ``{"op": "replace", "value": {"id": …, "displayName": …}}``; when it
    is refused, the RFC's spelling (without the id) tells whether the id is the cause."""
    label = "replace without a path, value {id, displayName}"
    shapes = ({"op": "replace", "value": {"id": target.id, "displayName": name}}, {"op": "replace", "value": {"displayName": name}})
    run, plain = (partial(applied, context, OKTA, target, label, [operation], {"displayName": name}, "the new displayName") for operation in shapes)
    return step(context, OKTA, label, run, RENAME, plain, shapes)


def _members_changed(context: CheckContext, model: type[Resource[Any]], label: str, operations: Any) -> list[CheckResult]:
    """A group holding one user gets `operations(old, new)` in one PATCH: the new user in, the old one out."""
    users = member_ids(context, 2, okta_user)
    if isinstance(users, CheckResult):
        return [users]
    old, new = users
    target = okta_group(context, model)
    with_members(context, OKTA, target, [old])

    def change() -> CheckResult:
        seen, source = patched(context, OKTA, target, operations(old, new))
        return membership(label, source, seen, [new], [old])

    return [step(context, OKTA, label, change)]


@checker(*TAGS, section="3.5.2", schema=GROUP_SCHEMA, shares=("members",))
@replay(OKTA)
def okta_update_members(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Okta changes members in one PATCH: remove ``members[value eq "…"]``, then add ``[{"value": …, "display": …}]`` (RFC 7644 §3.5.2).

    Per https://developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20.
    On a group of one member: SUCCESS when the new member is in and the old one
    out; ERROR otherwise.
    """

    def operations(old: str, new: str) -> list[dict[str, Any]]:
        return [
            {"op": "remove", "path": f"members[value eq {json.dumps(old)}]"},
            {"op": "add", "path": "members", "value": [{"value": new, "display": unique_string("display")}]},
        ]

    return _members_changed(context, model, "remove then add members in one PATCH", operations)


@checker(*TAGS, section="3.5.2.3", schema=GROUP_SCHEMA, shares=("members",))
@replay(OKTA)
def okta_replace_members(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Okta replaces a group's whole member list: ``{"op": "replace", "path": "members", "value": [...]}`` (RFC 7644 §3.5.2.3).

    Per https://developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20.
    On a group of one member: SUCCESS when the group then holds the new member
    alone; ERROR otherwise.
    """

    def operations(old: str, new: str) -> list[dict[str, Any]]:
        return [{"op": "replace", "path": "members", "value": [{"value": new, "display": unique_string("display")}]}]

    return _members_changed(context, model, "replace the member list", operations)


@checker(*TAGS, section="3")
def okta_readiness(context: CheckContext, results: list[CheckResult]) -> list[CheckResult]:
    """Will Okta provisioning work? READY when every Okta step passed (the ``idp:okta`` checks).

    Given once every check ended (idp_readiness.py): SUCCESS (READY) when no
    Okta step blocks it (a DEVIATION Okta tolerates is named), and none was
    kept from running but by the run's selection; NOT READY naming the
    blocking steps, a DEVIATION (an ERROR with ``--require-ready okta``);
    SKIPPED when no step ran. Source: https://developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20.
    """
    return readiness(OKTA, context, results)
