"""Checks that a server claiming authentication refuses requests without valid credentials (RFC 7644 §2).

The request of such a check is sent by the run's own client, so that it is recorded like
any other, with the client's credentials taken out of that one request (by a per-request
httpx2 ``auth``): the shared client is never changed, and the real secret never leaves.
A wrong credential is a random value, never derived from the real one.
"""

from __future__ import annotations

import base64
import secrets
from collections.abc import Generator
from collections.abc import Iterable
from typing import Any

import httpx2
from scim2_models import ResourceType

from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import member
from scim_tui.checker.checks.narrowing import LIST_RESPONSE
from scim_tui.checker.checks.probes import results_of
from scim_tui.checker.context import CheckContext
from scim_tui.checker.exchanges import is_sensitive
from scim_tui.checker.features import service_provider_config
from scim_tui.checker.recorder import run_secrets
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status
from scim_tui.checker.secrets import Secrets

SCHEME_KINDS = {"oauthbearertoken": "bearer", "oauth2": "bearer", "oauth": "bearer", "httpbasic": "basic"}
"""The credential a wrong one is forged for, by the type of an authentication scheme (RFC 7643 §5)."""
KIND_LABELS = {"bearer": "with a wrong bearer token", "basic": "with a wrong password (HTTP Basic)"}


class Credentials(httpx2.Auth):
    """Stands in for the client's own credentials on one request: takes out every header
    that carries one (a sensitive name, or a known secret in its value), and sends
    `authorization` instead when given."""

    def __init__(self, known_secrets: Iterable[str], authorization: str | None = None):
        self.known_secrets = Secrets(known_secrets)
        self.authorization = authorization

    def auth_flow(self, request: httpx2.Request) -> Generator[httpx2.Request, httpx2.Response, None]:
        for name, value in list(request.headers.items()):
            if is_sensitive(name) or self.known_secrets.found_in(value):
                del request.headers[name]
        if self.authorization:
            request.headers["Authorization"] = self.authorization
        yield request


def forged(kind: str) -> str:
    """A wrong Authorization value of a kind ("bearer", "basic"): random, so it matches no real credential."""
    if kind == "basic":
        pair = f"scim-tui-{secrets.token_hex(4)}:{secrets.token_urlsafe(18)}"
        return f"Basic {base64.b64encode(pair.encode()).decode()}"
    return f"Bearer scim-tui-wrong-{secrets.token_urlsafe(24)}"


@checker("auth", section="2")
def unauthenticated_access(context: CheckContext, resource_type: ResourceType) -> list[CheckResult]:
    """A server that lists authentication schemes refuses a request without valid credentials (RFC 7644 §2, §3.12).

    Sends GET <endpoint>?count=0 without the run's credentials, then once with a wrong
    credential (random, never derived from the real one) of each kind the
    ServiceProviderConfig's authenticationSchemes name: a bearer token (oauthbearertoken,
    oauth2, oauth) or an HTTP Basic password (httpbasic). One result per request: SUCCESS
    on 401 Unauthorized (RFC 7644 §3.12: "The authorization header is invalid or missing");
    CRITICAL when the server answers 2xx, serving its resources to anyone while claiming
    authentication; DEVIATION on another refusal (403, a redirect to another origin ...) and on
    a 2xx without a list of resources (a sign-in page a redirect led to); ERROR on a 5xx,
    unless the same request with the run's credentials fails too (SKIPPED: the request
    itself fails, which pagination judges).
    SKIPPED when the ServiceProviderConfig lists no authentication scheme, or when the
    client is not an httpx2 client (its credentials cannot be left out of one request).
    """
    config = service_provider_config(context)
    schemes = (config.authentication_schemes if config else None) or []
    if not schemes:
        return [CheckResult(Status.SKIPPED, reason="Skipped: the ServiceProviderConfig lists no authentication scheme (authenticationSchemes is empty).")]
    if not isinstance(getattr(context.client, "client", None), httpx2.Client):
        return [CheckResult(Status.SKIPPED, reason="Skipped: the client is not an httpx2 client, so its credentials cannot be left out of one request.")]
    claimed = ", ".join(sorted({str(scheme.name or scheme.type) for scheme in schemes}))
    kinds = list(dict.fromkeys(SCHEME_KINDS[str(s.type)] for s in schemes if str(s.type) in SCHEME_KINDS)) or ["bearer"]
    attempts = [("without credentials", None)] + [(KIND_LABELS[kind], forged(kind)) for kind in kinds]
    known = run_secrets(context.client)
    results = []
    for label, authorization in attempts:
        mark = len(context.exchanges)
        request = f"GET {context.root_path(str(resource_type.endpoint))}?count=0"
        response = context.client.request("GET", resource_type.endpoint, params={"count": 0}, auth=Credentials(known, authorization))
        result = _judged(f"{request} {label}", response, claimed)
        if response.status_code >= 500:
            result = _failing_anyway(context, request, str(resource_type.endpoint)) or result
        results.extend(results_of(context, mark, [result]))
    return results


def _failing_anyway(context: CheckContext, request: str, endpoint: str) -> CheckResult | None:
    """A 5xx without credentials says nothing of authentication when the same request fails
    with them too: the request itself fails, which the pagination checks judge (count=0)."""
    answer = context.client.request("GET", endpoint, params={"count": 0})
    if answer.status_code < 500:
        return None
    reason = (
        f"Skipped: {request} answers {answer.status_code} with the run's credentials too, so its failure "
        "without them tells nothing of authentication (pagination_parameters judges count=0)."
    )
    return CheckResult(Status.SKIPPED, reason=reason)


def _listed(data: Any) -> bool:
    """Whether an answer's body is a list of resources (a ListResponse, named or not)."""
    if not isinstance(data, dict):
        return False
    return LIST_RESPONSE in (member(data, "schemas") or []) or any(member(data, name) is not None for name in ("totalResults", "Resources"))


def _judged(request: str, response: httpx2.Response, claimed: str) -> CheckResult:
    status = response.status_code
    if status == 401:
        return CheckResult(Status.SUCCESS, reason=f"{request} answered 401 Unauthorized.")
    data = body_of(response)
    if 200 <= status < 300 and _listed(data):
        reason = f"{request} answered {status}: the server claims authentication ({claimed}) yet serves its resources to anyone."
        return CheckResult(Status.CRITICAL, reason=reason, data=data)
    if 200 <= status < 300:
        reason = f"{request} answered {status} without a list of resources (a sign-in page?) instead of 401 Unauthorized (RFC 7644 §3.12)."
        return CheckResult(Status.DEVIATION, reason=reason, data=data)
    if status >= 500:
        return CheckResult(Status.ERROR, reason=f"{request} answered {status}: the server failed instead of refusing with 401 Unauthorized.", data=data)
    reason = f"{request} answered {status} instead of 401 Unauthorized, the status RFC 7644 §3.12 gives for an authorization header that is invalid or missing."
    return CheckResult(Status.DEVIATION, reason=reason, data=data)
