"""What a check's HTTP exchanges are, and how they are made safe to show.

An Exchange is one request and its response, as recorded (recorder.py). Secrets are
redacted at capture, so nothing downstream ever holds them; text a server sent is made
safe for a terminal; an exception is told in one line a person understands.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from dataclasses import field
from datetime import datetime
from enum import StrEnum
from http import HTTPStatus
from typing import Any
from typing import Protocol
from urllib.parse import parse_qsl
from urllib.parse import urlencode
from urllib.parse import urlsplit
from urllib.parse import urlunsplit

from pydantic import ValidationError

from scim_tui.checker.answers import plain_validation
from scim_tui.checker.answers import response_problem
from scim_tui.checker.secrets import REDACTED
from scim_tui.checker.secrets import Secrets

_why: ContextVar[str | None] = ContextVar("scim_tui_why", default=None)

GONE_NOTE = "sent by scim-tui after deleting the resource: a deleted resource answers 404 (RFC 7644 §3.6)"
UNLISTED_NOTE = "sent by scim-tui after deleting the resource: a deleted resource is omitted from query results (RFC 7644 §3.6)"


class TransportNotes(Protocol):
    """What a transport did beyond sending a request once (sent it again on a new connection),
    told per answer; the engine writes it on the answer's exchange."""

    def note_of(self, response: Any) -> str | None: ...


class Role(StrEnum):
    """What a request was sent for: judged by the check, or sent by the run for itself around it."""

    JUDGED = "judged"
    CREATION = "creation"
    """A resource the check needs, created before the request it judges."""
    PROOF = "proof"
    """The GET of a resource's own URL that proves it the run's before a write (guard.py)."""
    CLEANUP = "cleanup"
    """Deleting what the run created, and making sure it is gone (RFC 7644 §3.6)."""


_role: ContextVar[tuple[Role, str | None]] = ContextVar("scim_tui_role", default=(Role.JUDGED, None))


SENSITIVE_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
SENSITIVE_WORDS = ("token", "secret", "password", "passwd", "api-key", "apikey", "api_key", "auth", "session", "credential")
MAX_MEMO_FIELDS = 1024
"""The redacted header fields a Redactor keeps for the next exchanges (Redactor.headers)."""
GENERIC_MESSAGES = frozenset({"Network error happened during request"})
"""scim2-client's wording for any transport failure; the cause that follows says more."""


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
    note: str | None = None
    """What the client did beyond sending the request once (sent it again on a new connection ...)."""
    started: datetime | None = None
    """When the request was sent (UTC); None in a report saved before exchanges kept it."""
    role: Role = Role.JUDGED
    subject: str | None = None
    """The resource type (User, Group …) a request the run sent for itself was about."""
    resent: bool = False
    """Answered busy (429, 503) and sent again after the wait it asked for: not the answer judged,
    a later exchange of the same request holds that (RFC 6585 §4, RFC 7231 §7.1.3)."""
    earlier: list[Exchange] = field(default_factory=list, repr=False, compare=False)
    """The earlier attempts of this exchange's request, each `resent`, in the order sent: a check
    judges this one, its results carry them all (`every_attempt`)."""

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
            "note": self.note,
            "started": self.started.isoformat(timespec="microseconds") if self.started else None,
            "role": self.role.value,
            "subject": self.subject,
            "resent": self.resent,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Exchange:
        fields: dict[str, Any] = {key: data.get(key) for key in cls.__dataclass_fields__ if key in data}
        if isinstance(fields.get("started"), str):
            fields["started"] = datetime.fromisoformat(fields["started"])
        fields["role"] = Role(fields.get("role") or Role.JUDGED)
        return cls(**fields)

    @property
    def purpose(self) -> str:
        """What the request was for, in words: "the request judged", "create the User it needs" …"""
        subject = self.subject or "resource"
        if self.role is Role.CREATION:
            return f"create the {subject} it needs"
        if self.role is Role.PROOF:
            return f"prove the {subject} is the run's"
        if self.role is Role.CLEANUP:
            return f"clean-up: {self._cleanup_step(subject)}"
        return "the request judged"

    def _cleanup_step(self, subject: str) -> str:
        if self.method == "DELETE":
            return f"delete the {subject}"
        if self.note == UNLISTED_NOTE:
            return f"check the {subject} is no longer listed"
        if "?" in self.url:
            return f"look for the {subject} by its values"
        return f"check the {subject} is gone"


def every_attempt(exchanges: Iterable[Exchange]) -> list[Exchange]:
    """The exchanges, each after the earlier attempts of its request (those not listed already),
    in the order they were sent."""
    exchanges = list(exchanges)
    listed = {id(exchange) for exchange in exchanges}
    return [attempt for exchange in exchanges for attempt in (*(e for e in exchange.earlier if id(e) not in listed), exchange)]


def answers(exchanges: Iterable[Exchange]) -> list[Exchange]:
    """The exchanges whose answer stands: not those answered busy, whose request was sent again."""
    return [exchange for exchange in exchanges if not exchange.resent]


@contextmanager
def noted(why: str) -> Iterator[None]:
    """The requests sent in this block carry `why` in their exchange's note: a request the run
    sends for itself, beside what the check judges (to prove a resource its own ...)."""
    token = _why.set(why)
    try:
        yield
    finally:
        _why.reset(token)


def why_sent() -> str | None:
    """The note of the requests sent now (`noted`), None outside any."""
    return _why.get()


@contextmanager
def sent_for(role: Role, subject: str | None = None) -> Iterator[None]:
    """The requests sent in this block are recorded with this role, about a resource of `subject`."""
    token = _role.set((role, subject))
    try:
        yield
    finally:
        _role.reset(token)


