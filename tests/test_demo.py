"""The embedded server keeps connections alive, and ends them when it stops."""

from __future__ import annotations

import http.client

import pytest

from scim_tui.demo import DemoServer


def _connection(server: DemoServer) -> http.client.HTTPConnection:
    connection = http.client.HTTPConnection(server.host, server._server.server_port, timeout=5)  # type: ignore[union-attr]
    connection.connect()
    return connection


def _get(connection: http.client.HTTPConnection, path: str) -> http.client.HTTPResponse:
    connection.request("GET", path)
    response = connection.getresponse()
    response.read()
    return response


def test_one_connection_serves_several_requests(scim_server):
    connection = _connection(scim_server)
    sock = connection.sock
    statuses = [_get(connection, "/v2/ServiceProviderConfig").status for _ in range(3)]
    assert statuses == [200, 200, 200]
    assert connection.sock is sock  # http.client reconnects, with a new socket, after a closed connection
    connection.close()


def test_a_body_the_application_leaves_unread_does_not_spill_into_the_next_request(serve):
    def ignores_bodies(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "2")])
        return [environ["REQUEST_METHOD"].encode()[:2]]

    connection = _connection(serve(ignores_bodies))
    connection.request("POST", "/", body=b"DELETE /smuggled HTTP/1.1\r\n\r\n")
    assert connection.getresponse().read() == b"PO"
    sock = connection.sock
    connection.request("GET", "/")
    assert connection.getresponse().read() == b"GE"
    assert connection.sock is sock


def test_a_response_without_length_closes_its_connection(serve):
    def streams(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/plain")])
        return iter([b"a", b"b"])

    connection = _connection(serve(streams))
    response = _get(connection, "/")
    assert response.getheader("Connection") == "close"
    assert response.will_close


def test_stopping_ends_kept_alive_connections():
    server = DemoServer()
    server.start()
    connection = _connection(server)
    assert _get(connection, "/v2/ServiceProviderConfig").status == 200
    server.stop()
    with pytest.raises((http.client.HTTPException, OSError)):
        connection.request("GET", "/v2/ServiceProviderConfig")
        connection.getresponse()
