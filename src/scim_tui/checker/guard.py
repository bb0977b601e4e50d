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

A resource is the run's own only when a GET of its own URL answers one of the values the run
chose to mark it (a userName, displayName or externalId starting with ``scim-tui-``), before
anything is written to it or deleted: for a creation's answered id as for a resource a search
found by its marker. A list showing the run's values at an id proves nothing of what that id's
URL addresses (a store holding two rows with one id lists both, and serves the older). An
answered id the run already owns, or that an answer showed before the creation was sent, is
never a new creation; nor is an answer that shows other values than those sent. A creation
not proven the run's own (an id known before, other values, no answer in time, a 5xx, an answer
without an id) is looked for by its markers at clean-up.

Each creation is written to the run's journal (journal.py) before it is sent, and settled once
it is gone, so that a run killed before its clean-up leaves the next run what to look for.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
from collections.abc import Iterable
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from dataclasses import replace
from typing import TYPE_CHECKING
from typing import Any
from typing import Protocol
from urllib.parse import quote
from urllib.parse import unquote
from urllib.parse import urljoin
from urllib.parse import urlsplit

from scim_tui.checker.answers import member
from scim_tui.checker.exchanges import Role
from scim_tui.checker.exchanges import noted
from scim_tui.checker.exchanges import sent_for

if TYPE_CHECKING:
    from collections.abc import Iterator

    from scim_tui.checker.journal import Journal

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
ANYWHERE = "*"
"""Where an id was seen when the answer did not tell its endpoint (a search of every endpoint)."""
_MARKER_TEXT = re.compile(r'"(\w+)"\s*:\s*"(scim-tui-[^"\\]*)"')


class WriteRefused(Exception):
    """A request the guard did not send: it would write to what the run did not create.
    `answer` names the GET that did not prove the resource the run's own, when one did not."""

    def __init__(self, message: str, answer: str | None = None):
        super().__init__(message)
        self.answer = answer


class NotProven(WriteRefused):
    """A write not sent because a GET of the resource's URL did not prove it the run's own (it
    answered other values, an error, or 404): the check that wanted it cannot run its course."""


class NotTheRunsOwn(Exception):
    """A creation answered with a resource that is not the one sent, or with an unsafe id:
    the resource is never written to."""


PROOF_NOTE = "sent by scim-tui before writing to the resource: its answer must show the values the run gave it"


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


def written_markers(method: str, body: Any) -> tuple[Marker, ...]:
    """The run's markers a PUT's body holds, or a PATCH's operations set (by a top-level attribute's
    path, or in a value without a path)."""
    if method.upper() == "PUT":
        return markers_in(body)
    if isinstance(body, (bytes, str)):
        try:
            body = json.loads(body)
        except (ValueError, RecursionError):
            return ()
    operations = body.get("Operations") if isinstance(body, dict) else None
    found: list[Marker] = []
    for operation in operations if isinstance(operations, list) else []:
        if not isinstance(operation, dict):
            continue
        path, value = operation.get("path"), operation.get("value")
        if isinstance(path, str) and path.isidentifier() and isinstance(value, str) and value.startswith(MARK):
            found.append(Marker(path, value))
        elif path is None:
            found.extend(markers_in(value))
    return tuple(found)


def _newest_first(newer: tuple[Marker, ...], older: tuple[Marker, ...]) -> tuple[Marker, ...]:
    """A resource's markers once the run gave it `newer` values: those first, each once, at most
    twice MAX_MARKERS (the clean-up's searches use the first MAX_MARKERS)."""
    return tuple(dict.fromkeys([*newer, *older]))[: 2 * MAX_MARKERS]


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
class Creation:
    """A creation the run sent: where, and the markers it gave (what the journal keeps of it)."""

    kind: str
    endpoint: str
    markers: tuple[Marker, ...]


