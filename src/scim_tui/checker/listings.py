"""Discovery lists read as servers really serve them (RFC 7644 §4, §3.4.2).

RFC 7644 answers a list with a ListResponse: "schemas", "totalResults" (REQUIRED) and
"Resources". Servers built for one identity provider answer a ListResponse without
totalResults, a bare JSON array, even a single object. The discovery check that reads a list
tells once how its form breaks the RFC; everything else reads its items, so that the run goes
on with whatever it understands.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field
from typing import Any

from scim_tui.checker.answers import JSON_KINDS
from scim_tui.checker.answers import body_kind
from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import json_object
from scim_tui.checker.answers import member
from scim_tui.checker.answers import shown

LIST_RESPONSE = "urn:ietf:params:scim:api:messages:2.0:ListResponse"


@dataclass
class Listing:
    """The objects a list holds, and how its form breaks RFC 7644 §3.4.2 (none when it does not)."""

    items: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def listing(body: Any) -> Listing:
    """The objects of a list as served; ValueError, saying what came, when it holds none at all."""
    if isinstance(body, list):
        return Listing(_objects(body), ["it is a bare JSON array, not a ListResponse"])
    if not isinstance(body, dict):
        what = body_kind(body) if isinstance(body, str) else JSON_KINDS.get(type(body), "an empty body or JSON null")
        raise ValueError(f"the answer is {what}, not a list")
    schemas = member(body, "schemas")
    resources = member(body, "Resources")
    if resources is None and LIST_RESPONSE not in (schemas or []) and member(body, "totalResults") is None:
        return Listing([body], ["it is a single object, not a ListResponse"])
    problems = []
    if not isinstance(schemas, list) or LIST_RESPONSE not in schemas:
        problems.append(f'its "schemas" does not hold {LIST_RESPONSE}')
    total = member(body, "totalResults")
    if total is None:
        problems.append('it has no "totalResults", which is REQUIRED')
    elif not isinstance(total, int) or isinstance(total, bool):
        problems.append(f'its "totalResults" is {shown(total)}, not an integer')
    if resources is None:
        resources = []
    if not isinstance(resources, list):
        raise ValueError('its "Resources" is not a list')
    items = _objects(resources)
    if len(items) < len(resources):
        problems.append(f"{len(resources) - len(items)} of its Resources are not objects")
    return Listing(items, problems)


def _error_kind(text: str) -> str:
    """What came instead of a list, with the detail of a SCIM Error (it often says why)."""
    kind = body_kind(text)
    detail = member(json_object(text), "detail")
    if kind == "a SCIM Error" and isinstance(detail, str) and detail.strip():
        detail = " ".join(detail.split())
        return f'{kind} ("{detail[:117] + "..." if len(detail) > 120 else detail}")'
    return kind


def _objects(values: list[Any]) -> list[dict[str, Any]]:
    return [value for value in values if isinstance(value, dict)]


def fetch_listing(context: Any, path: str) -> Listing:
    """GET a discovery list and read it leniently; ValueError when it is no list at all."""
    response = context.client.request("GET", path)
    if response.status_code != 200:
        raise ValueError(f"the answer is {_error_kind(response.text)} instead of 200 with a list")
    return listing(body_of(response))
