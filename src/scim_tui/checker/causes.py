"""Failures grouped by cause, so that one broken behaviour of a server reads as one finding.

A check that breaks a rule is its own finding. A check that fails because a request failed as a
whole (a 5xx answer, no answer at all, a write refused for want of If-Match) shares that cause with every other check that met the
same request failing: a server answering 500 to every GET of a User fails a dozen checks, and
the suite summary and the reports say so once, as one cause.

A feature the ServiceProviderConfig claims (patch, filter, sort, bulk, etag) that answers 501
(or 500) on its first use by the check that judges it, for a resource type, is that check's
finding; every other check of that resource type meeting the same answer is SKIPPED naming it,
whichever ran first (the judge comes first in a suite's order, which results follow). An
identity provider's step meeting it is SKIPPED too, and blocks its provider.

A rule other steps rely on (a filter narrows a list, a deleted resource is gone), which its
judge reports broken, is that judge's finding too: an identity provider's step that failed
relying on it is SKIPPED naming it, and blocks its provider (its readiness names the cause).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import field
from urllib.parse import parse_qs
from urllib.parse import urlsplit

from scim_tui.checker.exchanges import Exchange
from scim_tui.checker.exchanges import answers
from scim_tui.checker.exchanges import header
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import SkipCause
from scim_tui.checker.results import Status

_ID = re.compile(r"(?=.*\d)[^/]{8,}|[0-9a-fA-F-]{32,36}")
"""A path segment that names one resource: long enough and with a digit (ids, UUIDs)."""


@dataclass
class Cause:
    """A request that failed as a whole, and the results it failed."""

    request: str
    """Such as ``GET /v2/Users/{id} answered 500``."""
    results: list[CheckResult] = field(default_factory=list)

    @property
    def checks(self) -> list[str]:
        """The checks it failed, each once, in the order met."""
        return list(dict.fromkeys(f"{r.title}" + (f" ({r.resource_type})" if r.resource_type else "") for r in self.results))


FEATURE_JUDGES = {
    "patch": "check_add_attribute",
    "filter": "filter_operators",
    "sort": "sort_order",
    "bulk": "bulk_operations",
    "etag": "resource_versions",
}
"""For each feature, the check of a resource type that reports it failing as a whole."""
PRECONDITION_REQUIRED = 428
"""A write refused for want of If-Match (RFC 6585 §3): the server takes only conditional writes, a
policy every write meets (RFC 7644 §3.14 lets a client send If-Match; no identity provider does)."""
UNSUPPORTED_MEDIA_TYPE = 415
"""A body refused for its media type (RFC 9110 §15.5.16): a server that takes application/json and
not application/scim+json (RFC 7644 §3.8) refuses every body the run sends so, whatever it holds."""
REFUSED_AS_A_WHOLE = frozenset({PRECONDITION_REQUIRED, UNSUPPORTED_MEDIA_TYPE})
"""The answers refusing a write for what every write of its kind lacks, not for what it asks."""
NOT_IMPLEMENTED = 501
AS_A_WHOLE = (500, NOT_IMPLEMENTED)
"""The answers of a feature failing as a whole: not implemented (RFC 7644 §3.12, Table 8:
"Service provider does not support the request operation, e.g., PATCH"), or failing."""


def cause_of(result: CheckResult) -> str | None:
    """The cause a result names, or the request failing as a whole that a failed result met
    first; None for a rule broken."""
    if result.cause:
        return result.cause
    if not result.status.failed:
        return None
    for exchange in answers(result.exchanges):
        if exchange.status_code is None and exchange.error:
            return f"{exchange.method} {_shape(exchange.url)} got no answer"
        if exchange.status_code is not None and (exchange.status_code >= 500 or exchange.status_code in REFUSED_AS_A_WHOLE):
            return failing_request(exchange)
    return None


def failing_request(exchange: Exchange) -> str:
    """``PATCH /v2/Users/{id} answered 501``: a request that failed as a whole, as causes name it."""
    return f"{exchange.method} {_shape(exchange.url)} answered {exchange.status_code}"


FEATURE_PARAMETERS = {"sort": "sortBy", "filter": "filter"}
"""The query parameter that asks for each feature a listing may use."""


def feature_request(feature: str, exchange: Exchange) -> str:
    """``GET /v2/Users?sortBy=… answered 501``: a feature's request that failed as a whole, naming
    the query parameter asking for it, so that it does not read as the whole endpoint failing."""
    parameter = FEATURE_PARAMETERS.get(feature)
    if parameter is None or parameter not in parse_qs(urlsplit(exchange.url).query):
        return failing_request(exchange)
    return f"{exchange.method} {_shape(exchange.url)}?{parameter}=… answered {exchange.status_code}"


def feature_of(exchange: Exchange) -> str | None:
    """The optional feature a request uses (a ServiceProviderConfig's name for it), if any."""
    parts = urlsplit(exchange.url)
    query = parse_qs(parts.query)
    if exchange.method == "PATCH":
        return "patch"
    if exchange.method == "POST" and parts.path.rstrip("/").endswith("/Bulk"):
        return "bulk"
    if "sortBy" in query:
        return "sort"
    if "filter" in query or (exchange.method == "POST" and parts.path.endswith("/.search") and '"filter"' in (exchange.request_body or "")):
        return "filter"
    if header(exchange.request_headers, "if-match") or header(exchange.request_headers, "if-none-match"):
        return "etag"
    return None


def ignored_filter(exchange: Exchange) -> str:
    """``GET /v2/Users?filter=… lists resources its filter does not match``: a server ignoring
    filters, as the eq rule of filter_operators finds it, named as one cause."""
    return f"{exchange.method} {_shape(exchange.url)}?filter=… lists resources its filter does not match"


def kept_after_delete(path: str) -> str:
    """``DELETE /v2/Users/{id} answered 204 but the resource is still served``: a server keeping
    what it deleted (at `path`), as object_deletion finds it, named as one cause."""
    return f"DELETE {_shape(path)} answered 204 but the resource is still served"


def listed_after_delete(path: str) -> str:
    """``DELETE /v2/Users/{id} answered 204 but queries still list the resource``: a server that
    answers 404 for what it deleted (at `path`) and still lists it, as object_deletion finds it,
    named as one cause."""
    return f"DELETE {_shape(path)} answered 204 but queries still list the resource"


def replaced_without_resource(path: str) -> str:
    """``PUT /v2/Users/{id} answered 204 without the resource``: a server answering a replacement
    without the resource replaced (at `path`), as object_replacement finds it, named as one cause."""
    return f"PUT {_shape(path)} answered 204 without the resource"


RULE_JUDGES = {"filter_operators": "filter", "object_deletion": "delete", "object_replacement": "put"}
"""The checks whose finding (a result naming its `cause`) is a broken rule other steps rely on:
a filter that narrows a list, a DELETE after which the resource is gone, a PUT answering the
resource replaced (RFC 7644 §3.4.2.2, §3.6, §3.5.1)."""


def _relies_on(kind: str, exchanges: list[Exchange]) -> bool:
    """Whether requests that succeeded rely on the rule of `kind` (RULE_JUDGES): a filtered list,
    a GET after a DELETE, or a PUT answered without the resource."""
    succeeded = [e for e in exchanges if e.status_code is not None and 200 <= e.status_code < 300]
    if kind == "filter":
        return any(feature_of(e) == "filter" for e in succeeded)
    if kind == "put":
        return any(e.method == "PUT" and e.status_code == 204 for e in succeeded)
    deleted = next((index for index, e in enumerate(succeeded) if e.method == "DELETE"), None)
    return deleted is not None and any(e.method == "GET" for e in succeeded[deleted:])


class FeatureFailures:
    """The features of one resource type that failed as a whole on their judge's first use, as
    the results of its checks come in the suite's order."""

    def __init__(self) -> None:
        self._failed: dict[str, Exchange] = {}
        self._broken: dict[str, str] = {}
        """The broken rules the judges of RULE_JUDGES reported, by judge, named as their cause."""

    def take(self, checker: str, results: list[CheckResult]) -> None:
        """Record what a judge met first; make the failures of another check that met a failed
        feature SKIPPED naming it (an identity provider's step too: it blocks the provider, whose
        readiness tells)."""
        for feature, judge in FEATURE_JUDGES.items():
            if checker == judge:
                first = next((e for r in results for e in answers(r.exchanges) if feature_of(e) == feature), None)
                if first is not None and first.status_code in AS_A_WHOLE:
                    self._failed[feature] = first
        reported = next((r.cause for r in results if r.status.failed and r.cause), None)
        if checker in RULE_JUDGES and reported is not None:
            self._broken.setdefault(checker, reported)
        earlier: str | None = None
        for result in results:
            self._explain(checker, result)
            self._explain_step(result)
            if earlier is not None and "idp" in result.tags and result.status.failed:
                _skip_step(result, earlier, f"Skipped: an earlier step met {earlier}.")
            if earlier is None and "idp" in result.tags and result.blocks and result.cause:
                earlier = result.cause

    def _explain_step(self, result: CheckResult) -> None:
        """An identity provider's step that failed relying on a rule reported broken is SKIPPED
        naming it: the provider cannot get past it (its readiness tells), and the rule is one finding."""
        if "idp" not in result.tags or not result.status.failed:
            return
        for judge, cause in self._broken.items():
            if _relies_on(RULE_JUDGES[judge], result.exchanges):
                _skip_step(result, cause, f"Skipped: {cause} ({judge} reports it).")
                return

    def _explain(self, checker: str, result: CheckResult) -> None:
        for feature, failed in self._failed.items():
            met = any(feature_of(e) == feature and e.status_code == failed.status_code for e in result.exchanges)
            if not met or not (result.status.failed or result.cause):
                continue
            result.cause = feature_request(feature, failed)
            claimed = f"though the ServiceProviderConfig claims {feature}"
            if result.status.failed and checker == FEATURE_JUDGES[feature]:
                result.reason = f"{(result.reason or '').rstrip('.')}, {claimed}."
            elif result.status.failed:
                _skip_step(result, result.cause, f"Skipped: {result.cause} ({claimed}; {FEATURE_JUDGES[feature]} reports it).")
            return


def _skip_step(result: CheckResult, cause: str, reason: str) -> None:
    """SKIPPED naming a cause another check reports; an identity provider's step blocks its
    provider all the same (its readiness tells)."""
    result.status, result.cause, result.reason, result.skip_cause = Status.SKIPPED, cause, reason, SkipCause.PREREQUISITE
    if "idp" in result.tags:
        result.blocks = True


def shared_causes(results: Iterable[CheckResult]) -> list[Cause]:
    """The causes that explain more than one result (failed, or SKIPPED naming it), the most widespread first."""
    causes: dict[str, Cause] = {}
    for result in results:
        request = cause_of(result)
        if request is not None:
            causes.setdefault(request, Cause(request)).results.append(result)
    shared = [cause for cause in causes.values() if len(cause.results) > 1]
    return sorted(shared, key=lambda cause: -len(cause.results))


def _shape(url: str) -> str:
    """A request's path with its ids as {id}, without its query: the same request made on other
    resources, or with other parameters, reads the same."""
    return "/".join("{id}" if _ID.fullmatch(segment) else segment for segment in urlsplit(url).path.split("/"))
