"""What the identity-provider checks share (idp_entra.py, idp_okta.py ...): the bodies they
send, the resources they create, and how their answers are judged (lists, members, values).

A step replays what the provider documents, whatever the ServiceProviderConfig claims: the
provider does not read it either (idp_readiness.py judges what then fails).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import suppress
from functools import partial
from typing import Any

from scim2_models import EnterpriseUser
from scim2_models import Group
from scim2_models import Resource
from scim2_models import User

from scim_tui.checker.answers import JSON_KINDS
from scim_tui.checker.answers import bodiless
from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import member
from scim_tui.checker.answers import shown
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.idp_wire import Provider
from scim_tui.checker.checks.idp_wire import Refused
from scim_tui.checker.checks.idp_wire import created as wire_created
from scim_tui.checker.checks.idp_wire import patched
from scim_tui.checker.checks.idp_wire import send
from scim_tui.checker.checks.patch import Target
from scim_tui.checker.checks.patch_paths import holds
from scim_tui.checker.context import CheckContext
from scim_tui.checker.exchanges import failure_reason
from scim_tui.checker.exchanges import noted
from scim_tui.checker.filling import unique_address
from scim_tui.checker.filling import unique_string
from scim_tui.checker.guard import normal_endpoint
from scim_tui.checker.lag import settled
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import PrerequisiteFailed
from scim_tui.checker.results import Status

USER_SCHEMA = str(User.__schema__)
GROUP_SCHEMA = str(Group.__schema__)
ENTERPRISE = str(EnterpriseUser.__schema__)
DECOY_NOTE = "sent by scim-tui, not the provider: a resource the step's filter must leave out"


def get(context: CheckContext, provider: Provider, path: str, params: dict[str, Any]) -> Any:
    """A GET as the provider sends it; the raw response."""
    return send(context, provider, "GET", path, params=params)


def asked(context: CheckContext, path: str, params: dict[str, Any]) -> str:
    """A request as a reason names it: GET /v2/Users?filter=userName eq "…"."""
    return f"GET {context.root_path(path)}?" + "&".join(f"{name}={value}" for name, value in params.items())


def list_problem(response: Any) -> str | None:
    """Why an answer is not a 200 ListResponse with integer counts and a list of resources, or None."""
    payload = body_of(response)
    if response.status_code != 200:
        return f"answered {response.status_code} instead of 200 with a ListResponse"
    if not isinstance(payload, dict) or "urn:ietf:params:scim:api:messages:2.0:ListResponse" not in (member(payload, "schemas") or []):
        return "answered 200 without a ListResponse"
    for name in ("totalResults", "startIndex", "itemsPerPage"):
        value = member(payload, name)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            return f'answered "{name}": {shown(value, 40)}, {JSON_KINDS.get(type(value), "a JSON object")} instead of a JSON integer (RFC 7644 §3.4.2)'
    if member(payload, "totalResults") is None:
        return 'answered a ListResponse without "totalResults", which is REQUIRED (RFC 7644 §3.4.2)'
    if not isinstance(member(payload, "Resources") or [], list):
        return 'answered a ListResponse whose "Resources" is not a list'
    return None


def resources_in(response: Any) -> list[dict[str, Any]]:
    """The resources of a ListResponse answer (list_problem said it is one)."""
    return [item for item in member(body_of(response), "Resources") or [] if isinstance(item, dict)]


def empty_list(
    context: CheckContext, provider: Provider, model: type[Resource[Any]], params: dict[str, Any], why: str, tolerated_404: str | None = None
) -> CheckResult:
    """A query of the model's endpoint matching nothing answers 200 with an empty ListResponse
    (RFC 7644 §3.4.2); `why` tells what the provider makes of another answer. A 404 is a DEVIATION
    by the RFC, which blocks the provider unless it reads a 404 as no match too (`tolerated_404`
    says so)."""
    path = resource_path(context, model)
    decoy(context, model)
    response = get(context, provider, path, params)
    request = asked(context, path, params)
    if response.status_code == 404:
        how = tolerated_404 or why
        reason = f"{request} answered 404: {how}, but RFC 7644 §3.4.2 answers a query matching nothing with 200 and totalResults 0."
        return CheckResult(Status.DEVIATION, reason=reason, data=body_of(response), blocks=tolerated_404 is None)
    problem = list_problem(response)
    if problem:
        return CheckResult(Status.ERROR, reason=f"{request} {problem}: {why} (RFC 7644 §3.4.2: no match is a 200 with totalResults 0).", data=body_of(response))
    found = resources_in(response)
    total = member(body_of(response), "totalResults")
    if found or total:
        return CheckResult(
            Status.ERROR, reason=f"{request} answered totalResults {total} and {len(found)} resource(s) for a value no resource holds.", data=body_of(response)
        )
    return CheckResult(Status.SUCCESS, reason=f"{request} answered 200 with an empty ListResponse.", data=body_of(response))


def finds(
    context: CheckContext, provider: Provider, target: Target, attribute: str, value: str, params: dict[str, Any] | None = None, unlisted: str | None = None
) -> CheckResult:
    """A filter `attribute eq "value"` answers a list holding the resource, and nothing else. An
    answer without the resource (and nothing else) is a DEVIATION that blocks the provider when
    the RFCs let the server leave it out (`unlisted` says why), else an ERROR."""
    path = resource_path(context, target.model)
    decoy(context, target.model)
    query = {"filter": f"{attribute} eq {json.dumps(value)}", **(params or {})}

    def holds_it(response: Any) -> bool:
        return bool(list_problem(response)) or any(str(member(item, "id")) == target.id for item in resources_in(response))

    response = settled(context, partial(get, context, provider, path, query), holds_it, teaches=unlisted is None)  # a list may lag (lag.py)
    request = asked(context, path, query)
    problem = list_problem(response)
    if problem:
        return CheckResult(Status.ERROR, reason=f"{request} {problem}.", data=body_of(response))
    ids = [str(member(item, "id")) for item in resources_in(response)]
    if not ids and unlisted:
        return CheckResult(Status.DEVIATION, reason=f"{request} answered no resource: {unlisted}", data=body_of(response), blocks=True)
    if ids != [target.id]:
        kind = target.model.__name__
        kept = member(target.current, attribute) not in (None, "") or bool(ids)
        why = "" if kept else f": the server answered the {kind} without {attribute} (it keeps none), and {provider.name} looks it up by that attribute"
        return CheckResult(Status.ERROR, reason=f"{request} answered {shown(ids)} instead of the {kind} {target.id} alone{why}.", data=body_of(response))
    return CheckResult(Status.SUCCESS, reason=f"{request} answered the {target.model.__name__} {target.id}.", data=body_of(response))


def model_of(context: CheckContext, schema: str) -> type[Resource[Any]] | None:
    """The model of the server's resource type of a core schema (the User one ...), if it has one."""
    for resource_type in getattr(context.client.provider, "resource_types", None) or ():
        if str(resource_type.schema_) == schema:
            return context.model_for(resource_type)
    return None


