"""The transport under every connection: httpx2's own HTTP/1.1 (httpcore2 and h11), held to
scim-tui's policies, and plain-spoken.

- Protocol, connections, proxies: httpcore2's pools, one per route (direct, or through each
  proxy the environment sets, proxies.py: httpcore2 opens the CONNECT tunnels, sends http
  requests whole to the proxy and adds Proxy-Authorization).
- Deadline, head: the sockets under the pools (streams.py) bound each whole request in time,
  from connecting to its last byte, and each response head in size.
- Size: a response body larger than the limit is read no further, and the request fails.
  The limit counts the body as decoded: requests ask for no compression, and a gzip or
  deflate body sent anyway is decoded here, under the limit (a small "gzip bomb" cannot
  expand to gigabytes in memory). Any other encoding (stacked, br, zstd, unknown) is
  refused, never handed to a decoder without a limit.
- Nesting: a JSON body nested deeper than MAX_JSON_DEPTH is refused before anyone parses it
  (a parser's recursion would fail, or take the process down).
- A server in trouble: the connection that carried a 5xx is not used again (the server may drop
  it, and the next request on it would fail for another check's sake); nor the one that carried
  an answer that has no body (1xx, 204, 304) but whose head declares one: bytes the server sends
  after that head would be read as the beginning of the next answer on it.
- A kept-alive connection the server closed before any byte of its answer: a GET, PUT or DELETE
  goes again once on a new connection, and its answer says so (note_of); a POST or PATCH never.
- Reasons: socket, TLS and protocol errors are raised as httpx2's transport errors, with a
  sentence a person understands (what happened and what to do), the original kept as the cause.
"""

from __future__ import annotations

import socket
import ssl
import threading
import time
import zlib
from collections.abc import Iterable
from collections.abc import Iterator
from typing import Any
from typing import cast
from weakref import WeakKeyDictionary

import httpcore2
import httpx2

from scim_tui.checker.json_shape import json_depth_problem
from scim_tui.checker.limits import MAX_JSON_DEPTH
from scim_tui.checker.limits import byte_size
from scim_tui.net.proxies import Proxy
from scim_tui.net.proxies import ProxyFor
from scim_tui.net.streams import Attempt
from scim_tui.net.streams import DeadlineBackend
from scim_tui.net.streams import HeadTooLarge
from scim_tui.net.streams import ProxyFailure
from scim_tui.net.streams import Sockets

DEFAULT_PORTS = {"http": 80, "https": 443}
IDEMPOTENT = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
"""The methods sent again when a kept-alive connection was closed before any answer (never POST or PATCH)."""
RETRIED = "sent again on a new connection: the server had closed the kept-alive one before answering"
KEEPALIVE_SECONDS = 5.0
"""How long an idle connection is kept for the next request."""
MAX_IDLE = 16
"""Idle connections kept per route: more than the concurrency a run uses."""
_KINDS: dict[type[Exception], type[httpx2.TransportError]] = {
    httpcore2.ConnectTimeout: httpx2.ConnectTimeout,
    httpcore2.ReadTimeout: httpx2.ReadTimeout,
    httpcore2.WriteTimeout: httpx2.WriteTimeout,
    httpcore2.PoolTimeout: httpx2.PoolTimeout,
    httpcore2.ConnectError: httpx2.ConnectError,
    httpcore2.ReadError: httpx2.ReadError,
    httpcore2.WriteError: httpx2.WriteError,
    httpcore2.ProxyError: httpx2.ProxyError,
    httpcore2.UnsupportedProtocol: httpx2.UnsupportedProtocol,
    httpcore2.LocalProtocolError: httpx2.LocalProtocolError,
    httpcore2.RemoteProtocolError: httpx2.RemoteProtocolError,
}
"""httpcore2's errors as httpx2's."""
_DROPPED = (httpcore2.RemoteProtocolError, httpcore2.ReadError)
"""How a connection closed or reset before its answer shows."""


class ResponseTooLarge(httpx2.ReadError):
    """A response body longer than the connection's limit, or a head past the limits of streams.py."""


class ResponseUnreadable(httpx2.DecodingError):
    """A response whose body is refused unread: an encoding not decoded under the limit, or JSON nested too deep."""


