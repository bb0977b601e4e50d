"""HTTP/1.1 connections for the transport: sockets bounded by a deadline, kept alive in a pool,
directly or through an HTTP proxy (proxies.py).

The standard library's http.client speaks the protocol (status line, headers, chunked and
sized bodies); this module gives it sockets. Every read and write of a socket waits at most
what is left of its request's deadline, so a server that drips one byte at a time is cut
off when the request's time is up, not after one timeout per byte.
"""

from __future__ import annotations

import http.client
import select
import socket
import ssl
import threading
import time
import weakref
from contextlib import suppress
from typing import Any
from typing import cast

from scim_tui.checker.limits import MAX_HEADER_BYTES
from scim_tui.checker.limits import MAX_HEADER_FIELDS
from scim_tui.checker.limits import byte_size
from scim_tui.net.proxies import Proxy
from scim_tui.net.proxies import ProxyFor

KEEPALIVE_SECONDS = 5.0
"""How long an idle connection is kept for the next request."""
MAX_IDLE_PER_ORIGIN = 16
"""Idle connections kept per origin: more than the concurrency a run uses."""


class ProxyFailure(OSError):
    """The proxy cannot be reached, or refuses to tunnel; the message says which and what to do."""


class DeadlinePassed(TimeoutError):
    """The request's deadline passed before a socket operation could start."""


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise DeadlinePassed("the request's deadline passed")
    return left


class _Deadline:
    """Makes every read and write of a socket wait at most until its `deadline`."""

    deadline = float("inf")

    def recv_into(self, buffer: Any, *args: Any) -> int:
        self.settimeout(_left(self.deadline))  # type: ignore[attr-defined]
        return super().recv_into(buffer, *args)  # type: ignore[misc]

    def sendall(self, data: Any, *args: Any) -> None:
        self.settimeout(_left(self.deadline))  # type: ignore[attr-defined]
        super().sendall(data, *args)  # type: ignore[misc]


class _DeadlineSocket(_Deadline, socket.socket):
    """A TCP socket bounded by a deadline."""


class _DeadlineTLSSocket(_Deadline, ssl.SSLSocket):
    """The same over TLS."""


def _tunnel(sock: socket.socket, proxy: Proxy, host: str, port: int) -> None:
    """Ask the proxy for a tunnel to host:port (CONNECT, RFC 9110 §9.3.6)."""
    target = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    authorization = f"Proxy-Authorization: {proxy.authorization}\r\n" if proxy.authorization else ""
    sock.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n{authorization}\r\n".encode())
    answer = BoundedResponse(sock, method="CONNECT")
    try:
        answer.begin()
    except http.client.HTTPException as exc:
        raise ProxyFailure(f"the proxy {proxy.label} did not answer CONNECT {target} in HTTP ({type(exc).__name__}): check the variable") from exc
    if not 200 <= answer.status < 300:
        fix = (
            "put the proxy's user and password in its URL (http://user:password@host:port)"
            if answer.status == 407
            else "check that it may reach that host, or list the host in NO_PROXY"
        )
        raise ProxyFailure(f"the proxy {proxy.label} refused to tunnel to {target} ({answer.status} {answer.reason}): {fix}")


Origin = tuple[str, str, int]
"""Scheme, host and port."""


class HeadTooLarge(http.client.HTTPException):
    """A response whose header section passes a limit (MAX_HEADER_BYTES, MAX_HEADER_FIELDS); the
    message says which, as the end of "the response of host:port ..."."""


class _BoundedHead:
    """The reader of a response while its head is read: what http.client reads line by line,
    no more than MAX_HEADER_BYTES in all, nor more lines than MAX_HEADER_FIELDS fields take."""

    def __init__(self, reader: Any):
        self._reader = reader
        self._left = MAX_HEADER_BYTES
        self._lines = -1  # the status line is no field

    def readline(self, limit: int = -1) -> bytes:
        room = self._left + 1 if limit < 0 else min(limit, self._left + 1)
        line = self._reader.readline(room)
        self._left -= len(line)
        self._lines += 1
        if self._left < 0:
            raise HeadTooLarge(f"has a header section larger than {byte_size(MAX_HEADER_BYTES)} (a limit of scim-tui): it was read no further")
        if self._lines > MAX_HEADER_FIELDS:
            raise HeadTooLarge(f"has {MAX_HEADER_FIELDS} header fields or more (a limit of scim-tui): it was read no further")
        return line

    def __getattr__(self, name: str) -> Any:
        return getattr(self._reader, name)


class BoundedResponse(http.client.HTTPResponse):
    """A response whose head is read within the limits of _BoundedHead: a server that sends
    megabytes of header fields on every answer would hold them all in memory."""

    def begin(self) -> None:
        reader = self.fp
        self.fp = _BoundedHead(reader)  # type: ignore[assignment]  # reads as http.client reads its BufferedReader, bounded
        try:
            super().begin()
        finally:
            if self.fp is not None:
                self.fp = reader


