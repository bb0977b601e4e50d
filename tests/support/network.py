"""Network endpoints for failure tests: a closed port, a certificate, a TLS server."""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler
from wsgiref.simple_server import WSGIServer
from wsgiref.simple_server import make_server

import pytest

from scim_tui.demo import make_app


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class _TLSServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True
    context: ssl.SSLContext

    def get_request(self) -> tuple[Any, Any]:
        connection, address = super().get_request()
        return self.context.wrap_socket(connection, server_side=True, do_handshake_on_connect=False), address

    def finish_request(self, request: Any, client_address: Any) -> None:
        """The handshake is made in the connection's own thread: made by the one thread that
        accepts, concurrent handshakes queued past a short timeout on a busy machine."""
        try:
            request.do_handshake()
        except OSError:
            return  # a client that refused the certificate, or spoke plain HTTP: the connection is closed
        super().finish_request(request, client_address)


class _Quiet(WSGIRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


def make_certificate(directory: Path, name: str) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key, made with the openssl command."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is needed to make a certificate")
    cert, key = directory / f"{name}.pem", directory / f"{name}.key"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            f"/CN=scim-tui {name}",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


@contextmanager
def serving_tls(certificate: tuple[Path, Path], client_ca: Path | None = None) -> Iterator[str]:
    """scim2-server over TLS on loopback; with client_ca, clients must show a certificate it signed."""
    server = make_server("127.0.0.1", 0, make_app(), server_class=_TLSServer, handler_class=_Quiet)
    server.context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server.context.load_cert_chain(*certificate)
    if client_ca:
        server.context.verify_mode = ssl.CERT_REQUIRED
        server.context.load_verify_locations(client_ca)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_port}/v2"
    finally:
        server.shutdown()
        server.server_close()


def closed_port_url() -> str:
    """A SCIM base URL on a port nothing listens on."""
    return f"http://127.0.0.1:{closed_port()}/v2"
