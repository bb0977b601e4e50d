"""Whether a location names the resource it belongs to (RFC 7643 §3.1 meta.location, RFC 7644
§3.3 Location, §3.7 a bulk operation's location).

A location is judged by what a GET on it answers, never by its shape: a server may serve a
resource at ``/Users/{id}``, at ``/Users/{userName}``, or under two prefixes. Paths are compared
first (percent-decoded, so that a server behind a proxy may name another host); a location naming
another path is followed, on the base URL's origin only, so that no credentials go elsewhere. One
naming another path on another origin cannot be checked from here (a reverse proxy may map
``https://public.example/api/v2`` to ``/v2``): it is not judged, and the result says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote
from urllib.parse import urljoin
from urllib.parse import urlsplit

from scim_tui.checker.answers import JSON_KINDS
from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import member
from scim_tui.checker.guard import origin
from scim_tui.checker.recorder import base_url_of

OTHER_ORIGIN = object()
"""What `served_at_url` answers for a URL it does not follow."""
UNJUDGED = "not followed, so that no credentials go there, and not judged (a reverse proxy may map its public URL to another path, /api/v2/Users to /v2/Users)"
"""Why a location naming another path on another origin is not judged."""


@dataclass
class Located:
    """What meta.location says of a resource: a problem (it names something else), or a note
    (it names another URL that serves the same resource, which is right; or another path on
    another origin, which cannot be checked from here)."""

    problem: str | None = None
    note: str | None = None


def located(context: Any, data: dict[str, Any], served_at: str, *aliases: str) -> Located:
    """meta.location, when given, must name the URL of the resource (RFC 7643 §3.1); `served_at`
    and `aliases` are the URLs known to serve it. A location naming another path is right when a
    GET on it answers the same resource (the same id; the ServiceProviderConfig, which has none,
    the same schemas); on another origin it is not judged (a note says so)."""
    location = member(member(data, "meta"), "location")
    if location is None:
        return Located()
    if not isinstance(location, str):
        return Located(f"meta.location is {JSON_KINDS.get(type(location), 'a JSON object')}, not a string")
    url = urljoin(served_at, location)
    path = _path(url)
    expected = [_path(address) for address in (served_at, *aliases)]
    if path in expected:
        return Located()
    served = served_at_url(context, url)
    if served is OTHER_ORIGIN:
        return Located(note=f"meta.location {location} is on another origin, under another path than {expected[0]}: {UNJUDGED}")
    wrong = f"meta.location {location} points to {path or '/'} instead of {expected[0]}"
    if not isinstance(served, dict) or not same_resource(served, data):
        return Located(f"{wrong}, which {'serves another resource' if isinstance(served, dict) else 'does not serve it'}")
    return Located(note=f"meta.location names {path}, another URL that serves the same resource")


def served_at_url(context: Any, url: str) -> Any:
    """The JSON object a GET on `url` answers with 200; None when it answers something else;
    OTHER_ORIGIN, without a request, when `url` is not on the base URL's origin."""
    if origin(url) != origin(base_url_of(context.client)):
        return OTHER_ORIGIN
    response = context.client.request("GET", url)
    body = body_of(response)
    return body if response.status_code == 200 and isinstance(body, dict) else None


def same_resource(served: dict[str, Any], data: dict[str, Any]) -> bool:
    """The same resource: the same id, or (the ServiceProviderConfig has none) the same schemas."""
    key = "id" if member(data, "id") is not None else "schemas"
    return member(served, key) == member(data, key)


def same_url(base: str, one: str, other: str) -> bool:
    """Whether two locations (each absolute, or relative to `base`) name the same URL."""
    first, second = urljoin(base, one), urljoin(base, other)
    return origin(first) == origin(second) and _path(first) == _path(second)


def _path(url: str) -> str:
    return unquote(urlsplit(url).path).rstrip("/")
