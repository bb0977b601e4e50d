"""Helpers to build real and deliberately broken SCIM servers for the tests.

A broken server is scim2-server wrapped in a small WSGI middleware that breaks exactly
one rule: it answers some requests itself, or rewrites the answers of scim2-server.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import re
import socket
import ssl
import threading
from collections.abc import Callable
from collections.abc import Iterable
from contextlib import contextmanager
from contextlib import suppress
from typing import Any
from urllib.parse import parse_qsl
from urllib.parse import urlencode

import httpx2
from scim2_client.engines.httpx2 import SyncSCIMClient

Response = tuple[int, list[tuple[str, str]], bytes]
SCIM_JSON = [("Content-Type", "application/scim+json")]


TIMEOUT = 30.0
"""The timeout of the tests' clients, a profile's default: a loaded machine may answer slowly."""


@functools.cache
def _trust_store() -> ssl.SSLContext:
    """The trust store httpx2 would read again for each new client (tens of milliseconds),
    read once for all the tests' clients."""
    return httpx2.create_ssl_context()


def http_client(url: str, **httpx_options: Any) -> httpx2.Client:
    """A plain httpx2 client on a server, to look at it from outside scim-tui."""
    return httpx2.Client(base_url=url, **{"verify": _trust_store(), "timeout": TIMEOUT, **httpx_options})


@contextmanager
def make_client(url: str, **httpx_options: Any):
    """A scim2-client over httpx2 on a server, closed afterwards."""
    with http_client(url, **httpx_options) as http:
        yield SyncSCIMClient(http)


def stored(url: str, *endpoints: str) -> list[dict]:
    """The resources a server holds on these endpoints: its Users and Groups unless told."""
    with http_client(url) as http:
        return [resource for endpoint in endpoints or ("/Users", "/Groups") for resource in http.get(endpoint).json().get("Resources", [])]


def scim_error(status: int, detail: str = "broken on purpose") -> bytes:
    return json.dumps({"schemas": ["urn:ietf:params:scim:api:messages:2.0:Error"], "status": str(status), "detail": detail}).encode()


def _reason(status: int) -> str:
    from http import HTTPStatus

    try:
        return f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        return f"{status} Unknown"


def _matches(environ: dict[str, Any], method: str | None, path: str) -> bool:
    if method and environ["REQUEST_METHOD"] != method:
        return False
    return re.fullmatch(path, environ.get("PATH_INFO", "")) is not None


