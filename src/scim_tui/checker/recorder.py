"""The one door every request of a run goes through: the client's ``request`` method, wrapped.

The wrapper
- asks the guard (guard.py) before sending anything that writes, and tells it what came back;
- records each exchange, with the moment it was sent, in the run's log, and for the check
  running (a ContextVar per check, so checks running at the same time in different threads
  never see each other's), secrets redacted at capture;
- sends nothing but clean-up once the run is cancelled, or once the server stopped
  answering (a few requests in a row without an answer in time): the run then ends early
  instead of waiting a timeout for every request left;
- paces the requests (pacing.py): a maximum rate, and a busy server's 429 or 503 waited out;
- repeats a request a 307 or 308 answer directs elsewhere on the base URL's origin (RFC 7644
  §3.12, Table 8: "The client is directed to repeat the same HTTP request at the location
  identified"), through this same door: a write goes where the guard lets it, or nowhere.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC
from datetime import datetime
from typing import Any
from urllib.parse import urlencode
from urllib.parse import urljoin
from urllib.parse import urlsplit

from scim_tui.checker.exchanges import Exchange
from scim_tui.checker.exchanges import Redactor
from scim_tui.checker.exchanges import TransportNotes
from scim_tui.checker.exchanges import current_role
from scim_tui.checker.exchanges import describe_error
from scim_tui.checker.exchanges import why_sent
from scim_tui.checker.guard import WRITE_METHODS
from scim_tui.checker.guard import Guard
from scim_tui.checker.guard import WriteRefused
from scim_tui.checker.guard import origin
from scim_tui.checker.limits import MAX_BODY_CHARS
from scim_tui.checker.pacing import Pacer
from scim_tui.checker.pacing import Wait
from scim_tui.checker.pacing import busy_note
from scim_tui.checker.pacing import resent_note
from scim_tui.checker.secrets import Secrets

SILENT_AFTER = 3
"""Requests in a row without an answer in time after which the server is taken as stopped."""
REDIRECTS = frozenset({307, 308})
"""The answers directing a SCIM client to repeat its request at their Location (RFC 7644 §3.12, Table 8)."""
MAX_REDIRECTS = 5
"""The most times one request is repeated at a Location; the last answer stands then."""

_current: ContextVar[list[Exchange] | None] = ContextVar("scim_tui_exchanges", default=None)
_cleaning: ContextVar[bool] = ContextVar("scim_tui_cleaning", default=False)
_following: ContextVar[bool] = ContextVar("scim_tui_following", default=True)


class RunCancelled(BaseException):
    """Raised instead of sending a request once the run is cancelled or the server stopped answering.

    Not an Exception, so that no check's error handling reports it as the server's fault.
    `reason` says why, as a sentence a skipped result can end with.
    """

    def __init__(self, reason: str | None = None):
        reason = reason or "the run was cancelled while this check ran"
        super().__init__(reason)
        self.reason = reason


class NotSent(Exception):
    """A clean-up request not sent, because the server stopped answering."""


@contextmanager
def cleaning_up() -> Iterator[None]:
    """Requests made in this block go out even once the run is cancelled: they delete what it created."""
    token = _cleaning.set(True)
    try:
        yield
    finally:
        _cleaning.reset(token)


@contextmanager
def redirects_answered() -> Iterator[None]:
    """Requests made in this block are answered their redirect as it came, not repeated at its
    Location: for a check that judges the redirect itself (/Me MAY answer 308)."""
    token = _following.set(False)
    try:
        yield
    finally:
        _following.reset(token)


@contextmanager
def recording() -> Iterator[list[Exchange]]:
    """Collect, in the returned list, the exchanges made in this context until the block ends."""
    exchanges: list[Exchange] = []
    token = _current.set(exchanges)
    try:
        yield exchanges
    finally:
        _current.reset(token)


def current_exchanges() -> list[Exchange] | None:
    """The list the exchanges made now are collected in (`recording`), if any."""
    return _current.get()


class Silence:
    """Counts the requests in a row that got no answer in time, reads and writes apart (a server
    may hang on every write while it still answers reads). Past SILENT_AFTER of one kind the
    server is taken as stopped; then a clean-up request that gets no answer ends the clean-up too."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._in_a_row = {True: 0, False: 0}
        self.reason: str | None = None
        """Why the run ends early, once the server stopped answering."""
        self.cleanup_abandoned = False

    def answered(self, method: str) -> None:
        with self._lock:
            self._in_a_row[_writes(method)] = 0

    def timed_out(self, method: str, detail: str) -> None:
        with self._lock:
            if self.reason is not None and _cleaning.get():
                self.cleanup_abandoned = True
            writes = _writes(method)
            self._in_a_row[writes] += 1
            if self._in_a_row[writes] >= SILENT_AFTER and self.reason is None:
                kind = "writes" if writes else "reads"
                self.reason = f"the server stopped answering {kind} ({SILENT_AFTER} in a row got no answer: {detail}), so the run ended early"


