"""The meta checker (RFC 7643 §3.1) against scim2-server, and against servers that break one of
its rules: meta of a created resource, an id of the server's own and stable, lastModified moving on."""

from __future__ import annotations

import json
import re
from urllib.parse import urlsplit

import pytest
from scim2_server.utils import load_default_service_provider_config

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.checker.checks import meta
from scim_tui.demo import make_app
from tests.support.schemas import declaring_external_id
from tests.support.servers import WHOLE_PATCH_ANSWER
from tests.support.servers import Broken
from tests.support.servers import http_client
from tests.support.servers import make_client
from tests.support.servers import scim_error
from tests.support.servers import stored
from tests.support.unlike import USER as SCHEMA_USER
from tests.support.unlike import ExternalIdIgnored
from tests.support.unlike import Immutable
from tests.support.unlike import LocationsByUserName
from tests.support.unlike import _schema_change
from tests.support.unlike import put_refused

USERS = "/v2/Users"
USER = r"/v2/Users/[^/]+"
RULES = ("meta", "own id", "stable id", "after PUT", "after PATCH")


def run(url: str, resource_type: str = "User") -> dict:
    with make_client(url) as scim:
        results = list(iter_checks(scim, CheckConfig(), only={CheckId("resource_metadata", resource_type)}))
    assert len(results) == len(RULES), results
    return dict(zip(RULES, results, strict=True))


def with_meta(**changes):
    """A rewrite of an answer's meta: None removes a sub-attribute."""

    def change(body):
        meta = {key: value for key, value in {**body["meta"], **changes}.items() if value is not None}
        return body | {"meta": meta}

    return change


@pytest.mark.parametrize("resource_type", ["User", "Group"])
def test_scim2_server_follows_every_rule_and_is_cleaned_up(serve, resource_type):
    server = serve(make_app())
    results = run(server.url, resource_type)
    assert all(r.status is Status.SUCCESS for r in results.values()), {k: r.reason for k, r in results.items()}
    assert f'The created {resource_type} has meta.resourceType "{resource_type}", created equal to lastModified' in results["meta"].reason
    [post] = results["own id"].exchanges
    sent = json.loads(post.request_body)["externalId"]
    assert sent.startswith("scim-tui-") and f'not the externalId "{sent}"' in results["own id"].reason
    assert "stayed the same in the read, the PUT and the PATCH" in results["stable id"].reason
    assert "PUT /" in results["after PUT"].reason and "moved lastModified forward" in results["after PUT"].reason
    patch, read = results["after PATCH"].exchanges
    assert [(e.method, e.status_code) for e in (patch, read)] == [("PATCH", 204), ("GET", 200)], "read back after the 204"
    assert urlsplit(patch.url).query == "", "sent as clients send it"
    assert all(r.rfc == 7643 and r.section == "3.1" and r.tags == {"meta"} for r in results.values())
    assert stored(server.url) == []


@pytest.mark.parametrize(
    ("change", "status", "words"),
    [
        (with_meta(location=None), Status.ERROR, "meta.location is missing, though the body of a 201 SHALL hold it"),
        (with_meta(location="/v2/Users/someone-else"), Status.ERROR, "points to /v2/Users/someone-else instead of /v2/Users/"),
        (with_meta(resourceType="Person"), Status.ERROR, 'meta.resourceType is "Person" instead of "User"'),
        (with_meta(lastModified="2001-01-01T00:00:00Z"), Status.ERROR, "differs from meta.created"),
        (with_meta(resourceType=None, created=None), Status.DEVIATION, "meta lacks resourceType, created, returned by default"),
    ],
    ids=["no location", "another location", "wrong resourceType", "lastModified unlike created", "missing sub-attributes"],
)
def test_the_meta_of_a_created_resource(serve, change, status, words):
    server = serve(Broken(make_app()).rewrite_json("POST", USERS, change))
    result = run(server.url)["meta"]
    assert result.status is status, result.reason
    assert words in result.reason and result.reason.endswith("(RFC 7643 §3.1).")
    assert stored(server.url) == []


class IdFromExternalId:
    """A server that gives a created resource the client's externalId as its id (and serves it there)."""

    def __init__(self, app):
        self.app, self.real = app, {}

    def __call__(self, environ, start_response):
        path = environ["PATH_INFO"]
        alias = path.rsplit("/", 1)[-1]
        if path.startswith(f"{USERS}/") and alias in self.real:
            environ = {**environ, "PATH_INFO": f"{USERS}/{self.real[alias]}"}
        if (environ["REQUEST_METHOD"], path) != ("POST", USERS):
            return self.app(environ, start_response)
        return Broken(self.app).rewrite_json("POST", USERS, self.take_external_id)(environ, start_response)

    def take_external_id(self, body):
        self.real[body["externalId"]] = body["id"]
        return body | {"id": body["externalId"]}


