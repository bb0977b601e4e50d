"""Checks of resource versions: ETags and conditional requests (RFC 7644 §3.14, RFC 7232)."""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field
from typing import Any

from scim2_models import PatchOp
from scim2_models import Resource

from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import listed
from scim_tui.checker.answers import member
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.probes import send_json
from scim_tui.checker.context import CheckContext
from scim_tui.checker.exchanges import Exchange
from scim_tui.checker.exchanges import header
from scim_tui.checker.features import claims
from scim_tui.checker.features import service_provider_config
from scim_tui.checker.features import unclaimed
from scim_tui.checker.filling import attribute_named
from scim_tui.checker.filling import changeable_string
from scim_tui.checker.filling import name_attribute
from scim_tui.checker.filling import unique_for
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

HEADER_RULE = "RFC 7644 §3.14: ETags MUST be specified as an HTTP header"
PRECONDITION_RULE = "RFC 7232 §3.1: the method MUST NOT be performed"


@dataclass
class Versioned:
    """The resource the check works on: where it is, the attribute changed, and what was seen."""

    model: type[Resource[Any]]
    path: str
    named: str
    """Its path as reasons name it: from the server's root."""
    attribute: str
    read: dict[str, Any]
    """The resource as the first GET answered it."""
    tagged: dict[str, Exchange] = field(default_factory=dict)
    """The answers that must carry an ETag, by method: POST, GET, and PUT once it is sent."""

    @property
    def kind(self) -> str:
        return self.model.__name__


