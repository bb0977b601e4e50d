"""Connecting with a profile: every kind of authentication, end to end against real servers on loopback."""

from __future__ import annotations

import base64
import json
import time
from typing import Any
from urllib.parse import quote

import httpx2
import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.demo import make_app
from scim_tui.net import connect
from scim_tui.net.connect import ConnectError
from scim_tui.net.connect import open_client
from scim_tui.store.profiles import TLS
from scim_tui.store.profiles import Auth
from scim_tui.store.profiles import AuthKind
from scim_tui.store.profiles import Profile
from tests.support.oauth import HeaderRecorder
from tests.support.oauth import TokenEndpoint
from tests.support.oauth import oauth_profile
from tests.support.servers import SCIM2_SERVER_BREAKS
from tests.support.servers import SCIM_JSON
from tests.support.servers import Broken
from tests.support.servers import scim_error

DISCOVERY = CheckConfig(include_tags={"discovery"}, exclude_tags=set(SCIM2_SERVER_BREAKS))
PASSING = CheckConfig(exclude_tags=set(SCIM2_SERVER_BREAKS))
"""Every check but those scim2-server really fails."""
PASSED = (Status.SUCCESS, Status.COMPLIANT, Status.ACCEPTABLE, Status.SKIPPED)


def discovery_run(profile: Profile) -> tuple[list[CheckResult], list[str]]:
    with open_client(profile) as connection:
        results = list(iter_checks(connection.client, DISCOVERY, secrets=connection.secrets))
        return results, list(connection.secrets)


def assert_all_succeed(results: list[CheckResult]) -> None:
    """Every check that ran passed (those left out by the tag filters are skipped)."""
    ran = [r for r in results if not (r.status is Status.SKIPPED and "_tags" in (r.reason or ""))]
    assert ran
    assert [(r.title, r.reason) for r in ran if r.status not in PASSED] == []


def assert_nowhere(secret: str, results: list[CheckResult]) -> None:
    for result in results:
        assert secret not in json.dumps([exchange.to_dict() for exchange in result.exchanges])
        assert secret not in (result.reason or "")


@pytest.mark.slow
def test_bearer_token_end_to_end(serve, monkeypatch):
    monkeypatch.setenv("SCIM_TOKEN", "b3arer-from-env")
    server = serve(make_app(bearer_tokens=["b3arer-from-env"]))
    profile = Profile(name="bearer", url=server.url, auth=Auth(kind=AuthKind.BEARER, token="env:SCIM_TOKEN"))
    with open_client(profile) as connection:
        results = list(iter_checks(connection.client, PASSING, secrets=connection.secrets))
        assert list(connection.secrets) == ["b3arer-from-env"]
    assert_all_succeed(results)
    assert_nowhere("b3arer-from-env", results)


def test_a_wrong_bearer_token_is_refused_by_the_server(serve):
    server = serve(make_app(bearer_tokens=["the-right-one"]))
    profile = Profile(name="bearer", url=server.url, auth=Auth(kind=AuthKind.BEARER, token="the-wrong-one"))
    with open_client(profile) as connection:
        results = list(iter_checks(connection.client, CheckConfig(include_tags={"resource-types", "crud:create"}), secrets=connection.secrets))
    refused = next(r for r in results if r.title == "query_all_resource_types")
    assert refused.status is Status.ERROR and "401" in refused.reason
    [creation] = [r for r in results if r.title == "object_creation"]
    assert (
        creation.status is Status.SKIPPED
        and 'could not be described (GET /v2/ResourceTypes answered 401: the answer is a SCIM Error ("Authorization failure' in creation.reason
    )