def test_an_id_taken_from_the_client_externalid_gives_an_error(serve):
    server = serve(IdFromExternalId(make_app()))
    results = run(server.url)
    assert results["own id"].status is Status.ERROR
    assert "the externalId the client sent: the id MUST be issued by the server" in results["own id"].reason
    assert stored(server.url) == []


@pytest.mark.parametrize(
    ("method", "label"),
    [("GET", "the read"), ("PUT", "the PUT"), ("PATCH", "the PATCH")],
)
def test_an_id_that_changes_gives_an_error(serve, method, label):
    environ = WHOLE_PATCH_ANSWER if method == "PATCH" else {}
    server = serve(Broken(make_app()).rewrite_json(method, USER, lambda body: body | {"id": "another-id"}, **environ))
    result = run(server.url)["stable id"]
    assert result.status is Status.ERROR
    assert f'{label} answered the id "another-id"' in result.reason and result.reason.endswith(": the id MUST be stable (RFC 7643 §3.1).")
    assert stored(server.url) == []


def test_lastmodified_left_or_moved_back_gives_an_error(serve):
    broken = Broken(make_app())
    broken.rewrite_json("PUT", USER, lambda body: with_meta(lastModified=body["meta"]["created"])(body))
    broken.rewrite_json("PATCH", USER, with_meta(lastModified="2001-01-01T00:00:00Z"), **WHOLE_PATCH_ANSWER)
    results = run(serve(broken).url)
    assert results["after PUT"].status is Status.ERROR
    assert "left lastModified at" in results["after PUT"].reason and "where the creation had put it" in results["after PUT"].reason
    assert results["after PATCH"].status is Status.ERROR
    assert "moved lastModified back, from " in results["after PATCH"].reason and "to 2001-01-01T00:00:00Z" in results["after PATCH"].reason


def whole_seconds(body):
    meta = body["meta"]
    return with_meta(created=meta["created"][:19] + "Z", lastModified=meta["created"][:19] + "Z")(body)


