"""Redirects (RFC 7644 §3.12, Table 8): a 307 or 308 answer "directs [the client] to repeat the same
HTTP request at the location identified". The run repeats it there through the guard, on the base
URL's origin only; a server that redirects is judged by the answers it gives there."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

from scim2_server.testserver.application import BEARER_TOKEN_SCHEME
from scim2_server.utils import load_default_service_provider_config

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.checker.exchanges import Role
from scim_tui.checker.recorder import MAX_REDIRECTS
from scim_tui.demo import make_app
from tests.support.bystanders import Bystanders
from tests.support.bystanders import remove_run_leftovers
from tests.support.bystanders import run_leftovers
from tests.support.harmless import Logged
from tests.support.harmless import reported
from tests.support.harmless import run
from tests.support.servers import make_client
from tests.support.unlike import Middleware
from tests.support.unlike import SlashedCollections
from tests.support.unlike import _body


class Redirecting(Middleware):
    """Answers `method` on the URLs matching `path` with `status` and a Location `where(path)` gives
    (None: the request goes to the application)."""

    def __init__(self, app: Any, method: str, path: str, where: Any, status: int = 307):
        super().__init__(app)
        self.method, self.path, self.where, self.status = method, re.compile(path), where, status

    def intercept(self, environ: dict[str, Any]) -> Any:
        path = environ.get("PATH_INFO", "")
        location = self.where(path) if environ["REQUEST_METHOD"] == self.method and self.path.fullmatch(path) else None
        if location is None:
            return None
        _body(environ)
        return self.status, [("Location", location)], b""


def claimed_bearer() -> Any:
    """scim2-server's configuration, claiming a bearer token."""
    return load_default_service_provider_config().model_copy(update={"authentication_schemes": [BEARER_TOKEN_SCHEME]})


def only(*checks: str) -> set[CheckId]:
    return {CheckId(check, "User") for check in checks}


def named_then_removed(url: str, results: list) -> None:
    """Each user the run could not delete (its DELETE, or the GET proving it the run's own, led
    nowhere) is named in the results; then removed, by the test."""
    left = run_leftovers(url)
    assert left and all(any(user["id"] in item for item in reported(results)) for user in left), (left, reported(results))
    remove_run_leftovers(url)


def test_a_request_redirected_is_repeated_at_the_location_and_judged_there(serve):
    """Collections served at /v2/Users/: every request on /v2/Users is answered 308."""
    server = serve(SlashedCollections(make_app()))
    results = run(server.url, only=only("object_creation", "object_query_without_id"))
    assert all(r.status is Status.SUCCESS for r in results), [r.reason for r in results]
    creation = results[0].exchanges
    assert [(e.method, e.status_code) for e in creation[:2]] == [("POST", 308), ("POST", 201)]
    assert creation[0].url.endswith("/v2/Users") and creation[1].url.endswith("/v2/Users/")
    assert "sent again where the 308 answer's Location directs it (RFC 7644 §3.12)" in (creation[1].note or "")
    assert creation[1].request_body == creation[0].request_body
    listing = [e for e in results[-1].exchanges if e.method == "GET"]
    redirected = [(answered, again) for answered, again in zip(listing, listing[1:], strict=False) if answered.status_code == 308]
    assert redirected and all(again.status_code == 200 for _, again in redirected)
    for answered, again in redirected:
        assert urlsplit(again.url).path == urlsplit(answered.url).path + "/"
        assert urlsplit(again.url).query == urlsplit(answered.url).query, "the query goes once, as the Location names it"
    assert run_leftovers(server.url) == [] and reported(results) == []


def test_a_write_redirected_to_a_resource_the_run_did_not_create_is_not_sent(serve):
    """A DELETE of the run's user directed to someone else's: the guard refuses the repeated request."""
    holder: dict[str, str] = {}
    logged = Logged(make_app())
    server = serve(Redirecting(logged, "DELETE", r"/v2/Users/[^/]+", lambda path: None if path.endswith(holder["theirs"]) else f"/v2/Users/{holder['theirs']}"))
    bystanders = Bystanders.seed(server.url, users=1, groups=0)
    holder["theirs"] = bystanders.users[0]
    results = run(server.url, only=only("object_deletion"))
    assert bystanders.untouched(), "the redirect never reached someone else's user"
    assert [path for method, path in logged.requests if method == "DELETE"] == []
    deletion = results[0]
    assert deletion.status is Status.ERROR and "names a resource this run did not create" in deletion.reason, deletion.reason
    assert [(e.method, e.status_code) for e in deletion.exchanges if e.method == "DELETE"][0] == ("DELETE", 307)
    named_then_removed(server.url, results)


