"""The embedded SCIM server: scim2-server's WSGI application on a loopback port.

It is the default target of the app and of `scim-tui check --demo`, and the real
server of the test suite.
"""

from __future__ import annotations

import io
import socket
import threading
from collections.abc import Iterable
from contextlib import suppress
from socketserver import ThreadingMixIn
from typing import IO
from typing import Any
from typing import cast
from wsgiref.headers import Headers
from wsgiref.simple_server import ServerHandler
from wsgiref.simple_server import WSGIRequestHandler
from wsgiref.simple_server import WSGIServer
from wsgiref.simple_server import make_server

from scim2_models import ResourceType
from scim2_models import Schema
from scim2_models import ScimProvider
from scim2_models import ServiceProviderConfig
from scim2_server.memory import InMemoryStorage
from scim2_server.testserver.application import BEARER_TOKEN_SCHEME
from scim2_server.testserver.application import BearerTokenApplication
from scim2_server.utils import load_default_resource_types
from scim2_server.utils import load_default_schemas
from scim2_server.utils import load_default_service_provider_config

LOOPBACK = "127.0.0.1"
IDLE_TIMEOUT = 30
"""Seconds a kept-alive connection waits for its next request."""


def make_app(
    schemas: Iterable[Schema] | None = None,
    resource_types: Iterable[ResourceType] | None = None,
    config: ServiceProviderConfig | None = None,
    bearer_tokens: Iterable[str] = (),
) -> BearerTokenApplication:
    """A fresh scim2-server application with its own empty storage.

    Defaults to the schemas and resource types of RFC 7643 (User with the enterprise
    extension, Group). With bearer tokens, every request must carry one of them.
    """
    tokens = list(bearer_tokens)
    config = config or load_default_service_provider_config()
    if tokens:
        config = config.model_copy(update={"authentication_schemes": [*(config.authentication_schemes or []), BEARER_TOKEN_SCHEME]})
    provider = ScimProvider.from_discovery(
        list(schemas) if schemas is not None else load_default_schemas().values(),
        list(resource_types) if resource_types is not None else load_default_resource_types().values(),
        config=config,
    )
    return BearerTokenApplication(InMemoryStorage(), provider, bearer_tokens=tokens)


class _ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True
    allow_reuse_address = True

    def server_activate(self) -> None:
        super().server_activate()
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()

    def close_connections(self) -> None:
        """End the kept-alive connections, so that nothing is served once the server stops."""
        with self.connections_lock:
            for connection in self.connections:
                with suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)


class _ResponseHandler(ServerHandler):
    """wsgiref's handler, answering in HTTP/1.1: a response without a length closes its connection."""

    http_version = "1.1"
    request_handler: _KeepAliveHandler
    status: str | None  # wsgiref's, undeclared in its stubs
    headers: Headers

    def cleanup_headers(self) -> None:
        super().cleanup_headers()
        self.request_handler.status = self.status
        bodiless = self.status is not None and self.status[:3] in ("204", "304")
        if "Content-Length" not in self.headers and not bodiless:
            self.request_handler.close_connection = True
        if self.request_handler.close_connection:
            self.headers["Connection"] = "close"


class _KeepAliveHandler(WSGIRequestHandler):
    """Serves several requests on one connection (HTTP/1.1 keep-alive), quietly.

    wsgiref serves one request per connection: every request of a run would pay for a
    new connection, on the client and on the server. Each request body is read whole
    before the application runs, so a body it leaves unread never spills into the next request.
    """

    protocol_version = "HTTP/1.1"
    timeout = IDLE_TIMEOUT
    status: str | None = None
    """The status line of the last answer ("200 OK")."""
    disable_nagle_algorithm = True  # the status line and the body go out in separate writes

    def setup(self) -> None:
        super().setup()
        with self.server.connections_lock:  # type: ignore[attr-defined]
            self.server.connections.add(self.connection)  # type: ignore[attr-defined]

    def finish(self) -> None:
        with self.server.connections_lock:  # type: ignore[attr-defined]
            self.server.connections.discard(self.connection)  # type: ignore[attr-defined]
        super().finish()

    def handle(self) -> None:
        self.close_connection = True
        self._serve_one()
        while not self.close_connection:
            self._serve_one()

    def _serve_one(self) -> None:
        try:
            self.raw_requestline = self.rfile.readline(65537)
        except OSError:  # idle too long, or the server stopping
            self.raw_requestline = b""
        if not self.raw_requestline:
            self.close_connection = True
            return
        if len(self.raw_requestline) > 65536:
            self.requestline = self.request_version = self.command = ""
            self.send_error(414)
            return
        if not self.parse_request():
            return
        handler = _ResponseHandler(self._body(), cast(IO[bytes], self.wfile), self.get_stderr(), self.get_environ(), multithread=True)
        handler.request_handler = self
        handler.run(self.server.get_app())  # type: ignore[attr-defined]

    def _body(self) -> Any:
        length = self.headers.get("Content-Length", "")
        if "Transfer-Encoding" in self.headers or (length and not length.isdigit()):
            self.close_connection = True  # a body whose end is unknown: this connection serves no more
            return self.rfile
        return io.BytesIO(self.rfile.read(int(length)) if length else b"")

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


class DemoServer:
    """Serve a WSGI application on 127.0.0.1 in a background thread.

    ``port=0`` picks a free port. Use it as a context manager, or call start() and stop().
    """

    handler_class: type[WSGIRequestHandler] = _KeepAliveHandler
    """How each connection is served (a test serves some differently)."""

    def __init__(self, app: Any | None = None, port: int = 0, host: str = LOOPBACK):
        self.app = app if app is not None else make_app()
        self.host = host
        self.port = port
        self._server: _ThreadingServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The base URL of the SCIM endpoints."""
        if self._server is None:
            raise RuntimeError("The demo server is not running")
        return f"http://{self.host}:{self._server.server_port}/v2"

    def start(self) -> str:
        if self._server is None:
            self._server = make_server(self.host, self.port, self.app, server_class=_ThreadingServer, handler_class=self.handler_class)
            self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="scim-tui-demo-server", daemon=True)
            self._thread.start()
        return self.url

    def stop(self) -> None:
        if self._server is None:
            return
        self._server.shutdown()
        self._server.close_connections()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> DemoServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