@checker("etag", section="3.14")
def resource_versions(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Resources carry versions (ETags) that conditional requests honour (RFC 7644 §3.14).

    Creates a resource and reads it, reads it again with If-None-Match and its
    version, changes an attribute with a PUT (the version read becomes stale: its name
    attribute, else externalId, else another single-valued string the server's schema
    declares readWrite and returned by default, RFC 7643 §2.2), then sends a PUT, a PATCH and a DELETE with If-Match and the stale
    version, and reads it a last time. One result per rule:
    the answers to POST, GET and PUT carry an ETag header (§3.14 MUST: SUCCESS,
    else ERROR); meta.version holds the ETag (§3.14 SHOULD: COMPLIANT, else
    DEVIATION); If-None-Match with the current version, then with "*" (any current
    representation), gets 304 Not Modified; each stale If-Match gets 412 Precondition
    Failed and leaves the resource as it was (§3.14 with RFC 7232 §3.1 and §3.2, MUST:
    SUCCESS, else ERROR). SKIPPED for PATCH when the ServiceProviderConfig does not claim
    patch support, and when the schema declares no attribute the check may change.
    When the ServiceProviderConfig says etag is not supported, the check creates a resource and
    reads it: an ETag header (read again with If-None-Match, a 304 told too) with a PUT of the
    resource as read, conditioned on a version the server never gave, answered 412 means the
    server versions its resources though its configuration, which describes the features
    available (RFC 7644 §4), says it does not (DEVIATION); SUCCESS otherwise (an ETag header alone
    is HTTP's, which web frameworks add). SKIPPED when the
    ServiceProviderConfig cannot be read.
    """
    if not claims(context, "etag"):
        skipped = unclaimed(context, "etag")  # None only when claimed: never here
        return [_unclaimed_versions(context, model) if service_provider_config(context) or skipped is None else skipped]
    preferred = (name_attribute(model), attribute_named(model, "externalId"))
    attribute = changeable_string(model, *preferred)
    if attribute is None:
        declared = "; ".join(item.declaration for item in preferred if item is not None)
        reason = f"Skipped: the {model.__name__} schema declares no single-valued string a client may change and read back to make a new version ({declared})."
        return [CheckResult(Status.SKIPPED, reason=reason)]
    target = _create_and_read(context, model, attribute.name)
    results = [_version_attribute(target)]
    version = _etag(target.tagged["GET"]) or _meta_version(target.read)
    if version is None:
        reason = f"If-None-Match and If-Match: Skipped: the {target.kind} has no version to send (no ETag header, no meta.version)."
        return [_header_rule(target), *results, _not_modified(context, target, "*"), CheckResult(Status.SKIPPED, reason=reason)]
    results += [_not_modified(context, target, version), _not_modified(context, target, "*")]
    stale = _stale_requests(context, target, version)
    return [_header_rule(target), *results, *stale]


def _create_and_read(context: CheckContext, model: type[Resource[Any]], attribute: str) -> Versioned:
    created = context.resource_manager.create_and_register(model, fill_all=False, values={attribute: unique_for(attribute)})
    post = context.exchanges[-1]
    path = resource_path(context, model, created.id)
    response = context.client.request("GET", path)
    read = body_of(response)
    if response.status_code != 200 or not isinstance(read, dict):
        raise ValueError(f"the {model.__name__} just created could not be read back (RFC 7644 §3.4.1)")
    return Versioned(model, path, context.root_path(path), attribute, read, {"POST": post, "GET": context.exchanges[-1]})


NOT_A_VERSION = '"scim-tui-not-a-version"'
"""An If-Match no server gave: a write conditioned on it is refused (412) by a server checking versions."""


def _unclaimed_versions(context: CheckContext, model: type[Resource[Any]]) -> CheckResult:
    """What a server that says etag is unsupported does: no ETag header. One it sends all the same
    is sent back in If-None-Match (a 304 told), and a PUT of the resource as read, conditioned on
    a version the server never gave, tells whether it checks versions on writes (412): only then
    does it version its resources though it says not (an ETag alone is HTTP's, RFC 9110 §8.8.3,
    which web frameworks add to any answer)."""
    created = context.resource_manager.create_and_register(model, fill_all=False)
    path = resource_path(context, model, created.id)
    named = context.root_path(path)
    read = context.client.request("GET", path)
    etag = _etag(context.exchanges[-1])
    said = "the ServiceProviderConfig says etag.supported is false"
    if not etag:
        return CheckResult(Status.SUCCESS, reason=f"GET {named} answered no ETag header, as {said}.", data=body_of(read))
    conditional = context.client.request("GET", path, headers={"If-None-Match": etag})
    applied = f" and GET {named} with If-None-Match: {etag} answered 304 Not Modified" if conditional.status_code == 304 else ""
    unchanged = {key: value for key, value in (body_of(read) if isinstance(body_of(read), dict) else {}).items() if key != "meta"}
    write = send_json(context, "PUT", path, unchanged, {"If-Match": NOT_A_VERSION})
    sent = f"PUT {named} with If-Match: {NOT_A_VERSION} (a version it never gave) answered {write.status_code}"
    if write.status_code != 412:
        reason = f"GET {named} answered the ETag header {etag}{applied}, but {sent}: the server checks no version on a write, as {said}."
        return CheckResult(Status.SUCCESS, reason=reason, data=body_of(read))
    features = "which describes the features available on the server (RFC 7644 §4): a client never uses the versions it could"
    reason = f"GET {named} answered the ETag header {etag}{applied}, and {sent}, though {said}, {features}."
    return CheckResult(Status.DEVIATION, reason=reason, data=body_of(read))


def _header_rule(target: Versioned) -> CheckResult:
    answers = listed(list(target.tagged))
    exchanges = list(target.tagged.values())
    missing = [method for method, exchange in target.tagged.items() if not _etag(exchange)]
    if missing:
        reason = f"The answer to {listed(missing)} of the {target.kind} carries no ETag header ({HEADER_RULE})."
        return CheckResult(Status.ERROR, reason=reason, exchanges=exchanges)
    return CheckResult(Status.SUCCESS, reason=f"The answers to {answers} of the {target.kind} carry an ETag header.", exchanges=exchanges)


def _version_attribute(target: Versioned) -> CheckResult:
    get = target.tagged["GET"]
    etag, version = _etag(get), _meta_version(target.read)
    rule = "RFC 7644 §3.14: ETags SHOULD be specified within meta.version"
    if version is None:
        return CheckResult(Status.DEVIATION, reason=f"GET {target.named} answered a {target.kind} without meta.version ({rule}).", exchanges=[get])
    if etag and etag != version:
        reason = f"GET {target.named} answered meta.version {version} but the ETag header {etag} ({rule})."
        return CheckResult(Status.DEVIATION, reason=reason, exchanges=[get])
    same = ", the version of its ETag header" if etag else ""
    return CheckResult(Status.COMPLIANT, reason=f"GET {target.named} answered meta.version {version}{same}.", exchanges=[get])


def _not_modified(context: CheckContext, target: Versioned, version: str) -> CheckResult:
    """A GET with If-None-Match: its current version, or "*" (any current representation, RFC 7232 §3.2)."""
    response = context.client.request("GET", target.path, headers={"If-None-Match": version})
    request = f"GET {target.named} with If-None-Match: {version} ({'any version' if version == '*' else 'its current version'})"
    exchanges = context.exchanges[-1:]
    if response.status_code == 304:
        return CheckResult(Status.SUCCESS, reason=f"{request} answered 304 Not Modified.", exchanges=exchanges)
    rule = "RFC 7644 §3.14, RFC 7232 §3.2: MUST answer 304 to a GET whose If-None-Match matches"
    return CheckResult(
        Status.ERROR, reason=f"{request} answered {response.status_code} instead of 304 Not Modified ({rule}).", data=body_of(response), exchanges=exchanges
    )


def _stale_requests(context: CheckContext, target: Versioned, stale: str) -> list[CheckResult]:
    """Make `stale` an old version with a PUT, then send PUT, PATCH and DELETE conditioned on it."""
    changed = unique_for(target.attribute)
    response = send_json(context, "PUT", target.path, _replacement(target, changed))
    if not 200 <= response.status_code < 300:
        # The PUT only makes a version stale; object_replacement judges PUT.
        detail = member(body_of(response), "detail")
        said = f" ({detail})" if isinstance(detail, str) and detail.strip() else ""
        reason = (
            f"If-Match on PUT, PATCH and DELETE: Skipped: PUT {target.named} changing {target.attribute} "
            f"answered {response.status_code}{said}, so no version could be made stale."
        )
        return [CheckResult(Status.SKIPPED, reason=reason, data=body_of(response), exchanges=context.exchanges[-1:])]
    target.tagged["PUT"] = context.exchanges[-1]
    current = _etag(context.exchanges[-1]) or _meta_version(body_of(response))
    if current == stale:
        reason = f"PUT {target.named} changed {target.attribute}, but the version stayed {stale}, so If-Match cannot tell the change (RFC 7644 §3.14)."
        return [CheckResult(Status.ERROR, reason=reason, exchanges=context.exchanges[-1:])]
    sent = [_conditional(context, target, "PUT", stale)]
    patch = unclaimed(context, "patch") or _conditional(context, target, "PATCH", stale)
    sent.append(_conditional(context, target, "DELETE", stale))
    after = context.client.request("GET", target.path)
    left = body_of(after) if after.status_code == 200 else None
    results = [_precondition(target, stale, attempt, left, context.exchanges[-1]) for attempt in sent]
    if isinstance(patch, CheckResult):
        return [results[0], patch, results[1]]
    return [results[0], _precondition(target, stale, patch, left, context.exchanges[-1]), results[1]]


@dataclass
class Attempt:
    """A request conditioned on a stale version: what it would have set, and what it got."""

    method: str
    value: str | None
    response: Any
    exchange: Exchange


def _conditional(context: CheckContext, target: Versioned, method: str, stale: str) -> Attempt:
    condition = {"If-Match": stale}
    value = None if method == "DELETE" else unique_for(target.attribute)
    if method == "PUT":
        response = send_json(context, "PUT", target.path, _replacement(target, value), condition)
    elif method == "PATCH":
        operation = {"op": "replace", "path": target.attribute, "value": value}
        response = send_json(context, "PATCH", target.path, {"schemas": [str(PatchOp.__schema__)], "Operations": [operation]}, condition)
    else:
        response = context.client.request("DELETE", target.path, headers=condition)
    return Attempt(method, value, response, context.exchanges[-1])


def _replacement(target: Versioned, value: str | None) -> dict[str, Any]:
    """The resource as read, `meta` left out, with a new value of the attribute changed."""
    return {key: item for key, item in target.read.items() if key != "meta"} | {target.attribute: value}


def _precondition(target: Versioned, stale: str, attempt: Attempt, left: Any, after: Exchange) -> CheckResult:
    """Judge a conditional request by its answer and by the resource a last GET found (`left`, None when gone)."""
    request = f"{attempt.method} {target.named} with If-Match: {stale} (the version before its last change)"
    if attempt.method == "DELETE":
        done, performed = "deleted", left is None
    else:
        done, performed = "changed", isinstance(left, dict) and left.get(target.attribute) == attempt.value
    code = attempt.response.status_code
    exchanges = [attempt.exchange, after]
    if code == 412 and not performed:
        reason = f"{request} answered 412 Precondition Failed, and the {target.kind} was left as it was."
        return CheckResult(Status.SUCCESS, reason=reason, exchanges=exchanges)
    if code == 412:
        return CheckResult(
            Status.ERROR, reason=f"{request} answered 412, but the {target.kind} was {done} all the same ({PRECONDITION_RULE}).", exchanges=exchanges
        )
    also = f", and the {target.kind} was {done}" if performed else ""
    reason = f"{request} answered {code} instead of 412 Precondition Failed{also} ({PRECONDITION_RULE})."
    return CheckResult(Status.ERROR, reason=reason, data=body_of(attempt.response), exchanges=exchanges)


def _etag(exchange: Exchange) -> str | None:
    return header(exchange.response_headers, "ETag") or None


def _meta_version(body: Any) -> str | None:
    meta = member(body, "meta") if isinstance(body, dict) else None
    return meta.get("version") if isinstance(meta, dict) else None
