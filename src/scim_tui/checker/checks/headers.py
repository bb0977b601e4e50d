"""Checks of the HTTP headers of SCIM requests and answers (RFC 7644 §3.1, §3.3, §3.8, §8.1)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urljoin

from scim2_models import Resource

from scim_tui.checker.answers import json_object
from scim_tui.checker.answers import member
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.probes import SCIM_MEDIA_TYPE
from scim_tui.checker.checks.probes import results_of
from scim_tui.checker.checks.probes import unknown_id
from scim_tui.checker.context import CheckContext
from scim_tui.checker.exchanges import Exchange
from scim_tui.checker.exchanges import header
from scim_tui.checker.exchanges import request_line
from scim_tui.checker.filling import creatable
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

OLD_MEDIA_TYPE = "application/json"
"""What older SCIM servers informally answer with (RFC 7644 §8.1)."""
SCIM_HEADERS = {"Content-Type": SCIM_MEDIA_TYPE, "Accept": SCIM_MEDIA_TYPE}
"""Sent with every request of the check: scim2-client sends its JSON as application/json, and no Accept."""


@checker("headers", section="3.8")
def http_headers(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Requests and answers carry the SCIM media type, and a creation its Location (RFC 7644 §3.1, §3.3, §3.8).

    Creates a resource with a POST sent as Content-Type: application/scim+json, reads
    it, lists its endpoint (?count=1), reads an id that does not exist, then deletes
    the resource; every request says Accept: application/scim+json. One result per rule:

    - the POST is accepted: SUCCESS on a 2xx; ERROR otherwise (servers MUST accept
      JSON requests, §3.8, and application/scim+json is SCIM's media type, §3.1), but when
      the run's least creation of that resource type is refused too (SKIPPED: the refusal is
      not about the media type; object_creation reports it).
    - every answer with a body (the creation, the read, the list, the 404 error) has
      Content-Type: application/scim+json: SUCCESS when all do; DEVIATION when some
      say application/json, the type older SCIM servers informally use (§8.1); ERROR
      when one has no Content-Type or another type (service providers MUST support
      Accept: application/scim+json, which every request here sends, §3.8).
    - the 201 has a Location header naming the same URI as the body's meta.location (the
      meta.location of the resource read at the Location, when the 201 has no body, which
      object_creation judges): SUCCESS when it does; ERROR when either is missing or they differ (the URI SHALL
      be in both, §3.3).
    """
    mark = len(context.exchanges)
    endpoint = resource_path(context, model)
    created, post = _create(context, model)
    if not _succeeded(post):
        creatable(context, model, post.status_code)  # refused as every creation is: no finding of its media type
        sent = header(post.request_headers, "content-type") or "no Content-Type"
        reason = f"{request_line(post)} sent with Content-Type: {sent} answered {post.status_code} instead of creating the resource (RFC 7644 §3.8)."
        return results_of(context, mark, [CheckResult(Status.ERROR, reason=reason, data=json_object(post.response_body))])
    body = json_object(post.response_body)
    resource_id = created.id if created else member(body, "id")
    answers = [post, *_reads(context, endpoint, resource_id)]
    if not post.response_body and created is not None:  # a creation without a body: the resource was read at its Location
        return [_accepted(post), _content_types(answers), _location(post, created.model_dump(), "the resource read there")]
    return [_accepted(post), _content_types(answers), _location(post, body)]


def _create(context: CheckContext, model: type[Resource[Any]]) -> tuple[Resource[Any] | None, Exchange]:
    """Create a resource; the typed answer when the client could read it, and the POST exchange.

    A 201 the client refuses (its Content-Type, say) is still examined here; the resource
    manager deletes the resource all the same.
    """
    mark = len(context.exchanges)
    try:
        created = context.resource_manager.create_and_register(model, fill_all=False, headers=SCIM_HEADERS)
    except Exception:
        post = _last_post(context.exchanges[mark:])
        if post is None or post.status_code is None:
            raise  # no answer at all: the engine says why
        return None, post
    post = _last_post(context.exchanges[mark:])
    assert post is not None  # the client answered, so the POST was recorded
    return created, post


def _last_post(exchanges: list[Exchange]) -> Exchange | None:
    return next((e for e in reversed(exchanges) if e.method == "POST"), None)


def _reads(context: CheckContext, endpoint: str, resource_id: str | None) -> list[Exchange]:
    """Read the resource, a page of its endpoint and a missing id; the exchanges of those reads."""
    mark = len(context.exchanges)
    paths = [f"{endpoint}/{resource_id}"] if resource_id else []
    for path in [*paths, f"{endpoint}?count=1", f"{endpoint}/{unknown_id()}"]:
        context.client.request("GET", path, headers={"Accept": SCIM_MEDIA_TYPE})
    return context.exchanges[mark:]


