"""HTTP proxies from the environment: https through a CONNECT tunnel, http sent whole, NO_PROXY,
credentials, and a proxy that is down or refuses, each told in one line. A real proxy on
loopback (ForwardProxy) relays to a real scim2-server."""

from __future__ import annotations

import base64
import http.client
import json
import socket
import threading
from collections.abc import Iterator
from contextlib import suppress
from urllib.parse import urlsplit

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.demo import make_app
from scim_tui.net import connect
from scim_tui.net.connect import open_client
from scim_tui.store.profiles import TLS
from scim_tui.store.profiles import Profile
from tests.support.command import one_line_error
from tests.support.command import scim_tui_here
from tests.support.network import closed_port
from tests.support.network import make_certificate
from tests.support.network import serving_tls
from tests.support.secrets import Echo
from tests.support.secrets import check_outputs
from tests.support.secrets import leaks
from tests.support.servers import RawServer
from tests.support.servers import read_request

HOP_BY_HOP = {"connection", "keep-alive", "proxy-authorization", "proxy-connection", "transfer-encoding", "content-length"}


def read_message(sock: socket.socket) -> tuple[str, list[tuple[str, str]], bytes] | None:
    """One request: its request line, headers and body; None once the client closed."""
    try:
        data = read_request(sock)
    except ConnectionAbortedError:
        return None
    head, _, body = data.partition(b"\r\n\r\n")
    line, *fields = head.decode("latin-1").split("\r\n")
    headers = [(name.strip(), value.strip()) for name, _, value in (field.partition(":") for field in fields)]
    return line, headers, body


def pipe(source: socket.socket, sink: socket.socket) -> None:
    with suppress(OSError):
        while chunk := source.recv(65536):
            sink.sendall(chunk)
    with suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


class ForwardProxy:
    """An HTTP proxy: CONNECT opens a tunnel, a request naming a whole http URL is relayed.
    It records each request line and Proxy-Authorization it got; with `credentials`, it asks
    for them (407, with the reason phrase `refusal`, where "{sent}" stands for what it got) when a
    request lacks them. A `leaky` one passes Proxy-Authorization on to the server."""

    def __init__(self, credentials: str | None = None, refusal: str = "Proxy Authentication Required", leaky: bool = False):
        self.expected = "Basic " + base64.b64encode(credentials.encode()).decode() if credentials else None
        self.refusal = refusal
        self.leaky = leaky
        self.asked: list[str] = []
        self.authorizations: list[str | None] = []
        self.server = RawServer(self.handle)

    @property
    def port(self) -> int:
        return self.server.port

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> ForwardProxy:
        self.server.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.__exit__(*exc)

    def handle(self, client: socket.socket) -> None:
        upstream: http.client.HTTPConnection | None = None
        while message := read_message(client):
            line, headers, body = message
            method, target, _ = line.split(" ")
            authorization = next((value for name, value in headers if name.lower() == "proxy-authorization"), None)
            self.asked.append(line)
            self.authorizations.append(authorization)
            if self.expected and authorization != self.expected:
                reason = self.refusal.replace("{sent}", str(authorization))
                client.sendall(f"HTTP/1.1 407 {reason}\r\nProxy-Authenticate: Basic\r\nContent-Length: 0\r\n\r\n".encode("latin-1"))
                continue
            if method == "CONNECT":
                host, port = target.rsplit(":", 1)
                tunnel = socket.create_connection((host, int(port)))
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                threading.Thread(target=pipe, args=(tunnel, client), daemon=True).start()
                pipe(client, tunnel)
                return
            url = urlsplit(target)
            upstream = upstream or http.client.HTTPConnection(url.hostname, url.port)
            dropped = HOP_BY_HOP - {"proxy-authorization"} if self.leaky else HOP_BY_HOP
            kept = {name: value for name, value in headers if name.lower() not in dropped}
            upstream.request(method, url.path + (f"?{url.query}" if url.query else ""), body=body or None, headers=kept)
            answer = upstream.getresponse()
            content = answer.read()
            fields = "".join(f"{name}: {value}\r\n" for name, value in answer.getheaders() if name.lower() not in HOP_BY_HOP)
            client.sendall(f"HTTP/1.1 {answer.status} {answer.reason}\r\n{fields}Content-Length: {len(content)}\r\n\r\n".encode("latin-1") + content)


