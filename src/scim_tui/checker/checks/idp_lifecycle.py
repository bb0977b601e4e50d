"""A provider's lifecycle sequences: a creation judged, phases run in turn, a deletion that must
leave nothing, a resource deleted then created anew, and values read at a mapping's paths."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import partial
from typing import Any

from scim2_models import Resource

from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import member
from scim_tui.checker.answers import shown
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.idp import asked
from scim_tui.checker.checks.idp import creation
from scim_tui.checker.checks.idp import finds
from scim_tui.checker.checks.idp import get
from scim_tui.checker.checks.idp import resources_in
from scim_tui.checker.checks.idp_readiness import goes_past
from scim_tui.checker.checks.idp_readiness import step
from scim_tui.checker.checks.idp_wire import Provider
from scim_tui.checker.checks.idp_wire import created
from scim_tui.checker.checks.idp_wire import deleted
from scim_tui.checker.checks.idp_wire import patched
from scim_tui.checker.checks.patch import READ_BACK
from scim_tui.checker.checks.patch import Target
from scim_tui.checker.checks.probes import checked
from scim_tui.checker.context import CheckContext
from scim_tui.checker.lag import settled
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

_FILTERED = re.compile(r'^(?P<attribute>[^\[]+)\[type eq "(?P<kind>[^"]*)"\]\.(?P<sub>.+)$')


def create_step(
    context: CheckContext, provider: Provider, model: type[Resource[Any]], body: dict[str, Any], note: str = "", plain: dict[str, Any] | None = None
) -> tuple[CheckResult, Target | None]:
    """A creation the check judges (idp.creation), tried once more with the RFC's `plain` body when
    the provider's is refused; its result, and the resource made (None when none was)."""
    made: list[Target] = []

    def create(sent: dict[str, Any]) -> CheckResult:
        made.append(created(context, provider, model, sent, checked=True))
        return creation(context, provider, made[-1])

    retry = partial(create, plain) if plain is not None else None
    result = step(context, provider, "create", partial(create, body), note, retry, (body, plain) if plain is not None else None)
    return result, made[-1] if made else None


def phases(context: CheckContext, labelled: list[tuple[str, Callable[[], CheckResult]]]) -> list[CheckResult]:
    """The results of phases that build on each other, run in turn: once one fails (or could not
    run), those after it are SKIPPED naming it (one fault, one finding), and block nothing more. A
    DEVIATION leaves the resource as the phase meant (the RFC's spelling passed), and so does a
    failure the provider reads past (a creation answered 200): the next runs."""
    results: list[CheckResult] = []
    for label, run in labelled:
        if any(not goes_past(result) or result.status is Status.SKIPPED for result in results):
            results.append(CheckResult(Status.SKIPPED, reason=f"{label}: Skipped: a phase before it did not pass.", blocks=False))
            continue
        results.append(checked(context, run, label))
    return results


def deletion(context: CheckContext, provider: Provider, target: Target, attribute: str, value: str) -> CheckResult:
    """DELETE of a resource as the provider sends it answers 204; then a GET answers 404, and the
    filter `attribute eq value` finds nothing (RFC 7644 §3.6: MUST answer 404, MUST omit it from queries)."""
    deleted(context, provider, target)
    request = f"DELETE {context.root_path(target.url)}"
    read = get(context, provider, target.url, {})
    if read.status_code != 404:
        reason = f"{request} answered 204, but GET {context.root_path(target.url)} then answered {read.status_code} instead of 404 (RFC 7644 §3.6: MUST)."
        return CheckResult(Status.ERROR, reason=reason, data=body_of(read))
    path = resource_path(context, target.model)
    query = {"filter": f"{attribute} eq {json.dumps(value)}"}

    def lists_it(listed: Any) -> bool:
        return listed.status_code == 200 and any(str(member(item, "id")) == target.id for item in resources_in(listed))

    listed = settled(context, partial(get, context, provider, path, query), lambda listed: not lists_it(listed))  # a list may lag (lag.py)
    if lists_it(listed):
        return CheckResult(
            Status.ERROR,
            reason=f"{request} answered 204, but {asked(context, path, query)} still lists it (RFC 7644 §3.6: MUST omit it).",
            data=body_of(listed),
        )
    return CheckResult(Status.SUCCESS, reason=f"{request} answered 204, then a GET answered 404 and the filter found nothing.")


