"""The sockets under httpx2's own HTTP/1.1 (httpcore2 and h11), held to scim-tui's limits.

httpcore2 speaks the protocol and keeps the connections; it reads and writes through a network
backend, and this one adds what httpcore2 has no setting for:
- a deadline per request: every read and write waits at most what is left of its request's
  time, so a server that drips one byte at a time is cut off when that time is up (a timeout per
  socket operation would let it go on forever);
- a bounded response head: no more than MAX_HEADER_BYTES, and fewer than MAX_HEADER_FIELDS
  fields, counted as the bytes arrive (a server sending megabytes of header fields on every
  answer would have them held in every exchange);
- abort(), from any thread: every socket is shut at once, and none opens after.

Which request a read or write serves is told by the Attempt current in the sending thread
(`with Attempt(deadline):`); a stream keeps the attempt whose request it carries, for the reads of its
body, which come after httpcore2 returned the response.
"""

from __future__ import annotations

import re
import socket
import ssl
import threading
import time
import weakref
from collections.abc import Iterable
from contextlib import suppress
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import httpcore2

from scim_tui.checker.limits import MAX_HEADER_BYTES
from scim_tui.checker.limits import MAX_HEADER_FIELDS
from scim_tui.checker.limits import byte_size
from scim_tui.net.proxies import Proxy

ABANDONED = "the request was abandoned: nothing waits for its answer any more"


class ProxyFailure(OSError):
    """The proxy cannot be reached, or refuses to tunnel; the message says which and what to do."""


class HeadTooLarge(Exception):
    """A response whose header section passes a limit (MAX_HEADER_BYTES, MAX_HEADER_FIELDS); the
    message says which, as the end of "the response of host:port ..."."""


