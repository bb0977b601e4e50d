"""Secrets in every form they take never reach an output (docs/profiles.md): an OAuth token fetched
halfway through a run, HTTP Basic's base64, credentials in the URL, the value of any --header,
and a token endpoint that repeats the client secret. Each server here echoes every request
header back, so each secret comes back in what the run records."""

from __future__ import annotations

import base64
import json
import re
from typing import Any

import pytest

from scim_tui.checker.secrets import Secrets
from scim_tui.demo import make_app
from scim_tui.net.connect import test_connection
from scim_tui.reports import FORMATS
from scim_tui.selection import Selection
from scim_tui.store import history
from scim_tui.store.profiles import Auth
from scim_tui.store.profiles import AuthKind
from scim_tui.store.profiles import Profile
from scim_tui.store.profiles import save_profile
from scim_tui.tui.export import exports_dir
from tests.support.command import one_line_error
from tests.support.command import scim_tui_here
from tests.support.oauth import TokenEndpoint
from tests.support.secrets import TAGS
from tests.support.secrets import Echo
from tests.support.secrets import app_outputs
from tests.support.secrets import check_outputs
from tests.support.secrets import leaks
from tests.support.servers import Broken
from tests.support.servers import scim_error

pytestmark = pytest.mark.anyio
CLIENT_SECRET = "cl1ent-s3cret/with+odd=chars"


def history_outputs(profile: str) -> dict[str, str]:
    return {f"history {path.name}": json.dumps(history.load(path).to_dict()) for path in history.runs(profile)}


