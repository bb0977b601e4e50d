"""The HTTP transport under every connection: lean, bounded in time and size, and plain-spoken.

- Protocol: HTTP/1.1 by the standard library's http.client, over kept-alive connections
  (connections.py). It costs the client half the CPU of httpx2's own transport (httpcore2
  and h11) per request; httpx2 still builds the requests and reads the responses.
- Deadline: the profile's timeout bounds each whole request, from connecting to reading the
  last byte. A timeout per socket operation would let a server that drips one byte at a
  time go on forever; here every socket read and write gets what is left of the request's time.
- Size: a response body larger than the limit is read no further, and the request fails.
  The limit counts the body as decoded: requests ask for no compression, and a gzip or
  deflate body sent anyway is decoded here, under the limit (a small "gzip bomb" cannot
  expand to gigabytes in memory). Any other encoding (stacked, br, zstd, unknown) is
  refused, never handed to a decoder without a limit.
- Nesting: a JSON body nested deeper than MAX_JSON_DEPTH is refused before anyone parses it
  (a parser's recursion would fail, or take the process down).
- Reasons: socket, TLS and protocol errors are raised as httpx2's transport errors, with a
  sentence a person understands (what happened and what to do), the original kept as the cause.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import ssl
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from weakref import WeakKeyDictionary

import httpx2

from scim_tui.checker.json_shape import json_depth_problem
from scim_tui.checker.limits import MAX_JSON_DEPTH
from scim_tui.checker.limits import byte_size
from scim_tui.net.connections import Connection
from scim_tui.net.connections import HeadTooLarge
from scim_tui.net.connections import Origin
from scim_tui.net.connections import Pool
from scim_tui.net.connections import ProxyFailure
from scim_tui.net.proxies import ProxyFor

DEFAULT_PORTS = {"http": 80, "https": 443}
IDEMPOTENT = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
"""The methods sent again when a kept-alive connection was closed before any answer (never POST or PATCH)."""
RETRIED = "sent again on a new connection: the server had closed the kept-alive one before answering"
DROPPED = (http.client.RemoteDisconnected, ConnectionResetError)
"""How a connection closed before any byte of its answer shows."""


class ResponseTooLarge(httpx2.ReadError):
    """A response body longer than the connection's limit."""


class ResponseUnreadable(httpx2.DecodingError):
    """A response whose body is refused unread: an encoding not decoded under the limit, or JSON nested too deep."""