class Broken:
    """A WSGI middleware around an application that breaks one rule.

    ``answer`` rules reply without calling the application; ``rewrite`` rules call it
    and transform its response. ``repaired`` turns every rule off, so a test can fix
    the server between two runs.
    """

    def __init__(self, app: Any):
        self.app = app
        self.rules: list[tuple[str | None, str, Callable[[Callable[[], Response]], Response]]] = []
        self.request_rules: list[tuple[str | None, str, Callable[[Any], Any]]] = []
        self.query_rules: list[tuple[str | None, str, Callable[[dict[str, str]], dict[str, str]]]] = []
        self.repaired = False

    def answer(self, method: str | None, path: str, status: int, body: bytes | dict | None = b"", headers: Iterable[tuple[str, str]] = SCIM_JSON) -> Broken:
        content = json.dumps(body).encode() if isinstance(body, dict) else (body or b"")
        self.rules.append((method, path, lambda call_app: (status, list(headers), content)))
        return self

    def rewrite(self, method: str | None, path: str, change: Callable[[Response], Response], **environ: str) -> Broken:
        """Transform the answers of matching requests (handed to the application with ``environ``
        changed, as ``reroute`` does)."""
        self.rules.append((method, path, lambda call_app: change(call_app(**environ))))
        return self

    def reroute(self, method: str | None, path: str, **environ: str) -> Broken:
        """Hand matching requests to the application with part of them changed: its method
        (``REQUEST_METHOD="GET"`` makes a write a no-op), its query (``QUERY_STRING=""``) ..."""
        self.rules.append((method, path, lambda call_app: call_app(**environ)))
        return self

    def rewrite_json(self, method: str | None, path: str, change: Callable[[Any], Any], **environ: str) -> Broken:
        """Rewrite the JSON body of matching answers (the status and headers stay; an answer
        without a body stays as it is)."""

        def apply(response: Response) -> Response:
            status, headers, body = response
            if not body:
                return response
            headers = [(k, v) for k, v in headers if k.lower() != "content-length"]
            return status, headers, json.dumps(change(json.loads(body))).encode()

        return self.rewrite(method, path, apply, **environ)

    def rewrite_request_json(self, method: str | None, path: str, change: Callable[[Any], Any]) -> Broken:
        """Rewrite the JSON body of matching requests before anything reads it (as a server
        that ignores part of what it is sent); the answer rules still apply."""
        self.request_rules.append((method, path, change))
        return self

    def rewrite_query(self, method: str | None, path: str, change: Callable[[dict[str, str]], dict[str, str]]) -> Broken:
        """Rewrite the query parameters of matching requests before anything reads them (as a
        server that ignores or misreads a parameter); the answer rules still apply."""
        self.query_rules.append((method, path, change))
        return self

    def _rewritten_request(self, environ: dict[str, Any]) -> dict[str, Any]:
        for method, path, change in self.request_rules:
            if _matches(environ, method, path):
                body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
                try:
                    content = json.dumps(change(json.loads(body))).encode()
                except ValueError:  # not JSON: handed on as it came, for the server to answer
                    content = body
                environ = {**environ, "wsgi.input": io.BytesIO(content), "CONTENT_LENGTH": str(len(content))}
        for method, path, query_change in self.query_rules:
            if _matches(environ, method, path):
                environ = {**environ, "QUERY_STRING": urlencode(query_change(dict(parse_qsl(environ.get("QUERY_STRING", ""), keep_blank_values=True))))}
        return environ

    def __call__(self, environ: dict[str, Any], start_response: Callable) -> Iterable[bytes]:
        if not self.repaired:
            environ = self._rewritten_request(environ)
        rule = None if self.repaired else next((r for r in self.rules if _matches(environ, r[0], r[1])), None)
        if rule is None:
            return self.app(environ, start_response)
        _method, _path, respond = rule
        status, headers, body = respond(lambda **changes: self._call_app({**environ, **changes}))
        if status in (204, 304):  # no body, whatever a rule gave: one would garble the next answer on the connection
            body = b""
        headers = [(k, v) for k, v in headers if k.lower() != "content-length"] + [("Content-Length", str(len(body)))]
        start_response(_reason(status), headers)
        return [body]

    def _call_app(self, environ: dict[str, Any]) -> Response:
        captured: dict[str, Any] = {}

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Callable:
            captured["status"] = int(status.split()[0])
            captured["headers"] = headers
            return lambda data: None

        body = b"".join(self.app(environ, start))
        return captured["status"], captured["headers"], body