async def test_a_token_fetched_during_the_run_is_redacted_everywhere(serve, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    scim_app = make_app(bearer_tokens=["not-issued-yet"])
    echo = Echo(scim_app, revoke_every=8)
    endpoint = TokenEndpoint(scim_app, "checker", CLIENT_SECRET)
    url, token_url = serve(echo).url, f"{serve(endpoint).url}/token"
    auth = Auth(kind=AuthKind.OAUTH2, token_url=token_url, client_id="checker", client_secret=CLIENT_SECRET)
    profile = Profile(name="Rotating", url=url, auth=auth, selection=Selection(include_tags=TAGS.split(",")))
    save_profile(profile)
    outputs = check_outputs("--profile", "Rotating", tmp_path=tmp_path)
    outputs |= await app_outputs(profile)
    outputs |= history_outputs("Rotating")
    outputs |= {f"export {path.name}": path.read_text() for path in exports_dir().glob("scim-tui-*.*")}
    assert len(endpoint.issued) >= 2 * (len(FORMATS) + 1), "each run fetched a token, then others once one was revoked"
    assert leaks(outputs, [*endpoint.issued, CLIENT_SECRET]) == []
    assert any("HTTP_AUTHORIZATION" in text and "Bearer ***" in text for text in outputs.values()), "the echo came back, redacted"


BASIC = ["pa55-w0rd", "YWxpY2U6cGE1NS13MHJk"]
"""alice's password, and the base64 of alice:pa55-w0rd that HTTP Basic sends."""


def basic_outputs(serve: Any, tmp_path: Any) -> dict[str, str]:
    """Every output of runs of a profile with alice's HTTP Basic credentials, on a server echoing them."""
    url = serve(Echo(make_app())).url
    save_profile(Profile(name="Basic", url=url, auth=Auth(kind=AuthKind.BASIC, username="alice", password=BASIC[0])))
    return check_outputs("--profile", "Basic", tmp_path=tmp_path) | history_outputs("Basic")


def test_basic_credentials_echoed_as_base64_are_redacted(serve, tmp_path):
    outputs = basic_outputs(serve, tmp_path)
    assert leaks(outputs, BASIC) == []
    assert any("Basic ***" in text for text in outputs.values())


def test_with_redaction_off_the_same_search_finds_the_secrets(serve, tmp_path, monkeypatch):
    """The positive control of the tests here: were redaction off, the echoed credentials would
    reach every report that holds the exchanges, and `leaks` would name each of them."""
    monkeypatch.setattr(Secrets, "redact", lambda self, text: text)
    found = leaks(basic_outputs(serve, tmp_path), BASIC)
    assert {"check json", "check har"} <= set(found) and any(where.startswith("history") for where in found), found


def test_credentials_in_the_url_are_redacted(serve, tmp_path):
    url = serve(Echo(make_app())).url.replace("http://", "http://alice:pa55-w0rd@")
    outputs = check_outputs("--url", url, tmp_path=tmp_path)
    assert leaks(outputs, ["pa55-w0rd", "YWxpY2U6cGE1NS13MHJk"]) == []


def test_every_header_value_given_on_the_command_line_is_redacted(serve, tmp_path):
    url = serve(Echo(make_app())).url
    outputs = check_outputs(
        "--url", url, "--header", "Ocp-Apim-Subscription-Key: 3f9a-subscription-key", "--header", "X-Tenant: acme-tenant-7", tmp_path=tmp_path
    )
    assert leaks(outputs, ["3f9a-subscription-key", "acme-tenant-7"]) == []
    assert any("HTTP_OCP_APIM_SUBSCRIPTION_KEY" in text for text in outputs.values()), "the echo came back, redacted"


def test_a_token_endpoint_repeating_the_client_secret_is_redacted(serve):
    def talkative(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        start_response("401 Unauthorized", [("Content-Type", "application/json")])
        return [json.dumps({"error": "invalid_client", "error_description": f"the secret {CLIENT_SECRET} is wrong"}).encode()]

    token_url = f"{serve(talkative).url}/token"
    auth = Auth(kind=AuthKind.OAUTH2, token_url=token_url, client_id="checker", client_secret=CLIENT_SECRET)
    save_profile(Profile(name="Talkative", url=serve(make_app()).url, auth=auth))
    process = scim_tui_here("check", "--profile", "Talkative")
    assert process.returncode == 2
    assert CLIENT_SECRET not in process.stderr and "the secret *** is wrong" in process.stderr


def test_a_client_secret_repeated_as_basic_base64_is_redacted_everywhere(serve, tmp_path):
    """The token endpoint repeats the Basic header it was sent when it refuses it; the SCIM
    server, behind the same front, repeats it in every answer."""
    basic = base64.b64encode(f"checker:{CLIENT_SECRET}".encode()).decode()
    seen: list[str] = []

    def repeating(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        seen.extend([environ["HTTP_AUTHORIZATION"]] if "HTTP_AUTHORIZATION" in environ else [])
        start_response("401 Unauthorized", [("Content-Type", "application/json")])
        return [json.dumps({"error": "invalid_client", "error_description": f"you sent {seen[0] if seen else 'nothing'}"}).encode()]

    refusing = Auth(kind=AuthKind.OAUTH2, token_url=f"{serve(repeating).url}/token", client_id="checker", client_secret=CLIENT_SECRET)
    save_profile(Profile(name="Refused", url=serve(make_app()).url, auth=refusing))
    refused = scim_tui_here("check", "--profile", "Refused")
    assert refused.returncode == 2 and "you sent Basic ***" in refused.stderr
    scim_app = make_app(bearer_tokens=["not-issued-yet"])
    front = Broken(scim_app).rewrite(None, ".*", lambda answer: (answer[0], [*answer[1], ("X-Client", f"Basic {basic}")], answer[2]))
    endpoint = TokenEndpoint(scim_app, "checker", CLIENT_SECRET)
    auth = Auth(kind=AuthKind.OAUTH2, token_url=f"{serve(endpoint).url}/token", client_id="checker", client_secret=CLIENT_SECRET)
    save_profile(Profile(name="Fronted", url=serve(front).url, auth=auth))
    outputs = {"refused": refused.stderr} | check_outputs("--profile", "Fronted", tmp_path=tmp_path) | history_outputs("Fronted")
    assert leaks(outputs, [basic, CLIENT_SECRET]) == []
    assert any("Basic ***" in text for where, text in outputs.items() if where.startswith("check json")), "the repeated header came back, redacted"


@pytest.mark.parametrize(
    ("flags", "env", "message"),
    [
        (["--bearer-token-env", "TOKEN"], {"TOKEN": "s3cret-token-b81f\n"}, "The environment variable TOKEN (auth.token) ends with a line break"),
        (
            ["--bearer-token-env", "TOKEN"],
            {"TOKEN": "s3cret-tökén-b81f"},
            "The environment variable TOKEN (auth.token) holds a character that is not ASCII (its character 9)",
        ),
        (["--header", "X-Key: s3cret-key\r\nX-Injected: b81f"], {}, "The value of --header X-Key holds a line break"),
    ],
    ids=["a token ending with a line break", "a non-ASCII token", "a header value holding a line break"],
)
def test_a_secret_http_cannot_carry_is_one_line_that_never_shows_it(scim_server, flags, env, message):
    line = one_line_error(scim_tui_here("check", "--url", scim_server.url, *flags, env=env))
    assert line.startswith(f"scim-tui: error: {message}, which an HTTP header cannot carry (RFC 9110 §5.5)")
    assert "s3cret" not in line and "b81f" not in line


@pytest.mark.parametrize("token", ["s3cret-token-b81f\n", "s3cret-tökén-b81f"])
def test_the_apps_connection_test_of_a_token_http_cannot_carry_never_shows_it(scim_server, token):
    outcome = test_connection(Profile(name="p", url=scim_server.url, auth=Auth(kind=AuthKind.BEARER, token=token)))
    assert not outcome.ok and outcome.message.startswith("The value of auth.token ")
    assert "s3cret" not in outcome.message and "\n" not in outcome.message


def test_a_secret_shorter_than_four_characters_is_redacted_where_it_stands_alone(serve, tmp_path):
    """A three-character token, repeated by the server: taken out where it stands alone, as an
    echo shows it; left inside longer words, which it would otherwise make unreadable."""
    token = "k9z"
    echo = scim_error(404, f"No such path; you sent Authorization: Bearer {token}, which is not k9zebra")
    url = serve(Broken(make_app(bearer_tokens=[token])).answer("GET", "/v2/scim-tui-missing-.*", 404, echo)).url
    save_profile(Profile(name="Short", url=url, auth=Auth(kind=AuthKind.BEARER, token=token)))
    outputs = check_outputs("--profile", "Short", tmp_path=tmp_path) | history_outputs("Short")
    assert [where for where, text in outputs.items() if re.search(r"(?<![0-9A-Za-z])k9z(?![0-9A-Za-z])", text)] == []
    assert all("you sent Authorization: Bearer ***, which is not k9zebra" in text for where, text in outputs.items() if "json" in where)
