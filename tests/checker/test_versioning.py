"""The versioning checker: ETags, If-None-Match and stale If-Match (RFC 7644 §3.14)."""

from __future__ import annotations

import json
import re

import pytest
from scim2_models import ETag
from scim2_models import Patch
from scim2_server.utils import load_default_service_provider_config

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.demo import make_app
from tests.support.servers import Broken
from tests.support.servers import make_client
from tests.support.servers import scim_error
from tests.support.servers import stored
from tests.support.unlike import Immutable
from tests.support.unlike import Middleware

USER = r"/v2/Users/[^/]+"
RULES = ("header", "version", "not_modified", "any", "put", "patch", "delete")


def run(url: str, resource_type: str = "User", rules: tuple[str, ...] = RULES) -> dict:
    """The check's results by rule; `rules` when the rules that could not be tried make one result."""
    with make_client(url) as scim:
        results = list(iter_checks(scim, CheckConfig(), only={CheckId("resource_versions", resource_type)}))
    assert len(results) == len(rules), [r.reason for r in results]
    return dict(zip(rules, results, strict=True))


def configured(**features) -> object:
    return make_app(config=load_default_service_provider_config().model_copy(update=features))


@pytest.mark.parametrize("resource_type", ["User", "Group"])
def test_scim2_server_versions_its_resources(serve, resource_type):
    server = serve(make_app())
    results = run(server.url, resource_type)
    assert {rule: r.status for rule, r in results.items()} == {
        "header": Status.SUCCESS,
        "version": Status.COMPLIANT,
        "not_modified": Status.SUCCESS,
        "any": Status.SUCCESS,
        "put": Status.SUCCESS,
        "patch": Status.SUCCESS,
        "delete": Status.SUCCESS,
    }
    assert "answers to POST, GET and PUT" in results["header"].reason
    assert "answered 304 Not Modified" in results["not_modified"].reason
    assert results["any"].reason.endswith("with If-None-Match: * (any version) answered 304 Not Modified.")
    for method in ("PUT", "PATCH", "DELETE"):
        result = results[method.lower()]
        assert result.reason.startswith(f"{method} /")
        assert "answered 412 Precondition Failed, and the" in result.reason and "was left as it was" in result.reason
        sent, after = result.exchanges
        assert (sent.method, sent.status_code, after.method, after.status_code) == (method, 412, "GET", 200)
        stale = sent.request_headers["if-match"]
        assert f"If-Match: {stale}" in result.reason
    [conditional] = results["not_modified"].exchanges
    assert conditional.request_headers["if-none-match"] == results["put"].exchanges[0].request_headers["if-match"]
    assert stored(server.url) == []


def test_the_stale_version_is_the_one_before_the_check_changed_the_resource(serve):
    server = serve(make_app())
    results = run(server.url)
    [get] = results["version"].exchanges
    put = next(e for e in results["header"].exchanges if e.method == "PUT")
    assert results["put"].exchanges[0].request_headers["if-match"] == get.response_headers["etag"]
    assert put.response_headers["etag"] != get.response_headers["etag"]


def test_a_server_that_says_etag_unsupported_and_versions_nothing_passes(serve):
    server = serve(configured(etag=ETag(supported=False)))
    [result] = run(server.url, rules=("unclaimed",)).values()
    assert result.status is Status.SUCCESS
    assert re.fullmatch(r"GET /v2/Users/\w+ answered no ETag header, as the ServiceProviderConfig says etag.supported is false\.", result.reason)
    # The check's GET of the resource is also the proof that it is the run's own (guard.py): no second GET before the DELETE.
    sent = [(e.method, e.status_code) for e in result.exchanges]
    start = sent.index(("POST", 201))
    assert sent[start : start + 4] == [("POST", 201), ("GET", 200), ("DELETE", 204), ("GET", 404)]
    assert all(e.method == "GET" and "filter=" in e.url for e in result.exchanges[start + 4 :]), "then the clean-up's queries (RFC 7644 §3.6)"
    assert stored(server.url) == []


def unclaimed_etag(app):
    return Broken(app).rewrite_json("GET", "/v2/ServiceProviderConfig", lambda body: body | {"etag": {"supported": False}})


