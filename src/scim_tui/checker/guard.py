"""The one place that decides what a run may write, and what it owns.

Every request a check sends goes through the client's ``request`` method, whatever helper
or scim2-client call built it; the recorder (exchanges.py) asks this guard before sending
and tells it what came back. The rules:

- a read (GET, HEAD) goes anywhere under the base URL;
- a POST creates on a resource endpoint, searches (``.search``), sends a bulk request whose
  operations follow these same rules, or probes a discovery endpoint that must refuse writes;
- a PUT, PATCH or DELETE goes only to ``{endpoint}/{id}`` of a resource this run created, the
  id one quoted path segment; to a discovery endpoint's probe; or to an id the run made up
  (``scim-tui-missing-…``), which names nothing.

A creation becomes the run's own when the server answers it with an id that is a safe path
segment, and with the values the run chose to mark it (a userName, displayName or externalId
starting with ``scim-tui-``). An answer that shows none of them is confirmed by a GET before
anything is written to it; one that shows other values is not the run's, and is never written
to. A creation whose outcome is unknown (no answer in time, a 5xx, an answer without an id) is
looked for by its marker at clean-up, and only a resource carrying the marker is deleted.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING
from typing import Any
from typing import Protocol
from urllib.parse import quote
from urllib.parse import unquote
from urllib.parse import urlsplit

from scim_tui.checker.answers import member

if TYPE_CHECKING:
    from collections.abc import Iterator

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
DISCOVERY_ENDPOINTS = frozenset({"/ServiceProviderConfig", "/ResourceTypes", "/Schemas"})
"""Endpoints that must refuse writes (RFC 7644 §4): the checks probe them with an empty body."""
BULK_ENDPOINT = "/Bulk"
MARK = "scim-tui-"
MARKER_ATTRIBUTES = ("userName", "displayName", "externalId")
"""The attributes the run always gives a value of its own, to tell its resources apart from
everyone else's; any other top-level string it sets to a ``scim-tui-`` value marks them too."""
MAX_MARKERS = 4
"""The most markers a creation is looked for by (one search each) when its outcome is unknown."""
MADE_UP_ID = re.compile(r"scim-tui-missing-[0-9a-f]{32}")
"""An id the run made up to ask for what does not exist (probes.unknown_id): it names nothing."""
UNSAFE_ID = re.compile(r"[/\\?#%\s\x00-\x1f\x7f]")
MAX_ID_LENGTH = 1024
_MARKER_TEXT = re.compile(r'"(\w+)"\s*:\s*"(scim-tui-[^"\\]*)"')


class WriteRefused(Exception):
    """A request the guard did not send: it would write to what the run did not create."""


class NotTheRunsOwn(Exception):
    """A creation answered with a resource that is not the one sent, or with an unsafe id:
    the resource is never written to."""


def unsafe_id_problem(value: Any) -> str | None:
    """Why an id cannot be used as one path segment of a resource URL, or None when it can."""
    if not isinstance(value, str) or not value:
        return "is empty" if value in ("", None) else f"is {type(value).__name__}, not a string"
    if value in (".", ".."):
        return "is a dot segment, which the URL would resolve to another path"
    if len(value) > MAX_ID_LENGTH:
        return f"is {len(value)} characters long"
    found = UNSAFE_ID.search(value)
    if found:
        return f"holds {found[0]!r}, which could make its URL name another path"
    return None


def resource_url(endpoint: str, resource_id: str) -> str:
    """The URL of a resource: its endpoint, then its id as one percent-encoded path segment."""
    return f"{normal_endpoint(endpoint)}/{quote(resource_id, safe='')}"


def normal_endpoint(endpoint: str) -> str:
    return "/" + endpoint.strip("/")


@dataclass(frozen=True)
class Marker:
    """A value the run chose for one of its resources, so that it finds that resource again."""

    attribute: str
    value: str

    def __str__(self) -> str:
        return f'{self.attribute} "{self.value}"'