def restore(context: CheckContext, provider: Provider, model: type[Resource[Any]], body: dict[str, Any], attribute: str) -> list[CheckResult]:
    """Unassigned, then assigned again: the provider deletes the resource, then creates it anew with
    the same body, and finds it again by `attribute`. A server that keeps the deleted one's value
    (a 409) refuses the return."""
    first = created(context, provider, model, body)
    value = str(body.get(attribute) or "")
    again: list[Target] = []

    def recreate() -> CheckResult:
        again.append(created(context, provider, model, body, checked=True))
        return creation(context, provider, again[-1])

    def found() -> CheckResult:
        return finds(context, provider, again[-1], attribute, value)

    return phases(
        context,
        [("unassign: delete", partial(deletion, context, provider, first, attribute, value)), ("reassign: create anew", recreate), ("find it again", found)],
    )


def value_at_path(resource: dict[str, Any], path: str) -> Any:
    """The value at a mapping's path in a resource's JSON, names compared without case: ``title``,
    ``name.givenName``, ``emails[type eq "work"].value``, ``<extension URN>:manager.value``."""
    if path.lower().startswith("urn:"):
        urn, _, path = path.rpartition(":")
        resource = member(resource, urn) or {}
    filtered = _FILTERED.match(path)
    if filtered:
        items = [
            item
            for item in member(resource, filtered["attribute"]) or []
            if isinstance(item, dict) and str(member(item, "type")).lower() == filtered["kind"].lower()
        ]
        return member(items[0], filtered["sub"]) if items else None
    node: Any = resource
    for part in path.split("."):
        node = member(node, part)
    return node


def read_back(context: CheckContext, provider: Provider, target: Target, expected: dict[str, Any], label: str) -> CheckResult:
    """A GET of the resource holds each expected value at its mapping path (None: null or empty)."""
    response = get(context, provider, target.url, {})
    payload = body_of(response)
    if response.status_code != 200 or not isinstance(payload, dict):
        request = f"GET {context.root_path(target.url)}"
        return CheckResult(Status.ERROR, reason=f"{label}: {request} answered {response.status_code} instead of 200 with the resource.", data=payload)
    return _holding(context, target, payload, expected, label)


def patched_then_read(
    context: CheckContext, provider: Provider, target: Target, operations: list[dict[str, Any]], expected: dict[str, Any], label: str
) -> CheckResult:
    """PATCH operations as the provider writes them, then a GET of the resource holding each expected
    value (`read_back`): after a 204, the GET that read the resource then is that one (no second)."""
    seen, source = patched(context, provider, target, operations)
    if source == READ_BACK:
        return _holding(context, target, seen, expected, label)
    return read_back(context, provider, target, expected, label)


def _holding(context: CheckContext, target: Target, payload: dict[str, Any], expected: dict[str, Any], label: str) -> CheckResult:
    request = f"GET {context.root_path(target.url)}"
    wrong = [(path, value_at_path(payload, path)) for path, value in expected.items() if not _same(value, value_at_path(payload, path))]
    if wrong:
        said = ", ".join(f"{path} = {shown(seen, 60)} instead of {shown(expected[path], 60)}" for path, seen in wrong)
        return CheckResult(Status.ERROR, reason=f"{label}: {request} holds {said}.", data=payload)
    return CheckResult(Status.SUCCESS, reason=f"{label}: {request} holds each value expected.", data=payload)


def _same(expected: Any, seen: Any) -> bool:
    if expected is None:
        return seen in (None, "", [], {})
    if isinstance(expected, str) and isinstance(seen, str):
        return expected.casefold() == seen.casefold()
    return bool(expected == seen)