def test_basic_auth_reaches_the_server(serve, monkeypatch):
    monkeypatch.setenv("SCIM_PASSWORD", "pa55word")
    recorder = HeaderRecorder(make_app())
    server = serve(recorder)
    results, secrets = discovery_run(Profile(name="basic", url=server.url, auth=Auth(kind=AuthKind.BASIC, username="alice", password="env:SCIM_PASSWORD")))
    assert_all_succeed(results)
    expected = "Basic " + base64.b64encode(b"alice:pa55word").decode()
    assert recorder.seen and all(headers["authorization"] == expected for headers in recorder.seen)
    assert {"pa55word", "alice:pa55word", expected.removeprefix("Basic ")} <= set(secrets), "the header's base64 is a secret too"
    assert_nowhere("pa55word", results)


def test_custom_headers_reach_the_server(serve, monkeypatch):
    monkeypatch.setenv("TENANT_KEY", "t3nant-key")
    recorder = HeaderRecorder(make_app())
    server = serve(recorder)
    auth = Auth(kind=AuthKind.HEADERS, headers={"X-Api-Key": "ap1-key-literal", "X-Tenant-Key": "env:TENANT_KEY"})
    results, secrets = discovery_run(Profile(name="headers", url=server.url, auth=auth, headers={"X-Trace": "scim-tui"}))
    assert_all_succeed(results)
    for headers in recorder.seen:
        assert (headers["x-api-key"], headers["x-tenant-key"], headers["x-trace"]) == ("ap1-key-literal", "t3nant-key", "scim-tui")
    assert sorted(secrets) == ["ap1-key-literal", "t3nant-key"]
    assert_nowhere("ap1-key-literal", results)
    assert_nowhere("t3nant-key", results)


@pytest.fixture
def oauth(serve):
    """A scim2-server that demands a token, and the token endpoint that issues them."""

    def start(**options: Any) -> tuple[Any, TokenEndpoint, str]:
        scim_app = make_app(bearer_tokens=["not-issued-yet"])
        endpoint = TokenEndpoint(scim_app, "checker", "cl1ent-secret", **options)
        return serve(scim_app), endpoint, f"{serve(endpoint).url}/token"

    return start


@pytest.mark.slow
def test_oauth_client_credentials_end_to_end(oauth):
    server, endpoint, token_url = oauth()
    profile = oauth_profile(server.url, token_url)
    with open_client(profile) as connection:
        results = list(iter_checks(connection.client, PASSING, secrets=connection.secrets))
        secrets = list(connection.secrets)
    assert_all_succeed(results)
    assert len(endpoint.issued) == 1
    assert endpoint.forms[0]["grant_type"] == ["client_credentials"] and endpoint.forms[0]["scope"] == ["scim"]
    basic = base64.b64encode(b"checker:cl1ent-secret").decode()  # the client's Basic header, which a token endpoint may repeat
    assert set(secrets) == {"cl1ent-secret", "checker:cl1ent-secret", "checker%3Acl1ent-secret", basic, quote(basic, safe=""), endpoint.issued[0]}
    assert_nowhere(endpoint.issued[0], results)


def test_oauth_client_credentials_in_the_form_when_basic_is_refused(oauth):
    server, endpoint, token_url = oauth(basic=False)
    results, _ = discovery_run(oauth_profile(server.url, token_url))
    assert_all_succeed(results)
    assert len(endpoint.issued) == 1


def test_an_expiring_token_is_replaced_before_it_expires(oauth):
    server, endpoint, token_url = oauth(expires_in=1)
    with open_client(oauth_profile(server.url, token_url)) as connection:
        first = connection.client.client.get("/Users")
        time.sleep(0.6)
        second = connection.client.client.get("/Users")
    assert (first.status_code, second.status_code) == (200, 200)
    assert len(endpoint.issued) == 2


def test_a_revoked_token_is_replaced_once_on_401(oauth):
    server, endpoint, token_url = oauth()
    with open_client(oauth_profile(server.url, token_url)) as connection:
        assert connection.client.client.get("/Users").status_code == 200
        server.app.bearer_tokens = {"revoked-them-all"}
        assert connection.client.client.get("/Users").status_code == 200
        server.app.bearer_tokens = {"revoked-them-all"}
        endpoint.scim_app = make_app()  # the next token will not be accepted either
        assert connection.client.client.get("/Users").status_code == 401
    assert len(endpoint.issued) == 3