def markers_in(body: Any) -> tuple[Marker, ...]:
    """The run's markers in a creation's body (JSON, or text that does not parse)."""
    if isinstance(body, (bytes, str)):
        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
        try:
            body = json.loads(text)
        except (ValueError, RecursionError):
            body = dict(_MARKER_TEXT.findall(text))
    if not isinstance(body, dict):
        return ()
    found = [Marker(str(name), value) for name, value in body.items() if isinstance(value, str) and value.startswith(MARK)]
    # The usual ones first: the attributes a server most likely lets the clean-up filter on.
    found.sort(key=lambda marker: MARKER_ATTRIBUTES.index(marker.attribute) if marker.attribute in MARKER_ATTRIBUTES else len(MARKER_ATTRIBUTES))
    return tuple(found[:MAX_MARKERS])


def carries(resource: Any, markers: Iterable[Marker]) -> bool | None:
    """True when a resource's JSON shows one of the markers (each a random value only the run
    chose: one is proof enough, and a resource the run replaced keeps the others), False when
    it shows other values where they would be, None when it shows none of those attributes."""
    if not isinstance(resource, dict):
        return None
    seen = None
    for marker in markers:
        value = member(resource, marker.attribute)
        if value is None:
            continue
        if isinstance(value, str) and value.casefold() == marker.value.casefold():
            return True
        seen = False
    return seen


def named_markers(markers: Iterable[Marker]) -> str:
    return " and ".join(str(marker) for marker in markers) or "no marker"