def _accepted(post: Exchange) -> CheckResult:
    sent = header(post.request_headers, "content-type") or "no Content-Type"
    return CheckResult(Status.SUCCESS, reason=f"{request_line(post)} sent with Content-Type: {sent} answered {post.status_code}.", exchanges=[post])


def _content_types(answers: list[Exchange]) -> CheckResult:
    """The Content-Type rule over every answer with a body (a 204 has none to label)."""
    typed = [(answer, _media_type(answer)) for answer in answers if answer.response_body]
    wrong = [
        f"{request_line(a)} ({a.status_code}) answered {f'Content-Type: {t}' if t else 'no Content-Type'}"
        for a, t in typed
        if t not in (SCIM_MEDIA_TYPE, OLD_MEDIA_TYPE)
    ]
    old = [f"{request_line(a)} ({a.status_code})" for a, t in typed if t == OLD_MEDIA_TYPE]
    if wrong:
        reason = (
            f"{'; '.join(wrong)}, instead of {SCIM_MEDIA_TYPE}, the type the client asks for with Accept and service providers MUST support (RFC 7644 §3.8)."
        )
        return CheckResult(Status.ERROR, reason=reason, exchanges=answers)
    if old:
        reason = (
            f"{', '.join(old)} answered Content-Type: {OLD_MEDIA_TYPE}, the type older SCIM servers informally "
            f"use, instead of {SCIM_MEDIA_TYPE} (RFC 7644 §3.1, §8.1)."
        )
        return CheckResult(Status.DEVIATION, reason=reason, exchanges=answers)
    listed = ", ".join(f"{request_line(a)} ({a.status_code})" for a, _ in typed)
    return CheckResult(Status.SUCCESS, reason=f"{listed} all answered Content-Type: {SCIM_MEDIA_TYPE}.", exchanges=answers)


def _location(post: Exchange, body: dict[str, Any], holder: str = "its body") -> CheckResult:
    """A 201's Location header against the meta.location of its body, or of the resource read at
    the Location when the 201 had no body (RFC 7644 §3.3)."""
    location_header = header(post.response_headers, "location")
    meta = member(body, "meta") if isinstance(member(body, "meta"), dict) else {}
    location = member(meta, "location") if isinstance(member(meta, "location"), str) else None
    problem = None
    if not location_header:
        problem = "no Location header"
    elif not location:
        problem = f"the Location {location_header}, but no meta.location in {holder}"
    elif urljoin(post.url, location_header) != urljoin(post.url, location):
        problem = f"the Location {location_header}, but meta.location {location} in {holder}"
    if problem:
        reason = f"{request_line(post)} answered {post.status_code} with {problem}: the created resource's URI SHALL be in both (RFC 7644 §3.3)."
        return CheckResult(Status.ERROR, reason=reason, data=body, exchanges=[post])
    reason = f"{request_line(post)} answered {post.status_code} with a Location header equal to the meta.location of {holder}, {location_header}."
    return CheckResult(Status.SUCCESS, reason=reason, data=body, exchanges=[post])


def _succeeded(exchange: Exchange) -> bool:
    return 200 <= (exchange.status_code or 0) < 300


def _media_type(exchange: Exchange) -> str:
    return header(exchange.response_headers, "content-type").split(";")[0].strip().lower()


@checker("headers", "headers:allow", section="15.5.6", rfc=9110)
def allow_header(context: CheckContext) -> list[CheckResult]:
    """A 405 answer names the methods the endpoint allows in an Allow header (RFC 9110 §15.5.6).

    Sends PUT /ServiceProviderConfig with an empty object, which RFC 7644 §4 says the endpoint
    refuses. SUCCESS when the 405 carries an Allow header; ERROR when it has none ("the origin
    server MUST generate an Allow header field in a 405 response"). SKIPPED when the answer is not
    a 405 (service_provider_config_endpoint_methods judges that).
    """
    path = "/ServiceProviderConfig"
    response = context.client.request("PUT", path, json={})
    request = f"PUT {context.root_path(path)}"
    allowed = header(context.exchanges[-1].response_headers, "Allow")
    if response.status_code != 405:
        return [
            CheckResult(
                Status.SKIPPED, reason=f"Skipped: {request} answered {response.status_code}, not 405 (service_provider_config_endpoint_methods judges it)."
            )
        ]
    if not allowed:
        rule = "RFC 9110 §15.5.6: the origin server MUST generate an Allow header field in a 405 response"
        return [CheckResult(Status.ERROR, reason=f"{request} answered 405 without an Allow header ({rule}).")]
    return [CheckResult(Status.SUCCESS, reason=f"{request} answered 405 with Allow: {allowed}.")]
