"""Failures grouped by cause, so that one broken behaviour of a server reads as one finding.

A check that breaks a rule is its own finding. A check that fails because a request failed as a
whole (a 5xx answer, no answer at all) shares that cause with every other check that met the
same request failing: a server answering 500 to every GET of a User fails a dozen checks, and
the suite summary and the reports say so once, as one cause.

A feature the ServiceProviderConfig claims (patch, filter, sort, bulk, etag) that answers 501
(or 500) on its first use by the check that judges it, for a resource type, is that check's
finding; every other check of that resource type meeting the same answer is SKIPPED naming it,
whichever ran first (the judge comes first in a suite's order, which results follow).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import field
from urllib.parse import parse_qs
from urllib.parse import urlsplit

from scim_tui.checker.exchanges import Exchange
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
AS_A_WHOLE = (500, 501)
"""The answers of a feature failing as a whole: not implemented (RFC 7644 §3.12, Table 8:
"Service provider does not support the request operation, e.g., PATCH"), or failing."""


def cause_of(result: CheckResult) -> str | None:
    """The cause a result names, or the request failing as a whole that a failed result met
    first; None for a rule broken."""
    if result.cause:
        return result.cause
    if not result.status.failed:
        return None
    for exchange in result.exchanges:
        if exchange.status_code is None and exchange.error:
            return f"{exchange.method} {_shape(exchange.url)} got no answer"
        if exchange.status_code is not None and exchange.status_code >= 500:
            return failing_request(exchange)
    return None


def failing_request(exchange: Exchange) -> str:
    """``PATCH /v2/Users/{id} answered 501``: a request that failed as a whole, as causes name it."""
    return f"{exchange.method} {_shape(exchange.url)} answered {exchange.status_code}"


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


class FeatureFailures:
    """The features of one resource type that failed as a whole on their judge's first use, as
    the results of its checks come in the suite's order."""

    def __init__(self) -> None:
        self._failed: dict[str, Exchange] = {}

    def take(self, checker: str, results: list[CheckResult]) -> None:
        """Record what a judge met first; make the failures of another check that met a failed
        feature SKIPPED naming it (the identity providers' steps keep theirs: their readiness tells)."""
        for feature, judge in FEATURE_JUDGES.items():
            if checker == judge:
                first = next((e for r in results for e in r.exchanges if feature_of(e) == feature), None)
                if first is not None and first.status_code in AS_A_WHOLE:
                    self._failed[feature] = first
        for result in results:
            self._explain(checker, result)

    def _explain(self, checker: str, result: CheckResult) -> None:
        for feature, failed in self._failed.items():
            met = any(feature_of(e) == feature and e.status_code == failed.status_code for e in result.exchanges)
            if not met or not (result.status.failed or result.cause):
                continue
            result.cause = failing_request(failed)
            claimed = f"though the ServiceProviderConfig claims {feature}"
            if result.status.failed and checker == FEATURE_JUDGES[feature]:
                result.reason = f"{(result.reason or '').rstrip('.')}, {claimed}."
            elif result.status.failed and "idp" not in result.tags:
                result.status, result.reason = Status.SKIPPED, f"Skipped: {result.cause} ({claimed}; {FEATURE_JUDGES[feature]} reports it)."
                result.skip_cause = SkipCause.PREREQUISITE
            return


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
