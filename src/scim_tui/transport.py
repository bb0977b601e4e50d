"""The HTTP transport under every connection: bounded in time and size, and plain-spoken.

- Deadline: the profile's timeout bounds each whole request, from connecting to reading the
  last byte. httpx's own timeouts bound each socket operation only, so a server that drips
  one byte at a time would never trip them; here every socket read and write gets what is
  left of the request's time.
- Size: a response body larger than the limit is read no further, and the request fails.
  The limit counts the body as decoded: requests ask for no compression, and a gzip or
  deflate body sent anyway is decoded here, under the limit (a small "gzip bomb" cannot
  expand to gigabytes in memory).
- Reasons: transport errors are raised again, same type, with a sentence a person
  understands (what happened and what to do), the original kept as the cause.
"""

from __future__ import annotations

import socket
import ssl
import time
import zlib
from collections.abc import Iterable
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import httpcore2
import httpx2

_deadline: ContextVar[float | None] = ContextVar("scim_tui_request_deadline", default=None)


class ResponseTooLarge(httpx2.ReadError):
    """A response body longer than the connection's limit."""


def _remaining(timeout: float | None, expired: type[Exception]) -> float | None:
    """The time a socket operation may take: its own timeout, cut to what is left of the request's."""
    deadline = _deadline.get()
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise expired("the request's deadline passed")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore2.NetworkStream):
    def __init__(self, inner: httpcore2.NetworkStream):
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _remaining(timeout, httpcore2.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _remaining(timeout, httpcore2.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None) -> httpcore2.NetworkStream:
        return _DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, _remaining(timeout, httpcore2.ConnectTimeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _DeadlineBackend(httpcore2.NetworkBackend):
    def __init__(self) -> None:
        self._inner = httpcore2.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.NetworkStream:
        timeout = _remaining(timeout, httpcore2.ConnectTimeout)
        return _DeadlineStream(self._inner.connect_tcp(host, port, timeout, local_address, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class GuardedTransport(httpx2.HTTPTransport):
    """httpx2's transport with a deadline per request, a response size limit and human reasons."""

    def __init__(self, ssl_context: ssl.SSLContext, timeout: float, max_response_bytes: int):
        super().__init__(verify=ssl_context, trust_env=False)
        limits = httpx2.Limits()
        # The same pool httpx2 builds, on a network backend that enforces the deadline.
        self._pool = httpcore2.ConnectionPool(
            ssl_context=ssl_context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=_DeadlineBackend(),
        )
        self.timeout = timeout
        self.max_response_bytes = max_response_bytes

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        deadline = time.monotonic() + self.timeout
        request.headers["Accept-Encoding"] = "identity"
        with self.guard(request, deadline):
            response = super().handle_request(request)
        headers = response.headers
        declared = headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > self.max_response_bytes:
            response.close()
            raise self.too_large(request)
        decoder = _decoder(headers.get("Content-Encoding", ""))
        if decoder is not None:
            # Decoded here, so that httpx gets (and measures) the plain body.
            headers = httpx2.Headers([(k, v) for k, v in headers.multi_items() if k.lower() not in ("content-encoding", "content-length")])
        body = _GuardedBody(response.stream, self, request, deadline, decoder)
        return httpx2.Response(response.status_code, headers=headers, stream=body, extensions=response.extensions)

    @contextmanager
    def guard(self, request: httpx2.Request, deadline: float) -> Iterator[None]:
        """Run a step of the request under its deadline, with transport errors told plainly."""
        token = _deadline.set(deadline)
        try:
            yield
        except httpx2.TransportError as exc:
            reason = human_reason(exc, request, self.timeout)
            if reason is None:
                raise
            raise type(exc)(reason, request=request) from exc
        finally:
            _deadline.reset(token)

    def too_large(self, request: httpx2.Request) -> ResponseTooLarge:
        limit = byte_size(self.max_response_bytes)
        return ResponseTooLarge(
            f"the response of {origin(request.url)} is larger than {limit} (the profile's max_response_bytes): it was read no further",
            request=request,
        )


def _decoder(encoding: str) -> Any:
    """A zlib decoder for a gzip or deflate body; None for any other encoding (left to httpx)."""
    encoding = encoding.strip().lower()
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompressobj(32 + zlib.MAX_WBITS)  # zlib-wrapped, as RFC 9110 means it
    return None


class _GuardedBody(httpx2.SyncByteStream):
    """A response body read under the request's deadline, and no further than the size limit
    (counted after decoding, when the transport decodes it)."""

    def __init__(self, inner: Any, transport: GuardedTransport, request: httpx2.Request, deadline: float, decoder: Any = None):
        self._inner = inner
        self._transport = transport
        self._request = request
        self._deadline = deadline
        self._decoder = decoder

    def __iter__(self) -> Iterator[bytes]:
        chunks = iter(self._inner)
        limit = self._transport.max_response_bytes
        received = 0
        while True:
            with self._transport.guard(self._request, self._deadline):
                chunk = next(chunks, None)
            if chunk is None:
                return
            if self._decoder is not None:
                # One byte more than the room left is enough to know the body is too large.
                chunk = self._decode(chunk, limit - received + 1)
            received += len(chunk)
            if received > limit:
                raise self._transport.too_large(self._request)
            yield chunk

    def _decode(self, chunk: bytes, room: int) -> bytes:
        try:
            return self._decoder.decompress(chunk, room)
        except zlib.error as exc:
            raise httpx2.DecodingError(f"the response of {origin(self._request.url)} is not valid compressed data ({exc})", request=self._request) from exc

    def close(self) -> None:
        self._inner.close()


def human_reason(exc: httpx2.TransportError, request: httpx2.Request, timeout: float) -> str | None:
    """What a transport error means for a person, and what to do; None when there is nothing better to say."""
    where = origin(request.url)
    causes = list(_chain(exc))
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
    if _find(causes, ConnectionResetError):
        return f"{where} reset the connection before the response was complete"
    if isinstance(exc, httpx2.RemoteProtocolError):
        return f"{where} closed the connection before the response was complete"
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
    port = url.port or {"http": 80, "https": 443}.get(url.scheme)
    return f"{url.host}:{port}"


def byte_size(count: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            return f"{count / size:g} {unit}"
    return f"{count} bytes"
