"""Okta's test suites for the Okta Integration Network, replayed (tag ``idp:okta:oin``).

Okta requires its SPEC, CRUD and Entitlements suites of an integration before it joins the OIN.
Sources: the suites as Okta publishes them (okta/okta-developer-docs,
packages/@okta/vuepress-site/.vuepress/public/standards/SCIM/SCIMFiles/: Okta-SCIM-20-SPEC-Test.json,
Okta-SCIM-20-CRUD-Test.json, Okta-SCIM-20-Entitlements-Test.json), Okta's guide "Test your SCIM
API" (https://developer.okta.com/docs/guides/scim-provisioning-integration-test/main/) and its
SCIM 2.0 reference (https://developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20), for
the requests Okta sends on the SCIM side of each CRUD step (a user updated by PUT, deactivated
and reactivated by PATCH; a pushed group renamed, its members changed, emptied, imported,
deleted) and the AIW variants that update users and groups by PUT.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from typing import Any

import httpx2
from scim2_models import Resource

from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import member
from scim_tui.checker.answers import shown
from scim_tui.checker.checks.authentication import Credentials
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.idp import GROUP_SCHEMA
from scim_tui.checker.checks.idp import POPULATION
from scim_tui.checker.checks.idp import USER_SCHEMA
from scim_tui.checker.checks.idp import empty_list
from scim_tui.checker.checks.idp import finds
from scim_tui.checker.checks.idp import list_problem
from scim_tui.checker.checks.idp import member_ids
from scim_tui.checker.checks.idp import membership
from scim_tui.checker.checks.idp import population
from scim_tui.checker.checks.idp import resources_in
from scim_tui.checker.checks.idp import unanswered
from scim_tui.checker.checks.idp import with_members
from scim_tui.checker.checks.idp_lifecycle import create_step
from scim_tui.checker.checks.idp_lifecycle import deletion
from scim_tui.checker.checks.idp_lifecycle import patched_then_read
from scim_tui.checker.checks.idp_lifecycle import phases
from scim_tui.checker.checks.idp_lifecycle import read_back
from scim_tui.checker.checks.idp_okta import OKTA
from scim_tui.checker.checks.idp_okta import PAGE
from scim_tui.checker.checks.idp_okta import okta_group
from scim_tui.checker.checks.idp_okta import okta_user
from scim_tui.checker.checks.idp_okta import renamed
from scim_tui.checker.checks.idp_okta import skipped
from scim_tui.checker.checks.idp_readiness import replay
from scim_tui.checker.checks.idp_wire import Provider
from scim_tui.checker.checks.idp_wire import patched
from scim_tui.checker.checks.idp_wire import read
from scim_tui.checker.checks.idp_wire import replaced
from scim_tui.checker.checks.idp_wire import send
from scim_tui.checker.checks.patch import Target
from scim_tui.checker.checks.probes import scim_error_problem
from scim_tui.checker.checks.probes import steps
from scim_tui.checker.checks.probes import unknown_id
from scim_tui.checker.context import CheckContext
from scim_tui.checker.features import service_provider_config
from scim_tui.checker.filling import LONGEST
from scim_tui.checker.filling import unique_address
from scim_tui.checker.filling import unique_string
from scim_tui.checker.lag import settled
from scim_tui.checker.limits import MAX_LISTING_PAGES
from scim_tui.checker.recorder import run_secrets
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

TAGS = ("idp", "idp:okta", "idp:okta:oin")
SPEC_TEST = Provider(
    "Okta",
    "idp:okta",
    "okta",
    {"User-Agent": "OKTA SCIM Integration", "Accept": "application/scim+json", "Accept-Charset": "utf-8"},
    "application/scim+json; charset=utf-8",
)
"""The SPEC suite's reads: its User-Agent and headers."""
SPEC_POST = Provider("Okta", "idp:okta", "okta", {"Accept": "application/scim+json; charset=utf-8"}, "application/json")
"""The SPEC suite's creations: an application/json body, no User-Agent of their own."""
UNKNOWN_USER = "00919288221112222"
"""The id the SPEC suite's "Check status 404" asks for."""
SPOKEN_NAME = (LONGEST - 1) // 2
"""The most characters of a given or a family name, so that "given family" (a displayName) fits in LONGEST."""
LISTED = ("id", "name.familyName", "name.givenName", "userName", "active", "emails")
ROLE_SCHEMAS = ("urn:okta:scim:schemas:core:1.0:Role", "urn:okta:scim:schemas:core:1.0:Entitlement")


