"""What the identity-provider checks share (idp_entra.py, idp_okta.py): the providers, requests
sent as a provider sends them, the resources it creates, and the readiness verdict on its steps.

A step replays what the provider documents, whatever the ServiceProviderConfig claims: the
provider does not read it either. A step failing because the request differs from plain RFC
usage says so in its reason, once the same change spelt as the RFC does passed (`step`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from scim2_models import EnterpriseUser
from scim2_models import Group
from scim2_models import Resource
from scim2_models import User

from scim_tui.checker.answers import JSON_KINDS
from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import member
from scim_tui.checker.checks.comparison import shown
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.idp_wire import Provider
from scim_tui.checker.checks.idp_wire import created as wire_created
from scim_tui.checker.checks.idp_wire import patched
from scim_tui.checker.checks.idp_wire import send
from scim_tui.checker.checks.patch import Target
from scim_tui.checker.checks.patch_paths import holds
from scim_tui.checker.checks.probes import checked
from scim_tui.checker.context import CheckContext
from scim_tui.checker.filling import unique_string
from scim_tui.checker.registry import any_tag_matches
from scim_tui.checker.registry import filtered_out
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

USER_SCHEMA = str(User.__schema__)
GROUP_SCHEMA = str(Group.__schema__)
ENTERPRISE = str(EnterpriseUser.__schema__)
NAMED = 6
"""How many blocking steps a readiness verdict names, so that its reason stays one readable line."""


def step(context: CheckContext, label: str, run: Callable[[], CheckResult], note: str = "", plain: Callable[[], CheckResult] | None = None) -> CheckResult:
    """One labelled step (probes.checked). When it fails and `plain` sends the same change as the
    RFC spells it, that is tried too: when it passes, the provider's spelling is the cause, and
    the reason says so with `note`."""
    result = checked(context, run, label)
    last = result.exchanges[-1] if result.exchanges else None
    if not result.status.failed or plain is None or last is None or last.status_code is None:
        return result
    retry = checked(context, plain, label)
    result.exchanges = [*result.exchanges, *retry.exchanges]
    if not retry.status.failed:
        reason = (result.reason or "").rstrip()
        result.reason = f"{reason}{'' if reason.endswith('.') else '.'} The same change as the RFC spells it passes: {note}"
    return result


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
    if not isinstance(payload, dict) or "urn:ietf:params:scim:api:messages:2.0:ListResponse" not in (payload.get("schemas") or []):
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


def empty_list(context: CheckContext, provider: Provider, path: str, params: dict[str, Any], why: str, tolerated_404: str | None = None) -> CheckResult:
    """A query matching nothing answers 200 with an empty ListResponse (RFC 7644 §3.4.2); `why`
    tells what the provider makes of another answer. A 404 is a DEVIATION, saying
    `tolerated_404`, for a provider that reads it as no match."""
    response = get(context, provider, path, params)
    request = asked(context, path, params)
    if response.status_code == 404 and tolerated_404:
        return CheckResult(Status.DEVIATION, reason=f"{request} answered 404: {tolerated_404}, but RFC 7644 §3.4.2 answers a query matching nothing with 200 and totalResults 0.", data=body_of(response))
    problem = list_problem(response)
    if problem:
        return CheckResult(Status.ERROR, reason=f"{request} {problem}: {why} (RFC 7644 §3.4.2: no match is a 200 with totalResults 0).", data=body_of(response))
    found = resources_in(response)
    total = member(body_of(response), "totalResults")
    if found or total:
        return CheckResult(Status.ERROR, reason=f"{request} answered totalResults {total} and {len(found)} resource(s) for a value no resource holds.", data=body_of(response))
    return CheckResult(Status.SUCCESS, reason=f"{request} answered 200 with an empty ListResponse.", data=body_of(response))


def finds(context: CheckContext, provider: Provider, target: Target, attribute: str, value: str, params: dict[str, Any] | None = None) -> CheckResult:
    """A filter `attribute eq "value"` answers a list holding the resource, and nothing else."""
    path = resource_path(context, target.model)
    query = {"filter": f"{attribute} eq {json.dumps(value)}", **(params or {})}
    response = get(context, provider, path, query)
    request = asked(context, path, query)
    problem = list_problem(response)
    if problem:
        return CheckResult(Status.ERROR, reason=f"{request} {problem}.", data=body_of(response))
    ids = [str(item.get("id")) for item in resources_in(response)]
    if ids != [target.id]:
        return CheckResult(Status.ERROR, reason=f"{request} answered {shown(ids)} instead of the {target.model.__name__} {target.id} alone.", data=body_of(response))
    return CheckResult(Status.SUCCESS, reason=f"{request} answered the {target.model.__name__} {target.id}.", data=body_of(response))


def model_of(context: CheckContext, schema: str) -> type[Resource[Any]] | None:
    """The model of the server's resource type of a core schema (the User one ...), if it has one."""
    for resource_type in getattr(context.client.provider, "resource_types", None) or ():
        if str(resource_type.schema_) == schema:
            return context.model_for(resource_type)
    return None