def has(model: type[Resource[Any]], name: str) -> bool:
    """Whether the model has an attribute (a schema URN for an extension), its name compared without case."""
    return any(model._scim_name(field_name).lower() == name.lower() for field_name in model.model_fields)


def kept(model: type[Resource[Any]], values: dict[str, Any]) -> dict[str, Any]:
    """The values of attributes the model has: a provider sends only the attributes mapped to the app."""
    return {name: value for name, value in values.items() if has(model, name)}


def user_body(kind: str) -> dict[str, Any]:
    """The attributes both providers send for a new user (as JSON): an e-mail-like userName, also
    its work email, a name, an externalId (marked `kind`), active."""
    user_name = unique_address()
    return {
        "userName": user_name,
        "externalId": unique_string(kind),
        "active": True,
        "displayName": unique_string("displayName"),
        "emails": [{"primary": True, "type": "work", "value": user_name}],
        "name": {"givenName": unique_string("given"), "familyName": unique_string("family")},
    }


def reads_inactive(context: CheckContext, provider: Provider, target: Target) -> CheckResult:
    """GET of a user answers 200 with active false (a disabled user is still there)."""
    response = get(context, provider, target.url, {})
    payload = body_of(response)
    active = member(payload, "active")
    request = f"GET {context.root_path(target.url)}"
    if response.status_code != 200 or active is not False:
        return CheckResult(
            Status.ERROR, reason=f"{request} answered {response.status_code} with active {shown(active)} instead of 200 with active false.", data=payload
        )
    return CheckResult(Status.SUCCESS, reason=f"{request} answered the user, with active false.", data=payload)