class Connection(http.client.HTTPConnection):
    """One kept-alive HTTP/1.1 connection on a deadline socket (never opening one by itself)."""

    auto_open = 0
    response_class = BoundedResponse

    def __init__(self, origin: Origin, sock: _DeadlineSocket | _DeadlineTLSSocket, forward: Proxy | None = None):
        super().__init__(origin[1], origin[2])
        self.origin = origin
        self.sock = sock
        self.forward = forward
        """The proxy this connection goes to, when requests are sent to it whole (http URLs)."""
        self.idle_since = time.monotonic()
        self.served = 0
        """How many responses it carried: a connection that served one was kept alive since."""

    def bound(self, deadline: float) -> None:
        """Bound the socket's operations by this request's deadline."""
        cast(_Deadline, self.sock).deadline = deadline

    def abort(self) -> None:
        """End the connection from any thread: a read or write waiting on it returns at once (the
        thread that owns it closes it)."""
        sock = self.sock
        if sock is not None:
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def reusable(self) -> bool:
        """Open, not idle for too long, and not closed (nor written to) by the server meanwhile."""
        if self.sock is None or time.monotonic() - self.idle_since > KEEPALIVE_SECONDS:
            return False
        return not _readable(self.sock)


def _readable(sock: socket.socket) -> bool:
    """Whether an idle socket has something to read (a close, or bytes nobody asked for)."""
    if hasattr(select, "poll"):  # select.select fails on descriptors past FD_SETSIZE
        poller = select.poll()
        poller.register(sock, select.POLLIN)
        return bool(poller.poll(0))
    readable, _, _ = select.select([sock], [], [], 0)
    return bool(readable)


class Pool:
    """Idle connections by origin, shared by the threads of a run."""

    def __init__(self, ssl_context: ssl.SSLContext, proxy_for: ProxyFor | None = None):
        # The profile's own context: it now wraps sockets as deadline sockets.
        ssl_context.sslsocket_class = _DeadlineTLSSocket
        self._ssl_context = ssl_context
        self._proxy_for = proxy_for
        self._idle: dict[Origin, list[Connection]] = {}
        self._open: weakref.WeakSet[Connection] = weakref.WeakSet()
        """Every connection opened, in use or idle, until it is dropped: what `abort` ends."""
        self._lock = threading.Lock()
        self._closed = False
        self._aborted = False

    def connection(self, origin: Origin, deadline: float, fresh: bool = False) -> Connection:
        """An idle connection to the origin that is still good, or a new one (`fresh`: always a new
        one); connect errors raised as they come."""
        while not fresh:
            with self._lock:
                idle = self._idle.get(origin)
                connection = idle.pop() if idle else None
            if connection is None:
                break
            if connection.reusable():
                connection.bound(deadline)
                return connection
            connection.close()
        if self._aborted:
            raise ConnectionAbortedError("the request was abandoned: nothing waits for its answer any more")
        proxy = self._proxy_for(origin[0], origin[1]) if self._proxy_for else None
        sock = self._connect(origin, deadline, proxy)
        connection = Connection(origin, sock, proxy if proxy and origin[0] != "https" else None)
        with self._lock:
            self._open.add(connection)
            aborted = self._aborted
        if aborted:  # ended while it connected
            connection.abort()
        return connection

    def _connect(self, origin: Origin, deadline: float, proxy: Proxy | None) -> _DeadlineSocket | _DeadlineTLSSocket:
        scheme, host, port = origin
        try:
            raw = socket.create_connection((proxy.host, proxy.port) if proxy else (host, port), timeout=_left(deadline))
        except OSError as exc:
            if proxy is None or isinstance(exc, TimeoutError):
                raise
            reason = getattr(exc, "strerror", None) or str(exc)
            raise ProxyFailure(f"the proxy {proxy.label} cannot be reached ({reason}): check the variable, or list the host in NO_PROXY") from exc
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock = _DeadlineSocket(fileno=raw.detach())
        sock.deadline = deadline
        if scheme != "https":
            return sock
        if proxy is not None:
            try:
                _tunnel(sock, proxy, host, port)
            except BaseException:
                sock.close()
                raise
        sock.settimeout(_left(deadline))  # the handshake's time
        try:
            tls = cast(_DeadlineTLSSocket, self._ssl_context.wrap_socket(sock, server_hostname=host))  # its sslsocket_class
        except BaseException:
            sock.close()
            raise
        tls.deadline = deadline
        return tls

    def release(self, connection: Connection) -> None:
        """Keep a connection whose response was read whole for the next request."""
        connection.idle_since = time.monotonic()
        connection.served += 1
        with self._lock:
            idle = self._idle.setdefault(connection.origin, [])
            if not self._closed and connection.sock is not None and len(idle) < MAX_IDLE_PER_ORIGIN:
                idle.append(connection)
                return
        connection.close()

    def abort(self) -> None:
        """End every connection at once, those in use too, from any thread; none opens after."""
        with self._lock:
            self._closed = self._aborted = True
            connections = list(self._open)
        for connection in connections:
            connection.abort()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            connections = [c for idle in self._idle.values() for c in idle]
            self._idle.clear()
        for connection in connections:
            connection.close()