class GuardedTransport(httpx2.BaseTransport):
    """httpcore2's HTTP/1.1 with a deadline per request, bounded heads and bodies, a retry on a
    dropped kept-alive connection, and human reasons."""

    def __init__(self, ssl_context: ssl.SSLContext, timeout: float, max_response_bytes: int, proxy_for: ProxyFor | None = None):
        self._ssl_context = ssl_context
        self._proxy_for = proxy_for
        self._sockets = Sockets()
        self._pools: dict[Proxy | None, httpcore2.ConnectionPool] = {}
        self._pools_lock = threading.Lock()
        self.timeout = timeout
        self.max_response_bytes = max_response_bytes
        self._notes: WeakKeyDictionary[httpx2.Response, str] = WeakKeyDictionary()
        self._notes_lock = threading.Lock()

    def note_of(self, response: httpx2.Response) -> str | None:
        """What the transport did beyond sending the request of an answer once (RETRIED), or None."""
        with self._notes_lock:
            return self._notes.get(response)

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        request.headers["Accept-Encoding"] = "identity"
        url = request.url
        proxy = self._proxy_for(url.scheme, url.host) if self._proxy_for else None
        sent = httpcore2.Request(
            method=request.method,
            url=httpcore2.URL(scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path),
            headers=request.headers.raw,
            content=request.read(),  # whole, so that it can be sent again
            extensions=request.extensions,
        )
        try:
            retried, response = self._send(request, sent, proxy, time.monotonic() + self.timeout)
        except Exception as exc:
            raise self.told(request, exc)  # noqa: B904 (told chains it, or says it whole)
        answer = self._answer(request, response)
        if retried:
            with self._notes_lock:
                self._notes[answer] = RETRIED
        return answer

    def _send(self, request: httpx2.Request, sent: httpcore2.Request, proxy: Proxy | None, deadline: float) -> tuple[bool, httpcore2.Response]:
        """The response's head, and whether the request went twice: a kept-alive connection the
        server closed before answering a byte sends an idempotent request again on a new one,
        as browsers and curl do (RFC 9112 §9.3.1)."""
        pool = self._pool(proxy)
        attempt = Attempt(deadline)
        try:
            with attempt:
                return False, pool.handle_request(sent)
        except httpcore2.ProxyError as refused:  # only through a proxy: CONNECT answered with another status than 2xx
            raise _refusal(cast(Proxy, proxy), request, str(refused)) from refused
        except _DROPPED as dropped:
            if proxy is not None and request.url.scheme == "https" and not (attempt.tunnelled or attempt.reused):
                raise ProxyFailure(f"the proxy {proxy.label} did not answer CONNECT {_target(request.url)} in HTTP: check the variable") from dropped
            if not attempt.reused or attempt.answered or request.method not in IDEMPOTENT:
                raise
        with Attempt(deadline, fresh=True):
            return True, pool.handle_request(sent)

    def _answer(self, request: httpx2.Request, response: httpcore2.Response) -> httpx2.Response:
        """httpx2's response to the request, its body read under the limits (_GuardedBody)."""
        headers = response.headers
        declared = next((value for name, value in headers if name.lower() == b"content-length"), b"")
        if request.method != "HEAD" and declared.isdigit() and int(declared) > self.max_response_bytes:
            response.close()
            raise self.too_large(request)
        encoding = b",".join(value for name, value in headers if name.lower() == b"content-encoding").decode("latin-1")
        try:
            decoder = _decoder(encoding)
        except ValueError as refused:
            response.close()
            raise ResponseUnreadable(f"the response of {origin(request.url)} {refused}", request=request) from None
        if decoder is not None:
            # Decoded here, so that httpx gets (and measures) the plain body.
            headers = [(k, v) for k, v in headers if k.lower() not in (b"content-encoding", b"content-length")]
        return httpx2.Response(
            response.status,
            headers=headers,  # as bytes, exactly as sent: a value beyond ASCII is no error, httpx2 decodes it as it can
            stream=_GuardedBody(response, self, request, decoder),
            extensions={key: response.extensions[key] for key in ("http_version", "reason_phrase") if key in response.extensions},
        )

    def _pool(self, proxy: Proxy | None) -> httpcore2.ConnectionPool:
        """The pool of a route: direct (None), or through that proxy."""
        pool = self._pools.get(proxy)
        if pool is not None:
            return pool
        with self._pools_lock:
            if proxy not in self._pools:
                self._pools[proxy] = self._new_pool(proxy)
            return self._pools[proxy]

    def _new_pool(self, proxy: Proxy | None) -> httpcore2.ConnectionPool:
        """httpcore2's pool for a route, on the deadline sockets, with no limit on connections
        (a run opens as many as it has checks at once)."""
        options: dict[str, Any] = {
            "ssl_context": self._ssl_context,
            "max_connections": None,
            "max_keepalive_connections": MAX_IDLE,
            "keepalive_expiry": KEEPALIVE_SECONDS,
            "network_backend": DeadlineBackend(self._sockets, proxy),
        }
        if proxy is None:
            return httpcore2.ConnectionPool(**options)
        where = httpcore2.URL(scheme=b"http", host=proxy.host.encode(), port=proxy.port, target=b"/")
        credentials = (proxy.credentials[0].encode(), proxy.credentials[1].encode()) if proxy.credentials else None
        return httpcore2.HTTPProxy(proxy_url=where, proxy_auth=credentials, **options)

    def close(self) -> None:
        with self._pools_lock:
            pools = list(self._pools.values())
        for pool in pools:
            pool.close()

    def abort(self) -> None:
        """End every request at once, from any thread: each fails as if the server closed its
        connection, and no new one is sent."""
        self._sockets.abort()

    def told(self, request: httpx2.Request, exc: Exception) -> Exception:
        """What httpcore2 or the sockets raised for a request, as httpx2's error in plain words;
        any other error as it is. Raised where it is caught, it keeps `exc` as its context."""
        if isinstance(exc, HeadTooLarge):
            too_large = ResponseTooLarge(f"the response of {origin(request.url)} {exc}", request=request)
            too_large.__suppress_context__ = True
            return too_large
        if isinstance(exc, ProxyFailure):
            return self._plain(httpx2.ProxyError, request, exc)
        kind = next((kind for error, kind in _KINDS.items() if isinstance(exc, error)), None)
        return exc if kind is None else self._plain(kind, request, exc)

    def _plain(self, kind: type[httpx2.TransportError], request: httpx2.Request, cause: BaseException) -> httpx2.TransportError:
        """What httpcore2 or the socket layer raised as httpx2's error, chained to it; one told in
        plain words ends its chain there, so that no message adds the socket's own words
        ("[Errno 111] Connection refused", "timed out") after it."""
        error = kind(str(cause) or type(cause).__name__, request=request)
        error.__cause__ = cause
        reason = human_reason(error, request, self.timeout)
        if reason is None:
            return error
        told = kind(reason, request=request)
        told.__suppress_context__ = True  # as `raise ... from None`
        return told

    def too_large(self, request: httpx2.Request) -> ResponseTooLarge:
        limit = byte_size(self.max_response_bytes)
        return ResponseTooLarge(
            f"the response of {origin(request.url)} is larger than {limit} (the profile's max_response_bytes): it was read no further",
            request=request,
        )


