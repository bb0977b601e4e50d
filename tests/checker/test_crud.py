"""The CRUD checkers against scim2-server, and against servers that break one rule of RFC 7644 §3.3 to §3.6."""

from __future__ import annotations

import httpx2
import pytest
from scim2_models import Filter
from scim2_server.utils import load_default_service_provider_config

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.demo import make_app
from tests.servers import Broken
from tests.servers import make_client
from tests.servers import scim_error

USER = r"/v2/Users/[^/]+"


def run(url: str, checker: str, resource_type: str = "User"):
    with make_client(url) as scim:
        return list(iter_checks(scim, CheckConfig(), only={CheckId(checker, resource_type)}))


def stored(url: str, endpoint: str = "/Users") -> list[dict]:
    with httpx2.Client(base_url=url) as http:
        return http.get(endpoint).json().get("Resources", [])


@pytest.mark.parametrize("resource_type", ["User", "Group"])
@pytest.mark.parametrize(
    ("checker", "expected"),
    [
        ("object_creation", "answered 201 with the created"),
        ("object_query", "answered the"),
        ("object_query_without_id", "just created"),
        ("object_replacement", "answered 200 with the new values"),
        ("object_deletion", "answered 204, and a GET then answered 404"),
    ],
)
def test_each_crud_checker_succeeds_on_scim2_server_and_cleans_up(serve, checker, expected, resource_type):
    server = serve(make_app())
    [result] = run(server.url, checker, resource_type)
    assert result.status is Status.SUCCESS, result.reason
    assert expected in result.reason
    assert result.exchanges and result.leftovers == []
    assert stored(server.url, "/Users") == [] and stored(server.url, "/Groups") == []


def test_a_creation_answered_200_instead_of_201_is_an_error_and_the_resource_is_still_deleted(serve):
    server = serve(Broken(make_app()).rewrite("POST", "/v2/Users", lambda answer: (200, *answer[1:])))
    [result] = run(server.url, "object_creation")
    assert result.status is Status.ERROR
    assert "POST /v2/Users answered 200" in result.reason
    assert stored(server.url) == []


def test_a_failed_read_is_an_error(serve):
    server = serve(Broken(make_app()).answer("GET", USER, 500, scim_error(500)))
    [result] = run(server.url, "object_query")
    assert result.status is Status.ERROR
    assert "500" in result.reason
    assert stored(server.url) == []


def test_a_list_that_omits_the_new_resource_is_an_error(serve):
    def empty(body):
        return body | {"totalResults": 0, "Resources": []}

    server = serve(Broken(make_app()).rewrite_json("GET", "/v2/Users", empty))
    [result] = run(server.url, "object_query_without_id")
    assert result.status is Status.ERROR
    assert "GET /Users answered a list without the User" in result.reason


def test_a_paginated_list_is_followed_to_the_new_resource(serve):
    """scim2-server answering one resource a page, with someone else's user first."""
    config = load_default_service_provider_config()
    server = serve(make_app(config=config.model_copy(update={"filter": Filter(supported=True, max_results=1)})))
    with httpx2.Client(base_url=server.url) as http:
        http.post("/Users", json={"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "userName": "aaa-first"})
    [result] = run(server.url, "object_query_without_id")
    assert result.status is Status.SUCCESS, result.reason
    assert any("startIndex=" in exchange.url for exchange in result.exchanges)


def test_a_replacement_the_server_ignores_is_an_error(serve):
    server = serve(Broken(make_app()).reroute("PUT", USER, REQUEST_METHOD="GET"))
    [result] = run(server.url, "object_replacement")
    assert result.status is Status.ERROR
    assert "PUT /Users/" in result.reason and "answered 200, but" in result.reason
    assert "displayName is" in result.reason
    assert stored(server.url) == []


def test_a_replacement_answered_with_an_error_is_an_error(serve):
    server = serve(Broken(make_app()).answer("PUT", USER, 400, scim_error(400)))
    [result] = run(server.url, "object_replacement")
    assert result.status is Status.ERROR
    assert "PUT" in result.reason and "400" in result.reason
    assert stored(server.url) == []


def test_a_deletion_answered_200_is_an_error(serve):
    server = serve(Broken(make_app()).rewrite("DELETE", USER, lambda answer: (200, *answer[1:])))
    [result] = run(server.url, "object_deletion")
    assert result.status is Status.ERROR
    assert "answered 200 instead of 204" in result.reason
    assert stored(server.url) == []


def test_a_deleted_resource_that_is_still_readable_is_an_error(serve):
    broken = Broken(make_app()).answer("DELETE", USER, 204, b"")
    server = serve(broken)
    [result] = run(server.url, "object_deletion")
    assert result.status is Status.ERROR
    assert "can still be read" in result.reason
    broken.repaired = True


def test_a_deleted_resource_answered_with_another_status_than_404_is_an_error(serve):
    server = serve(Broken(make_app()).answer("DELETE", USER, 204, b"").answer("GET", USER, 410, scim_error(410)))
    [result] = run(server.url, "object_deletion")
    assert result.status is Status.ERROR
    assert "answered 410 instead of 404" in result.reason


def test_the_engine_deletes_only_what_it_created(serve):
    server = serve(make_app())
    with httpx2.Client(base_url=server.url) as http:
        theirs = http.post("/Users", json={"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "userName": "theirs"}).json()
    results = [r for checker in ("object_creation", "object_replacement", "object_deletion") for r in run(server.url, checker)]
    assert all(r.status is Status.SUCCESS for r in results)
    assert stored(server.url) == [theirs]
    assert not any(theirs["id"] in exchange.url for r in results for exchange in r.exchanges)