@dataclass(eq=False)
class Attempt:
    """One sending of a request: its deadline, and what the connection it went on saw."""

    deadline: float
    """time.monotonic() at which the request's time is up, from connecting to its last byte."""
    fresh: bool = False
    """It may go only on a new connection: a kept-alive one it is given is closed instead."""
    reused: bool = False
    """It went on a connection that had carried an answer before."""
    answered: bool = False
    """A byte of its answer arrived."""
    tunnelled: bool = False
    """A proxy opened a tunnel for it (CONNECT answered with 2xx)."""

    def __enter__(self) -> Attempt:
        """The attempt the reads and writes of this thread serve, while httpcore2 sends it."""
        self._token = _CURRENT.set(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _CURRENT.reset(self._token)


_CURRENT: ContextVar[Attempt | None] = ContextVar("scim_tui_attempt", default=None)


def _left(deadline: float, timed_out: type[Exception]) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise timed_out("the request's deadline passed")
    return left


class Sockets:
    """The streams a transport opened, until they are dropped: what abort() ends."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: weakref.WeakSet[BoundedStream] = weakref.WeakSet()
        self.aborted = False

    def add(self, stream: BoundedStream) -> BoundedStream:
        with self._lock:
            self._open.add(stream)
            aborted = self.aborted
        if aborted:  # ended while it connected
            stream.abort()
        return stream

    def abort(self) -> None:
        """End every stream at once, those in use too, from any thread; none opens after."""
        with self._lock:
            self.aborted = True
            streams = list(self._open)
        for stream in streams:
            stream.abort()


class DeadlineBackend(httpcore2.NetworkBackend):
    """httpcore2's sockets, connected within the request's deadline, as BoundedStreams. One
    backend per route: with `proxy`, it connects to that proxy, and says so when it cannot."""

    def __init__(self, sockets: Sockets, proxy: Proxy | None = None):
        self._sockets = sockets
        self._plain = httpcore2.SyncBackend()
        self.proxy = proxy

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.NetworkStream:
        attempt = _CURRENT.get()
        if attempt is None:
            raise RuntimeError("a DeadlineBackend connects only within an Attempt (GuardedTransport)")
        deadline = attempt.deadline
        if self._sockets.aborted:
            raise httpcore2.ConnectError(ABANDONED)
        try:
            stream = self._plain.connect_tcp(host, port, _left(deadline, httpcore2.ConnectTimeout), local_address, socket_options)
        except httpcore2.ConnectError as exc:
            if self.proxy is None:
                raise
            cause = exc.__cause__
            reason = getattr(cause, "strerror", None) or str(cause or exc)
            raise ProxyFailure(f"the proxy {self.proxy.label} cannot be reached ({reason}): check the variable, or list the host in NO_PROXY") from exc
        return self._sockets.add(BoundedStream(stream, self._sockets, deadline, self.proxy is not None))


class BoundedStream(httpcore2.NetworkStream):
    """A stream whose reads and writes end by its request's deadline, and whose response heads
    are counted against the limits (httpcore2's read and write timeouts are not used)."""

    def __init__(self, inner: httpcore2.NetworkStream, sockets: Sockets, deadline: float, to_proxy: bool = False):
        self._inner = inner
        self._sockets = sockets
        self._deadline = deadline
        self._to_proxy = to_proxy
        self._attempt: Attempt | None = None
        self._head: _Head | None = None
        self.answers = 0
        """How many response heads it carried: a stream that carried one was kept alive since."""

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        attempt = _CURRENT.get()
        if attempt is not None and attempt is not self._attempt:
            self._begin(attempt)
        self._inner.write(buffer, _left(self._deadline, httpcore2.WriteTimeout))

    def _begin(self, attempt: Attempt) -> None:
        """The first bytes of a request: its deadline and its answer's head from now on."""
        if attempt.fresh and self.answers:
            # httpcore2 closes this connection and gives the request another one.
            raise httpcore2.ConnectionNotAvailable()
        self._attempt, self._deadline = attempt, attempt.deadline
        attempt.reused = self.answers > 0
        self._head = _Head()

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        data = self._inner.read(max_bytes, _left(self._deadline, httpcore2.ReadTimeout))
        if data and self._attempt is not None:
            self._attempt.answered = True
        if data and self._head is not None and self._head.ended(data):
            self._head = None
            self.answers += 1
        return data

    def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None) -> httpcore2.NetworkStream:
        """TLS on this connection (through a proxy: in its tunnel), the handshake within the deadline."""
        tls = self._inner.start_tls(ssl_context, server_hostname, _left(self._deadline, httpcore2.ConnectTimeout))
        attempt = _CURRENT.get()
        if attempt is not None and self._to_proxy:
            attempt.tunnelled = True
        return self._sockets.add(BoundedStream(tls, self._sockets, self._deadline))

    def close(self) -> None:
        self._inner.close()

    def abort(self) -> None:
        """Shut the socket from any thread: a read or write waiting on it returns at once (the
        thread that owns it closes it)."""
        sock = self._inner.get_extra_info("socket")
        if sock is not None:
            with suppress(OSError):
                socket.socket.shutdown(sock, socket.SHUT_RDWR)  # the socket's own, under TLS too

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


_HEAD_END = re.compile(rb"\n\r?\n")
"""Where a response head ends, as h11 finds it."""


class _Head:
    """The head of a response as its bytes arrive: no more than MAX_HEADER_BYTES in all, nor as
    many fields as MAX_HEADER_FIELDS. Interim answers (1xx but 101) are counted each anew."""

    def __init__(self) -> None:
        self._restart()

    def _restart(self) -> None:
        self._size = 0
        self._lines = 0
        self._start = b""
        self._tail = b""

    def ended(self, data: bytes) -> bool:
        """Count a chunk in; whether the head ended in it (HeadTooLarge past a limit)."""
        seen = self._tail + data
        match = _HEAD_END.search(seen)
        end = match.end() - len(self._tail) if match else len(data)
        self._size += end
        self._lines += data.count(b"\n", 0, end)
        self._start = (self._start + data[:16])[:16]
        self._tail = seen[-2:]
        fields = self._lines - 1 - (1 if match else 0)  # neither the status line nor the blank line
        if self._size > MAX_HEADER_BYTES:
            raise HeadTooLarge(f"has a header section larger than {byte_size(MAX_HEADER_BYTES)} (a limit of scim-tui): it was read no further")
        if fields >= MAX_HEADER_FIELDS:
            raise HeadTooLarge(f"has {MAX_HEADER_FIELDS} header fields or more (a limit of scim-tui): it was read no further")
        if match is None:
            return False
        if re.match(rb"\s*HTTP/\S+ 1(?!01)\d\d", self._start):  # an interim answer: the final one follows
            self._restart()
            return self.ended(data[end:]) if end < len(data) else False
        return True
