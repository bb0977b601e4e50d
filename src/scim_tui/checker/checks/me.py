"""The check of /Me, the alias of the authenticated subject's resource (RFC 7644 §3.11)."""

from __future__ import annotations

from typing import Any

from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import member
from scim_tui.checker.checks.probes import scim_error_problem
from scim_tui.checker.context import CheckContext
from scim_tui.checker.exchanges import status_line
from scim_tui.checker.recorder import redirects_answered
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

ME = "/Me"


@checker("me", section="3.11")
def me_endpoint(context: CheckContext) -> list[CheckResult]:
    """GET /Me answers 501 when the server does not serve it, else the subject's resource (RFC 7644 §3.11).

    Sends GET /Me, a redirect not followed (it is what is judged). COMPLIANT on 501 with a SCIM Error (a
    server without /Me SHOULD answer 501). ACCEPTABLE on a 308 redirect with a
    Location (it MAY redirect), on a 200 with a resource and a Location (it MAY
    serve the request directly), and on 401 or 403 with a SCIM Error (the server
    serves /Me but not to this subject). DEVIATION on a 404, which is how a server
    without /Me answers instead of 501, or a subject without a resource; and on
    any other 3xx or 4xx. ERROR on a 5xx other than 501, on a 200 or 308 without
    the Location that MUST name the subject's resource, on a 200 whose body is not
    a resource, and on an error answer whose body is not a SCIM Error (RFC 7644 §3.12).
    """
    with redirects_answered():
        response = context.client.request("GET", ME)
    status, payload = response.status_code, body_of(response)
    location = response.headers.get("location")
    answered = f"GET {context.root_path(ME)} answered {status_line(status)}"
    if 200 <= status < 400:
        verdict, reason = _served(answered, status, payload, location)
        return [CheckResult(verdict, reason=reason, data=payload)]
    if status >= 500 and status != 501:
        return [CheckResult(Status.ERROR, reason=f"{answered}: the server fails on /Me, where a server without /Me answers 501.", data=payload)]
    problem = scim_error_problem(payload)
    if problem:
        return [CheckResult(Status.ERROR, reason=f"{answered}, but {problem} (RFC 7644 §3.12).", data=payload)]
    verdict, reason = _refused(answered, status)
    return [CheckResult(verdict, reason=reason, data=payload)]


def _served(answered: str, status: int, payload: Any, location: str | None) -> tuple[Status, str]:
    """A 2xx or 3xx: the subject's resource, or a redirect to it."""
    if status not in (200, 308):
        return Status.DEVIATION, f"{answered}: /Me serves the resource (200), redirects to it with a 308, or answers 501."
    if not location:
        return Status.ERROR, f"{answered} without a Location header, which MUST name the permanent location of the subject's resource."
    if status == 308:
        return Status.ACCEPTABLE, f"{answered} to {location}: the server MAY redirect /Me to the subject's resource."
    if not isinstance(payload, dict) or not member(payload, "id") or not member(payload, "schemas"):
        return Status.ERROR, f"{answered}, but its body is not a resource with schemas and an id."
    return Status.ACCEPTABLE, f"{answered} with the subject's resource {payload['id']}, at {location}: the server MAY serve /Me directly."


def _refused(answered: str, status: int) -> tuple[Status, str]:
    """A 4xx or a 501, with a SCIM Error body."""
    if status == 501:
        return Status.COMPLIANT, f"{answered} with a SCIM Error: the server does not serve /Me, and says so as it SHOULD."
    if status in (401, 403):
        return Status.ACCEPTABLE, f"{answered} with a SCIM Error: the server serves /Me, but not to the subject of this run."
    if status == 404:
        return Status.DEVIATION, f"{answered}: either the subject has no resource, or the server does not serve /Me, and then it SHOULD answer 501."
    return Status.DEVIATION, f"{answered}: a server that does not serve /Me SHOULD answer 501."
