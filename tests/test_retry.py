"""A kept-alive connection the server closes before answering is not a server verdict (RFC 9110 §9.2.2):
an idempotent request (GET, PUT, DELETE) goes again once on a new connection, visibly; a POST or a
PATCH never does. The server here answers the first request of each connection, then closes the
connection as the next one arrives, as servers do after an error or an idle limit."""

from __future__ import annotations

import socket
import threading

import httpx2
import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import iter_checks
from scim_tui.net.connect import open_client
from scim_tui.net.transport import RETRIED
from scim_tui.store.profiles import Profile
from tests.support.servers import RawServer
from tests.support.servers import read_request

OK = b"HTTP/1.1 200 OK\r\nContent-Type: application/scim+json\r\nContent-Length: 2\r\n\r\n{}"


def one_answer_per_connection(connection: socket.socket) -> None:
    read_request(connection)
    connection.sendall(OK)
    read_request(connection)  # the next request on this connection: closed without a word
    connection.close()


def test_an_idempotent_request_goes_again_on_a_new_connection():
    with RawServer(one_answer_per_connection) as server, open_client(Profile(name="retry", url=server.url, timeout=5)) as connection:
        http = connection.client.client
        first = http.get("/Users")
        answers = [http.request(method, "/Users/x") for method in ("GET", "PUT", "DELETE")]
    assert first.status_code == 200 and connection.notes.note_of(first) is None
    assert [a.status_code for a in answers] == [200, 200, 200]
    assert [connection.notes.note_of(a) for a in answers] == [RETRIED] * 3
    assert len(server.connections) == 4, "each retry on a new connection"


def test_the_retry_goes_on_a_new_connection_not_on_another_kept_alive_one():
    """Two connections kept alive, both closed by the server at their next request: the request
    sent again must not go on the other one (it would fail the same way)."""
    both_open = threading.Barrier(2, timeout=30)

    def answer_together_then_close(connection: socket.socket) -> None:
        read_request(connection)
        if len(server.connections) <= 2:
            both_open.wait()  # the two first requests are sent at once, on two connections
        connection.sendall(OK)
        read_request(connection)
        connection.close()

    with RawServer(answer_together_then_close) as server, open_client(Profile(name="retry", url=server.url, timeout=30)) as connection:
        http = connection.client.client
        firsts = [threading.Thread(target=http.get, args=("/Users",)) for _ in range(2)]
        for thread in firsts:
            thread.start()
        for thread in firsts:
            thread.join()
        answer = http.get("/Users/x")
    assert answer.status_code == 200 and connection.notes.note_of(answer) == RETRIED
    assert len(server.connections) == 3, "the retry on a third connection"


@pytest.mark.parametrize("method", ["POST", "PATCH"])
def test_a_request_that_may_change_something_is_never_sent_twice(method):
    with RawServer(one_answer_per_connection) as server, open_client(Profile(name="retry", url=server.url, timeout=5)) as connection:
        http = connection.client.client
        http.get("/Users")
        with pytest.raises(httpx2.RemoteProtocolError, match="closed the connection before the response was complete"):
            http.request(method, "/Users", content=b"{}")
    assert len(server.connections) == 1


def test_a_retry_shows_in_the_exchange():
    with RawServer(one_answer_per_connection) as server, open_client(Profile(name="retry", url=server.url, timeout=5)) as connection:
        # one job: checks running at once each open a connection, and may send only one request on it
        results = list(iter_checks(connection.client, CheckConfig(include_tags={"discovery"}, jobs=1), notes=connection.notes))
    exchanges = [e for r in results for e in r.exchanges]
    retried = [e for e in exchanges if e.note == RETRIED]
    assert retried and {e.method for e in retried} <= {"GET", "PUT", "DELETE"}, [(e.method, e.note) for e in exchanges]
    assert all(e.to_dict()["note"] == RETRIED for e in retried), "the reports carry it"


def test_after_a_server_error_the_next_request_goes_on_a_new_connection():
    """A server may drop a kept-alive connection after a 5xx: a POST sent on it would fail for
    another check's sake, so the connection that carried the 5xx is not reused."""
    error = b"HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\noops!"

    def error_then_stale(connection: socket.socket) -> None:
        read_request(connection)
        connection.sendall(error if len(server.connections) == 1 else OK)
        read_request(connection)  # the next request on this connection: closed unanswered
        connection.close()

    with RawServer(error_then_stale) as server, open_client(Profile(name="retry", url=server.url, timeout=5)) as connection:
        http = connection.client.client
        assert http.get("/Users").status_code == 500
        answer = http.request("POST", "/Users", content=b"{}")
    assert answer.status_code == 200 and connection.notes.note_of(answer) is None
    assert len(server.connections) == 2


@pytest.mark.parametrize("status", [b"204 No Content", b"304 Not Modified"])
def test_after_an_answer_that_declares_a_body_it_cannot_have_the_next_request_goes_on_a_new_connection(status):
    """A 204 or a 304 has no body, whatever its head says (RFC 9112 §6.3): a server that sends one
    anyway leaves it on the connection, where it would be read as the beginning of the next answer
    (a POST of another check then reads "{"foo": 1}HTTP/1.1 201" and fails). That connection is
    not reused."""
    bodied = b"HTTP/1.1 " + status + b"\r\nContent-Type: application/scim+json\r\nContent-Length: 10\r\n\r\n" + b'{"foo": 1}'

    def bodied_then_ok(connection: socket.socket) -> None:
        read_request(connection)
        connection.sendall(bodied if len(server.connections) == 1 else OK)
        read_request(connection)  # the next request on this connection: answered, after the stray body
        connection.sendall(OK)

    with RawServer(bodied_then_ok) as server, open_client(Profile(name="retry", url=server.url, timeout=5)) as connection:
        http = connection.client.client
        assert http.get("/Users/x", headers={"If-None-Match": 'W/"1"'}).status_code == int(status[:3])
        answer = http.request("POST", "/Users", content=b"{}")
    assert answer.status_code == 200 and answer.json() == {}
    assert len(server.connections) == 2
