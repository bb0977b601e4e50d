"""Bad networks and bad servers: every full run ends, in time, with a reason a person understands.

Each fault is made for real on loopback: a closed port, a `.invalid` host, servers that stay
silent, drip bytes, reset the connection or send too much (tests.support.servers.RawServer), a
redirect to another origin, and a TLS server with a self-signed certificate.
"""

from __future__ import annotations

import gzip
import socket
import struct
import time
from collections.abc import Callable
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.demo import make_app
from scim_tui.net.connect import open_client
from scim_tui.store.profiles import TLS
from scim_tui.store.profiles import Auth
from scim_tui.store.profiles import AuthKind
from scim_tui.store.profiles import Profile
from tests.support.network import closed_port
from tests.support.network import make_certificate
from tests.support.network import serving_tls
from tests.support.servers import SCIM2_SERVER_BREAKS
from tests.support.servers import Broken
from tests.support.servers import RawServer
from tests.support.servers import read_request

pytestmark = pytest.mark.slow  # runs that wait out timeouts, TLS handshakes, whole runs

TIMEOUT = 1.0
"""The timeout of the runs against a server that hangs or drips: the smallest a profile allows, so that it soon elapses."""
PATIENCE = 30.0
"""The timeout of every other run: the faults they meet end a request at once, and a loaded
machine may take seconds to answer a request (or to make a TLS handshake)."""
MARGIN = 10.0
"""What a run against a faulty server may take beyond its requests' timeouts, on a busy machine."""
LIMIT = 256 * 1024


@dataclass
class Run:
    results: list[CheckResult]
    seconds: float

    def requests(self) -> int:
        return sum(len(result.exchanges) for result in self.results)


def run(url: str, timeout: float = PATIENCE, tags: set[str] | None = None, **options: Any) -> Run:
    """A run of every check (or of those with one of ``tags``) but those scim2-server really fails."""
    profile = Profile(name="faulty", url=url, timeout=timeout, max_response_bytes=LIMIT, **options)
    conf = CheckConfig(include_tags=tags, exclude_tags=set(SCIM2_SERVER_BREAKS))
    started = time.perf_counter()
    with open_client(profile) as connection:
        results = list(iter_checks(connection.client, conf, secrets=connection.secrets))
    return Run(results, time.perf_counter() - started)


def assert_fault(outcome: Run, reason: str) -> None:
    """Discovery fails with the reason, the resource checks are skipped with it, nothing else happens."""
    by_status = {status: [r for r in outcome.results if r.status is status] for status in Status}
    # /Me answered by a redirect other than 308 is a DEVIATION, not an error (RFC 7644 §3.11).
    assert set(r.status for r in outcome.results if r.title != "me_endpoint") == {Status.ERROR, Status.SKIPPED}
    errors = by_status[Status.ERROR]
    assert "service_provider_config_endpoint" in {r.title for r in errors}
    for result in errors:
        assert reason in result.reason, result.reason
        assert "Traceback" not in result.reason
    resource_checks = [r for r in by_status[Status.SKIPPED] if "crud" in r.tags]
    assert resource_checks
    for result in resource_checks:
        assert "could not be described" in result.reason and reason in result.reason


def test_connection_refused():
    port = closed_port()
    outcome = run(f"http://127.0.0.1:{port}/v2")
    assert_fault(outcome, f"nothing listens on 127.0.0.1:{port}: is the server running and the URL right?")
    assert outcome.seconds < MARGIN


def test_dns_failure():
    outcome = run("http://scim-tui-nowhere.invalid/v2")
    assert_fault(outcome, "the host name scim-tui-nowhere.invalid could not be resolved (DNS): check the URL's host")


def assert_bounded(outcome: Run) -> None:
    """Each request was ended by the profile's timeout, whatever the server sent meanwhile, and
    the run took no longer than its requests' timeouts one after the other (and a margin).

    Nothing else ends a request here: the server never closes a connection, and a deadline
    per read, which each drip would move on, would never end it. So no request's time is
    raced against a clock: each says it ended by the timeout."""
    exchanges = list({id(exchange): exchange for result in outcome.results for exchange in result.exchanges}.values())
    assert exchanges
    for exchange in exchanges:
        assert f"within {TIMEOUT:g} s (the profile's timeout)" in (exchange.error or ""), f"{exchange.method} {exchange.url}: {exchange.error}"
    assert outcome.seconds < len(exchanges) * TIMEOUT + MARGIN