def test_a_refused_client_secret_is_a_one_line_error(oauth):
    server, endpoint, token_url = oauth()
    profile = oauth_profile(server.url, token_url, secret="wrong-secret")
    with pytest.raises(ConnectError) as error:
        discovery_run(profile)
    message = str(error.value)
    assert "answered 401 (bad client credentials)" in message and "auth.client_secret" in message
    assert "wrong-secret" not in message and "\n" not in message
    outcome = connect.test_connection(profile)
    assert not outcome.ok and outcome.message == message


def test_connection_test_reports_status_and_time(scim_server):
    outcome = connect.test_connection(Profile(name="local", url=scim_server.url))
    assert outcome.ok and outcome.status_code == 200
    assert outcome.message == f"200 OK in {outcome.elapsed * 1000:.0f} ms"


def test_connection_test_on_the_demo_profile_with_the_server_handed_down(scim_server):
    outcome = connect.test_connection(Profile.demo_profile(scim_server.url))
    assert outcome.ok and outcome.message.startswith("200 OK in ")


def test_the_demo_profile_before_its_server_started_is_one_line():
    """Whoever needs the demo server starts it and hands its URL down: nothing starts one behind their back."""
    outcome = connect.test_connection(Profile.demo_profile())
    assert not outcome.ok and outcome.message.startswith("The demo server is not running: ")


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (401, "401 Unauthorized in {ms} ms: check the profile's authentication."),
        (404, "404 Not Found in {ms} ms: check the URL, it should be the base of the SCIM endpoints"),
        (302, "302 Found in {ms} ms: the server redirects to http://login.example/; use that URL if you trust it."),
    ],
)
def test_connection_test_explains_a_refusal(serve, status, expected):
    headers = [("Location", "http://login.example/")] if status == 302 else SCIM_JSON
    server = serve(Broken(make_app()).answer("GET", "/v2/ServiceProviderConfig", status, scim_error(status), headers))
    outcome = connect.test_connection(Profile(name="x", url=server.url))
    assert (outcome.ok, outcome.status_code) == (False, status)
    assert outcome.message.startswith(expected.format(ms=f"{outcome.elapsed * 1000:.0f}"))


def test_connection_test_tries_the_credentials_where_the_server_asks_for_them(serve):
    """scim2-server serves /ServiceProviderConfig to anyone: a wrong token shows on /ResourceTypes."""
    url = serve(make_app(bearer_tokens=["the-right-one"])).url
    wrong = connect.test_connection(Profile(name="x", url=url, auth=Auth(kind=AuthKind.BEARER, token="the-wrong-one")))
    assert (wrong.ok, wrong.status_code) == (False, 401)
    assert wrong.message == f"GET /v2/ResourceTypes answered 401 Unauthorized in {wrong.elapsed * 1000:.0f} ms: check the profile's authentication."
    right = connect.test_connection(Profile(name="x", url=url, auth=Auth(kind=AuthKind.BEARER, token="the-right-one")))
    assert (right.ok, right.status_code) == (True, 200)


def test_connection_test_tries_the_credentials_on_a_resource_endpoint(serve):
    url = serve(Broken(make_app()).answer("GET", "/v2/Users", 403, scim_error(403))).url
    outcome = connect.test_connection(Profile(name="x", url=url))
    assert (outcome.ok, outcome.status_code) == (False, 403)
    assert outcome.message.startswith("GET /v2/Users answered 403 Forbidden in ")


def test_connection_test_leaves_other_answers_to_the_checks(serve):
    url = serve(Broken(make_app()).answer("GET", "/v2/ResourceTypes", 200, b"<html>not SCIM</html>", [("Content-Type", "text/html")])).url
    outcome = connect.test_connection(Profile(name="x", url=url))
    assert outcome.ok and outcome.message.startswith("200 OK in ")