def _refusal(proxy: Proxy, request: httpx2.Request, answer: str) -> ProxyFailure:
    """A proxy's refusal to tunnel to the request's origin (`answer`: its status and reason), with the fix."""
    fix = (
        "put the proxy's user and password in its URL (http://user:password@host:port)"
        if answer.startswith("407")
        else "check that it may reach that host, or list the host in NO_PROXY"
    )
    return ProxyFailure(f"the proxy {proxy.label} refused to tunnel to {_target(request.url)} ({answer}): {fix}")


def _target(url: httpx2.URL) -> str:
    """host:port, as CONNECT names it."""
    port = url.port or DEFAULT_PORTS.get(url.scheme)
    return f"[{url.host}]:{port}" if ":" in url.host else f"{url.host}:{port}"


def _decoder(header: str) -> Any:
    """A zlib decoder for a gzip or deflate body, None for a plain one; ValueError, saying why,
    for any other encoding: stacked, br, zstd or unknown, none decoded under the size limit."""
    encodings = [part.strip().lower() for part in header.split(",") if part.strip() and part.strip().lower() != "identity"]
    if not encodings:
        return None
    if encodings in (["gzip"], ["x-gzip"]):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if encodings == ["deflate"]:
        return zlib.decompressobj(32 + zlib.MAX_WBITS)  # zlib-wrapped, as RFC 9110 means it
    raise ValueError(
        f"is encoded as {header.strip()!r} (Content-Encoding), though the request asked for none: only a single gzip or deflate "
        "encoding is decoded, within the profile's max_response_bytes, so the body was not read"
    )


