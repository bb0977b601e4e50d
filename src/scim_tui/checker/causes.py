"""Failures grouped by cause, so that one broken behaviour of a server reads as one finding.

A check that breaks a rule is its own finding. A check that fails because a request failed as a
whole (a 5xx answer, no answer at all) shares that cause with every other check that met the
same request failing: a server answering 500 to every GET of a User fails a dozen checks, and
the suite summary and the reports say so once, as one cause.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import field
from urllib.parse import urlsplit

from scim_tui.checker.results import CheckResult

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


def cause_of(result: CheckResult) -> str | None:
    """The request failing as a whole that a failed result met first, or None (a rule broken)."""
    if not result.status.failed:
        return None
    for exchange in result.exchanges:
        if exchange.status_code is None and exchange.error:
            return f"{exchange.method} {_shape(exchange.url)} got no answer"
        if exchange.status_code is not None and exchange.status_code >= 500:
            return f"{exchange.method} {_shape(exchange.url)} answered {exchange.status_code}"
    return None


def shared_causes(results: Iterable[CheckResult]) -> list[Cause]:
    """The causes that failed more than one result, the most widespread first."""
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