class GuardedTransport(httpx2.BaseTransport):
    """HTTP/1.1 over kept-alive connections (connections.py), with a deadline per request, a
    response size limit and human reasons."""

    def __init__(self, ssl_context: ssl.SSLContext, timeout: float, max_response_bytes: int, proxy_for: ProxyFor | None = None):
        self._pool = Pool(ssl_context, proxy_for)
        self.timeout = timeout
        self.max_response_bytes = max_response_bytes
        self._notes: WeakKeyDictionary[httpx2.Response, str] = WeakKeyDictionary()
        self._notes_lock = threading.Lock()

    def note_of(self, response: httpx2.Response) -> str | None:
        """What the transport did beyond sending the request of an answer once (RETRIED), or None."""
        with self._notes_lock:
            return self._notes.get(response)

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        deadline = time.monotonic() + self.timeout
        request.headers["Accept-Encoding"] = "identity"
        body = request.read()
        url = request.url
        address = (url.scheme, url.host, url.port or DEFAULT_PORTS.get(url.scheme, 80))
        connection = self._connection(request, address, deadline)
        retried = None
        try:
            response = self._send(connection, request, body)
        except DROPPED as dropped:
            # A kept-alive connection the server closed before answering a byte: an idempotent
            # request goes again on a new connection, as browsers and curl do (RFC 9112 §9.3.1).
            if not connection.served or request.method not in IDEMPOTENT:
                raise self._dropped(request, dropped)  # noqa: B904 (_dropped chains it, or ends the chain when it says it whole)
            connection = self._connection(request, address, deadline, fresh=True)
            try:
                response = self._send(connection, request, body)
            except DROPPED as again:
                raise self._dropped(request, again)  # noqa: B904 (as above)
            retried = RETRIED
        headers = response.getheaders()
        declared = response.getheader("Content-Length", "")
        if declared.isdigit() and int(declared) > self.max_response_bytes:
            response.close()
            connection.close()
            raise self.too_large(request)
        try:
            decoder = _decoder(response.getheader("Content-Encoding", ""))
        except ValueError as refused:
            response.close()
            connection.close()
            raise ResponseUnreadable(f"the response of {origin(request.url)} {refused}", request=request) from None
        if decoder is not None:
            # Decoded here, so that httpx gets (and measures) the plain body.
            headers = [(k, v) for k, v in headers if k.lower() not in ("content-encoding", "content-length")]
        answer = httpx2.Response(
            response.status,
            # As bytes, exactly as sent (http.client read them as latin-1): a value beyond ASCII
            # is no error, httpx2 decodes it as it can.
            headers=[(name.encode("latin-1"), value.encode("latin-1")) for name, value in headers],
            stream=_GuardedBody(response, connection, self, request, decoder),
            extensions={
                "http_version": b"HTTP/1.0" if response.version == 10 else b"HTTP/1.1",
                "reason_phrase": response.reason.encode("latin-1", "replace"),
            },
        )
        if retried:
            with self._notes_lock:
                self._notes[answer] = retried
        return answer

    def _connection(self, request: httpx2.Request, address: Origin, deadline: float, fresh: bool = False) -> Connection:
        with self.guard(request, httpx2.ConnectTimeout, httpx2.ConnectError):
            return self._pool.connection(address, deadline, fresh)

    def _send(self, connection: Connection, request: httpx2.Request, body: bytes) -> http.client.HTTPResponse:
        """Send the request on the connection and read the head of its response. A connection
        closed before any byte of the answer raises as http.client does (the caller may retry)."""
        try:
            with self.guard(request, httpx2.WriteTimeout, httpx2.WriteError):
                # Through a proxy, an http request names its whole URL (RFC 9112 §3.2.2).
                target = str(request.url.copy_with(fragment=None)) if connection.forward else request.url.raw_path.decode("ascii")
                connection.putrequest(request.method, target, skip_host=True, skip_accept_encoding=True)
                for name, value in request.headers.raw:
                    connection.putheader(name, value)
                if connection.forward and connection.forward.authorization:
                    connection.putheader("Proxy-Authorization", connection.forward.authorization)
                # The server may have answered (an error status, a TLS alert) and closed before
                # reading the whole request: what it said is read below.
                with contextlib.suppress(ConnectionError, ssl.SSLError):
                    connection.endheaders(body or None)
            with self.guard(request, httpx2.ReadTimeout, httpx2.ReadError, passing=DROPPED):
                return connection.getresponse()
        except BaseException:
            connection.close()
            raise

    def _dropped(self, request: httpx2.Request, exc: BaseException) -> httpx2.TransportError:
        """A connection closed or reset before any answer, as httpx2's error in plain words."""
        kind = httpx2.RemoteProtocolError if isinstance(exc, http.client.HTTPException) else httpx2.ReadError
        return self._plain(kind, request, exc)

    def release(self, connection: Connection) -> None:
        """Give back a connection whose response was read whole."""
        self._pool.release(connection)

    def close(self) -> None:
        self._pool.close()

    def abort(self) -> None:
        """End every request at once, from any thread: each fails as if the server closed its
        connection, and no new one is sent."""
        self._pool.abort()

    @contextmanager
    def guard(
        self,
        request: httpx2.Request,
        timed_out: type[httpx2.TransportError],
        failed: type[httpx2.TransportError],
        passing: tuple[type[BaseException], ...] = (),
    ) -> Iterator[None]:
        """Run a step of the request with what the socket layer raises told as httpx2's
        errors (`timed_out`, `failed`, or a protocol error), in plain words; `passing` go as they are."""
        passed: tuple[type[BaseException], ...] = (httpx2.TransportError, *passing)
        try:
            yield
        except passed:
            raise
        except TimeoutError as exc:
            raise self._plain(timed_out, request, exc)  # noqa: B904 (chained to exc by _plain, or said whole)
        except HeadTooLarge as exc:
            raise ResponseTooLarge(f"the response of {origin(request.url)} {exc}", request=request) from None
        except http.client.HTTPException as exc:  # a response that is not HTTP, or cut short
            raise self._plain(httpx2.RemoteProtocolError, request, exc)  # noqa: B904 (as above)
        except OSError as exc:  # refused, unresolved, reset, TLS
            raise self._plain(failed, request, exc)  # noqa: B904 (as above)
        except ValueError as exc:  # a header or URL http.client refuses to send
            raise httpx2.LocalProtocolError(str(exc), request=request) from exc

    def _plain(self, kind: type[httpx2.TransportError], request: httpx2.Request, cause: BaseException) -> httpx2.TransportError:
        """What the socket layer raised as httpx2's error, chained to it; one told in plain words
        ends its chain there, so that no message adds the socket's own words ("[Errno 111]
        Connection refused", "timed out") after it."""
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
    the size limit (counted after decoding, when the transport decodes it). The connection
    goes back to the pool once the body is read whole."""

    def __init__(self, response: http.client.HTTPResponse, connection: Connection, transport: GuardedTransport, request: httpx2.Request, decoder: Any = None):
        self._response = response
        self._connection: Connection | None = connection
        self._transport = transport
        self._request = request
        self._decoder = decoder

    def __iter__(self) -> Iterator[bytes]:
        limit = self._transport.max_response_bytes
        received = 0
        chunks: list[bytes] = []
        openers = 0
        while True:
            with self._transport.guard(self._request, httpx2.ReadTimeout, httpx2.ReadError):
                chunk = self._response.read(65536)
                if not chunk and self._response.length:
                    raise http.client.IncompleteRead(b"", self._response.length)
            if not chunk:
                self._check_depth(chunks, openers)
                self._release()
                return
            if self._decoder is not None:
                # One byte more than the room left is enough to know the body is too large.
                chunk = self._decode(chunk, limit - received + 1)
            received += len(chunk)
            if received > limit:
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
            raise httpx2.DecodingError(f"the response of {origin(self._request.url)} is not valid compressed data ({exc})", request=self._request) from exc

    def _release(self) -> None:
        connection, self._connection = self._connection, None
        if connection is None:
            return
        if self._response.will_close or self._response.status >= 500:
            # A server in trouble may drop the connection after such an answer, and the next
            # request on it would fail for another check's sake: the next one gets a new connection.
            connection.close()
        else:
            self._transport.release(connection)

    def close(self) -> None:
        # A body left unread leaves the connection unusable for another request.
        if self._connection is not None:
            self._connection.close()
            self._connection = None
        self._response.close()


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