class Clock:
    """The checker's clock (its time module), moved by the test alone: how long a step of the
    check takes never depends on how busy the machine is."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    def taking(self, seconds: float):
        """A rewrite after which the answer came this much later."""

        def later(answer):
            self.now += seconds
            return answer

        return later


@pytest.fixture
def clock(monkeypatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(meta, "time", clock)
    return clock


def test_lastmodified_unchanged_within_the_second_at_one_second_precision_is_no_error(serve, clock):
    """A server that keeps whole seconds, updated within the second of the creation."""
    broken = Broken(make_app()).rewrite_json("POST", USERS, whole_seconds).rewrite_json("PUT", USER, whole_seconds)
    result = run(serve(broken).url)["after PUT"]
    assert result.status is Status.SUCCESS, result.reason
    assert "the server keeps whole seconds, and the PUT came within a second of the creation" in result.reason


def test_lastmodified_unchanged_a_second_later_at_one_second_precision_gives_an_error(serve, clock):
    """The same server, but the read between the creation and the PUT takes more than a second."""
    broken = Broken(make_app()).rewrite_json("POST", USERS, whole_seconds).rewrite_json("PUT", USER, whole_seconds)
    broken.rewrite("GET", USER, clock.taking(1.1))
    result = run(serve(broken).url)["after PUT"]
    assert result.status is Status.ERROR
    assert "left lastModified at" in result.reason and "(RFC 7643 §3.1)" in result.reason


def test_a_refused_put_is_its_own_error_and_the_patch_is_still_followed(serve):
    server = serve(Broken(make_app()).answer("PUT", USER, 400, scim_error(400)))
    results = run(server.url)
    assert results["after PUT"].status is Status.ERROR
    assert results["after PUT"].reason.startswith("lastModified after a PUT: PUT /v2/Users/")
    assert "answered 400" in results["after PUT"].reason
    assert results["after PATCH"].status is Status.SUCCESS
    assert "stayed the same in the read and the PATCH" in results["stable id"].reason
    assert stored(server.url) == []


def test_a_put_refused_as_a_method_is_not_judged_on_its_lastmodified(serve):
    """A server without PUT (405) fails object_replacement, not the rule on what a PUT changes."""
    results = run(serve(put_refused(make_app())).url)
    assert results["after PUT"].status is Status.SKIPPED
    assert re.fullmatch(
        r"lastModified after a PUT: Skipped: PUT /v2/Users/\w+ answered 405 Method Not Allowed: "
        r"the server refuses PUT itself \(object_replacement judges it\)\.",
        results["after PUT"].reason,
    )
    assert results["after PATCH"].status is Status.SUCCESS


def test_the_patch_rule_is_skipped_when_patch_is_not_claimed(serve):
    config = load_default_service_provider_config()
    config.patch.supported = False
    server = serve(make_app(config=config))
    results = run(server.url)
    assert results["after PATCH"].status is Status.SKIPPED
    assert "does not claim patch support" in results["after PATCH"].reason
    assert not any(e.method == "PATCH" for r in results.values() for e in r.exchanges)
    assert results["after PUT"].status is Status.SUCCESS
    assert "stayed the same in the read and the PUT" in results["stable id"].reason


def test_a_location_by_username_that_serves_the_user_is_right(serve):
    """meta.location is judged by what a GET on it answers, not by its shape (RFC 7643 §3.1)."""
    server = serve(LocationsByUserName(make_app()))
    results = run(server.url)
    assert results["meta"].status is Status.SUCCESS, results["meta"].reason
    [post, followed] = [e for e in results["meta"].exchanges if e.method in ("POST", "GET")]
    user_name = json.loads(post.request_body)["userName"]
    assert (followed.method, urlsplit(followed.url).path, followed.status_code) == ("GET", f"{USERS}/{user_name}", 200)
    assert all(r.status is Status.SUCCESS for r in results.values()), {k: r.reason for k, r in results.items()}
    assert stored(server.url) == []


def test_a_location_that_serves_another_resource_is_an_error(serve):
    """A location of the same origin is followed: here it answers another user."""
    elsewhere: dict[str, str] = {}
    relocated = lambda body: with_meta(location=elsewhere.get("location", body["meta"]["location"]))(body)  # noqa: E731
    server = serve(Broken(make_app()).rewrite_json("POST", USERS, relocated))
    with http_client(server.url) as http:
        someone = http.post("/Users", json={"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "userName": "someone-else"}).json()
        elsewhere["location"] = someone["meta"]["location"]
        result = run(server.url)["meta"]
        http.delete(f"/Users/{someone['id']}")
    assert result.status is Status.ERROR
    assert f"meta.location {someone['meta']['location']} points to /v2/Users/{someone['id']} instead of /v2/Users/" in result.reason
    assert "which serves another resource" in result.reason
    assert stored(server.url) == []


@pytest.mark.parametrize(
    "app",
    [lambda: Immutable(_schema_change(make_app(), SCHEMA_USER, declaring_external_id), name="externalId"), lambda: ExternalIdIgnored(make_app())],
    ids=["declared immutable", "kept by none"],
)
def test_an_externalid_the_server_would_not_change_is_not_the_one_updated(serve, app):
    """RFC 7643 §2.2: an immutable value SHALL NOT be updated, so a server refuses the change with
    400 mutability; a store without an externalId answers the creation without one. The check
    updates the userName instead (once, on the store without one, the PUT and the PATCH changed
    the externalId alone, the server kept nothing, and "left lastModified at …" was an ERROR)."""
    server = serve(app())
    results = run(server.url)
    assert all(r.status is Status.SUCCESS for r in results.values()), {k: r.reason for k, r in results.items()}
    put = next(e for e in results["after PUT"].exchanges if e.method == "PUT")
    [operation] = json.loads(next(e for e in results["after PATCH"].exchanges if e.method == "PATCH").request_body)["Operations"]
    assert json.loads(put.request_body)["userName"].startswith("scim-tui-userName-") and operation["path"] == "userName"
    assert stored(server.url) == []


def test_an_update_the_server_kept_nothing_of_leaves_lastmodified_unjudged(serve):
    """A PUT answered with the resource as it was (the server kept none of it): lastModified
    rightly stays, and the check says the update changed nothing (object_replacement judges
    that); the PATCH after it is judged as usual."""
    broken = Broken(make_app())
    broken.reroute("PUT", USER, REQUEST_METHOD="GET")
    server = serve(broken)
    results = run(server.url)
    after = results["after PUT"]
    assert after.status is Status.SKIPPED, after.reason
    kept = r'its answer holds externalId "scim-tui-[^"]+", not the "scim-tui-externalId-\w+" sent'
    said = rf"Skipped: PUT /v2/Users/\w+ left lastModified at \S+, and kept none of the change \({kept}\): nothing was updated to move it\."
    assert re.fullmatch(said, after.reason), after.reason
    assert results["after PATCH"].status is Status.SUCCESS, results["after PATCH"].reason
    assert stored(server.url) == []
