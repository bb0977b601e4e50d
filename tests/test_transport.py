"""The transport's HTTP/1.1 on its own: kept-alive connections, bodies read whole or refused,
and many threads sharing one client. The faults of whole runs are in test_network_faults.py."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from collections.abc import Iterator
from contextlib import contextmanager

import httpx2
import pytest

from scim_tui.checker.limits import MAX_HEADER_BYTES
from scim_tui.checker.limits import MAX_HEADER_FIELDS
from scim_tui.checker.limits import byte_size
from scim_tui.net.connect import open_client
from scim_tui.store.profiles import Profile
from tests.support.servers import RawServer
from tests.support.servers import read_request

TIMEOUT = 30.0
"""A profile's default: no test here waits for it, and a loaded machine may answer slowly."""


def answering(*responses: bytes, then_close: bool = False) -> Callable[[socket.socket], None]:
    """A server that answers the requests of a connection with `responses` in turn (the last
    one again and again), or closes the connection after the last one when `then_close`."""

    def handle(connection: socket.socket) -> None:
        sent = 0
        while True:  # until the client closes the connection
            read_request(connection)
            connection.sendall(responses[min(sent, len(responses) - 1)])
            sent += 1
            if then_close and sent == len(responses):
                connection.close()
                return

    return handle


OK = b"HTTP/1.1 200 OK\r\nContent-Type: application/scim+json\r\nContent-Length: 2\r\n\r\n{}"


@contextmanager
def http(url: str) -> Iterator[httpx2.Client]:
    """The httpx2 client scim-tui builds for a profile of this URL."""
    with open_client(Profile(name="transport", url=url, timeout=TIMEOUT)) as connection:
        yield connection.client.client


def test_requests_share_one_kept_alive_connection():
    with RawServer(answering(OK)) as server, http(server.url) as client:
        answers = [client.get("/Users").json() for _ in range(5)]
    assert answers == [{}] * 5
    assert len(server.connections) == 1


def test_a_connection_the_server_closed_is_not_reused():
    closed = threading.Event()

    def answer_once(connection: socket.socket) -> None:
        answering(OK, then_close=True)(connection)
        closed.set()

    with RawServer(answer_once) as server, http(server.url) as client:
        assert client.get("/Users").status_code == 200
        assert closed.wait(10)  # the server closed the kept-alive connection
        assert client.get("/Users").status_code == 200
    assert len(server.connections) == 2


def test_a_response_that_says_connection_close_is_answered_on_a_new_connection():
    closing = OK.replace(b"Content-Length", b"Connection: close\r\nContent-Length")
    with RawServer(answering(closing, then_close=True)) as server, http(server.url) as client:
        assert [client.get("/Users").status_code for _ in range(3)] == [200] * 3
    assert len(server.connections) == 3


def test_a_chunked_body_is_read_whole():
    chunked = b"HTTP/1.1 200 OK\r\nContent-Type: application/scim+json\r\nTransfer-Encoding: chunked\r\n\r\n" + b'5\r\n{"a":\r\n3\r\n 1}\r\n0\r\n\r\n'
    with RawServer(answering(chunked)) as server, http(server.url) as client:
        assert client.get("/Users").json() == {"a": 1}
        assert client.get("/Users").json() == {"a": 1}
    assert len(server.connections) == 1


def test_a_body_cut_short_is_an_error_that_says_so():
    short = b'HTTP/1.1 200 OK\r\nContent-Type: application/scim+json\r\nContent-Length: 100\r\n\r\n{"schemas":'
    with (
        RawServer(answering(short, then_close=True)) as server,
        http(server.url) as client,
        pytest.raises(httpx2.RemoteProtocolError, match=f"127.0.0.1:{server.port} closed the connection before the response was complete"),
    ):
        client.get("/Users")


def test_a_head_answer_has_no_body_and_keeps_the_connection():
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/scim+json\r\nContent-Length: 2048\r\n\r\n"
    with RawServer(answering(head, OK)) as server, http(server.url) as client:
        assert client.head("/Users").content == b""
        assert client.get("/Users").json() == {}
    assert len(server.connections) == 1


def test_threads_share_one_client(scim_server):
    failures: list[BaseException] = []
    statuses: list[int] = []

    def work(client: httpx2.Client) -> None:
        try:
            for _ in range(20):
                statuses.append(client.get("/ServiceProviderConfig").status_code)
        except BaseException as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    with http(scim_server.url) as client:
        threads = [threading.Thread(target=work, args=(client,)) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert failures == []
    assert statuses == [200] * 160


def answer_with(fields: bytes) -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Type: application/scim+json\r\n" + fields + b"Content-Length: 2\r\n\r\n{}"


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        (
            b"".join(b"X-Padding-%d: %s\r\n" % (number, b"p" * 60_000) for number in range(90)),
            f"has a header section larger than {byte_size(MAX_HEADER_BYTES)}",
        ),
        (b"X-Padding: " + b"p" * 70_000 + b"\r\n", f"has a header section larger than {byte_size(MAX_HEADER_BYTES)}"),
        (b"".join(b"X-Field-%d: f\r\n" % number for number in range(MAX_HEADER_FIELDS)), f"has {MAX_HEADER_FIELDS} header fields or more"),
    ],
    ids=["90 fields of 60 kB (5.4 MB)", "one field of 70 kB", "100 small fields"],
)
def test_a_response_head_past_the_limits_is_read_no_further_saying_which_limit(fields, problem):
    """Header fields are held in every exchange: 5 MB of them per answer took gigabytes over a run."""
    with RawServer(answering(answer_with(fields))) as server, http(server.url) as client, pytest.raises(httpx2.ReadError) as refused:
        client.get("/Users")
    assert str(refused.value) == f"the response of 127.0.0.1:{server.port} {problem} (a limit of scim-tui): it was read no further"


def test_a_head_within_the_limits_is_read_whole():
    fields = b"".join(b"X-Field-%d: %s\r\n" % (number, b"f" * 500) for number in range(MAX_HEADER_FIELDS - 3))
    with RawServer(answering(answer_with(fields))) as server, http(server.url) as client:
        assert len(client.get("/Users").headers) == MAX_HEADER_FIELDS - 1