def _spec_body() -> dict[str, Any]:
    """The SPEC suite's "Create Okta user with realistic values"."""
    given, family = unique_string("given", SPOKEN_NAME), unique_string("family", SPOKEN_NAME)
    name = unique_address()
    return {
        "schemas": [USER_SCHEMA],
        "userName": name,
        "name": {"givenName": given, "familyName": family},
        "emails": [{"primary": True, "value": name, "type": "work"}],
        "displayName": f"{given} {family}",
        "active": True,
    }


REQUIRED = ("id", "userName")
"""What RFC 7643 §3.1 and §4.1.1 make REQUIRED of a User: only their absence breaks the RFC."""


def _holds(label: str, payload: Any, expected: dict[str, Any]) -> CheckResult:
    """Each expected value at its path (dots into complex attributes); None: any non-empty value.
    A value other than the one sent, or a REQUIRED attribute absent, is an ERROR; an OPTIONAL
    attribute absent only fails Okta's suite, which reads it: a DEVIATION that blocks Okta."""
    wrong, needed = [], []
    for path, value in expected.items():
        node: Any = payload
        for part in path.split("."):
            node = member(node, part) if not isinstance(node, list) else (member(node[0], part) if node else None)
        if value is None and node in (None, "", [], {}) and path not in REQUIRED:
            needed.append(path)
        elif node in (None, "", [], {}) or (value is not None and node != value):
            wrong.append(f"{path} = {shown(node)}" + (f" instead of {shown(value)}" if value is not None else " though the RFC requires it"))
    if wrong:
        return CheckResult(Status.ERROR, reason=f"{label}: {', '.join(wrong)}.", data=payload)
    if needed:
        reason = f"{label} has no {', '.join(needed)}, which the RFC leaves optional (RFC 7643 §4.1) but Okta's suite reads."
        return CheckResult(Status.DEVIATION, reason=reason, data=payload, blocks=True)
    return CheckResult(Status.SUCCESS, reason=f"{label}: every value Okta's suite reads is there.", data=payload)


def _listed(context: CheckContext, path: str, ours: str) -> CheckResult:
    """``GET /Users?count=1&startIndex=1``: a ListResponse of integer counts and one resource, whose
    attributes the suite reads (judged on the run's own user: another's is not the server's doing)."""
    ask = partial(send, context, SPEC_TEST, "GET", path, params={"count": 1, "startIndex": 1})
    response = settled(context, ask, lambda response: bool(list_problem(response) or resources_in(response)))  # the user just made may lag (lag.py)
    request = f"GET {context.root_path(path)}?count=1&startIndex=1"
    problem = list_problem(response) or (None if resources_in(response) else "answered no resource, though the server holds users")
    if problem:
        return CheckResult(Status.ERROR, reason=f"{request} {problem}.", data=body_of(response))
    first = resources_in(response)[0]
    if str(member(first, "id")) != ours:
        return CheckResult(
            Status.SUCCESS, reason=f"{request} answered a ListResponse with a user (not the run's own: its attributes are not judged).", data=body_of(response)
        )
    return _holds(request, first, dict.fromkeys(LISTED))


def _refused(context: CheckContext, path: str, status: int) -> CheckResult:
    """A GET answering `status` with a SCIM Error carrying its detail, as the suite asserts (RFC 7644 §3.12)."""
    response = send(context, SPEC_TEST, "GET", path)
    return _judged_refusal(f"GET {context.root_path(path)}", response, status)


def _judged_refusal(request: str, response: Any, status: int) -> CheckResult:
    """`status` with a SCIM Error (RFC 7644 §3.12), else an ERROR; a SCIM Error without its OPTIONAL
    "detail" only fails Okta's suite, which reads it: a DEVIATION that blocks Okta."""
    problem = f"answered {response.status_code} instead of {status}" if response.status_code != status else scim_error_problem(body_of(response), status)
    if problem:
        return CheckResult(Status.ERROR, reason=f"{request} {problem}.", data=body_of(response))
    if not member(body_of(response), "detail"):
        reason = f'{request} answered {status} with a SCIM Error without "detail", which RFC 7644 §3.12 leaves optional but Okta\'s suite reads.'
        return CheckResult(Status.DEVIATION, reason=reason, data=body_of(response), blocks=True)
    return CheckResult(Status.SUCCESS, reason=f"{request} answered {status} with a SCIM Error and its detail.", data=body_of(response))