def dripping(prefix: bytes) -> Callable[[socket.socket], None]:
    """A server that answers each request with `prefix`, then one more byte every 50 ms, forever."""

    def handle(connection: socket.socket) -> None:
        read_request(connection)
        connection.sendall(prefix)
        while True:
            connection.sendall(b" ")
            time.sleep(0.05)

    return handle


@pytest.mark.parametrize(
    "handle",
    [
        None,
        dripping(b"HTTP/1.1 200 OK\r\nX-Slow:"),
        dripping(b"HTTP/1.1 200 OK\r\nContent-Type: application/scim+json\r\nContent-Length: 100000\r\n\r\n"),
    ],
    ids=["silent", "drips-headers", "drips-body"],
)
def test_a_server_that_hangs_or_drips_is_bounded_by_the_timeout(handle):
    with RawServer(handle) as server:
        outcome = run(server.url, timeout=TIMEOUT)
    assert_fault(outcome, f"no answer from 127.0.0.1:{server.port} within {TIMEOUT:g} s (the profile's timeout)")
    assert_bounded(outcome)


def flooding(headers: bytes) -> Callable[[socket.socket], None]:
    def handle(connection: socket.socket) -> None:
        read_request(connection)
        connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/scim+json\r\n" + headers + b"\r\n")
        while True:
            connection.sendall(b" " * 65536)

    return handle


@pytest.mark.parametrize(
    "headers",
    [b"Content-Length: 104857600\r\n", b"Connection: close\r\n"],
    ids=["declared-length", "read-until-close"],
)
def test_a_response_larger_than_the_limit_is_an_error(headers):
    with RawServer(flooding(headers)) as server:
        outcome = run(server.url)
    assert_fault(outcome, f"the response of 127.0.0.1:{server.port} is larger than 256 KiB (the profile's max_response_bytes)")
    assert outcome.seconds < MARGIN


@pytest.fixture(scope="session")
def gzip_bomb() -> bytes:
    """A 20 KiB gzip body that expands to 20 MiB, with its head: compressed once, then sent to
    every connection (compressing it again for each missed the timeout on a busy machine)."""
    body = gzip.compress(b" " * (20 << 20), compresslevel=9)
    head = f"HTTP/1.1 200 OK\r\nContent-Type: application/scim+json\r\nContent-Encoding: gzip\r\nContent-Length: {len(body)}\r\n\r\n"
    return head.encode() + body


def test_a_gzip_bomb_is_stopped_at_the_limit_once_decoded(gzip_bomb):
    def bomb(connection: socket.socket) -> None:
        """Sent though the request asked for identity."""
        read_request(connection)
        connection.sendall(gzip_bomb)

    with RawServer(bomb) as server:
        outcome = run(server.url)
    assert_fault(outcome, f"the response of 127.0.0.1:{server.port} is larger than 256 KiB (the profile's max_response_bytes)")


def gzipped(response: tuple[int, list[tuple[str, str]], bytes]) -> tuple[int, list[tuple[str, str]], bytes]:
    status, headers, body = response
    if not body:  # a 204 has no body to compress
        return response
    return status, [*headers, ("Content-Encoding", "gzip")], gzip.compress(body)


def test_a_server_that_compresses_anyway_is_read_and_asked_for_identity(serve):
    server = serve(Broken(make_app()).rewrite(None, ".*", gzipped))
    outcome = run(server.url)
    assert not [r for r in outcome.results if r.status.failed], [r for r in outcome.results if r.status.failed][:3]
    exchange = outcome.results[0].exchanges[0]
    assert {k.lower(): v for k, v in exchange.request_headers.items()}["accept-encoding"] == "identity"
    assert exchange.response_body and exchange.response_body.startswith("{")


def resetting(connection: socket.socket) -> None:
    read_request(connection)
    connection.sendall(b'HTTP/1.1 200 OK\r\nContent-Type: application/scim+json\r\nContent-Length: 1000\r\n\r\n{"schemas": [')
    time.sleep(0.05)
    connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    connection.close()