def created(
    context: CheckContext, provider: Provider, model: type[Resource[Any]], values: dict[str, Any], extra: dict[str, Any], checked: bool = False
) -> Target:
    """A resource created with the provider's body: `values` of the attributes the server's model
    has (a provider sends only those mapped to the app), and `extra` as it is (what the provider
    always sends: its schemas, meta, an empty roles ...). Deleted when the check ends."""
    return wire_created(context, provider, model, {**extra, **kept(model, values)}, checked=checked)


def applied(
    context: CheckContext, provider: Provider, target: Target, label: str, operations: list[dict[str, Any]], expected: dict[str, Any], outcome: str
) -> CheckResult:
    """PATCH operations as the provider writes them, then whether the resource holds each expected value (patch_paths.holds)."""
    seen, source = patched(context, provider, target, operations)
    return holds(target, label, seen, source, expected, outcome)


def creation(context: CheckContext, provider: Provider, target: Target) -> CheckResult:
    """The result of a creation the check judges, just made: SUCCESS on 201; another 2xx is an ERROR
    (RFC 7644 §3.3: the server SHALL answer 201) that the provider goes past, reading the resource;
    a 2xx without a body a DEVIATION that blocks the provider, which reads the new id in the body
    (the body is a SHOULD; the run read the resource at its Location)."""
    post = next(exchange for exchange in reversed(context.exchanges) if exchange.method == "POST")
    code = post.status_code
    request = f"POST {context.root_path(resource_path(context, target.model))} with {provider.name}'s body"
    kind = target.model.__name__.split("[", 1)[0]
    if bodiless(code, post.response_body):
        reason = (
            f"{request} answered {code} without a body, so {provider.name} gets no id for the {kind} it created: the answer SHOULD hold "
            f"the created resource (RFC 7644 §3.3), and {provider.name} reads the id there (the run read the {kind} {target.id} at its Location)."
        )
        return CheckResult(Status.DEVIATION, reason=reason, blocks=True)
    if code == 201:
        return CheckResult(Status.SUCCESS, reason=f"{request} answered 201 with the {kind} {target.id}.")
    reason = f"{request} answered {code} instead of 201 Created (RFC 7644 §3.3 SHALL), which {provider.name} reads as created all the same."
    return CheckResult(Status.ERROR, reason=reason, blocks=False)


def unanswered(target: Target, what: str) -> CheckResult | None:
    """SKIPPED when the creation answered no body to judge `what` in (idp.creation's finding: the
    resource was read at its Location); None when it answered the resource."""
    if not target.located:
        return None
    return CheckResult(Status.SKIPPED, reason=f"Skipped: the creation answered no body to read {what} in.", blocks=False)


def decoy(context: CheckContext, model: type[Resource[Any]]) -> None:
    """Make, once per check and endpoint, a resource of the check's own that its filters must
    leave out: with it, a server ignoring a filter answers more than asked whatever else it holds,
    so a step's verdict never depends on what the run's other checks hold at the time (a decoy that
    cannot be made is none)."""
    endpoint = normal_endpoint(context.client.resource_endpoint(model))
    if endpoint in context.decoys:
        return
    with suppress(PrerequisiteFailed), noted(DECOY_NOTE):
        context.decoys[endpoint] = str(context.resource_manager.create_and_register(model, fill_all=False).id)