@pytest.fixture
def proxy() -> Iterator[ForwardProxy]:
    with ForwardProxy() as running:
        yield running


def discovery_through(profile: Profile) -> list:
    """The results of the discovery checks that ran (not SKIPPED)."""
    with open_client(profile) as connection:
        results = iter_checks(connection.client, CheckConfig(include_tags={"discovery"}, exclude_tags={"discovery:strict"}), secrets=connection.secrets)
        return [result for result in results if result.status is not Status.SKIPPED]


def test_http_requests_are_sent_whole_to_the_proxy(scim_server, proxy, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    results = discovery_through(Profile(name="p", url=scim_server.url))
    assert results and all(r.status is Status.SUCCESS for r in results), [r.reason for r in results if r.status is not Status.SUCCESS]
    assert f"GET {scim_server.url}/ServiceProviderConfig HTTP/1.1" in proxy.asked


def test_https_goes_through_a_connect_tunnel(proxy, monkeypatch, tmp_path):
    certificate = make_certificate(tmp_path, "server")
    monkeypatch.setenv("HTTPS_PROXY", proxy.url)
    with serving_tls(certificate) as url:
        outcome = connect.test_connection(Profile(name="p", url=url, tls=TLS(ca_bundle=str(certificate[0]))))
    assert outcome.ok, outcome.message
    port = urlsplit(url).port
    assert proxy.asked[0] == f"CONNECT 127.0.0.1:{port} HTTP/1.1"


def test_no_proxy_and_the_embedded_server_go_direct(scim_server, proxy, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    assert connect.test_connection(Profile(name="p", url=scim_server.url)).ok
    monkeypatch.delenv("NO_PROXY")
    assert connect.test_connection(Profile.demo_profile(scim_server.url)).ok
    assert proxy.asked == []


def test_proxy_credentials_are_sent_and_never_shown(scim_server, monkeypatch):
    with ForwardProxy(credentials="alice:s3cret-proxy") as asking:
        monkeypatch.setenv("HTTP_PROXY", f"http://alice:s3cret-proxy@127.0.0.1:{asking.port}")
        results = discovery_through(Profile(name="p", url=scim_server.url))
    assert all(r.status is Status.SUCCESS for r in results)
    assert set(asking.authorizations) == {asking.expected}
    shown = json.dumps([[exchange.to_dict() for exchange in r.exchanges] + [r.reason] for r in results])
    assert "s3cret-proxy" not in shown and asking.expected not in shown


def test_a_proxy_that_refuses_to_tunnel_says_what_to_do(monkeypatch, tmp_path):
    certificate = make_certificate(tmp_path, "server")
    with ForwardProxy(credentials="alice:s3cret-proxy") as server, serving_tls(certificate) as url:
        monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{server.port}")
        outcome = connect.test_connection(Profile(name="p", url=url, tls=TLS(ca_bundle=str(certificate[0]))))
    assert not outcome.ok
    assert outcome.message == (
        f"the proxy 127.0.0.1:{server.port} (HTTPS_PROXY) refused to tunnel to 127.0.0.1:{urlsplit(url).port} "
        "(407 Proxy Authentication Required): put the proxy's user and password in its URL (http://user:password@host:port)"
    )


def test_a_proxy_that_asks_for_credentials_on_http_says_what_to_do(scim_server, monkeypatch):
    with ForwardProxy(credentials="alice:s3cret-proxy") as server:
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{server.port}")
        outcome = connect.test_connection(Profile(name="p", url=scim_server.url))
    assert (outcome.ok, outcome.status_code) == (False, 407)
    assert outcome.message.endswith("the proxy asks for credentials: put them in its URL (http://user:password@host:port).")


def test_a_proxy_that_is_down_is_named(scim_server, monkeypatch):
    port = closed_port()
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{port}")
    outcome = connect.test_connection(Profile(name="p", url=scim_server.url))
    assert not outcome.ok
    assert (
        outcome.message == f"the proxy 127.0.0.1:{port} (HTTP_PROXY) cannot be reached (Connection refused): check the variable, or list the host in NO_PROXY"
    )


@pytest.mark.parametrize("answer", [b"SSH-2.0-OpenSSH_9.6\r\n", b""], ids=["another protocol", "closed"])
def test_a_proxy_that_does_not_speak_http_is_named(monkeypatch, answer):
    def not_a_proxy(connection: socket.socket) -> None:
        read_request(connection)
        connection.sendall(answer)
        connection.close()

    target = closed_port()
    with RawServer(not_a_proxy) as server:
        monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{server.port}")
        outcome = connect.test_connection(Profile(name="p", url=f"https://127.0.0.1:{target}/v2"))
    assert outcome.message == f"the proxy 127.0.0.1:{server.port} (HTTPS_PROXY) did not answer CONNECT 127.0.0.1:{target} in HTTP: check the variable"


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("HTTPS_PROXY", "https://proxy.example:3128", "HTTPS_PROXY is not an http:// proxy URL: write it http://host:port"),
        ("HTTP_PROXY", "http://proxy.example:port", "HTTP_PROXY has no valid port"),
    ],
)
def test_a_proxy_setting_that_cannot_be_used_is_one_line(scim_server, monkeypatch, variable, value, message):
    monkeypatch.setenv(variable, value)
    outcome = connect.test_connection(Profile(name="p", url=scim_server.url))
    assert not outcome.ok and outcome.message.startswith(message) and "\n" not in outcome.message