def test_a_redirect_to_another_origin_is_not_followed(serve):
    """Credentials go to the base URL's origin only: the 307 answer stands, and is what is judged."""
    elsewhere = Logged(make_app())
    other = serve(elsewhere)
    server = serve(Redirecting(make_app(), "GET", r"/v2/Users/[^/]+", lambda path: f"{other.url}{path.removeprefix('/v2')}"))
    results = run(server.url, only=only("object_query"))
    assert elsewhere.requests == []
    assert results[0].status is Status.ERROR and "307" in results[0].reason, results[0].reason
    named_then_removed(server.url, results)  # a GET proving the user the run's own is redirected too


def test_a_redirect_loop_ends(serve):
    """A Location naming the URL it answers: the request goes MAX_REDIRECTS times more, then the last answer stands."""
    logged = Logged(make_app())
    server = serve(Redirecting(logged, "GET", r"/v2/Users/[^/]+", lambda path: path, status=308))
    results = run(server.url, only=only("object_query"))
    reads = [e for e in results[0].exchanges if e.method == "GET" and e.role is Role.JUDGED]
    assert [e.status_code for e in reads] == [308] * (1 + MAX_REDIRECTS)
    assert results[0].status is Status.ERROR and "308" in results[0].reason, results[0].reason
    named_then_removed(server.url, results)


def test_me_redirected_is_judged_as_the_redirect_it_answered(serve):
    """/Me MAY answer 308 to the subject's resource (RFC 7644 §3.11): the check judges that answer,
    even when its Location is on the base URL's origin."""
    server = serve(Redirecting(make_app(), "GET", r"/v2/Me", lambda path: "/v2/Users/subject-1", status=308))
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(), only={CheckId("me_endpoint")}))
    assert results[0].status is Status.ACCEPTABLE and "308 Permanent Redirect to /v2/Users/subject-1" in results[0].reason, results[0].reason
    assert [e.status_code for e in results[0].exchanges] == [308]


def test_a_request_without_credentials_follows_the_redirect_without_them(serve):
    """Collections at /v2/Users/ behind 308s, on a server enforcing its bearer token: the request
    without credentials goes on to /v2/Users/ without them, and is refused there with 401."""
    server = serve(SlashedCollections(make_app(bearer_tokens=["t0ken-real"])))
    with make_client(server.url, headers={"Authorization": "Bearer t0ken-real"}) as scim:
        results = list(iter_checks(scim, CheckConfig(), only={CheckId("unauthenticated_access", "User")}))
    assert [r.status for r in results] == [Status.SUCCESS, Status.SUCCESS], [r.reason for r in results]
    repeated = [e for r in results for e in r.exchanges if e.status_code == 401]
    assert repeated and all(e.url.split("?")[0].endswith("/v2/Users/") and "t0ken-real" not in json.dumps(e.to_dict()) for e in repeated)


def test_a_redirect_to_a_sign_in_page_is_no_list_served_to_anyone(serve):
    """A request without credentials sent on (307) to a sign-in page answering 200 with HTML is a
    refusal other than 401 (DEVIATION), not resources served to anyone (CRITICAL)."""

    def sign_in(path: str) -> str | None:
        return None if path == "/v2/sign-in" else "/v2/sign-in?next=" + path

    class Unauthenticated(Middleware):
        """Sends a request without the token to /v2/sign-in, which answers an HTML page."""

        def intercept(self, environ: dict[str, Any]) -> Any:
            if environ.get("PATH_INFO") == "/v2/sign-in":
                return 200, [("Content-Type", "text/html")], b"<html><form>Sign in</form></html>"
            if environ.get("HTTP_AUTHORIZATION") != "Bearer t0ken-real":
                _body(environ)
                return 307, [("Location", sign_in(environ.get("PATH_INFO", "")) or "")], b""
            return None

    server = serve(Unauthenticated(make_app(config=claimed_bearer())))
    with make_client(server.url, headers={"Authorization": "Bearer t0ken-real"}) as scim:
        results = list(iter_checks(scim, CheckConfig(), only={CheckId("unauthenticated_access", "User")}))
    assert [r.status for r in results] == [Status.DEVIATION, Status.DEVIATION], [r.reason for r in results]
    assert "answered 200 without a list of resources (a sign-in page?) instead of 401 Unauthorized" in results[0].reason