def _writes(method: str) -> bool:
    return method.upper() in WRITE_METHODS


def is_timeout(exc: BaseException) -> bool:
    """Whether a request failed for want of an answer in time (whatever the client engine)."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, TimeoutError) or "Timeout" in type(seen).__name__:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


class Tries:
    """The attempts of one request: when the one under way was sent and how long it took, and
    the earlier ones, each answered busy and sent again after its wait."""

    def __init__(self, followed: str | None = None) -> None:
        self.earlier: list[Exchange] = []
        self.waits: list[Wait] = []
        self.followed = followed
        """Why the request goes to this URL: a redirect's Location (Recorder._redirected)."""
        self.sent()

    def sent(self) -> None:
        """An attempt goes out now."""
        self.started_at = datetime.now(UTC)
        self._started = time.perf_counter()
        self._took: float | None = None

    def answered(self) -> None:
        """The attempt under way got its whole answer."""
        self._took = time.perf_counter() - self._started

    @property
    def elapsed(self) -> float:
        """Seconds the attempt under way took (so far, when it got no answer)."""
        return self._took if self._took is not None else time.perf_counter() - self._started

    @property
    def note(self) -> str | None:
        """What the attempt under way tells of where it goes and of the wait before it, when it is sent again."""
        return _joined(self.followed, resent_note(self.waits[-1]) if self.waits else None)

    def resend(self, busy: Exchange, wait: Wait) -> None:
        """The attempt under way was answered busy (`busy`) and waited out: the request goes again."""
        self.earlier.append(busy)
        self.waits.append(wait)