def has(model: type[Resource[Any]], name: str) -> bool:
    """Whether the model has an attribute (a schema URN for an extension), its name compared without case."""
    return any(model._scim_name(field_name).lower() == name.lower() for field_name in model.model_fields)  # type: ignore[attr-defined]


def kept(model: type[Resource[Any]], values: dict[str, Any]) -> dict[str, Any]:
    """The values of attributes the model has: a provider sends only the attributes mapped to the app."""
    return {name: value for name, value in values.items() if has(model, name)}


def user_body(kind: str) -> dict[str, Any]:
    """The attributes both providers send for a new user (as JSON): an e-mail-like userName, also
    its work email, a name, an externalId (marked `kind`), active."""
    user_name = f"{unique_string()}@example.com"
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
        return CheckResult(Status.ERROR, reason=f"{request} answered {response.status_code} with active {shown(active)} instead of 200 with active false.", data=payload)
    return CheckResult(Status.SUCCESS, reason=f"{request} answered the user, with active false.", data=payload)


def created(context: CheckContext, provider: Provider, model: type[Resource[Any]], values: dict[str, Any], extra: dict[str, Any], checked: bool = False) -> Target:
    """A resource created with the provider's body: `values` of the attributes the server's model
    has (a provider sends only those mapped to the app), and `extra` as it is (what the provider
    always sends: its schemas, meta, an empty roles ...). Deleted when the check ends."""
    return wire_created(context, provider, model, {**extra, **kept(model, values)}, checked=checked)


def applied(context: CheckContext, provider: Provider, target: Target, label: str, operations: list[dict[str, Any]], expected: dict[str, Any], outcome: str) -> CheckResult:
    """PATCH operations as the provider writes them, then whether the resource holds each expected value (patch_paths.holds)."""
    seen, source = patched(context, provider, target, operations)
    return holds(target, label, seen, source, expected, outcome)


def member_ids(context: CheckContext, count: int, make: Callable[[CheckContext, type[Resource[Any]]], Target]) -> list[str] | CheckResult:
    """Ids of users made (by `make`, as the provider creates them) to be a group's members; a
    SKIPPED result when the server has no User resource type."""
    user_model = model_of(context, USER_SCHEMA)
    if user_model is None:
        return CheckResult(Status.SKIPPED, reason="Skipped: the server has no User resource type to make members of.")
    return [make(context, user_model).id for _ in range(count)]


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


def readiness(provider: Provider, context: CheckContext, results: list[CheckResult]) -> list[CheckResult]:
    """READY (SUCCESS) when every step of the provider that ran passed and none was kept from
    running but by the run's selection; NOT READY (ERROR) naming the blocking steps; SKIPPED when
    none ran (the server could not be described, the run was cancelled ...): that fault is
    reported where it happened."""
    steps = [r for r in results if any_tag_matches([provider.tag], r.tags)]
    chosen = [r for r in steps if not _left_out(r, context)]
    named: dict[str, str] = {}
    for result in chosen:
        if result.status.failed or result.status is Status.SKIPPED:
            name = f"{result.title} ({result.resource_type})" if result.resource_type else str(result.title)
            named.setdefault(name, "failed" if result.status.failed else "did not run")
    count = len({r.check_id for r in chosen})
    ran = [r for r in chosen if r.status is not Status.SKIPPED]
    if not ran:
        why = f": {(chosen[0].reason or '').removeprefix('Skipped: ').rstrip('.')}" if chosen else ""
        return [CheckResult(Status.SKIPPED, reason=f"No {provider.name} step ran, so readiness cannot be told{why}.")]
    if named:
        shown_names = [f"{name} {how}" for name, how in list(named.items())[:NAMED]]
        more = f" and {len(named) - NAMED} more" if len(named) > NAMED else ""
        return [CheckResult(Status.ERROR, reason=f"NOT READY for {provider.name}: {len(named)} of {count} steps block: {', '.join(shown_names)}{more}.")]
    left_out = len({r.check_id for r in steps}) - count
    aside = f" ({left_out} left out by the run's selection)" if left_out else ""
    caveats = sum(1 for r in chosen if r.status is Status.DEVIATION)
    caveat = f"; {caveats} with a deviation the provider tolerates" if caveats else ""
    return [CheckResult(Status.SUCCESS, reason=f"READY for {provider.name}: all {count} steps passed{aside}{caveat}.")]


def _left_out(result: CheckResult, context: CheckContext) -> bool:
    """Whether a step was SKIPPED by the run's selection (tags, resource types), not by the server."""
    if result.status is not Status.SKIPPED:
        return False
    conf = context.conf
    return bool(filtered_out(result.tags, conf)) or bool(conf.resource_types and result.resource_type not in conf.resource_types)