def _wrong_token(context: CheckContext, path: str) -> CheckResult:
    """The suite's "Check status 401": ``Authorization: non-token`` (in place of the run's own
    credentials, which never leave) gets 401 with a SCIM Error (RFC 7644 §2, §3.12). A server that
    asks for no credential at all is not judged by the RFCs, but fails Okta's required test."""
    params = {"filter": f'userName eq "{unique_string()}"'}
    wrong = {"Authorization": "non-token"}
    # An httpx2 client's own credentials (an auth flow among them) are taken out of this one request.
    options = (
        {"auth": Credentials(run_secrets(context.client), wrong["Authorization"])} if isinstance(getattr(context.client, "client", None), httpx2.Client) else {}
    )
    response = context.client.request("GET", path, params=params, headers={**SPEC_TEST.headers, **wrong}, **options)
    request = f"GET {context.root_path(path)}?filter=… with Authorization: non-token"
    if 200 <= response.status_code < 300 and not (getattr(service_provider_config(context), "authentication_schemes", None) or []):
        reason = (
            f"Not judged: {request} answered {response.status_code}: the server asks for no credential (its "
            "ServiceProviderConfig lists no authentication scheme), and Okta's required test expects 401."
        )
        return CheckResult(Status.SKIPPED, reason=reason, blocks=True)
    return _judged_refusal(request, response, 401)


