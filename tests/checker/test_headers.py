"""The headers checker (RFC 7644 §3.1, §3.3, §3.8) against scim2-server, and against servers
that break one of its rules: the media type of requests or answers, the Location of a 201."""

from __future__ import annotations

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.demo import make_app
from tests.support.servers import Broken
from tests.support.servers import make_client
from tests.support.servers import scim_error
from tests.support.servers import stored
from tests.support.unlike import ScimMediaTypeRefused

USERS = "/v2/Users"
USER = r"/v2/Users/[^/]+"


def run(url: str, resource_type: str = "User"):
    with make_client(url) as scim:
        return list(iter_checks(scim, CheckConfig(), only={CheckId("http_headers", resource_type)}))


def headers(change):
    """A rewrite of an answer's headers (its status and body stay)."""
    return lambda answer: (answer[0], change(answer[1]), answer[2])


def content_type(value: str | None):
    def change(found):
        kept = [(k, v) for k, v in found if k.lower() != "content-type"]
        return kept + ([("Content-Type", value)] if value else [])

    return headers(change)


def location(value: str | None):
    def change(found):
        kept = [(k, v) for k, v in found if k.lower() != "location"]
        return kept + ([("Location", value)] if value else [])

    return headers(change)


@pytest.mark.parametrize("resource_type", ["User", "Group"])
def test_scim2_server_follows_every_rule_and_is_cleaned_up(serve, resource_type):
    server = serve(make_app())
    accepted, media, created_at = run(server.url, resource_type)
    assert [r.status for r in (accepted, media, created_at)] == [Status.SUCCESS] * 3, [r.reason for r in (accepted, media, created_at)]
    assert accepted.reason == f"POST /v2/{resource_type}s sent with Content-Type: application/scim+json answered 201."
    [post] = accepted.exchanges
    assert post.request_headers["content-type"] == post.request_headers["accept"] == "application/scim+json"
    assert [(e.method, e.status_code) for e in media.exchanges] == [("POST", 201), ("GET", 200), ("GET", 200), ("GET", 404)]
    assert all(e.request_headers["accept"] == "application/scim+json" for e in media.exchanges)
    assert "all answered Content-Type: application/scim+json" in media.reason
    assert "with a Location header equal to the meta.location of its body" in created_at.reason
    assert all(r.section == "3.8" and r.tags == {"headers"} for r in (accepted, media, created_at))
    assert stored(server.url) == []


def test_a_server_refusing_the_scim_media_type_gives_an_error(serve):
    """A server that answers 415 to a POST sent as application/scim+json, and takes application/json."""
    server = serve(ScimMediaTypeRefused(make_app()))
    [result] = run(server.url)
    assert result.status is Status.ERROR
    assert result.reason.startswith("POST /v2/Users sent with Content-Type: application/scim+json answered 415 instead of creating the resource")
    assert stored(server.url) == []


def test_a_server_refusing_every_creation_is_object_creations_finding(serve):
    """Every POST answered 415, whatever its media type: the refusal says nothing of application/scim+json."""
    server = serve(Broken(make_app()).answer("POST", USERS, 415, scim_error(415)))
    [result] = run(server.url)
    assert result.status is Status.SKIPPED
    assert result.reason.startswith("Skipped: the User[EnterpriseUser] it needs could not be created: POST /v2/Users answered 415"), result.reason
    assert stored(server.url) == []


@pytest.mark.parametrize(
    ("method", "path", "value", "status", "words"),
    [
        (
            "GET",
            USERS,
            "application/json",
            Status.DEVIATION,
            "GET /v2/Users?count=1 (200) answered Content-Type: application/json, the type older SCIM servers",
        ),
        ("GET", USER, "text/plain", Status.ERROR, "(200) answered Content-Type: text/plain; "),
        ("GET", USER, None, Status.ERROR, "(404) answered no Content-Type, instead of application/scim+json"),
        ("POST", USERS, "text/html", Status.ERROR, "POST /v2/Users (201) answered Content-Type: text/html"),
    ],
    ids=["list as application/json", "read as text/plain", "no Content-Type", "201 as text/html"],
)
def test_an_answer_without_the_scim_media_type_is_reported(serve, method, path, value, status, words):
    server = serve(Broken(make_app()).rewrite(method, path, content_type(value)))
    accepted, media, created_at = run(server.url)
    assert media.status is status, media.reason
    assert words in media.reason
    assert accepted.status is Status.SUCCESS and created_at.status is Status.SUCCESS
    assert stored(server.url) == []


@pytest.mark.parametrize(
    ("breaks", "words"),
    [
        (lambda b: b.rewrite("POST", USERS, location(None)), "answered 201 with no Location header: "),
        (
            lambda b: b.rewrite("POST", USERS, location("http://127.0.0.1/v2/Users/another")),
            "with the Location http://127.0.0.1/v2/Users/another, but meta.location http",
        ),
        (lambda b: b.rewrite_json("POST", USERS, lambda body: body | {"meta": {**body["meta"], "location": None}}), "but no meta.location in its body"),
    ],
    ids=["no Location", "another Location", "no meta.location"],
)
def test_a_201_whose_location_is_not_meta_location_gives_an_error(serve, breaks, words):
    server = serve(breaks(Broken(make_app())))
    _accepted, _media, created_at = run(server.url)
    assert created_at.status is Status.ERROR
    assert words in created_at.reason and "SHALL be in both (RFC 7644 §3.3)" in created_at.reason
    assert stored(server.url) == []


def test_a_relative_location_naming_the_same_uri_is_accepted(serve):
    def relative(found):
        absolute = next(v for k, v in found if k.lower() == "location")
        return [(k, v) for k, v in found if k.lower() != "location"] + [("Location", absolute.split("/v2/", 1)[1])]

    server = serve(Broken(make_app()).rewrite("POST", USERS, headers(relative)))
    _accepted, _media, created_at = run(server.url)
    assert created_at.status is Status.SUCCESS, created_at.reason


def allow_header(url: str):
    with make_client(url) as scim:
        return list(iter_checks(scim, CheckConfig(), only={CheckId("allow_header")}))


def test_scim2_server_names_the_allowed_methods_of_a_405(serve):
    [result] = allow_header(serve(make_app()).url)
    assert result.status is Status.SUCCESS
    assert result.reason == "PUT /v2/ServiceProviderConfig answered 405 with Allow: GET."


def test_a_405_without_allow_is_an_error(serve):
    without = lambda answer: (answer[0], [(k, v) for k, v in answer[1] if k.lower() != "allow"], answer[2])  # noqa: E731
    [result] = allow_header(serve(Broken(make_app()).rewrite("PUT", "/v2/ServiceProviderConfig", without)).url)
    assert result.status is Status.ERROR
    assert result.reason == (
        "PUT /v2/ServiceProviderConfig answered 405 without an Allow header (RFC 9110 §15.5.6: the origin server "
        "MUST generate an Allow header field in a 405 response)."
    )


def test_an_endpoint_that_does_not_answer_405_is_judged_elsewhere(serve):
    [result] = allow_header(serve(Broken(make_app()).answer("PUT", "/v2/ServiceProviderConfig", 501, scim_error(501))).url)
    assert result.status is Status.SKIPPED
    assert "answered 501, not 405 (service_provider_config_endpoint_methods judges it)" in result.reason