@dataclass(frozen=True)
class Owned:
    """A resource the run created: where it is, and how it is marked."""

    kind: str
    """The name of its resource type, as leftovers name it (User, Group ...)."""
    endpoint: str
    id: str
    markers: tuple[Marker, ...] = ()
    confirmed: bool = False
    """Whether a GET of its URL showed the run's markers on it: until then nothing is written to it."""
    made: int = 0
    """The turn at which the run took it (its creation's answer, or a search by its markers): a
    server reusing ids, or answering several creations with one id, may give two creations of the
    run the same URL, one after the other; this tells them apart (`Guard.current`)."""

    @property
    def url(self) -> str:
        return resource_url(self.endpoint, self.id)

    @property
    def creation(self) -> Creation:
        return Creation(self.kind, self.endpoint, self.markers)

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

    @property
    def creation(self) -> Creation:
        return Creation(self.kind, self.endpoint, self.markers)

    def __str__(self) -> str:
        named = f" with {self.markers[0]}" if self.markers else ""  # each a random value: one tells it apart
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

    `fallback` keeps what is created outside any check (the run's own ledger). `journal`, when
    given, hears of each creation before it is sent, and of each once it is settled.
    """

    def __init__(self, client: Any, fallback: Ledger, base_url: str, journal: Journal | None = None):
        self.client = client
        self.fallback = fallback
        self.journal = journal
        self.base_path = urlsplit(base_url).path.rstrip("/")
        self.base_url = base_url.rstrip("/")
        self._owned: dict[tuple[str, str], Owned] = {}
        self._refused: dict[tuple[str, str], tuple[int, NotProven]] = {}
        """Why a resource (of the creation taken at that turn) is not the run's own, once a GET of its URL showed so."""
        self._seen: dict[tuple[str, str], int] = {}
        """The ids answers showed, by endpoint ("*" when the answer did not tell), each with the
        turn of the first answer that showed it."""
        self._deleted: dict[tuple[str, str], int] = {}
        """The resources the run sent a DELETE that was answered 2xx or 404, each with the turn the
        run took the one deleted (`Owned.made`): their ids may name another resource since (a
        server reusing ids), so each write there is proven again first."""
        self._turns = itertools.count(1)
        self._lock = threading.Lock()

    def root_path(self, path: str) -> str:
        """A path under the base URL (``/Users/abc``) as reasons name it, as exchanges do
        (exchanges.request_line): from the server's root (``/v2/Users/abc``)."""
        return f"{self.base_path}/{path.lstrip('/')}"

    # What the run owns

    def owned(self, endpoint: str, resource_id: str) -> Owned | None:
        with self._lock:
            return self._owned.get((normal_endpoint(endpoint), resource_id))

    def current(self, item: Owned) -> Owned:
        """A resource of the run's as the guard knows it now (with the values the run gave it
        since); the item itself once the guard holds another creation at its URL (`Owned.made`)."""
        with self._lock:
            return self._current(item)

    def _current(self, item: Owned) -> Owned:
        known = self._owned.get((item.endpoint, item.id))
        return known if known is not None and known.made == item.made else item

    def own(self, item: Owned, record: bool = True) -> Owned:
        """Take a resource a search found by the run's marker as one to prove the run's own; unless
        told not to, the current check's ledger keeps it (the run's, outside any check) for
        deletion. The one known at that id stands when it is proven there, or is the same creation
        (a marker in common); else this one does, to be proven by its own values: a server
        answering a creation with an id not its own gave the known one a URL holding another's."""
        item = replace(item, made=next(self._turns))
        key = (item.endpoint, item.id)
        with self._lock:
            self._reused(item.endpoint, item.id)
            known = self._owned.get(key)
            if known is None or not (known.confirmed or set(known.markers) & set(item.markers)):
                known = self._owned[key] = item
        if known is item and record:
            self._ledger().record(item)
        return known

    def confirm(self, item: Owned) -> Owned | None:
        """Prove a resource the run's own before anything is written to it: a GET of its URL must
        answer one of its markers. None when it is gone (404); WriteRefused when it is not known
        to be the run's (once its GET showed it without them, it is never asked again). Proven, it
        stays so until the run deletes it, whatever a GET sent meanwhile shows: the run may have
        written other values of its own to it since (another check, proven first)."""
        key = (item.endpoint, item.id)
        with self._lock:
            item = self._current(item)
            made, refused = self._refused.get(key, (item.made, None))
        if item.confirmed:
            return item
        if refused is not None and made == item.made:
            raise NotProven(str(refused), refused.answer)
        with noted(PROOF_NOTE), sent_for(Role.PROOF, item.kind):
            response = self.client.request("GET", item.url)
        if response.status_code == 404:
            return None
        answered = 200 <= response.status_code < 300
        with self._lock:
            now = self._current(item)  # proven by another check meanwhile, or its values rewritten
        if now.confirmed:
            return now
        if not (answered and carries(_json(response), now.markers)):
            answer = f"GET {self.root_path(item.url)} answered {response.status_code}"
            refusal = NotProven(f"not sent: {answer} without the values the run gave it, so it is not proven the run's own", answer)
            if answered:
                with self._lock:
                    self._refused[key] = (item.made, refusal)
            raise refusal
        confirmed = replace(now, confirmed=True)
        with self._lock:
            self._owned[key] = confirmed
        return confirmed

    def gone(self, item: Owned | Pending, settled: bool = True) -> None:
        """A creation settled: a resource of the run proven deleted (its id may name another
        resource from now on), or a creation that was never made; the journal forgets it, unless
        not `settled` yet (a DELETE taken at its word, until the run's last query: `settle`)."""
        if isinstance(item, Owned):
            with self._lock:
                key = (item.endpoint, item.id)
                known = self._owned.get(key)
                if known is not None and known.made == item.made:  # not another creation taken at its URL since
                    del self._owned[key]
                    for where in (item.endpoint, ANYWHERE):
                        self._seen.pop((where, item.id), None)
        if settled:
            self.settle(item.creation)

    def _take(self, item: Owned, turn: int) -> str | None:
        """Take a creation's answered id as the run's own (to be proven by a GET before any
        write); None once taken, else why the id is no new creation's."""
        item = replace(item, made=turn)
        with self._lock:
            self._reused(item.endpoint, item.id)
            why = self._known(item.endpoint, item.id, turn)
            if why is None:
                self._owned[(item.endpoint, item.id)] = item
        if why is None:
            self._ledger().record(item)
        return why

    def _reused(self, endpoint: str, resource_id: str) -> None:
        """A creation's answer, or a search by the run's markers, shows an id whose resource the run
        deleted: the id names another resource now (to be proven the run's own by its own markers).
        Called with the lock held."""
        key = (endpoint, resource_id)
        if key in self._deleted:
            del self._deleted[key]
            self._owned.pop(key, None)
            self._refused.pop(key, None)
            for where in (endpoint, ANYWHERE):  # the answers showed the deleted one's id, not this one's
                self._seen.pop((where, resource_id), None)

    def _known(self, endpoint: str, resource_id: str, turn: int) -> str | None:
        """Why an answered id cannot be a creation sent at `turn`: the run holds it already, or
        an answer showed it before; None when it is new. Called with the lock held."""
        known = self._owned.get((endpoint, resource_id))
        if known is not None:
            return f"which is the id of {known}, which the run created before"
        first = min((self._seen.get((where, resource_id), turn) for where in (endpoint, ANYWHERE)), default=turn)
        return "which an answer showed before the creation was sent" if first < turn else None

    def _ledger(self) -> Ledger:
        return _ledger.get() or self.fallback

    # Before a request

    def before(self, method: str, url: str, body: Any) -> int:
        """Raise WriteRefused for a request that would write to what the run did not create;
        journal a creation before it is sent. Returns the request's turn, for `after`."""
        turn = next(self._turns)
        method = method.upper()
        if method not in WRITE_METHODS:
            return turn
        target = self._target(url)
        if target is None:
            raise WriteRefused("not sent: its URL leaves the base URL, or holds a dot or empty segment, and the run writes only to its own resources")
        if target.path in DISCOVERY_ENDPOINTS:
            return turn
        if method == "POST":
            self._check_post(target, body)
            for creation in self._creations(target, body):
                if self.journal is not None and creation.markers:
                    self.journal.add(creation)
            return turn
        self._check_write(target)
        return turn

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
        deleted = self.deleted(item)
        if self.confirm(item) is None and not deleted:  # after the run's DELETE, a write meeting nothing is the point
            raise NotProven(f"not sent: {what} names a resource that is gone (a GET answered 404)")

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

    def after(self, method: str, url: str, body: Any, response: Any, turn: int = 0) -> None:
        """Take note of what a request created, and of the ids its answer shows; raise
        NotTheRunsOwn for a creation that must never be written to (an unsafe id, an id known
        before, or a resource that is not the one sent)."""
        target = self._target(url)
        creating = method.upper() == "POST" and target is not None and target.path not in DISCOVERY_ENDPOINTS
        where = self._where(target)
        answer = _json(response) if 200 <= response.status_code < 300 and (creating or where is not None) else None
        try:
            if creating and target is not None and target.path == BULK_ENDPOINT:
                self._after_bulk(body, response, answer, turn)
                self._bulk_deletions(body, answer)
            elif creating and target is not None and target.endpoint is not None and target.id is None:
                self._after_creation(target.endpoint, body, response, answer, turn)
            if method.upper() in ("PUT", "PATCH") and target is not None and target.id is not None and 200 <= response.status_code < 300:
                self._rewritten(target, written_markers(method, body))
            if method.upper() in ("GET", "PUT", "PATCH") and target is not None and target.id is not None and not urlsplit(url).query:
                self._proven_by_read(target, answer)
            if method.upper() == "DELETE" and target is not None and (200 <= response.status_code < 300 or response.status_code == 404):
                self._deleted_by_run(target)
        finally:
            if where is not None:
                self._note_ids(where, answer)

    def _proven_by_read(self, target: _Target, answer: Any) -> None:
        """A check's own GET of a resource's URL that answers the run's markers proves it the run's
        own, as the GET `confirm` would send: no second GET is sent before a write or its deletion
        (but after the run's DELETE of it: `_deleted`). The values of the run's it shows (a PUT or
        PATCH answer's too) become its markers, first: a check that replaced its userName leaves
        it the run's own by the new one."""
        key = (target.endpoint, target.id)
        with self._lock:
            item = self._owned.get(key)  # type: ignore[arg-type]
            refused = self._refused.get(key)  # type: ignore[arg-type]
            if item is None or (refused is not None and refused[0] == item.made) or not carries(answer, item.markers):
                return
            markers = _newest_first(markers_in(answer), item.markers)
            self._owned[key] = replace(item, confirmed=item.confirmed or key not in self._deleted, markers=markers)  # type: ignore[index]

    def _rewritten(self, target: _Target, markers: tuple[Marker, ...]) -> None:
        """A PUT or PATCH of a resource of the run's (proven before it was sent) went through: the
        values of the run's it wrote are its markers too, first (they replaced those of its
        creation)."""
        key = (target.endpoint, target.id)
        with self._lock:
            item = self._owned.get(key)  # type: ignore[arg-type]
            if item is not None and markers:
                self._owned[key] = replace(item, markers=_newest_first(markers, item.markers))  # type: ignore[index]

    def deleted(self, item: Owned) -> bool:
        """Whether the run sent a DELETE of this resource (this creation's, not another's taken at
        its URL since) that was answered 2xx or 404."""
        with self._lock:
            return self._deleted.get((item.endpoint, item.id)) == item.made

    def _deleted_by_run(self, target: _Target) -> None:
        """A DELETE of a resource the run owns was answered 2xx or 404: the resource is proven again
        by a GET before anything else is written to its URL, since its id may name another
        resource by then (RFC 7643 §3.1 says an id is never reassigned; some stores reuse them)."""
        key = (target.endpoint, target.id)
        with self._lock:
            item = self._owned.get(key)  # type: ignore[arg-type]
            if item is not None:
                self._owned[key] = replace(item, confirmed=False)  # type: ignore[index]
                self._deleted[key] = item.made  # type: ignore[index]

    def failed(self, method: str, url: str, body: Any, late: bool) -> None:
        """A request that got no answer: a creation it made may exist, or appear later (`late`)."""
        if method.upper() != "POST":
            return
        target = self._target(url)
        if target is None:
            return
        why = "its POST got no answer in time" if late else "its POST got no answer"
        bulk = target.path == BULK_ENDPOINT
        for creation in self._creations(target, body):
            self._pending(creation.endpoint, creation.markers, f"the bulk request creating it {why.removeprefix('its POST ')}" if bulk else why, late)

    def _after_creation(self, endpoint: str, body: Any, response: Any, answer: Any, turn: int) -> None:
        markers = markers_in(body)
        code = response.status_code
        if code >= 500:
            self._pending(endpoint, markers, f"its POST answered {code}")
            return
        if not 200 <= code < 300:
            self.settle(Creation(self._kind(endpoint), endpoint, markers))  # refused: nothing was made
            return
        answered = id_text(member(answer, "id"))
        resource_id = answered if answered is not None else self._id_in_location(response, endpoint)
        if resource_id is None:
            self._pending(endpoint, markers, f"its POST answered {code} without the id of the resource", created=True)
            return
        problem = unsafe_id_problem(resource_id)
        if problem:
            # Never written to at that id; looked for by its markers, as a creation whose id is unknown.
            self._pending(endpoint, markers, f"its POST answered the unsafe id {resource_id!r}", created=True)
            raise NotTheRunsOwn(
                f"the server answered {code} with the id {resource_id!r}, which {problem}: the resource cannot be addressed safely and was never written to"
            )
        if carries(answer, markers) is False:
            self._pending(endpoint, markers, f"its POST answered {code} with the resource {resource_id}, which shows other values", created=True)
            raise NotTheRunsOwn(
                f"the server answered {code} with the resource {resource_id}, which does not carry the {named_markers(markers)} sent: "
                "it is not the resource created, and the run never writes to it"
            )
        known = self._take(Owned(self._kind(endpoint), endpoint, resource_id, markers), turn)
        if known is not None:
            # No new resource's id: never written to as the run's; the one created is looked for by its markers.
            self._pending(endpoint, markers, f"its POST answered the id {resource_id}, {known}", created=True)

    def _after_bulk(self, body: Any, response: Any, answer: Any, turn: int) -> None:
        creations = self._bulk_creations(body)
        if not creations:
            return
        outcomes = member(answer, "Operations") if isinstance(answer, dict) and response.status_code == 200 else None
        if not isinstance(outcomes, list):
            if response.status_code >= 500 or response.status_code == 200:
                for _operation, endpoint, markers in creations:
                    self._pending(endpoint, markers, f"the bulk request creating it answered {response.status_code}")
            else:
                for _operation, endpoint, markers in creations:
                    self.settle(Creation(self._kind(endpoint), endpoint, markers))
            return
        by_bulk_id = {str(item.get("bulkId")): item for item in outcomes if isinstance(item, dict) and item.get("bulkId")}
        posts = [item for item in outcomes if isinstance(item, dict) and str(item.get("method", "")).upper() == "POST"]
        for index, (operation, endpoint, markers) in enumerate(creations):
            outcome = by_bulk_id.get(str(operation.get("bulkId"))) or (posts[index] if index < len(posts) else None)
            self._after_bulk_creation(endpoint, markers, outcome, turn)

    def _bulk_deletions(self, body: Any, answer: Any) -> None:
        """A bulk request was answered: each resource of the run one of its operations DELETEs may
        be gone, whatever the answer says of it (`_deleted_by_run`: proven again before a write),
        one the request names by the bulkId of its creation at the location the answer gave it."""
        outcomes = member(answer, "Operations") if isinstance(answer, dict) else None
        made = {
            str(member(outcome, "bulkId")): self._located(str(member(outcome, "location") or ""))
            for outcome in (outcomes if isinstance(outcomes, list) else [])
            if isinstance(outcome, dict) and member(outcome, "bulkId")
        }
        for operation in _bulk_operations(body) or []:
            target = self._target(str(operation.get("path", "")))
            if target is not None and target.id is not None and target.id.startswith("bulkId:"):
                target = made.get(target.id[len("bulkId:") :])
            if str(operation.get("method", "")).upper() == "DELETE" and target is not None and target.id is not None:
                self._deleted_by_run(target)

    def _creations(self, target: _Target, body: Any) -> list[Creation]:
        """What a POST creates: a resource on its endpoint, or each POST of a bulk request."""
        if target.endpoint is not None and target.id is None:
            return [Creation(self._kind(target.endpoint), target.endpoint, markers_in(body))]
        if target.path == BULK_ENDPOINT:
            return [Creation(self._kind(endpoint), endpoint, markers) for _operation, endpoint, markers in self._bulk_creations(body)]
        return []

    def _bulk_creations(self, body: Any) -> list[tuple[dict[str, Any], str, tuple[Marker, ...]]]:
        """Each POST of a bulk request on a resource endpoint, with the endpoint and its markers."""
        creations = []
        for operation in _bulk_operations(body) or []:
            target = self._target(str(operation.get("path", "")))
            if str(operation.get("method", "")).upper() == "POST" and target is not None and target.endpoint is not None and target.id is None:
                creations.append((operation, target.endpoint, markers_in(operation.get("data"))))
        return creations

    def _after_bulk_creation(self, endpoint: str, markers: tuple[Marker, ...], outcome: Any, turn: int) -> None:
        status = _int(member(outcome, "status")) if isinstance(outcome, dict) else None
        if status is not None and 300 <= status < 500:
            self.settle(Creation(self._kind(endpoint), endpoint, markers))  # refused: nothing was created
            return
        location = str(member(outcome, "location") or "") if isinstance(outcome, dict) else ""
        target = self._located(location)
        if status is not None and status < 300 and target is not None and target.endpoint == endpoint and target.id and not unsafe_id_problem(target.id):
            known = self._take(Owned(self._kind(endpoint), endpoint, target.id, markers), turn)
            if known is not None:
                self._pending(endpoint, markers, f"the bulk answer gave it the id {target.id}, {known}", created=True)
            return
        self._pending(endpoint, markers, "the bulk answer gave no location for it", created=status is not None and status < 300)

    def _pending(self, endpoint: str, markers: tuple[Marker, ...], why: str, late: bool = False, created: bool = False) -> None:
        self._ledger().record(Pending(self._kind(endpoint), endpoint, markers, why, late, created))

    def settle(self, creation: Creation) -> None:
        """The journal forgets a creation: it was never made, or is gone."""
        if self.journal is not None and creation.markers:
            self.journal.remove(creation)

    def _where(self, target: _Target | None) -> str | None:
        """The endpoint the resources of an answer are on ("*" for a search of every endpoint),
        None when the answer holds no resources."""
        if target is None:
            return None
        return target.endpoint or (ANYWHERE if target.path == "/.search" else None)

    def _note_ids(self, where: str, answer: Any) -> None:
        """Remember the ids an answer shows (its own, or those of the resources it lists)."""
        if not isinstance(answer, dict):
            return
        listed = member(answer, "Resources")
        shown = [answer, *(listed if isinstance(listed, list) else [])]
        ids = [id_text(member(item, "id")) for item in shown]
        turn = next(self._turns)
        with self._lock:
            for resource_id in ids:
                if isinstance(resource_id, str):
                    self._seen.setdefault((where, resource_id), turn)

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
            if origin(url) != origin(self.base_url) or not (path == self.base_path or path.startswith(self.base_path + "/")):
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
        target = self._located(location)
        return target.id if target is not None and target.endpoint == endpoint else None

    def _located(self, location: str) -> _Target | None:
        """Where a Location header points (a URI, or a reference relative to the base URL's, RFC 9110 §10.2.2)."""
        return self._target(urljoin(self.base_url + "/", location)) if location else None

    def created_at(self, location: str) -> Owned | None:
        """The run's resource a creation's Location names (taken from it when the answer held no
        body), to be read there; None when it names none of the run's."""
        target = self._located(location)
        if target is None or target.endpoint is None or target.id is None:
            return None
        return self.owned(target.endpoint, target.id)


def origin(url: str) -> tuple[str, str]:
    """A URL's scheme and authority, compared without case."""
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


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