def id_text(value: Any) -> Any:
    """An id as text: a server that answers a number means the same id (its type is another check's business)."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


@dataclass(frozen=True)
class Owned:
    """A resource the run created: where it is, and how it is marked."""

    kind: str
    """The name of its resource type, as leftovers name it (User, Group ...)."""
    endpoint: str
    id: str
    markers: tuple[Marker, ...] = ()
    confirmed: bool = True
    """Whether an answer of the server showed the run's markers on it. An unconfirmed resource
    is read (GET) before anything is written to it."""

    @property
    def url(self) -> str:
        return resource_url(self.endpoint, self.id)

    def __str__(self) -> str:
        return f"{self.kind}/{self.id}"


@dataclass(frozen=True)
class Pending:
    """A creation whose outcome is unknown: the server may hold it, with these markers."""

    kind: str
    endpoint: str
    markers: tuple[Marker, ...]
    why: str
    """What happened to the creation, as a leftover names it: "its POST timed out" ..."""
    late: bool = False
    """Whether the creation may still happen after the answer was given up on (a timeout, a
    dropped connection): it is looked for at the end of the run, not at the end of the check."""
    created: bool = False
    """Whether the server said it created it (a 2xx without the id): not found, it may remain all the same."""

    def __str__(self) -> str:
        named = f" with {named_markers(self.markers)}" if self.markers else ""
        return f"{self.kind}{named} (may remain: {self.why})"


class Ledger(Protocol):
    """What a check (or the run) created: the guard writes into the ledger of the check running."""

    def record(self, item: Owned | Pending) -> None: ...


_ledger: ContextVar[Ledger | None] = ContextVar("scim_tui_ledger", default=None)


@contextmanager
def keeping(ledger: Ledger) -> Iterator[None]:
    """Record what the requests made in this block create into `ledger` (a check's resources)."""
    token = _ledger.set(ledger)
    try:
        yield
    finally:
        _ledger.reset(token)


@dataclass(frozen=True)
class _Target:
    """Where a request goes, relative to the base URL."""

    path: str
    endpoint: str | None = None
    """The resource endpoint the path is on, when it is one or a resource of one."""
    id: str | None = None
    """The resource id, when the path names one resource."""


class Guard:
    """The write rules of one run, and the resources it owns (shared by every check of the run).

    `fallback` keeps what is created outside any check (the run's own ledger).
    """

    def __init__(self, client: Any, fallback: Ledger, base_url: str):
        self.client = client
        self.fallback = fallback
        self.base_path = urlsplit(base_url).path.rstrip("/")
        self.base_url = base_url.rstrip("/")
        self._owned: dict[tuple[str, str], Owned] = {}
        self._lock = threading.Lock()

    def root_path(self, path: str) -> str:
        """A path under the base URL (``/Users/abc``) as reasons name it, as exchanges do
        (exchanges.request_line): from the server's root (``/v2/Users/abc``)."""
        return f"{self.base_path}/{path.lstrip('/')}"

    # What the run owns

    def owned(self, endpoint: str, resource_id: str) -> Owned | None:
        with self._lock:
            return self._owned.get((normal_endpoint(endpoint), resource_id))

    def own(self, item: Owned, record: bool = True) -> Owned:
        """Take a resource as the run's own; unless told not to, the current check's ledger keeps
        it (the run's, outside any check) for deletion."""
        with self._lock:
            known = self._owned.get((item.endpoint, item.id))
            if known is not None and known.confirmed:
                return known
            self._owned[(item.endpoint, item.id)] = item
        if known is None and record:
            (_ledger.get() or self.fallback).record(item)
        return item

    def confirm(self, item: Owned) -> Owned | None:
        """Read a resource not yet confirmed: it is the run's own when the answer shows its
        markers. None when it is gone (404); WriteRefused when it is not known to be the run's."""
        item = self.owned(item.endpoint, item.id) or item
        if item.confirmed:
            return item
        response = self.client.request("GET", item.url)
        if response.status_code == 404:
            return None
        if not (200 <= response.status_code < 300 and carries(_json(response), item.markers)):
            seen = "a resource without" if 200 <= response.status_code < 300 else "no resource with"
            raise WriteRefused(
                f"not sent: GET {self.root_path(item.url)} answered {response.status_code} with {seen} the {named_markers(item.markers)} the run gave it, "
                "so it is not known to be the run's own, and the run never writes to what it did not create"
            )
        confirmed = Owned(item.kind, item.endpoint, item.id, item.markers, confirmed=True)
        with self._lock:
            self._owned[(item.endpoint, item.id)] = confirmed
        return confirmed

    # Before a request

    def before(self, method: str, url: str, body: Any) -> None:
        """Raise WriteRefused for a request that would write to what the run did not create."""
        method = method.upper()
        if method not in WRITE_METHODS:
            return
        target = self._target(url)
        if target is None:
            raise WriteRefused("not sent: its URL leaves the base URL, or holds a dot or empty segment, and the run writes only to its own resources")
        if target.path in DISCOVERY_ENDPOINTS:
            return
        if method == "POST":
            self._check_post(target, body)
            return
        self._check_write(target)

    def _check_post(self, target: _Target, body: Any) -> None:
        if target.endpoint is not None and target.id is None:
            return  # a creation
        if target.path == "/.search" or (target.endpoint is not None and target.id == ".search"):
            return
        if target.path == BULK_ENDPOINT:
            self._check_bulk(body)
            return
        raise WriteRefused("not sent: a POST there is neither a creation on a resource endpoint, a search nor a bulk request")

    def _check_write(self, target: _Target, what: str = "it") -> None:
        """`what` names the write in a refusal: "it" for the request itself, else a bulk operation."""
        if target.endpoint is None or target.id is None:
            raise WriteRefused(f"not sent: {what} is not on the URL of a resource this run created, and the run writes only to its own")
        if MADE_UP_ID.fullmatch(target.id):
            return
        item = self.owned(target.endpoint, target.id)
        if item is None:
            raise WriteRefused(f"not sent: {what} names a resource this run did not create, and the run writes only to its own")
        if self.confirm(item) is None:
            raise WriteRefused(f"not sent: {what} names a resource that is gone (a GET answered 404)")

    def _check_bulk(self, body: Any) -> None:
        operations = _bulk_operations(body)
        if operations is None:
            raise WriteRefused("not sent: a bulk request whose operations cannot be read")
        bulk_ids = {str(op.get("bulkId")) for op in operations if str(op.get("method", "")).upper() == "POST" and op.get("bulkId")}
        for operation in operations:
            method = str(operation.get("method", "")).upper()
            path = str(operation.get("path", ""))
            target = self._target(path)
            if target is None or target.endpoint is None:
                raise WriteRefused(f"not sent: the bulk operation {method} {path} is not on a resource endpoint")
            if method == "POST" and target.id is None:
                continue
            if method in ("PUT", "PATCH", "DELETE") and target.id is not None and target.id.startswith("bulkId:") and target.id[7:] in bulk_ids:
                continue
            self._check_write(target, f"the bulk operation {method} {path}")

    # After a request

    def after(self, method: str, url: str, body: Any, response: Any) -> None:
        """Take note of what a request created; raise NotTheRunsOwn for a creation that must
        never be written to (an unsafe id, or a resource that is not the one sent)."""
        if method.upper() != "POST":
            return
        target = self._target(url)
        if target is None or target.path in DISCOVERY_ENDPOINTS:
            return
        if target.path == BULK_ENDPOINT:
            self._after_bulk(body, response)
        elif target.endpoint is not None and target.id is None:
            self._after_creation(target.endpoint, body, response)

    def failed(self, method: str, url: str, body: Any, late: bool) -> None:
        """A request that got no answer: a creation it made may exist, or appear later (`late`)."""
        if method.upper() != "POST":
            return
        target = self._target(url)
        if target is None:
            return
        why = "its POST got no answer in time" if late else "its POST got no answer"
        if target.endpoint is not None and target.id is None:
            self._pending(target.endpoint, markers_in(body), why, late)
        elif target.path == BULK_ENDPOINT:
            for _operation, endpoint, markers in self._bulk_creations(body):
                self._pending(endpoint, markers, f"the bulk request creating it {why.removeprefix('its POST ')}", late)

    def _after_creation(self, endpoint: str, body: Any, response: Any) -> None:
        markers = markers_in(body)
        code = response.status_code
        if code >= 500:
            self._pending(endpoint, markers, f"its POST answered {code}")
            return
        if not 200 <= code < 300:
            return
        answer = _json(response)
        resource_id = id_text(answer.get("id")) if isinstance(answer, dict) and "id" in answer else self._id_in_location(response, endpoint)
        if resource_id is None:
            self._pending(endpoint, markers, f"its POST answered {code} without the id of the resource", created=True)
            return
        problem = unsafe_id_problem(resource_id)
        if problem:
            # Never written to at that id; looked for by its markers, as a creation whose id is unknown.
            self._pending(endpoint, markers, f"its POST answered the unsafe id {resource_id!r}", created=True)
            raise NotTheRunsOwn(f"the server answered {code} with the id {resource_id!r}, which {problem}: the resource cannot be addressed safely and was never written to")
        if self.owned(endpoint, resource_id) is not None:
            return
        shown = carries(answer, markers)
        if shown is False:
                raise NotTheRunsOwn(
                f"the server answered {code} with the resource {resource_id}, which does not carry the {named_markers(markers)} sent: "
                "it is not the resource created, and the run never writes to it"
            )
        self.own(Owned(self._kind(endpoint), endpoint, resource_id, markers, confirmed=bool(shown)))

    def _after_bulk(self, body: Any, response: Any) -> None:
        creations = self._bulk_creations(body)
        if not creations:
            return
        answer = _json(response)
        outcomes = member(answer, "Operations") if isinstance(answer, dict) and response.status_code == 200 else None
        if not isinstance(outcomes, list):
            if response.status_code >= 500 or response.status_code == 200:
                for _operation, endpoint, markers in creations:
                    self._pending(endpoint, markers, f"the bulk request creating it answered {response.status_code}")
            return
        by_bulk_id = {str(item.get("bulkId")): item for item in outcomes if isinstance(item, dict) and item.get("bulkId")}
        posts = [item for item in outcomes if isinstance(item, dict) and str(item.get("method", "")).upper() == "POST"]
        for index, (operation, endpoint, markers) in enumerate(creations):
            outcome = by_bulk_id.get(str(operation.get("bulkId"))) or (posts[index] if index < len(posts) else None)
            self._after_bulk_creation(endpoint, markers, outcome)

    def _bulk_creations(self, body: Any) -> list[tuple[dict[str, Any], str, tuple[Marker, ...]]]:
        """Each POST of a bulk request on a resource endpoint, with the endpoint and its markers."""
        creations = []
        for operation in _bulk_operations(body) or []:
            target = self._target(str(operation.get("path", "")))
            if str(operation.get("method", "")).upper() == "POST" and target is not None and target.endpoint is not None and target.id is None:
                creations.append((operation, target.endpoint, markers_in(operation.get("data"))))
        return creations

    def _after_bulk_creation(self, endpoint: str, markers: tuple[Marker, ...], outcome: Any) -> None:
        status = _int(outcome.get("status")) if isinstance(outcome, dict) else None
        if status is not None and 300 <= status < 500:
            return  # refused: nothing was created
        location = str(outcome.get("location") or "") if isinstance(outcome, dict) else ""
        target = self._target(location) if location else None
        if status is not None and status < 300 and target is not None and target.endpoint == endpoint and target.id and not unsafe_id_problem(target.id):
            # A bulk answer shows no resource: it is confirmed by a GET before any write.
            self.own(Owned(self._kind(endpoint), endpoint, target.id, markers, confirmed=False))
            return
        self._pending(endpoint, markers, "the bulk answer gave no location for it", created=status is not None and status < 300)

    def _pending(self, endpoint: str, markers: tuple[Marker, ...], why: str, late: bool = False, created: bool = False) -> None:
        (_ledger.get() or self.fallback).record(Pending(self._kind(endpoint), endpoint, markers, why, late, created))

    # Where a request goes

    def _target(self, url: str) -> _Target | None:
        """The request's path relative to the base URL, split into endpoint and id; None when it
        leaves the base URL, or holds a dot or empty segment (a client or a server could resolve
        it to another path)."""
        parts = urlsplit(url)
        if parts.fragment or "\\" in url:
            return None
        path = parts.path
        if parts.scheme or parts.netloc:
            if _origin(url) != _origin(self.base_url) or not (path == self.base_path or path.startswith(self.base_path + "/")):
                return None
            path = path[len(self.base_path) :]
        segments = path.strip("/").split("/") if path.strip("/") else []
        if (path.startswith("//")) or any(segment == "" or unquote(segment) in (".", "..") for segment in segments):
            return None
        path = "/" + "/".join(segments)
        for endpoint in self._endpoints():
            if path == endpoint:
                return _Target(path, endpoint)
            if path.startswith(endpoint + "/"):
                rest = path[len(endpoint) + 1 :]
                return _Target(path, endpoint, unquote(rest)) if "/" not in rest else _Target(path)
        return _Target(path)

    def _endpoints(self) -> list[str]:
        provider = getattr(self.client, "provider", None)
        resource_types = getattr(provider, "resource_types", None) or ()
        return sorted({normal_endpoint(str(rt.endpoint)) for rt in resource_types if getattr(rt, "endpoint", None)}, key=len, reverse=True)

    def _kind(self, endpoint: str) -> str:
        provider = getattr(self.client, "provider", None)
        for resource_type in getattr(provider, "resource_types", None) or ():
            if normal_endpoint(str(resource_type.endpoint or "")) == endpoint:
                return str(resource_type.name)
        return endpoint.strip("/")

    def _id_in_location(self, response: Any, endpoint: str) -> str | None:
        location = next((str(value) for name, value in response.headers.items() if name.lower() == "location"), "")
        target = self._target(location) if location else None
        return target.id if target is not None and target.endpoint == endpoint else None


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def _json(response: Any) -> Any:
    try:
        text = response.text
    except Exception:
        return None
    try:
        return json.loads(text) if text else None
    except (ValueError, RecursionError):
        return None


def _int(value: Any) -> int | None:
    try:
        return int(str(value).strip())
    except ValueError:
        return None


def _bulk_operations(body: Any) -> list[dict[str, Any]] | None:
    if isinstance(body, (bytes, str)):
        try:
            body = json.loads(body)
        except (ValueError, RecursionError):
            return None
    operations = member(body, "Operations") if isinstance(body, dict) else None
    if not isinstance(operations, list) or not all(isinstance(op, dict) for op in operations):
        return None
    return operations