class Recorder:
    """Stands in for a client's ``request`` method: guards, records and stops each call."""

    def __init__(
        self,
        client: Any,
        original: Any,
        secrets: Secrets,
        guard: Guard,
        cancelled: Callable[[], bool] | None = None,
        pacer: Pacer | None = None,
        log: list[Exchange] | None = None,
        notes: TransportNotes | None = None,
    ):
        self.client = client
        self.notes = notes
        """What the transport tells of each answer beyond the server's words."""
        self.original = original
        self.secrets = secrets
        self.redactor = Redactor(secrets)
        self.guard = guard
        self.cancelled = cancelled
        self.silence = Silence()
        self.pacer = pacer or Pacer()
        self.log: list[Exchange] = log if log is not None else []
        """Every exchange of the run, in the order they ended: those of the checks, and those made
        outside any (discovery, the resources checks share, clean-up)."""

    def __call__(self, method: str, url: str, **kwargs: Any) -> Any:
        response = self._sent(method, url, kwargs)
        for _ in range(MAX_REDIRECTS):
            location = self._redirected(response)
            if location is None:
                break
            # The Location is the whole URL to repeat the request at: its own query, not the first one's.
            kwargs = {key: value for key, value in kwargs.items() if key != "params"}
            followed = f"sent again where the {response.status_code} answer's Location directs it (RFC 7644 §3.12)"
            response = self._sent(method, location, kwargs, followed)
        return response

    def _redirected(self, response: Any) -> str | None:
        """Where a 307 or 308 answer directs its request, when that is on the base URL's origin (the
        credentials go nowhere else); None for any other answer."""
        location = response.headers.get("location") if response.status_code in REDIRECTS and _following.get() else None
        sent = getattr(response, "request", None)
        if not location or sent is None:
            return None
        url = urljoin(str(sent.url), location)
        return url if origin(url) == origin(base_url_of(self.client)) else None

    def _sent(self, method: str, url: str, kwargs: dict[str, Any], followed: str | None = None) -> Any:
        """The answer to one request, guarded, paced and recorded; `followed` notes a request
        repeated at a redirect's Location."""
        self._may_send(method, url)
        body = _request_body(kwargs)
        tries = Tries(followed)
        try:
            turn = self.guard.before(method, url, body)
            response = self._paced(method, url, kwargs, tries)
        except Exception as exc:
            exchange = self._request_part(method, url, kwargs, None)
            exchange.error = describe_error(exc)
            self._keep(exchange, tries)
            if not isinstance(exc, WriteRefused):
                timed_out = is_timeout(exc)
                if timed_out:
                    self.silence.timed_out(method, describe_error(exc, 160))
                self.guard.failed(method, url, body, late=timed_out)
            raise
        self.silence.answered(method)
        self._keep(self._exchange(method, url, kwargs, response), tries)
        self.guard.after(method, url, body, response, turn)
        return response

    def _keep(self, exchange: Exchange, tries: Tries) -> None:
        """Record the exchange of a request's last attempt in the run's log, and for the check that
        made it (when one did), after the earlier attempts of the request."""
        self._log(exchange, tries)
        exchange.earlier = list(tries.earlier)
        exchanges = _current.get()
        if exchanges is not None:
            exchanges.append(exchange)

    def _log(self, exchange: Exchange, tries: Tries) -> None:
        """Record the exchange of an attempt in the run's log, with its own start and duration."""
        exchange.started, exchange.elapsed = tries.started_at, tries.elapsed
        exchange.note = _joined(why_sent(), exchange.note, tries.note)
        exchange.role, exchange.subject = current_role()
        self.log.append(exchange)

    def _paced(self, method: str, url: str, kwargs: dict[str, Any], tries: Tries) -> Any:
        """The answer to the request, sent in its turn under the maximum rate, and sent again
        while the server answers that it is too busy: each busy answer is an exchange of its
        own (RFC 6585 §4, RFC 7231 §7.1.3), as is the last answer of a request the run stopped for."""
        while True:
            if not self.pacer.take_turn(self.interrupted):
                raise RunCancelled(self.stopped)
            tries.sent()
            response = self.original(method, url, **kwargs)
            tries.answered()
            wait = self.pacer.wait_for(response, len(tries.waits), sum(w.seconds for w in tries.waits), _cleaning.get())
            too_busy = wait is None and self.pacer.exhausted and not _cleaning.get()  # the server is too busy for the run to go on
            if wait is None and not too_busy:
                return response
            busy = self._exchange(method, url, kwargs, response)
            if wait is None or not self.pacer.wait(wait, self._named(method, url), self.interrupted):
                self._keep(busy, tries)
                raise RunCancelled(self.pacer.exhausted if wait is None else self.stopped)
            busy.resent = True
            self._log(busy, tries)
            busy.note = _joined(busy.note, busy_note(wait))
            tries.resend(busy, wait)

    def interrupted(self) -> bool:
        """Whether a wait is to be cut short: the run stopped, and this is no clean-up."""
        return not _cleaning.get() and self.stopped is not None

    @property
    def ended_early(self) -> str | None:
        """Why the run ends early, when the server made it: it stopped answering, or kept
        answering that it is too busy."""
        return self.silence.reason or self.pacer.exhausted

    @property
    def stopped(self) -> str | None:
        """Why no request but clean-up goes out any more, or None."""
        if self.ended_early:
            return self.ended_early
        if self.cancelled is not None and self.cancelled():
            return "the run was cancelled while this check ran"
        return None

    def _may_send(self, method: str, url: str) -> None:
        if not _cleaning.get():
            reason = self.stopped
            if reason:
                raise RunCancelled(reason)
        elif self.silence.cleanup_abandoned:
            raise NotSent(f"{self._named(method, url)} not sent: the server stopped answering, even to the clean-up")

    def _exchange(self, method: str, url: str, kwargs: dict[str, Any], response: Any) -> Exchange:
        exchange = self._request_part(method, url, kwargs, response)
        answered(exchange, response, self.redactor, self.notes)
        return exchange

    def _request_part(self, method: str, url: str, kwargs: dict[str, Any], response: Any) -> Exchange:
        sent = getattr(response, "request", None)
        if sent is not None and hasattr(sent, "headers") and hasattr(sent, "content"):
            return sent_part(sent, self.redactor)
        return Exchange(
            method=method.upper(),
            url=self.redactor.url(self._full_url(url, kwargs.get("params"))),
            request_headers=self.redactor.headers(self._request_headers(kwargs)),
            request_body=self.redactor.text(_cut(_text_of(_request_body(kwargs)))),
        )

    def _named(self, method: str, url: str) -> str:
        """A request as reasons name it (exchanges.request_line), before it is sent; its query left out."""
        return f"{method.upper()} {urlsplit(self._full_url(url, None)).path}"

    def _full_url(self, url: str, params: Any) -> str:
        base = base_url_of(self.client)
        full = url
        if base and not urlsplit(url).scheme:
            full = urljoin(base.rstrip("/") + "/", url.lstrip("/"))
        if params:
            items = params.items() if isinstance(params, Mapping) else params
            full = f"{full}{'&' if '?' in full else '?'}{urlencode(list(items))}"
        return full

    def _request_headers(self, kwargs: dict[str, Any]) -> list[tuple[str, str]]:
        items: list[tuple[str, str]] = []
        for source in (getattr(self.client, "headers", None), kwargs.get("headers")):
            if source:
                items.extend(_header_items(source))
        if "json" in kwargs:
            items.append(("Content-Type", "application/scim+json"))
        return items


