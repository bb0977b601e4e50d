"""Capture of the HTTP requests each check sends and the responses it gets.

The client's ``request`` method, which every scim2-client engine goes through, is
wrapped once. The wrapper appends each exchange to the list of the check running
in the current context (a ContextVar), so checks running at the same time in
different threads never see each other's exchanges. Secrets are redacted here,
at capture, so nothing downstream ever holds them.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from dataclasses import field
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qsl
from urllib.parse import urlencode
from urllib.parse import urljoin
from urllib.parse import urlsplit
from urllib.parse import urlunsplit

from scim_tui.checker.answers import response_problem

REDACTED = "***"

SENSITIVE_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
SENSITIVE_WORDS = ("token", "secret", "password", "passwd", "api-key", "apikey", "api_key", "auth", "session", "credential")
GENERIC_MESSAGES = frozenset({"Network error happened during request"})
"""scim2-client's wording for any transport failure; the cause that follows says more."""
MAX_BODY_CHARS = 256 * 1024
"""Bodies longer than this are cut in the exchange (the check itself saw all of it)."""


@dataclass(slots=True)
class Exchange:
    """One HTTP request and its response (or the error that stopped it)."""

    method: str
    url: str
    request_headers: dict[str, str] = field(default_factory=dict)
    request_body: str | None = None
    status_code: int | None = None
    response_headers: dict[str, str] = field(default_factory=dict)
    response_body: str | None = None
    elapsed: float = 0.0
    """Seconds from sending the request to reading the whole response."""
    error: str | None = None
    """Why no response came, when none did."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "url": self.url,
            "request_headers": self.request_headers,
            "request_body": self.request_body,
            "status_code": self.status_code,
            "response_headers": self.response_headers,
            "response_body": self.response_body,
            "elapsed": round(self.elapsed, 6),
            "error": self.error,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Exchange:
        return cls(**{key: data.get(key) for key in cls.__dataclass_fields__ if key in data})


_SENSITIVE_WORD = re.compile("|".join(re.escape(word) for word in SENSITIVE_WORDS))


def header(headers: Mapping[str, str], name: str) -> str:
    """A recorded header's value, its name compared without case; "" when there is none."""
    return next((value for key, value in headers.items() if key.lower() == name.lower()), "")


def status_line(code: int | None) -> str:
    """An HTTP status as a person reads it: "404 Not Found", "599" when unknown, "no response"."""
    if code is None:
        return "no response"
    try:
        return f"{code} {HTTPStatus(code).phrase}"
    except ValueError:
        return str(code)


def is_sensitive(name: str) -> bool:
    lowered = name.lower()
    return lowered in SENSITIVE_HEADERS or _SENSITIVE_WORD.search(lowered) is not None


class Redactor:
    """Replaces secrets: values of sensitive headers and query parameters, and known secret strings."""

    def __init__(self, secrets: Iterable[str] = ()):
        # Longest first, so a secret containing another is replaced whole.
        self.secrets = sorted({s for s in secrets if s and len(s) >= 4}, key=len, reverse=True)

    def text(self, value: str | None) -> str | None:
        """The text with known secrets replaced and terminal control characters made visible."""
        if value is None:
            return None
        for secret in self.secrets:
            value = value.replace(secret, REDACTED)
        return printable(value)

    def headers(self, headers: Iterable[tuple[str, str]]) -> dict[str, str]:
        """The headers, redacted; names and values interned, as thousands of exchanges repeat them."""
        redacted: dict[str, str] = {}
        for name, value in headers:
            name = sys.intern(name)
            clean = REDACTED if is_sensitive(name) else sys.intern(self.text(value) or "")
            redacted[name] = f"{redacted[name]}, {clean}" if name in redacted else clean
        return redacted

    def url(self, url: str) -> str:
        if "?" not in url and "@" not in url:
            return self.text(url) or ""
        parts = urlsplit(url)
        query = [(k, REDACTED if is_sensitive(k) else v) for k, v in parse_qsl(parts.query, keep_blank_values=True)]
        netloc = parts.netloc
        if "@" in netloc:
            netloc = f"{REDACTED}@{netloc.rsplit('@', 1)[1]}"
        clean = urlunsplit((parts.scheme, netloc, parts.path, urlencode(query, safe=":/@*"), parts.fragment))
        return self.text(clean) or ""


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """Text a server sent, safe to show in a terminal: control characters (an escape sequence
    could move the cursor, clear the screen or retitle the window) become visible symbols."""
    if not _CONTROL.search(text):
        return text
    text = text.replace("\r\n", "\n")
    return _CONTROL.sub(lambda m: chr(0x2400 + ord(m[0])) if ord(m[0]) < 0x20 else "\N{REPLACEMENT CHARACTER}", text)


_current: ContextVar[list[Exchange] | None] = ContextVar("scim_tui_exchanges", default=None)
_cleaning: ContextVar[bool] = ContextVar("scim_tui_cleaning", default=False)


class RunCancelled(BaseException):
    """Raised instead of sending a request once the run is cancelled.

    Not an Exception, so that no check's error handling reports it as the server's fault.
    """


@contextmanager
def cleaning_up() -> Iterator[None]:
    """Requests made in this block go out even once the run is cancelled: they delete what it created."""
    token = _cleaning.set(True)
    try:
        yield
    finally:
        _cleaning.reset(token)