def test_a_connection_reset_mid_response():
    with RawServer(resetting) as server:
        outcome = run(server.url)
    assert_fault(outcome, f"127.0.0.1:{server.port} reset the connection before the response was complete")


class Recorder:
    """A WSGI app that records the headers of each request it gets and answers 200."""

    def __init__(self) -> None:
        self.requests: list[dict[str, str]] = []

    def __call__(self, environ: dict[str, Any], start_response: Callable) -> list[bytes]:
        self.requests.append({k: v for k, v in environ.items() if k.startswith("HTTP_")})
        start_response("200 OK", [("Content-Type", "application/scim+json")])
        return [b"{}"]


def test_a_redirect_to_another_origin_is_not_followed_and_gets_no_credentials(serve):
    elsewhere = Recorder()
    other = serve(elsewhere)
    redirecting = serve(Broken(make_app()).answer(None, "/v2/.*", 307, headers=[("Location", f"{other.url}/ServiceProviderConfig")]))
    outcome = run(redirecting.url, auth=Auth(kind=AuthKind.BEARER, token="s3cret-bearer-token"))
    assert elsewhere.requests == []
    assert_fault(outcome, "307")
    exchange = outcome.results[0].exchanges[0]
    headers = {name.lower(): value for name, value in [*exchange.request_headers.items(), *exchange.response_headers.items()]}
    assert exchange.status_code == 307 and headers["location"] == f"{other.url}/ServiceProviderConfig"
    assert headers["authorization"] == "***"


# TLS: a scim2-server behind a self-signed certificate.


@pytest.fixture(scope="module")
def certificate(tmp_path_factory) -> tuple[Path, Path]:
    return make_certificate(tmp_path_factory.mktemp("tls"), "server")


@pytest.fixture(scope="module")
def tls_server(certificate) -> Iterator[str]:
    with serving_tls(certificate) as url:
        yield url


def test_a_self_signed_certificate_says_how_to_trust_it(tls_server):
    outcome = run(tls_server)
    port = tls_server.split(":")[2].split("/")[0]
    assert_fault(
        outcome, f"the certificate of 127.0.0.1:{port} is not trusted (self-signed certificate): set tls.ca_bundle to its CA file, or tls.verify = false"
    )


@pytest.mark.parametrize("tls", ["ca_bundle", "no_verify"])
def test_a_self_signed_certificate_is_trusted_as_told(tls_server, certificate, tls):
    settings = TLS(ca_bundle=str(certificate[0])) if tls == "ca_bundle" else TLS(verify=False)
    outcome = run(tls_server, tags={"discovery"}, tls=settings)
    discovery = [r for r in outcome.results if "discovery" in r.tags and "discovery:strict" not in r.tags]
    assert discovery and all(r.status is Status.SUCCESS for r in discovery)


def test_plain_http_to_a_tls_port_ends_with_a_reason(tls_server):
    outcome = run(tls_server.replace("https:", "http:"))
    assert_fault(outcome, "the connection before the response was complete")


def test_a_certificate_for_another_name_is_explained(tls_server, certificate):
    url = tls_server.replace("127.0.0.1", "localhost")
    outcome = run(url, tls=TLS(ca_bundle=str(certificate[0])))
    assert_fault(outcome, "is not issued for localhost: use the host name it names, or set tls.verify = false")


def test_a_sound_server_passes_through_the_guarded_transport(scim_server):
    outcome = run(scim_server.url)
    assert outcome.results and all(r.status is not Status.DEVIATION and not r.status.failed for r in outcome.results)


def test_a_client_certificate_is_shown_when_the_server_asks(certificate, tmp_path):
    client_cert, client_key = make_certificate(tmp_path, "client")
    trusted = TLS(ca_bundle=str(certificate[0]))
    with serving_tls(certificate, client_ca=client_cert) as url:
        anonymous = run(url, tls=trusted)
        identified = run(url, tags={"discovery"}, tls=trusted.model_copy(update={"client_cert": str(client_cert), "client_key": str(client_key)}))
    assert_fault(anonymous, "asks for a client certificate: set tls.client_cert and tls.client_key")
    discovery = [r for r in identified.results if "discovery" in r.tags and "discovery:strict" not in r.tags]
    assert discovery and all(r.status is Status.SUCCESS for r in discovery)