def recorded(response: Any, redactor: Redactor, started: datetime, elapsed: float, notes: TransportNotes | None = None) -> Exchange:
    """The exchange of a request sent outside the run's recorder (the pre-run probe, straight
    through httpx2), as the recorder makes one."""
    exchange = sent_part(response.request, redactor)
    answered(exchange, response, redactor, notes)
    exchange.started, exchange.elapsed = started, elapsed
    return exchange


def sent_part(sent: Any, redactor: Redactor) -> Exchange:
    """The request of an exchange as httpx2 sent it: exactly what went on the wire, client
    default headers included."""
    return Exchange(
        method=sent.method,
        url=redactor.url(str(sent.url)),
        request_headers=redactor.headers(_header_items(sent.headers)),
        request_body=redactor.text(_cut(sent.content.decode("utf-8", "replace"))) or None,
    )


def answered(exchange: Exchange, response: Any, redactor: Redactor, notes: TransportNotes | None = None) -> None:
    """Fill an exchange with the response, redacted, and what the transport tells of it."""
    exchange.status_code = response.status_code
    exchange.response_headers = redactor.headers(_header_items(response.headers))
    exchange.response_body = redactor.text(_cut(_response_text(response)))
    exchange.note = notes.note_of(response) if notes is not None else None


def base_url_of(client: Any) -> str:
    """The base URL a client sends its requests under ("" when it tells none)."""
    base = getattr(client, "base_url", None) or getattr(getattr(client, "client", None), "base_url", None)
    return str(base or "")


def _header_items(headers: Any) -> list[tuple[str, str]]:
    if hasattr(headers, "multi_items"):
        return [(str(k), str(v)) for k, v in headers.multi_items()]
    if hasattr(headers, "items"):
        return [(str(k), str(v)) for k, v in headers.items()]
    return [(str(k), str(v)) for k, v in headers]


def _response_text(response: Any) -> str:
    try:
        return response.text or ""
    except Exception:  # an undecodable body still makes an exchange
        return "<the body could not be decoded as text>"


def _request_body(kwargs: dict[str, Any]) -> Any:
    """What a request sends: its JSON (as given), or its content as text or bytes; None without one."""
    if kwargs.get("json") is not None:
        return kwargs["json"]
    return kwargs.get("content") or kwargs.get("data")


def _text_of(body: Any) -> str | None:
    if body is None:
        return None
    if isinstance(body, bytes):
        return body.decode("utf-8", "replace")
    if isinstance(body, str):
        return body
    return json.dumps(body)


def _joined(*notes: str | None) -> str | None:
    """Notes of an exchange, in one; None without any."""
    return "; ".join(note for note in notes if note) or None


def _cut(text: str | None) -> str | None:
    if text is None or len(text) <= MAX_BODY_CHARS:
        return text
    return f"{text[:MAX_BODY_CHARS]}\n… ({len(text) - MAX_BODY_CHARS} more characters not kept)"


def recorder_of(client: Any) -> Recorder | None:
    """The recorder installed on a client, if any."""
    recorder = client.__dict__.get("request")
    return recorder if isinstance(recorder, Recorder) else None


def run_secrets(client: Any) -> list[str]:
    """The secrets a client's run redacts (none before install_recorder)."""
    recorder = recorder_of(client)
    return list(recorder.secrets) if recorder is not None else []


def install_recorder(
    client: Any,
    secrets: Secrets,
    guard: Guard,
    cancelled: Callable[[], bool] | None = None,
    pacer: Pacer | None = None,
    log: list[Exchange] | None = None,
    notes: TransportNotes | None = None,
) -> Recorder:
    """Wrap the client's request method for one run: its exchanges recorded and redacted, its
    writes guarded, nothing but clean-up sent once ``cancelled()`` says so.

    Installing again (a second run on the same client) replaces the run's state but keeps one wrapper.
    """
    current = recorder_of(client)
    original = current.original if current is not None else client.request
    recorder = Recorder(client, original, secrets, guard, cancelled, pacer, log, notes)
    client.request = recorder
    return recorder