def test_connection_test_on_a_closed_port():
    outcome = connect.test_connection(Profile(name="x", url="http://127.0.0.1:9/v2"))
    assert (outcome.ok, outcome.status_code) == (False, None)
    assert outcome.message == "nothing listens on 127.0.0.1:9: is the server running and the URL right?"


@pytest.mark.parametrize(
    ("profile", "message"),
    [
        (Profile(name="x", url=""), "The profile's URL '' is not an http(s) URL"),
        (Profile(name="x", url="ftp://example.com/scim"), "is not an http(s) URL"),
        (Profile(name="x", url="http://x/v2", auth=Auth(kind=AuthKind.BEARER, token="env:SCIM_TUI_UNSET")), "SCIM_TUI_UNSET is not set"),
        (Profile(name="x", url="http://x/v2", auth=Auth(kind=AuthKind.OAUTH2, client_id="id")), "need auth.token_url, auth.client_id and auth.client_secret"),
        (
            Profile(name="x", url="https://x/v2", tls=TLS(ca_bundle="/nonexistent/ca.pem")),
            "tls.ca_bundle /nonexistent/ca.pem cannot be used (No such file or directory)",
        ),
        (Profile(name="x", url="https://x/v2", tls=TLS(client_cert="/nonexistent/me.pem")), "tls.client_cert /nonexistent/me.pem cannot be used"),
    ],
)
def test_an_unusable_profile_is_a_one_line_error(profile, message, monkeypatch):
    monkeypatch.delenv("SCIM_TUI_UNSET", raising=False)
    with pytest.raises(ConnectError) as error, open_client(profile):
        pass
    assert message in str(error.value) and "\n" not in str(error.value)
    assert connect.test_connection(profile).message == str(error.value)


def test_the_profile_client_keeps_refusing_an_endpoint_that_leaves_the_base_url():
    """Whether an endpoint stays under the base URL is worked out once per endpoint, with the
    same answer every time: an endpoint on another host is refused on each request."""
    from scim2_client import InvalidServiceDescriptionException
    from scim2_models import ResourceType
    from scim2_models import ScimProvider
    from scim2_models import User

    types = [
        ResourceType(id="User", name="User", endpoint="/Users", schema_=User.__schema__),
        ResourceType(id="Elsewhere", name="Elsewhere", endpoint="https://elsewhere.example/Users", schema_=User.__schema__),
    ]
    with open_client(Profile(name="p", url="http://127.0.0.1:9/scim/v2")) as connection:
        client = connection.client
        client.provider = ScimProvider([User], types)
        for _ in range(2):
            assert client.resource_endpoint("User") == "/Users"
            with pytest.raises(InvalidServiceDescriptionException, match="not under the base URL"):
                client.resource_endpoint("Elsewhere")


@pytest.mark.parametrize(
    "path", ["/Users/2819c223", 'Users?filter=userName eq "bjensen"', "/Schemas/urn:ietf:params:scim:schemas:core:2.0:User", "/a/../Groups#top"]
)
def test_the_profile_client_sends_each_url_where_httpx2_would(path):
    """A URL joined to the base URL once and reused is the one httpx2 joins itself: again on a
    later request, and under a new base URL once it changes."""
    plain = httpx2.Client(base_url="http://127.0.0.1:9/scim/v2")
    with open_client(Profile(name="p", url="http://127.0.0.1:9/scim/v2")) as connection:
        http = connection.client.client
        for _ in range(2):
            assert http.build_request("GET", path).url == plain.build_request("GET", path).url
        http.base_url = plain.base_url = "http://127.0.0.1:9/other"
        assert http.build_request("GET", path).url == plain.build_request("GET", path).url
        assert str(http.build_request("GET", path).url).startswith("http://127.0.0.1:9/other/")