def test_etags_and_304_from_a_server_that_says_etag_unsupported_are_a_deviation(serve):
    """Its ServiceProviderConfig says etag.supported false, and it versions its resources all the same (a stale If-Match: 412)."""
    server = serve(unclaimed_etag(make_app()))
    [result] = run(server.url, rules=("unclaimed",)).values()
    assert result.status is Status.DEVIATION
    assert re.fullmatch(
        r'GET /v2/Users/\w+ answered the ETag header W/"\d+" and GET /v2/Users/\w+ with If-None-Match: W/"\d+" answered 304 Not Modified, '
        r'and PUT /v2/Users/\w+ with If-Match: "scim-tui-not-a-version" \(a version it never gave\) answered 412, '
        r"though the ServiceProviderConfig says etag.supported is false, which describes the features available on the server \(RFC 7644 §4\): "
        r"a client never uses the versions it could\.",
        result.reason,
    )
    assert stored(server.url) == []


class IfMatchIgnored(Middleware):
    """Checks no version on a write (If-Match is dropped), while its web framework adds an ETag to
    each answer and answers a matching If-None-Match 304, as Express does."""

    def intercept(self, environ):
        environ.pop("HTTP_IF_MATCH", None)
        return None


def test_a_frameworks_etag_on_a_server_that_says_etag_unsupported_and_checks_no_version_passes(serve):
    """An ETag header alone is HTTP's (RFC 9110 §8.8.3): the server that checks no version on writes says the truth."""
    server = serve(unclaimed_etag(IfMatchIgnored(make_app())))
    [result] = run(server.url, rules=("unclaimed",)).values()
    assert result.status is Status.SUCCESS, result.reason
    assert re.search(
        r'PUT /v2/Users/\w+ with If-Match: "scim-tui-not-a-version" \(a version it never gave\) answered 200: the server checks no version', result.reason
    )
    assert stored(server.url) == []


def test_etag_is_skipped_when_the_service_provider_config_cannot_be_read(serve):
    server = serve(Broken(make_app()).answer("GET", "/v2/ServiceProviderConfig", 500, scim_error(500)))
    [result] = run(server.url, rules=("unclaimed",)).values()
    assert result.status is Status.SKIPPED
    assert "the ServiceProviderConfig could not be read" in result.reason
    assert not any(e.method in ("POST", "PUT", "PATCH", "DELETE") for e in result.exchanges)


def test_patch_unclaimed_skips_the_stale_patch_only(serve):
    server = serve(configured(patch=Patch(supported=False)))
    results = run(server.url)
    assert results["patch"].status is Status.SKIPPED and "does not claim patch support" in results["patch"].reason
    assert results["put"].status is results["delete"].status is Status.SUCCESS


def _without_etag(answer):
    status, headers, body = answer
    return status, [(k, v) for k, v in headers if k.lower() != "etag"], body


def test_a_read_without_an_etag_header_is_an_error(serve):
    server = serve(Broken(make_app()).rewrite("GET", USER, _without_etag))
    results = run(server.url)
    assert results["header"].status is Status.ERROR
    assert results["header"].reason.startswith("The answer to GET of the User")
    assert "ETags MUST be specified as an HTTP header" in results["header"].reason
    # meta.version still gives the version the conditional requests send
    assert all(results[rule].status is Status.SUCCESS for rule in ("not_modified", "put", "patch", "delete"))


def _without_meta_version(resource: dict) -> dict:
    resource.get("meta", {}).pop("version", None)
    return resource


def test_a_resource_without_meta_version_is_a_deviation(serve):
    server = serve(Broken(make_app()).rewrite_json("GET", USER, _without_meta_version))
    results = run(server.url)
    assert results["version"].status is Status.DEVIATION
    assert "without meta.version" in results["version"].reason and "SHOULD" in results["version"].reason
    assert results["header"].status is Status.SUCCESS


def _without_any_version(answer):
    status, headers, body = _without_etag(answer)
    return status, headers, json.dumps(_without_meta_version(json.loads(body))).encode() if body else body


def test_a_resource_without_any_version_skips_the_conditional_requests(serve):
    server = serve(Broken(make_app()).rewrite("GET", USER, _without_any_version))
    results = run(server.url, rules=("header", "version", "any", "conditions"))
    assert results["header"].status is Status.ERROR and results["version"].status is Status.DEVIATION
    assert results["conditions"].status is Status.SKIPPED
    assert (
        results["conditions"].reason
        == "If-None-Match and If-Match: Skipped: the User[EnterpriseUser] has no version to send (no ETag header, no meta.version)."
    )
    assert stored(server.url) == []


def test_if_none_match_ignored_is_an_error(serve):
    server = serve(Broken(make_app()).reroute("GET", USER, HTTP_IF_NONE_MATCH=""))
    results = run(server.url)
    assert results["not_modified"].status is Status.ERROR
    assert "answered 200 instead of 304 Not Modified" in results["not_modified"].reason
    assert "RFC 7232 §3.2" in results["not_modified"].reason
    assert results["any"].status is Status.ERROR and "with If-None-Match: * (any version) answered 200 instead of 304" in results["any"].reason