def test_scim_tui_check_stops_when_the_proxy_asks_for_credentials(scim_server):
    with ForwardProxy(credentials="alice:s3cret-proxy") as asking:
        process = scim_tui_here("check", "--url", scim_server.url, env={"HTTP_PROXY": asking.url})
    line = one_line_error(process)
    assert line.startswith(f"scim-tui: error: {scim_server.url} refused the credentials: 407 Proxy Authentication Required in ")
    assert line.endswith("the proxy asks for credentials: put them in its URL (http://user:password@host:port).")


def test_proxy_credentials_a_proxy_passes_on_are_redacted_everywhere(serve, tmp_path):
    """A proxy that passes Proxy-Authorization on, to a server that echoes every header."""
    with ForwardProxy(credentials="alice:s3cret-proxy", leaky=True) as leaky:
        proxy = f"http://alice:s3cret-proxy@127.0.0.1:{leaky.port}"
        outputs = check_outputs("--url", serve(Echo(make_app())).url, env={"HTTP_PROXY": proxy}, tmp_path=tmp_path)
    assert leaky.authorizations and set(leaky.authorizations) == {leaky.expected}
    assert leaks(outputs, ["s3cret-proxy", leaky.expected.removeprefix("Basic ")]) == []
    assert any("HTTP_PROXY_AUTHORIZATION" in text for text in outputs.values()), "the echo came back, redacted"


@pytest.mark.parametrize("scheme", ["http", "https"])
def test_a_proxys_refusal_is_told_in_plain_words_without_the_credentials(scim_server, tmp_path, scheme):
    """A proxy refusing the credentials it was sent, repeating them in a reason phrase that
    would retitle the terminal."""
    certificate = make_certificate(tmp_path, "server")
    refusal = "Proxy Authentication Required \x1b]0;owned\x07 you sent {sent}"
    with ForwardProxy(credentials="alice:right-one", refusal=refusal) as refusing, serving_tls(certificate) as tls_url:
        url = tls_url if scheme == "https" else scim_server.url
        wrong = f"http://alice:wr0ng-s3cret@127.0.0.1:{refusing.port}"
        env = {"HTTP_PROXY": wrong, "HTTPS_PROXY": wrong}
        line = one_line_error(scim_tui_here("check", "--url", url, env=env))
    assert "wr0ng-s3cret" not in line and base64.b64encode(b"alice:wr0ng-s3cret").decode() not in line
    assert "\x1b" not in line and "\x07" not in line
    assert "refused" in line