def with_members(context: CheckContext, provider: Provider, target: Target, users: list[str]) -> None:
    """Give a group its first members as providers do, after creating it: one PATCH add (RFC 7644
    §3.5.2.1). A group that then lacks them cannot be worked on: PrerequisiteFailed, naming why."""
    operation = {"op": "add", "path": "members", "value": [{"value": user} for user in users]}
    try:
        seen, source = patched(context, provider, target, [operation])
    except Refused as refused:
        raise PrerequisiteFailed(f"the Group's first members could not be added: {failure_reason(refused, context.exchanges[-1:])}") from refused
    missing = [user for user in users if user not in members_of(seen)]
    if missing:
        raise PrerequisiteFailed(f"the Group's first members could not be added: after PATCH add, {source} lacks {', '.join(missing)}")


def member_ids(context: CheckContext, count: int, make: Callable[[CheckContext, type[Resource[Any]]], Target]) -> list[str] | CheckResult:
    """Ids of `count` users made (by `make`, as the provider creates them) to be a group's members
    (shared_users). A SKIPPED result when the server has no User resource type."""
    users = shared_users(context, count, make)
    return users if isinstance(users, CheckResult) else [user.id for user in users]


def shared_users(context: CheckContext, count: int, make: Callable[[CheckContext, type[Resource[Any]]], Target]) -> list[Target] | CheckResult:
    """`count` users made (by `make`, as the provider creates them) for references to point at (a
    group's members, a user's manager), made once a run for each way of making them and shared by
    the checks that need them: a membership is the group's, a manager the managed user's, so none
    of them writes to the users (References.shared: the pool "members", deleted once the last check
    declaring it ended). A SKIPPED result when the server has no User resource type."""
    user_model = model_of(context, USER_SCHEMA)
    if user_model is None:
        return CheckResult(Status.SKIPPED, reason="Skipped: the server has no User resource type to make members of.")
    way = (getattr(make, "func", make), *(getattr(arg, "key", arg) for arg in getattr(make, "args", ())))  # a partial made anew, the same way

    def made() -> tuple[Target, list[Target]]:
        user = make(context, user_model)
        return user, [user]

    return [context.references.shared(context, ("members", None), ("member", way, user_model, number), made) for number in range(count)]


POPULATION = 11
"""How many resources of a type the checks reading a provider's pages of a whole list hold
(population): Microsoft's gallery pagination asks for 11 (three pages of 5), and Okta's imports
read as many, so that a server answering pages smaller than that shows it at any number of jobs,
whatever else the run holds at the time."""


def population(context: CheckContext, model: type[Resource[Any]], count: int) -> list[str]:
    """Ids of `count` resources of `model` for the checks that only list them (a provider's pages,
    its test connection, its import), made once a run, with their required attributes only, and
    shared by those checks: none writes to them, so their verdicts stay apart, and the run makes
    as many as the check needing the most asks for, at any number of jobs (References.shared; the
    last check of the run declaring the pool "population" deletes them)."""

    def made() -> tuple[str, list[Resource[Any]]]:
        resource = context.resource_manager.create_and_register(model, fill_all=False)
        return str(resource.id), [resource]

    return [context.references.shared(context, ("population", model), ("population", model, number), made) for number in range(count)]


def members_of(resource: dict[str, Any]) -> list[str]:
    """The ids of a group's members, in a resource's JSON."""
    return [str(item.get("value")) for item in member(resource, "members") or [] if isinstance(item, dict)]


def membership(label: str, source: str, seen: dict[str, Any], present: list[str], absent: list[str]) -> CheckResult:
    """SUCCESS when a group holds every member of `present` and none of `absent`."""
    members = members_of(seen)
    gone = [value for value in present if value not in members]
    if gone:
        return CheckResult(Status.ERROR, reason=f"{label}: {source} lacks the member(s) {', '.join(gone)} (members: {shown(members)}).", data=seen)
    left = [value for value in absent if value in members]
    if left:
        return CheckResult(Status.ERROR, reason=f"{label}: {source} still holds the member(s) {', '.join(left)}.", data=seen)
    return CheckResult(Status.SUCCESS, reason=f"{label}: {source} holds the members expected ({len(members)}).", data=seen)
