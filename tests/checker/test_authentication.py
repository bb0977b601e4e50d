"""The authentication checker (RFC 7644 §2) against servers that enforce what they claim, and against some that do not."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

import pytest
from scim2_models import AuthenticationScheme
from scim2_server.testserver.application import BEARER_TOKEN_SCHEME
from scim2_server.utils import load_default_service_provider_config

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.demo import make_app
from scim_tui.net.connect import open_client
from scim_tui.store.profiles import Auth
from scim_tui.store.profiles import AuthKind
from scim_tui.store.profiles import Profile
from tests.support.oauth import HeaderRecorder
from tests.support.servers import Broken
from tests.support.servers import make_client
from tests.support.servers import scim_error

BOTH = {CheckId("unauthenticated_access", "User"), CheckId("unauthenticated_access", "Group")}
BASIC_SCHEME = AuthenticationScheme(type=AuthenticationScheme.Type.httpbasic, name="HTTP Basic", description="HTTP Basic")


class Guard:
    """A WSGI middleware that answers 401 to any request without `header` set to `value`."""

    def __init__(self, app: Any, header: str, value: str):
        self.app = app
        self.key = "HTTP_" + header.upper().replace("-", "_")
        self.value = value

    def __call__(self, environ: dict[str, Any], start_response: Callable) -> Any:
        if environ.get(self.key) != self.value:
            start_response("401 Unauthorized", [("Content-Type", "application/scim+json"), ("WWW-Authenticate", "Basic")])
            return [scim_error(401, "who are you?")]
        return self.app(environ, start_response)


def claiming(*schemes: AuthenticationScheme) -> Any:
    """scim2-server claiming authentication schemes, enforcing none."""
    config = load_default_service_provider_config().model_copy(update={"authentication_schemes": list(schemes)})
    return make_app(config=config)


def run_with(profile: Profile) -> list[CheckResult]:
    with open_client(profile) as connection:
        return list(iter_checks(connection.client, CheckConfig(), only=BOTH, secrets=connection.secrets))


def run(url: str, **httpx_options: Any) -> list[CheckResult]:
    with make_client(url, **httpx_options) as scim:
        return list(iter_checks(scim, CheckConfig(), only=BOTH))


def reasons(results: list[CheckResult]) -> list[tuple[str, str]]:
    return [(r.status.name, r.reason or "") for r in results]


def assert_nowhere(secret: str, results: list[CheckResult]) -> None:
    for result in results:
        assert secret not in json.dumps([exchange.to_dict() for exchange in result.exchanges])
        assert secret not in (result.reason or "") and secret not in json.dumps(result.data)


def test_a_bearer_server_refuses_no_token_and_a_wrong_one(serve, monkeypatch):
    monkeypatch.setenv("SCIM_TOKEN", "b3arer-real-token")
    recorder = HeaderRecorder(make_app(bearer_tokens=["b3arer-real-token"]))
    server = serve(recorder)
    results = run_with(Profile(name="bearer", url=server.url, auth=Auth(kind=AuthKind.BEARER, token="env:SCIM_TOKEN")))
    assert reasons(results) == [
        ("SUCCESS", "GET /v2/Users?count=0 without credentials answered 401 Unauthorized."),
        ("SUCCESS", "GET /v2/Users?count=0 with a wrong bearer token answered 401 Unauthorized."),
        ("SUCCESS", "GET /v2/Groups?count=0 without credentials answered 401 Unauthorized."),
        ("SUCCESS", "GET /v2/Groups?count=0 with a wrong bearer token answered 401 Unauthorized."),
    ]
    assert [len(r.exchanges) for r in results] == [1, 1, 1, 1]
    assert_nowhere("b3arer-real-token", results)
    # What reached the server: the real token, no credential at all, or a random wrong one.
    sent = [headers.get("authorization") for headers in recorder.seen]
    wrong = [value for value in sent if value not in (None, "Bearer b3arer-real-token")]
    assert sent.count(None) == 2 and len(wrong) == 2 and len(set(wrong)) == 2
    assert all(value.startswith("Bearer scim-tui-wrong-") and "b3arer" not in value for value in wrong)


def test_a_basic_server_refuses_no_password_and_a_wrong_one(serve, monkeypatch):
    monkeypatch.setenv("SCIM_PASSWORD", "pa55word-real")
    expected = "Basic " + base64.b64encode(b"alice:pa55word-real").decode()
    recorder = HeaderRecorder(Guard(claiming(BASIC_SCHEME), "Authorization", expected))
    server = serve(recorder)
    results = run_with(Profile(name="basic", url=server.url, auth=Auth(kind=AuthKind.BASIC, username="alice", password="env:SCIM_PASSWORD")))
    assert [r.status for r in results] == [Status.SUCCESS] * 4
    assert [r.reason for r in results][:2] == [
        "GET /v2/Users?count=0 without credentials answered 401 Unauthorized.",
        "GET /v2/Users?count=0 with a wrong password (HTTP Basic) answered 401 Unauthorized.",
    ]
    assert_nowhere("pa55word-real", results)
    forged = [h["authorization"] for h in recorder.seen if h.get("authorization", expected) != expected]
    assert len(forged) == 2 and all(value.startswith("Basic ") and "alice" not in base64.b64decode(value[6:]).decode() for value in forged)


def test_a_credential_in_a_header_of_any_name_is_left_out(serve, monkeypatch):
    monkeypatch.setenv("CLIENT_CODE", "c0de-real-value")
    server = serve(Guard(claiming(BEARER_TOKEN_SCHEME), "X-Client-Code", "c0de-real-value"))
    auth = Auth(kind=AuthKind.HEADERS, headers={"X-Client-Code": "env:CLIENT_CODE"})
    results = run_with(Profile(name="headers", url=server.url, auth=auth))
    assert [r.status for r in results] == [Status.SUCCESS] * 4, reasons(results)
    assert_nowhere("c0de-real-value", results)


def test_a_server_claiming_authentication_without_enforcing_it_is_critical(serve):
    server = serve(claiming(BEARER_TOKEN_SCHEME))
    results = run(server.url)
    assert [r.status for r in results] == [Status.CRITICAL] * 4
    assert (
        results[0].reason
        == "GET /v2/Users?count=0 without credentials answered 200: the server claims authentication (bearer_token) yet serves its resources to anyone."
    )
    assert results[1].reason.startswith("GET /v2/Users?count=0 with a wrong bearer token answered 200: ")
    assert results[0].data["totalResults"] == 0 and "Resources" not in json.dumps(results[0].data).replace('"Resources": []', "")


@pytest.mark.parametrize(
    ("status", "expected", "reason"),
    [
        (
            403,
            Status.DEVIATION,
            "answered 403 instead of 401 Unauthorized, the status RFC 7644 §3.12 gives for an authorization header that is invalid or missing.",
        ),
        (500, Status.ERROR, "answered 500: the server failed instead of refusing with 401 Unauthorized."),
    ],
)
def test_a_refusal_other_than_401(serve, status, expected, reason):
    def refused(answer):
        return (status, answer[1], scim_error(status)) if answer[0] == 401 else answer

    server = serve(Broken(make_app(bearer_tokens=["t0ken-real"])).rewrite("GET", "/v2/Users", refused))
    results = run(server.url, headers={"Authorization": "Bearer t0ken-real"})
    users = [r for r in results if r.resource_type == "User"]
    assert [r.status for r in users] == [expected, expected]
    assert users[0].reason == f"GET /v2/Users?count=0 without credentials {reason}"
    assert [r.status for r in results if r.resource_type == "Group"] == [Status.SUCCESS] * 2


def test_skipped_when_no_authentication_scheme_is_listed(serve):
    server = serve(make_app())
    results = run(server.url)
    assert [r.status for r in results] == [Status.SKIPPED] * 2
    assert results[0].reason == "Skipped: the ServiceProviderConfig lists no authentication scheme (authenticationSchemes is empty)."
    assert all(r.exchanges == [] for r in results)


def test_a_request_that_fails_with_credentials_too_is_not_blamed_on_authentication(serve):
    """count=0 answered 500 to everyone is a fault of the request, which pagination judges (RFC 7644 §3.4.2.4)."""
    server = serve(Broken(make_app(bearer_tokens=["t0ken-real"])).answer("GET", "/v2/Users", 500, scim_error(500)))
    results = run(server.url, headers={"Authorization": "Bearer t0ken-real"})
    users = [r for r in results if r.resource_type == "User"]
    assert [r.status for r in users] == [Status.SKIPPED, Status.SKIPPED]
    assert users[0].reason == (
        "Skipped: GET /v2/Users?count=0 answers 500 with the run's credentials too, so its failure without them tells nothing of authentication"
        " (pagination_parameters judges count=0)."
    )
    assert [(e.status_code, "authorization" in {k.lower() for k in e.request_headers}) for e in users[0].exchanges] == [(500, False), (500, True)]
    assert [r.status for r in results if r.resource_type == "Group"] == [Status.SUCCESS] * 2