@contextmanager
def recording() -> Iterator[list[Exchange]]:
    """Collect, in the returned list, the exchanges made in this context until the block ends."""
    exchanges: list[Exchange] = []
    token = _current.set(exchanges)
    try:
        yield exchanges
    finally:
        _current.reset(token)


class _RecordingRequest:
    """Stands in for a client's ``request`` method and records each call."""

    def __init__(self, client: Any, original: Any, redactor: Redactor, cancelled: Callable[[], bool] | None = None):
        self.client = client
        self.original = original
        self.redactor = redactor
        self.cancelled = cancelled

    def __call__(self, method: str, url: str, **kwargs: Any) -> Any:
        if self.cancelled is not None and self.cancelled() and not _cleaning.get():
            raise RunCancelled(f"{method} {url} not sent: the run was cancelled")
        exchanges = _current.get()
        if exchanges is None:
            return self.original(method, url, **kwargs)
        started = time.perf_counter()
        try:
            response = self.original(method, url, **kwargs)
        except Exception as exc:
            exchange = self._request_part(method, url, kwargs, None)
            exchange.elapsed = time.perf_counter() - started
            exchange.error = describe_error(exc)
            exchanges.append(exchange)
            raise
        exchange = self._request_part(method, url, kwargs, response)
        exchange.elapsed = time.perf_counter() - started
        exchange.status_code = response.status_code
        exchange.response_headers = self.redactor.headers(_header_items(response.headers))
        exchange.response_body = self.redactor.text(_cut(_response_text(response)))
        exchanges.append(exchange)
        return response

    def _request_part(self, method: str, url: str, kwargs: dict[str, Any], response: Any) -> Exchange:
        sent = getattr(response, "request", None)
        if sent is not None and hasattr(sent, "headers") and hasattr(sent, "content"):
            # httpx2 tells exactly what went on the wire, client default headers included.
            return Exchange(
                method=sent.method,
                url=self.redactor.url(str(sent.url)),
                request_headers=self.redactor.headers(_header_items(sent.headers)),
                request_body=self.redactor.text(_cut(sent.content.decode("utf-8", "replace"))) or None,
            )
        return Exchange(
            method=method.upper(),
            url=self.redactor.url(self._full_url(url, kwargs.get("params"))),
            request_headers=self.redactor.headers(self._request_headers(kwargs)),
            request_body=self.redactor.text(_body_of(kwargs)),
        )

    def _full_url(self, url: str, params: Any) -> str:
        base = getattr(self.client, "base_url", None) or getattr(getattr(self.client, "client", None), "base_url", None)
        full = url
        if base and not urlsplit(url).scheme:
            full = urljoin(str(base).rstrip("/") + "/", url.lstrip("/"))
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


def _body_of(kwargs: dict[str, Any]) -> str | None:
    if kwargs.get("json") is not None:
        return _cut(json.dumps(kwargs["json"]))
    content = kwargs.get("content") or kwargs.get("data")
    if isinstance(content, bytes):
        return _cut(content.decode("utf-8", "replace"))
    return _cut(content) if isinstance(content, str) else None


def _cut(text: str | None) -> str | None:
    if text is None or len(text) <= MAX_BODY_CHARS:
        return text
    return f"{text[:MAX_BODY_CHARS]}\n… ({len(text) - MAX_BODY_CHARS} more characters not kept)"


def describe_error(exc: BaseException, limit: int = 400) -> str:
    """One line telling what went wrong, from an exception, its notes and its causes.

    An answer the client could not read is described by what the server sent (answers.py).
    """
    problem = response_problem(exc)
    if problem:
        return _shortened(problem, limit)
    parts: list[str] = []
    seen: BaseException | None = exc
    while seen is not None and len(parts) < 4:
        notes = getattr(seen, "__notes__", None) or []
        for piece in [str(seen), *notes]:
            piece = " ".join(piece.split())
            if piece and piece != "UNKNOWN" and not any(piece in known for known in parts):
                parts.append(piece)
        seen = seen.__cause__ or seen.__context__
    if len(parts) > 1 and parts[0] in GENERIC_MESSAGES:
        parts = parts[1:]
    return _shortened("; ".join(parts) or type(exc).__name__, limit)


def _shortened(line: str, limit: int) -> str:
    return line if len(line) <= limit else f"{line[: limit - 1]}…"


def redacted_secrets(client: Any) -> list[str]:
    """The secrets redacted from a client's exchanges (none before install_recorder)."""
    recorder = client.__dict__.get("request")
    return list(recorder.redactor.secrets) if isinstance(recorder, _RecordingRequest) else []


def install_recorder(client: Any, secrets: Iterable[str] = (), cancelled: Callable[[], bool] | None = None) -> None:
    """Wrap the client's request method so the exchanges of each check are recorded, and
    no request but a clean-up one is sent once ``cancelled()`` says so.

    Installing twice keeps one wrapper, adds the new secrets to it and takes the new ``cancelled``.
    """
    current = client.__dict__.get("request")
    if isinstance(current, _RecordingRequest):
        current.redactor = Redactor([*current.redactor.secrets, *secrets])
        current.cancelled = cancelled
        return
    client.request = _RecordingRequest(client, client.request, Redactor(secrets), cancelled)