@checker(*TAGS, section="3.3", schema=USER_SCHEMA)
@replay(OKTA)
def okta_spec_test(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Okta's "SCIM 2.0 Spec Test" suite (its JSON in okta-developer-docs' SCIMFiles), its requests and assertions (RFC 7644 §3.3, §3.4, §3.12).

    Its reads carry ``User-Agent: OKTA SCIM Integration``; its creations an
    ``application/json`` body. One result per request: a user created with
    realistic values (201, the values back); ``GET /Users?count=1&startIndex=1``
    (a ListResponse of integer counts; the attributes of Resources[0] when it is
    the run's own); ``GET /Users/{id}`` (each attribute back); a userName no
    user has (200, totalResults 0); an unknown id, and the suite's
    ``/Users/00919288221112222`` (404, a SCIM Error with its detail); the same
    user again (409, RFC 7644 §3.3 MUST); the userName in capitals (200);
    ``Authorization: non-token`` (401; not judged by the RFCs, but blocking
    Okta, on a server that asks for no credential). SUCCESS as asserted;
    ERROR where the RFC's MUST is broken; an OPTIONAL value the suite reads
    absent (a SCIM Error's detail, a user's name or emails) is a DEVIATION
    that blocks Okta. Its optional GET /Groups is okta_spec_groups.
    """
    path = resource_path(context, model)
    body = _spec_body()
    made, target = create_step(context, SPEC_POST, model, body)
    if target is None:
        return [made]
    name = body["userName"]
    expected = {"userName": name, "name.givenName": body["name"]["givenName"], "name.familyName": body["name"]["familyName"], "active": True}
    labelled: list[tuple[str | None, Callable[[], CheckResult]]] = [
        ("the created user's values", lambda: unanswered(target, "the user's values") or _holds("the creation's answer", target.current, expected)),
        ("test Users endpoint", partial(_listed, context, path, target.id)),
        (
            "verify that user was created",
            lambda: _holds(f"GET {context.root_path(target.url)}", read(context, SPEC_TEST, target), {**dict.fromkeys(LISTED), **expected}),
        ),
        (
            "invalid user by username",
            partial(empty_list, context, SPEC_TEST, model, {"filter": f'userName eq "{unique_address()}"'}, "Okta cannot tell whether the user exists"),
        ),
        ("invalid user by id", partial(_refused, context, f"{path}/{unknown_id()}", 404)),
        ("recreate the same user", partial(_duplicate, context, model, body)),
        ("username case sensitivity", partial(_found_in_capitals, context, path, name)),
        ("check status 401", partial(_wrong_token, context, path)),
        ("check status 404", partial(_refused, context, f"{path}/{UNKNOWN_USER}", 404)),
    ]
    return [made, *steps(context, labelled)]


def _duplicate(context: CheckContext, model: type[Resource[Any]], body: dict[str, Any]) -> CheckResult:
    response = send(context, SPEC_POST, "POST", resource_path(context, model), body)
    request = f"POST {context.root_path(resource_path(context, model))} of the same user again"
    if response.status_code != 409:
        return CheckResult(
            Status.ERROR,
            reason=f"{request} answered {response.status_code} instead of 409 (RFC 7644 §3.3: a duplicate userName MUST be refused with 409).",
            data=body_of(response),
        )
    return CheckResult(Status.SUCCESS, reason=f"{request} answered 409.", data=body_of(response))


def _found_in_capitals(context: CheckContext, path: str, name: str) -> CheckResult:
    params = {"filter": f"userName eq {json.dumps(name.upper())}"}
    response = send(context, SPEC_TEST, "GET", path, params=params)
    if response.status_code != 200:
        return CheckResult(
            Status.ERROR,
            reason=f"GET {context.root_path(path)}?filter=userName eq {json.dumps(name.upper())} answered {response.status_code} instead of 200.",
            data=body_of(response),
        )
    return CheckResult(
        Status.SUCCESS, reason=f"GET {context.root_path(path)}?filter=userName eq {json.dumps(name.upper())} answered 200.", data=body_of(response)
    )


@checker(*TAGS, section="3.4.2", schema=GROUP_SCHEMA)
@replay(OKTA)
def okta_spec_groups(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """The optional "Verify Groups endpoint" of Okta's "SCIM 2.0 Spec Test" suite: ``GET /Groups`` answers 200 (RFC 7644 §3.4.2).

    Its ``User-Agent: OKTA SCIM Integration``. SUCCESS on 200 with a
    ListResponse; ERROR otherwise, which does not block Okta (the test is
    optional). The suite's 600 ms limit is not judged: a loaded machine would
    measure itself.
    """
    path = resource_path(context, model)
    response = send(context, SPEC_TEST, "GET", path)
    problem = list_problem(response)
    if problem:
        return [CheckResult(Status.ERROR, reason=f"GET {context.root_path(path)} {problem}.", data=body_of(response), blocks=False)]
    return [CheckResult(Status.SUCCESS, reason=f"GET {context.root_path(path)} answered 200 with a ListResponse.", data=body_of(response))]


def _put(context: CheckContext, target: Target, changes: dict[str, Any], label: str) -> CheckResult:
    """Okta's update by PUT: the resource read, changed, written back whole; then read back."""
    current = read(context, OKTA, target)
    replaced(context, OKTA, target, {**current, **changes})
    return read_back(context, OKTA, target, _flat(changes), label)


def _flat(changes: dict[str, Any]) -> dict[str, Any]:
    """Changes as mapping paths (``name.givenName``) and their values."""
    flat: dict[str, Any] = {}
    for name, value in changes.items():
        if isinstance(value, dict):
            flat |= {f"{name}.{sub}": item for sub, item in value.items()}
        else:
            flat[name] = value
    return flat


def _active(context: CheckContext, target: Target, active: bool) -> CheckResult:
    """Okta's (de)activation: ``{"op": "replace", "value": {"active": …}}``, then read back."""
    operation = {"op": "replace", "value": {"active": active}}
    return patched_then_read(context, OKTA, target, [operation], {"active": active}, f"replace active with {str(active).lower()}")


@checker(*TAGS, section="3.5.1", schema=USER_SCHEMA)
@replay(OKTA)
def okta_crud_lifecycle(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Okta's CRUD suite (Okta-SCIM-20-CRUD-Test.json), the SCIM side of each step (RFC 7644 §3.3–3.5).

    A user assigned is created with Okta's body and found by
    ``filter=userName eq "…"`` (its userName, emails[0].value and name); its
    first name changed in Okta is a PUT of the whole user; deactivated, a
    ``{"op": "replace", "value": {"active": false}}``; reactivated, the same
    with true; unassigned, deactivated again. One result per phase, each read
    back: SUCCESS; ERROR otherwise; the phases after a failed one SKIPPED.
    """
    target = okta_user(context, model)
    name = str(target.current.get("userName") or "")
    given = unique_string("given")
    family = value_of(target.current, "name", "familyName")
    return phases(
        context,
        [
            ("find the user assigned", partial(finds, context, OKTA, target, "userName", name)),
            (
                "update the first name by PUT",
                partial(_put, context, target, {"name": {"givenName": given, "familyName": family}}, "PUT with a new name.givenName"),
            ),
            ("deactivate", partial(_active, context, target, False)),
            ("reactivate", partial(_active, context, target, True)),
            ("unassign: deactivate", partial(_active, context, target, False)),
        ],
    )


def value_of(resource: dict[str, Any], name: str, sub: str) -> Any:
    return member(member(resource, name), sub)


@checker(*TAGS, section="3.5.1", schema=USER_SCHEMA)
@replay(OKTA)
def okta_user_put_variants(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Okta's AIW integrations update users by PUT, deactivation and reactivation included (RFC 7644 §3.5.1).

    Per Okta's SCIM 2.0 reference (https://developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20):
    the user read, then PUT whole with ``"active": false``, then with
    ``"active": true``, each read back. One result per phase: SUCCESS; ERROR
    otherwise.
    """
    target = okta_user(context, model)
    return phases(
        context,
        [
            (f"PUT with active {str(active).lower()}", partial(_put, context, target, {"active": active}, f"PUT with active {str(active).lower()}"))
            for active in (False, True)
        ],
    )


def _imported(context: CheckContext, target: Target) -> CheckResult:
    """Okta's group import: ``GET /Groups?startIndex=1&count=100`` lists the group (in the pages it reads, startIndex += 100), and
    ``GET /Groups/{id}`` answers it; a DEVIATION that blocks Okta on a page after which its import skips groups (idp_okta.skipped),
    whether the group is on that page or not. The list holds eleven groups of the run (idp.population), at any number of jobs."""
    population(context, target.model, POPULATION)
    path = resource_path(context, target.model)

    unlisted = CheckResult(
        Status.ERROR, reason=f"The import's pages of GET {context.root_path(path)}?startIndex=…&count={PAGE} do not list the Group {target.id}."
    )

    def scan() -> CheckResult | None:
        """The import's verdict, or None when its pages, read to their end, do not list the group."""
        for start in range(1, MAX_LISTING_PAGES * PAGE + 1, PAGE):
            response = send(context, OKTA, "GET", path, params={"startIndex": start, "count": PAGE})
            problem = list_problem(response)
            if problem:
                return CheckResult(Status.ERROR, reason=f"GET {context.root_path(path)}?startIndex={start}&count={PAGE} {problem}.", data=body_of(response))
            short = skipped(context, path, start, response, "groups")
            if short:
                return short
            found = resources_in(response)
            if any(str(member(item, "id")) == target.id for item in found):
                read(context, OKTA, target)
                return CheckResult(Status.SUCCESS, reason=f"The import lists the Group {target.id}, and GET {context.root_path(target.url)} answers it.")
            if not found:
                return None
        return unlisted  # too long a list to read on

    return settled(context, scan, lambda scanned: scanned is not None) or unlisted  # a list may lag behind the creation (lag.py)


@checker(*TAGS, section="3.5.2", schema=GROUP_SCHEMA, shares=("members", "population"))
@replay(OKTA)
def okta_group_lifecycle(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Okta's group push, its whole lifecycle (RFC 7644 §3.3–3.6).

    Per Okta's SCIM 2.0 reference (https://developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20)
    and its CRUD test guide (https://developer.okta.com/docs/guides/scim-provisioning-integration-test/main/):
    a group pushed with ``members: []``, renamed by
    ``{"op": "replace", "value": {"id": …, "displayName": …}}``, a member
    added (``[{"value": …, "display": …}]``) then removed by
    ``members[value eq "…"]``, the list emptied (``{"op": "replace", "path": "members", "value": []}``,
    "Push now" on an empty group), imported (``GET /Groups?startIndex=1&count=100``
    and ``GET /Groups/{id}``), and deleted when unlinked (``DELETE /Groups/{id}``,
    then gone). One result per phase: SUCCESS; ERROR otherwise. The import
    reads a list holding eleven groups of the run (shared with the other checks
    that only list groups: idp.population), and is a DEVIATION that blocks Okta
    when one of its pages holds fewer groups than count=100 while more follow:
    RFC 7644 §3.4.2.4 lets a server answer fewer, but Okta steps startIndex by
    100 whatever a page held.
    """
    users = member_ids(context, 1, okta_user)
    if isinstance(users, CheckResult):
        return [users]
    [user] = users
    target = okta_group(context, model)
    name = unique_string("displayName")

    def members(label: str, operations: list[dict[str, Any]], present: list[str], absent: list[str]) -> Any:
        def change() -> CheckResult:
            seen, source = patched(context, OKTA, target, operations)
            return membership(label, source, seen, present, absent)

        return label, change

    return phases(
        context,
        [
            ("rename", partial(renamed, context, target, name)),
            members("add a member", [{"op": "add", "path": "members", "value": [{"value": user, "display": unique_string("display")}]}], [user], []),
            members("remove the member", [{"op": "remove", "path": f"members[value eq {json.dumps(user)}]"}], [], [user]),
            members("empty the member list", [{"op": "replace", "path": "members", "value": []}], [], [user]),
            ("import the group", partial(_imported, context, target)),
            ("delete the group unlinked", partial(deletion, context, OKTA, target, "displayName", name)),
        ],
    )


@checker(*TAGS, section="3.5.1", schema=GROUP_SCHEMA, shares=("members",))
@replay(OKTA)
def okta_group_put_variants(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Okta's AIW integrations update groups by PUT: a new name and its members, then no member (RFC 7644 §3.5.1).

    Per Okta's SCIM 2.0 reference (https://developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20):
    the group read, then PUT whole with a new displayName and one member, then
    with ``members: []``, each read back. One result per phase: SUCCESS;
    ERROR otherwise.
    """
    users = member_ids(context, 1, okta_user)
    if isinstance(users, CheckResult):
        return [users]
    target = okta_group(context, model)
    with_members(context, OKTA, target, users)
    name = unique_string("displayName")

    def put(members: list[dict[str, Any]], present: list[str], absent: list[str]) -> CheckResult:
        current = read(context, OKTA, target)
        seen = replaced(context, OKTA, target, {**current, "displayName": name, "members": members})
        return membership(f"PUT with {len(members)} member(s)", "the PUT answer", seen, present, absent)

    return phases(
        context, [("PUT with a new name and a member", partial(put, [{"value": users[0]}], users, [])), ("PUT with no member", partial(put, [], [], users))]
    )


@checker(*TAGS, section="3.4.2.4")
@replay(OKTA)
def okta_entitlements_test(context: CheckContext) -> list[CheckResult]:
    """Okta's Entitlements suite (Okta-SCIM-20-Entitlements-Test.json): each endpoint of Okta's Role or Entitlement resource types lists its first
    entry (RFC 7644 §3.4.2.4).

    Per Okta's guide "SCIM with entitlements" (https://developer.okta.com/docs/guides/scim-with-entitlements/main/):
    Okta reads /ResourceTypes, and each endpoint whose schema is
    ``urn:okta:scim:schemas:core:1.0:Role`` or ``…:Entitlement`` with
    ``?count=1&startIndex=1``: 200, a ListResponse with an entry, integer
    startIndex and totalResults, itemsPerPage 1. One result per endpoint:
    SUCCESS then; ERROR otherwise. SKIPPED (blocking nothing) when the server
    serves neither type: the suite is for integrations with entitlements.
    """
    answer = body_of(send(context, SPEC_TEST, "GET", "/ResourceTypes"))
    listed = member(answer, "Resources") if isinstance(answer, dict) else answer
    endpoints = [str(member(item, "endpoint")) for item in listed or [] if isinstance(item, dict) and member(item, "schema") in ROLE_SCHEMAS]
    if not endpoints:
        return [
            CheckResult(
                Status.SKIPPED,
                reason="Skipped: the server serves neither of Okta's Role and Entitlement resource types, which the Entitlements suite reads.",
                blocks=False,
            )
        ]
    return steps(context, [(endpoint, partial(_first_entry, context, "/" + endpoint.strip("/"))) for endpoint in endpoints])


def _first_entry(context: CheckContext, path: str) -> CheckResult:
    response = send(context, SPEC_TEST, "GET", path, params={"count": 1, "startIndex": 1})
    request = f"GET {context.root_path(path)}?count=1&startIndex=1"
    problem = list_problem(response) or (None if resources_in(response) else "answered no entry")
    if not problem and member(body_of(response), "itemsPerPage") != 1:
        problem = f"answered itemsPerPage {shown(member(body_of(response), 'itemsPerPage'))} instead of 1"
    if problem:
        return CheckResult(Status.ERROR, reason=f"{request} {problem} (RFC 7644 §3.4.2.4).", data=body_of(response))
    return CheckResult(Status.SUCCESS, reason=f"{request} answered its first entry.", data=body_of(response))