def _star_compared_as_a_version(app):
    """A server that compares If-None-Match with its ETag as a string: "*" (any current
    representation, RFC 7232 §3.2) matches no version, so the GET answers 200."""

    def middleware(environ, start_response):
        if environ.get("HTTP_IF_NONE_MATCH", "").strip() == "*":
            environ = {**environ, "HTTP_IF_NONE_MATCH": 'W/"no-such-version"'}
        return app(environ, start_response)

    return middleware


def test_if_none_match_any_version_ignored_is_an_error(serve):
    results = run(serve(_star_compared_as_a_version(make_app())).url)
    assert results["not_modified"].status is Status.SUCCESS
    assert results["any"].status is Status.ERROR
    assert re.fullmatch(
        r"GET /v2/Users/\w+ with If-None-Match: \* \(any version\) answered 200 instead of 304 Not Modified \(RFC 7644 §3\.14, RFC 7232 §3\.2: MUST "
        r"answer 304 to a GET whose If-None-Match matches\)\.",
        results["any"].reason,
    )


@pytest.mark.parametrize(("method", "done"), [("PUT", "changed"), ("PATCH", "changed"), ("DELETE", "deleted")])
def test_if_match_ignored_is_an_error_naming_what_was_done(serve, method, done):
    server = serve(Broken(make_app()).reroute(method, USER, HTTP_IF_MATCH=""))
    results = run(server.url)
    result = results[method.lower()]
    assert result.status is Status.ERROR
    assert f"instead of 412 Precondition Failed, and the User[EnterpriseUser] was {done}" in result.reason
    assert "RFC 7232 §3.1" in result.reason
    others = [rule for rule in ("put", "patch", "delete") if rule != method.lower()]
    if method != "DELETE":  # a DELETE carried out leaves nothing to compare the others with
        assert all(results[rule].status is Status.SUCCESS for rule in others), [results[r].reason for r in others]
    assert stored(server.url) == []


class ConditionsIgnoredOnPut:
    """scim2-server that carries out a conditional PUT whatever its If-Match, then answers 412."""

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        if environ["REQUEST_METHOD"] != "PUT" or "HTTP_IF_MATCH" not in environ:
            return self.app(environ, start_response)
        environ = {key: value for key, value in environ.items() if key != "HTTP_IF_MATCH"}
        b"".join(self.app(environ, lambda status, headers, exc_info=None: None))  # carried out, its answer dropped
        start_response("412 Precondition Failed", [("Content-Type", "application/scim+json")])
        return [scim_error(412)]


def test_a_412_for_a_change_carried_out_all_the_same_is_an_error(serve):
    server = serve(ConditionsIgnoredOnPut(make_app()))
    results = run(server.url)
    assert results["put"].status is Status.ERROR
    assert "answered 412, but the User[EnterpriseUser] was changed all the same" in results["put"].reason
    assert results["delete"].status is Status.SUCCESS


def test_a_resource_that_cannot_be_replaced_has_no_stale_version_and_says_it_once(serve):
    """The PUT only makes a version stale (object_replacement judges PUT): the three rules it
    prepares are one SKIPPED result naming its answer."""
    server = serve(Broken(make_app()).answer("PUT", USER, 500, scim_error(500, "database unavailable")))
    results = run(server.url, rules=("header", "version", "not_modified", "any", "stale"))
    assert results["stale"].status is Status.SKIPPED
    assert re.fullmatch(
        r"If-Match on PUT, PATCH and DELETE: Skipped: PUT /v2/Users/\w+ changing userName answered 500 \(database "
        r"unavailable\), so no version could be made stale\.",
        results["stale"].reason,
    )
    assert [(e.method, e.status_code) for e in results["stale"].exchanges] == [("PUT", 500)]
    assert "answers to POST and GET" in results["header"].reason
    assert stored(server.url) == []


def test_an_attribute_the_schema_declares_immutable_is_not_the_one_changed(serve):
    """userName declared immutable (RFC 7643 §2.2: it SHALL NOT be updated): the check changes
    externalId instead, and the stale conditions get their 412."""
    server = serve(Immutable(make_app(), name="userName"))
    results = run(server.url)
    assert all(r.status in (Status.SUCCESS, Status.COMPLIANT) for r in results.values()), {k: r.reason for k, r in results.items()}
    put = next(e for e in results["header"].exchanges if e.method == "PUT")
    assert json.loads(put.request_body)["externalId"].startswith("scim-tui-")
    assert stored(server.url) == []
