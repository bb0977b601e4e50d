"""RFC 9967, the SCIM profile for Security Event Tokens: what a ServiceProviderConfig says of
security events (§4), and requests asking to be answered asynchronously (§2.5.1.1, §3).

The events themselves travel on another channel (a SET stream) and are not checked.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from scim2_models import Resource

from scim_tui.checker.answers import JSON_KINDS
from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import member
from scim_tui.checker.answers import shown
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.probes import send_json
from scim_tui.checker.context import CheckContext
from scim_tui.checker.exchanges import header
from scim_tui.checker.features import service_provider_config
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

ASYNC_MODES = ("none", "long", "request")
"""The values of securityEvents.asyncRequest (RFC 9967 §4), compared without case."""
ASYNCHRONOUS = ("long", "request")
PREFERENCE = "respond-async"


def security_events(context: CheckContext) -> tuple[Any, str | None]:
    """The securityEvents of the ServiceProviderConfig, as served (None when it has none), or why
    the document could not be read."""
    config = service_provider_config(context)
    if config is None:
        return None, "the ServiceProviderConfig could not be read (service_provider_config_endpoint says why)"
    return getattr(config, "security_events", None), None


def async_mode(events: Any) -> str:
    """What the server says of asynchronous requests: "none" unless securityEvents says "long" or "request"."""
    mode = member(events, "asyncRequest")
    return mode.lower() if isinstance(mode, str) and mode.lower() in ASYNC_MODES else "none"


@checker("events", "events:config", section="4", rfc=9967)
def security_events_config(context: CheckContext) -> list[CheckResult]:
    """securityEvents in the ServiceProviderConfig is well formed (RFC 9967 §4).

    Reads the ServiceProviderConfig (as the run read it). securityEvents is a complex attribute (a JSON object)
    whose asyncRequest is one of "none", "long" and "request" (case-insensitive) and whose
    eventUris is a list of URIs. SUCCESS when it is so; ERROR naming each part that is not (a
    definition broken). SKIPPED when the document carries no securityEvents: "when absent
    indicates the SCIM Service Provider does not support ... Security Events".
    """
    events, failure = security_events(context)
    if failure:
        return [CheckResult(Status.SKIPPED, reason=f"Skipped: {failure}.")]
    if events is None:
        return [
            CheckResult(Status.SKIPPED, reason="Skipped: the ServiceProviderConfig carries no securityEvents, so it claims no Security Events (RFC 9967 §4).")
        ]
    problems = _event_problems(events)
    if problems:
        return [CheckResult(Status.ERROR, reason=f"The ServiceProviderConfig's securityEvents is malformed: {'; '.join(problems)} (RFC 9967 §4).", data=events)]
    return [
        CheckResult(
            Status.SUCCESS, reason=f"The ServiceProviderConfig's securityEvents is well formed (asyncRequest {shown(async_mode(events))}).", data=events
        )
    ]


def _event_problems(events: Any) -> list[str]:
    if not isinstance(events, dict):
        return [f"it is {JSON_KINDS.get(type(events), 'a JSON value')}, where a complex attribute is a JSON object"]
    problems = []
    mode = member(events, "asyncRequest")
    if mode is not None and not (isinstance(mode, str) and mode.lower() in ASYNC_MODES):
        problems.append(f'asyncRequest is {shown(mode)}, not one of "none", "long" and "request"')
    uris = member(events, "eventUris")
    if uris is not None and not (isinstance(uris, list) and all(isinstance(uri, str) and urlsplit(uri).scheme for uri in uris)):
        problems.append(f"eventUris is {shown(uris)}, not a list of URIs")
    return problems


@checker("events", "events:async", section="2.5.1.1", rfc=9967)
def async_requests(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """A request with Prefer: respond-async gets its normal answer, or a 202 as RFC 9967 §2.5.1.1 says.

    Creates a resource and PUTs it back as it is with Prefer: respond-async. When securityEvents
    says asyncRequest "request" or "long": SUCCESS on the normal answer (a 2xx), or on 202 with no
    body, a Set-Txn header, a Location header and Preference-Applied: respond-async; ERROR on a 202
    with a body, without Set-Txn or without Location (each a MUST, §2.5.1.1 and §3), DEVIATION on
    one without Preference-Applied (§2.5.1.1 with RFC 7240 §3). When the server claims no
    asynchronous requests: SUCCESS when it ignores the preference (a 2xx), DEVIATION on a 202 its
    configuration does not announce. On any server, ERROR when the request fails with the
    preference and passes without it: a server "unable to comply with particular preference tokens
    ... MUST ignore those tokens" (RFC 7240 §2). The resource is deleted afterwards.
    """
    events, failure = security_events(context)
    if failure:
        return [CheckResult(Status.SKIPPED, reason=f"Skipped: {failure}.")]
    mode = async_mode(events)
    created = context.resource_manager.create_and_register(model, fill_all=False)
    path = resource_path(context, model, created.id)
    body = {key: value for key, value in created.model_dump().items() if key != "meta"}
    request = f"PUT {context.root_path(path)} with Prefer: respond-async"
    response = send_json(context, "PUT", path, body, headers={"Prefer": PREFERENCE})
    code = response.status_code
    claimed = f"securityEvents.asyncRequest is {shown(mode)}"
    if code == 202:
        return [_accepted(request, context.exchanges[-1], mode, claimed)]
    if 200 <= code < 300:
        told = "which RFC 9967 §2.5.1.1 allows" if mode in ASYNCHRONOUS else "the preference ignored (RFC 7240 §2)"
        return [CheckResult(Status.SUCCESS, reason=f"{request} answered {code}, the normal answer, {told} ({claimed}).", data=body_of(response))]
    plain = send_json(context, "PUT", path, body)
    if 200 <= plain.status_code < 300:
        rule = "a server unable to comply with a preference MUST ignore it and continue processing instead of signaling an error (RFC 7240 §2)"
        return [CheckResult(Status.ERROR, reason=f"{request} answered {code}, and {plain.status_code} without it: {rule}.", data=body_of(response))]
    why = f"{request} answered {code}, and {plain.status_code} without the preference too (object_replacement judges PUT)"
    return [CheckResult(Status.SKIPPED, reason=f"Skipped: {why}.", data=body_of(response))]


def _accepted(request: str, exchange: Any, mode: str, claimed: str) -> CheckResult:
    """A 202: what an asynchronous answer MUST carry, or a DEVIATION when the server does not announce asynchronous requests."""
    said = f"{request} answered 202 Accepted"
    if mode not in ASYNCHRONOUS:
        reason = f"{said}, though {claimed}, which says the server completes no request asynchronously (RFC 9967 §4)."
        return CheckResult(Status.DEVIATION, reason=reason)
    headers = exchange.response_headers
    musts = [
        *(["with a body, where the asynchronous response MUST contain no response body"] if (exchange.response_body or "").strip() else []),
        *([] if header(headers, "Set-Txn") else ["without Set-Txn, which MUST be used with a 202 (§3)"]),
        *([] if header(headers, "Location") else ["without Location, whose value MUST be a URI (§2.5.1.1)"]),
    ]
    if musts:
        return CheckResult(Status.ERROR, reason=f"{said} {'; '.join(musts)} (RFC 9967 §2.5.1.1, {claimed}).")
    if header(headers, "Preference-Applied").strip().lower() != PREFERENCE:
        rule = 'the response also includes "Preference-Applied" (RFC 9967 §2.5.1.1, RFC 7240 §3)'
        return CheckResult(Status.DEVIATION, reason=f"{said} with Set-Txn and Location but no Preference-Applied: respond-async, where {rule}.")
    txn = header(headers, "Set-Txn")
    return CheckResult(Status.SUCCESS, reason=f"{said} with no body, Set-Txn: {txn}, Location and Preference-Applied: respond-async ({claimed}).")