def current_role() -> tuple[Role, str | None]:
    """The role of the requests sent now (`sent_for`) and their subject; judged outside any."""
    return _role.get()


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
    """Replaces secrets: values of sensitive headers and query parameters, and known secret strings.

    Given a Secrets, it reads it live: a secret the run learns later is redacted from then on.
    """

    def __init__(self, secrets: Secrets | Iterable[str] = ()):
        self._secrets = secrets if isinstance(secrets, Secrets) else Secrets(secrets)
        self._header_memo: tuple[tuple[str, ...], dict[tuple[str, str], tuple[str, str]]] = ((), {})
        """Header fields redacted under the secrets known then: most repeat request after request."""

    @property
    def secrets(self) -> list[str]:
        return list(self._secrets)

    def text(self, value: str | None) -> str | None:
        """The text with known secrets replaced and terminal control characters made visible."""
        if value is None:
            return None
        return printable(self._secrets.redact(value))

    def headers(self, headers: Iterable[tuple[str, str]]) -> dict[str, str]:
        """The headers, redacted; names and values interned, as thousands of exchanges repeat them."""
        redacted: dict[str, str] = {}
        memo = self._fields_memo()
        for pair in headers:
            known = memo.get(pair)
            if known is None:
                known = memo[pair] = self._field(*pair)
            name, clean = known
            redacted[name] = f"{redacted[name]}, {clean}" if name in redacted else clean
        return redacted

    def _field(self, name: str, value: str) -> tuple[str, str]:
        name = sys.intern(printable(name))
        return name, REDACTED if is_sensitive(name) else sys.intern(self.text(value) or "")

    def _fields_memo(self) -> dict[tuple[str, str], tuple[str, str]]:
        """The header fields redacted so far, under the secrets known now (afresh once one is
        learnt, or once it holds MAX_MEMO_FIELDS: dates, lengths and ids vary)."""
        known = self._secrets.known
        under, memo = self._header_memo
        if under is not known or len(memo) >= MAX_MEMO_FIELDS:
            under, memo = self._header_memo = (known, {})
        return memo

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


_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
"""What a terminal must never be given as it came: C0 and C1 control characters (an escape
sequence moves the cursor, retitles the window, fills the clipboard with OSC 52), the bidi
controls that reorder what is shown (a right-to-left override), and lone surrogates (no text
encoding holds them)."""


def printable(text: str) -> str:
    """Text a server sent, safe to show in a terminal and to write in any file: C0 control
    characters become their visible symbols (␛), tab and line breaks stay; the other unsafe
    characters become "\N{REPLACEMENT CHARACTER}"."""
    if not _UNSAFE.search(text):
        return text
    text = text.replace("\r\n", "\n")
    return _UNSAFE.sub(lambda m: chr(0x2400 + ord(m[0])) if ord(m[0]) < 0x20 else "\N{REPLACEMENT CHARACTER}", text)


def printable_data(value: Any) -> Any:
    """JSON values (a result's data) with every string in them, keys included, made printable."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {printable(str(key)): printable_data(item) for key, item in value.items()}
    if isinstance(value, list):
        return [printable_data(item) for item in value]
    return value


def describe_error(exc: BaseException, limit: int = 400) -> str:
    """One line telling what went wrong, from an exception, its notes and its causes.

    An answer the client could not read is described by what the server sent (answers.py).
    """
    problem = response_problem(exc)
    if problem:
        return _shortened(printable(problem), limit)
    parts: list[str] = []
    visited: set[int] = set()
    seen: BaseException | None = exc
    while seen is not None and id(seen) not in visited and len(parts) < 4:
        visited.add(id(seen))
        notes = getattr(seen, "__notes__", None) or []
        for piece in [_own_words(seen), *notes]:
            piece = " ".join(piece.split())
            if piece and piece != "UNKNOWN" and not any(piece in known for known in parts):
                parts.append(piece)
        seen = seen.__cause__ or (None if seen.__suppress_context__ else seen.__context__)  # "from None": said whole
    if len(parts) > 1 and parts[0] in GENERIC_MESSAGES:
        parts = parts[1:]
    return _shortened(printable("; ".join(parts) or type(exc).__name__), limit)


def _own_words(exc: BaseException) -> str:
    """What an exception says of itself, in plain words: a validation error of the models told as
    answers.plain_validation tells it; "" for an exception that only repeats, in the library's
    wording, the validation error it was raised from (its cause says it)."""
    if isinstance(exc, ValidationError):
        return plain_validation(exc)
    if isinstance(exc.__cause__, ValidationError):
        return ""
    return str(exc)


def request_line(exchange: Exchange) -> str:
    """The request as reasons, exchanges and reports name it: the method and the target, the
    path from the server's root with its query (``GET /v2/Users?filter=…``), as HTTP sends it."""
    parts = urlsplit(exchange.url)
    target = f"{parts.path}?{parts.query}" if parts.query else parts.path or "/"
    return f"{exchange.method} {target}"


def failure_reason(exc: BaseException, exchanges: list[Exchange]) -> str:
    """One sentence on why a check stopped: the last request it made and what went wrong."""
    detail = describe_error(exc)
    if not exchanges:
        return detail
    last = exchanges[-1]
    request = request_line(last)
    if last.status_code is None:
        return f"{request} failed: {detail}"
    return f"{request} answered {last.status_code}: {detail}"


def _shortened(line: str, limit: int) -> str:
    return line if len(line) <= limit else f"{line[: limit - 1]}…"