class _GuardedBody(httpx2.SyncByteStream):
    """A response body read under the request's deadline (the socket's), and no further than
    the size limit (counted after decoding, when the transport decodes it). The connection goes
    back to its pool once the body is read whole, unless the answer was a 5xx."""

    def __init__(self, response: httpcore2.Response, transport: GuardedTransport, request: httpx2.Request, decoder: Any = None):
        self._response = response
        self._transport = transport
        self._request = request
        self._decoder = decoder

    def __iter__(self) -> Iterator[bytes]:
        limit = self._transport.max_response_bytes
        received = 0
        chunks: list[bytes] = []
        openers = 0
        stream = iter(cast(Iterable[bytes], self._response.stream))  # a sync pool's response
        while True:
            try:
                chunk = next(stream, None)
            except Exception as exc:
                raise self._transport.told(self._request, exc)  # noqa: B904 (told chains it, or says it whole)
            if chunk is None:
                self._check_depth(chunks, openers)
                self._release()
                return
            if self._decoder is not None:
                # One byte more than the room left is enough to know the body is too large.
                chunk = self._decode(chunk, limit - received + 1)
            received += len(chunk)
            if received > limit:
                self.close()
                raise self._transport.too_large(self._request)
            chunks.append(chunk)
            openers += chunk.count(b"[") + chunk.count(b"{")
            yield chunk

    def _check_depth(self, chunks: list[bytes], openers: int) -> None:
        """Refuse, once read, a JSON body nested too deep to parse (only a body with that many
        brackets in all is looked at)."""
        if openers <= MAX_JSON_DEPTH:
            return
        problem = json_depth_problem(b"".join(chunks))
        if problem:
            raise ResponseUnreadable(f"the response of {origin(self._request.url)} {problem}", request=self._request)

    def _decode(self, chunk: bytes, room: int) -> bytes:
        try:
            return self._decoder.decompress(chunk, room)
        except zlib.error as exc:
            self.close()
            raise httpx2.DecodingError(f"the response of {origin(self._request.url)} is not valid compressed data ({exc})", request=self._request) from exc

    def _release(self) -> None:
        if self._response.status >= 500 or _framing_in_doubt(self._response):
            # A server in trouble may drop the connection after such an answer, and one that
            # declares a body where none can be may send it: closed, the pool gives the next
            # request a new one.
            self._response.extensions["network_stream"].close()
        self.close()

    def close(self) -> None:
        # A body left unread leaves the connection unusable for another request: httpcore2 closes it.
        self._response.close()


def _framing_in_doubt(response: httpcore2.Response) -> bool:
    """Whether an answer that has no body (1xx, 204, 304: RFC 9112 §6.3) declares one in its head:
    a body sent anyway stays on the connection, ahead of the next answer."""
    if response.status >= 200 and response.status not in (204, 304):
        return False
    return any(name.lower() == b"transfer-encoding" or (name.lower() == b"content-length" and value.strip() != b"0") for name, value in response.headers)


def human_reason(exc: httpx2.TransportError, request: httpx2.Request, timeout: float) -> str | None:
    """What a transport error means for a person, and what to do; None when there is nothing better to say."""
    where = origin(request.url)
    causes = list(_chain(exc))
    if proxy_failure := _find(causes, ProxyFailure):
        return str(proxy_failure)
    if isinstance(exc, httpx2.TimeoutException):
        return f"no answer from {where} within {timeout:g} s (the profile's timeout)"
    if _find(causes, ssl.SSLCertVerificationError):
        return _untrusted(where, request.url.host, _find(causes, ssl.SSLCertVerificationError))
    if failure := _find(causes, ssl.SSLError):
        reason = failure.reason or str(failure)
        if "CERTIFICATE_REQUIRED" in reason:
            return f"{where} asks for a client certificate: set tls.client_cert and tls.client_key"
        return f"the TLS handshake with {where} failed ({reason}): check that it serves https on this port"
    if _find(causes, ConnectionRefusedError):
        return f"nothing listens on {where}: is the server running and the URL right?"
    if _find(causes, socket.gaierror):
        return f"the host name {request.url.host} could not be resolved (DNS): check the URL's host"
    if isinstance(exc, httpx2.RemoteProtocolError):
        return f"{where} closed the connection before the response was complete"
    if _find(causes, ConnectionResetError):
        return f"{where} reset the connection before the response was complete"
    return None


def _untrusted(where: str, host: str, failure: ssl.SSLCertVerificationError) -> str:
    if "mismatch" in str(failure) or "match" in (failure.verify_message or ""):
        return f"the certificate of {where} is not issued for {host}: use the host name it names, or set tls.verify = false"
    detail = failure.verify_message or "self-signed?"
    return f"the certificate of {where} is not trusted ({detail}): set tls.ca_bundle to its CA file, or tls.verify = false"


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: BaseException | None = exc
    while seen is not None:
        yield seen
        seen = seen.__cause__ or seen.__context__


def _find(causes: list[BaseException], kind: type[Any]) -> Any:
    return next((cause for cause in causes if isinstance(cause, kind)), None)


def origin(url: httpx2.URL) -> str:
    port = url.port or DEFAULT_PORTS.get(url.scheme)
    return f"{url.host}:{port}"