class RawServer:
    """A TCP server on loopback that hands each connection to ``handle(sock)`` in its own thread.

    For the faults scim2-server cannot make: a server that accepts and stays silent, drips
    bytes, or resets the connection. ``silent`` is the default handler. Use it as a context
    manager; stopping it closes every connection still open.
    """

    def __init__(self, handle: Callable[[Any], None] | None = None, host: str = "127.0.0.1"):
        self.handle = handle or silent
        self.listener = socket.create_server((host, 0))
        self.host, self.port = self.listener.getsockname()[:2]
        self.connections: list[Any] = []
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._accept, name="raw-server", daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/v2"

    def __enter__(self) -> RawServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop accepting, then end every connection: nothing hangs on this server any more,
        and a later request is refused. Closing twice does nothing more."""
        self._stopped.set()
        with suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked in accept()
        self._thread.join(timeout=5)  # so that no connection is accepted after those ended below
        self.listener.close()
        self.end_connections()

    def end_connections(self) -> None:
        """End every connection open now: the requests hanging on them fail at once. The
        server goes on accepting (and counting) connections."""
        for connection in list(self.connections):
            with suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
            connection.close()

    def _accept(self) -> None:
        while not self._stopped.is_set():
            try:
                connection, _address = self.listener.accept()
            except OSError:
                return
            self.connections.append(connection)
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: Any) -> None:
        with contextlib.suppress(OSError):  # the client went away, or the server was stopped
            self.handle(connection)


class Hanging:
    """A ``Broken.rewrite`` change that holds each answer it is given until released, and
    counts the requests held: a server whose requests hang for as long as the test wants."""

    def __init__(self, ceiling: float = 60) -> None:
        self.arrived = 0
        self.reached = threading.Event()
        """Set once a request arrived."""
        self.released = threading.Event()
        self.ceiling = ceiling
        self._lock = threading.Lock()

    def __call__(self, answer: Response) -> Response:
        with self._lock:
            self.arrived += 1
        self.reached.set()
        self.released.wait(self.ceiling)
        return answer

    def release(self) -> None:
        """Answer the requests held, and those to come at once."""
        self.released.set()


class Busy:
    """A WSGI middleware around an application that answers `status` (429 or 503) to every
    `every`-th request without handing it on, as a server's rate limiter or overloaded front does,
    with `Retry-After` when given; only requests of `methods` count, when given. `answered` counts
    the busy answers; `busy` is set at the first."""

    def __init__(self, app: Any, status: int = 429, every: int = 5, retry_after: str | None = "0", methods: tuple[str, ...] = ()) -> None:
        self.app = app
        self.methods = methods
        self.status = status
        self.every = every
        self.retry_after = retry_after
        self.requests = 0
        self.answered = 0
        self.busy = threading.Event()
        self._lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: Callable) -> Iterable[bytes]:
        if self.methods and environ["REQUEST_METHOD"] not in self.methods:
            return self.app(environ, start_response)
        with self._lock:
            self.requests += 1
            refused = self.requests % self.every == 0
            self.answered += refused
        if not refused:
            return self.app(environ, start_response)
        environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        body = scim_error(self.status, "too many requests, try again later")
        retry = [("Retry-After", self.retry_after)] if self.retry_after is not None else []
        start_response(_reason(self.status), [*SCIM_JSON, *retry, ("Content-Length", str(len(body)))])
        self.busy.set()
        return [body]


def cursor_app(timeout: int | None = None) -> Any:
    """scim2-server serving cursor pagination (RFC 9865) beside index pagination, its cursors
    valid `timeout` seconds at least (announced as cursorTimeout) when given."""
    from scim2_models import Pagination
    from scim2_models import ScimProvider
    from scim2_server.memory import InMemoryStorage
    from scim2_server.service import ScimService
    from scim2_server.testserver.application import BearerTokenApplication
    from scim2_server.utils import load_default_resource_types
    from scim2_server.utils import load_default_schemas
    from scim2_server.utils import load_default_service_provider_config

    pagination = Pagination(cursor=True, index=True, cursor_timeout=timeout)
    config = load_default_service_provider_config().model_copy(update={"pagination": pagination})
    provider = ScimProvider.from_discovery(list(load_default_schemas().values()), list(load_default_resource_types().values()), config=config)
    return BearerTokenApplication(InMemoryStorage(), provider, service=ScimService(provider, secret="scim-tui-tests"))


def read_request(connection: Any) -> bytes:
    """Read one whole request: its head, and its body as far as Content-Length says.
    ConnectionAbortedError once the client closed the connection (an OSError: it ends a
    RawServer handler quietly). A handler that closes the connection after this leaves no
    unread byte behind, so the client sees the close (FIN), never a reset (RST)."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += _received(connection)
    head, _, body = data.partition(b"\r\n\r\n")
    length = re.search(rb"(?im)^content-length:\s*(\d+)", head)
    while length and len(body) < int(length.group(1)):
        body += _received(connection)
    return data[: len(head) + 4] + body


def _received(connection: Any) -> bytes:
    chunk = connection.recv(65536)
    if not chunk:
        raise ConnectionAbortedError
    return chunk


def silent(connection: Any) -> None:
    """Read the request and never answer (until the server stops)."""
    while connection.recv(65536):
        pass


WHOLE_PATCH_ANSWER = {"QUERY_STRING": "excludedAttributes=password"}
"""Handed to scim2-server with a PATCH, this makes it answer 200 with the resource, not 204."""

SCIM2_SERVER_BREAKS = frozenset({"discovery:strict", "projection", "errors:members", "idp:entra", "idp:okta:oin", "idp:onelogin"})
"""The tags of the checks scim2-server really fails or deviates on (docs/checks.md:
no authenticationSchemes, `attributes` ignored on POST, a Group member naming no resource kept;
docs/identity-providers.md: three Entra shapes refused, and the gallery's tests, DEVIATIONs; Okta's OIN
suites, whose 401 a server asking for no credential cannot give; OneLogin's SCIM 1.1 schema name). A test that needs a run to
pass on scim2-server leaves them out; tests/checker/test_full_run.py and test_errors.py assert
those verdicts."""
