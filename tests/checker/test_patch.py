"""The PATCH checkers: one result per attribute path, 200 and 204 answers, and servers that ignore PATCH."""

from __future__ import annotations

import io
import itertools
import json
import re
from typing import Annotated
from urllib.parse import urlsplit

import pytest
from scim2_models import URN
from scim2_models import Mutability
from scim2_models import Patch
from scim2_models import Required
from scim2_models import Resource
from scim2_server.utils import load_default_service_provider_config

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckContext
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.checker.checks.patch import check_add_attribute
from scim_tui.checker.exchanges import Role
from scim_tui.demo import make_app
from tests.support.servers import Broken
from tests.support.servers import make_client
from tests.support.servers import scim_error
from tests.support.servers import stored
from tests.support.unlike import USER as SCHEMA_USER
from tests.support.unlike import _attribute_change
from tests.support.unlike import _schema_change

USER = r"/v2/Users/[^/]+"
ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"
PATCH_CHECKERS = ("check_add_attribute", "check_remove_attribute", "check_replace_attribute")


def run(url: str, checker: str, resource_type: str = "User"):
    with make_client(url) as scim:
        return list(iter_checks(scim, CheckConfig(), only={CheckId(checker, resource_type)}))


def by_path(results) -> dict:
    return {r.reason.split(": ", 1)[0]: r for r in results}


def judged(result) -> list:
    """The requests a result judged (not the GET proving the resource the run's before its first PATCH)."""
    return [e for e in result.exchanges if e.role is Role.JUDGED]


@pytest.mark.parametrize("checker", PATCH_CHECKERS)
def test_each_attribute_path_is_its_own_result(serve, checker):
    server = serve(make_app())
    results = by_path(run(server.url, checker))
    assert all(r.status is Status.SUCCESS for r in results.values()), [r.reason for r in results.values() if r.status is not Status.SUCCESS]
    assert {"externalId", "name.familyName", "emails", f"{ENTERPRISE}:employeeNumber", f"{ENTERPRISE}:manager.value"} <= set(results)
    assert "emails.value" not in results  # a path that would address every email at once
    assert "groups" not in results and "id" not in results  # read-only
    for path, result in results.items():
        operations = [json.loads(e.request_body)["Operations"] for e in result.exchanges if e.method == "PATCH"]
        assert operations and all(any(operation["path"] == path for operation in sent) for sent in operations)
    # Paths none of which holds another go in one request (RFC 7644 §3.5.2), each keeping its result.
    patches = {id(e) for result in results.values() for e in result.exchanges if e.method == "PATCH"}
    assert len(patches) < len(results) / 4
    assert stored(server.url) == []


def test_required_attributes_are_replaced_but_not_added_or_removed(serve):
    server = serve(make_app())
    assert "userName" in by_path(run(server.url, "check_replace_attribute"))
    assert "userName" not in by_path(run(server.url, "check_add_attribute"))
    assert "userName" not in by_path(run(server.url, "check_remove_attribute"))


def test_each_patch_goes_as_clients_send_it_and_a_204_is_verified_by_reading_the_resource(serve):
    """No "attributes" on a PATCH (RFC 7644 §3.5.2; a server failing on it failed every PATCH for that one
    reason). scim2-server answers 204 without a body (RFC 7644 §3.5.2 MAY): each result reads the
    resource back, and holds the value it judged at its path, base, sub-attribute or extension alike."""
    server = serve(make_app())
    results = by_path(run(server.url, "check_add_attribute"))
    for path in ("displayName", "name.givenName", f"{ENTERPRISE}:employeeNumber", f"{ENTERPRISE}:manager.value"):
        result = results[path]
        assert result.status is Status.SUCCESS and "a GET after the 204 answer" in result.reason, result.reason
        patch, read = judged(result)
        assert [(e.method, e.status_code) for e in judged(result)] == [("PATCH", 204), ("GET", 200)]
        assert urlsplit(patch.url).query == "" and read.url == patch.url
        assert list(result.data) == [path] and result.data[path] is not None
    assert all(r.status is Status.SUCCESS for r in results.values())


def test_a_server_failing_on_attributes_with_patch_fails_one_check_only(serve):
    """A server answering 500 to PATCH ?attributes= once made 40 PATCH results fail."""
    app = make_app()

    def failing_on_attributes(environ, start_response):
        if environ["REQUEST_METHOD"] == "PATCH" and "attributes=" in environ.get("QUERY_STRING", ""):
            start_response("500 Internal Server Error", [("Content-Type", "application/scim+json")])
            return [scim_error(500, "cannot project a PATCH")]
        return app(environ, start_response)

    url = serve(failing_on_attributes).url
    with make_client(url) as scim:
        results = list(iter_checks(scim, CheckConfig(include_tags={"crud:update", "patch", "projection"}, resource_types=["User"])))
    failed = [r for r in results if r.status.failed and r.title != "resource_type_tests"]
    assert {r.title for r in failed} == {"attribute_projection"}, [r.reason for r in failed]
    [patched] = [r for r in failed if r.reason.startswith("PATCH ")]
    assert re.match(r"PATCH /v2/Users/\w+\?attributes=externalId answered 500 instead of 200\.$", patched.reason), patched.reason
    assert [r.reason for r in failed if r is not patched] == [r.reason for r in failed if r.reason.startswith("POST ")], "and scim2-server's own break on POST"
    patches = [r for r in results if r.title.startswith("check_") and r.resource_type == "User"]
    assert patches and all(r.status is Status.SUCCESS for r in patches)


@pytest.mark.parametrize("checker", PATCH_CHECKERS)
def test_a_200_answer_holding_the_whole_resource_is_verified_from_its_body(serve, checker):
    """A server that answers 200 with every attribute, whatever was asked for."""
    server = serve(Broken(make_app()).reroute("PATCH", USER, QUERY_STRING="excludedAttributes=password"))
    results = run(server.url, checker)
    result = by_path(results)["displayName"]
    assert [(e.method, e.status_code) for e in judged(result)] == [("PATCH", 200)]
    assert "userName" in json.loads(judged(result)[0].response_body)
    assert all(r.status is Status.SUCCESS for r in results), [r.reason for r in results if r.status is not Status.SUCCESS]


@pytest.mark.parametrize("checker", PATCH_CHECKERS)
def test_answers_of_200_and_204_mixed_still_succeed(serve, checker):
    """One PATCH in three answered 200, the others 204: what the 200s showed and the GETs read make one view of the resource."""
    app = make_app()
    turns = itertools.cycle([Broken(app).reroute("PATCH", USER, QUERY_STRING="excludedAttributes=password"), app, app])

    def alternating(environ, start_response):
        return (next(turns) if environ["REQUEST_METHOD"] == "PATCH" else app)(environ, start_response)

    server = serve(alternating)
    results = run(server.url, checker)
    assert all(r.status is Status.SUCCESS for r in results), [r.reason for r in results if r.status is not Status.SUCCESS]
    assert any("the PATCH answer" in r.reason for r in results) and any("a GET after the 204 answer" in r.reason for r in results)


@pytest.mark.parametrize("answers_200", [True, False])
def test_remove_takes_sub_attributes_first_and_gives_a_value_to_what_is_gone(serve, answers_200):
    """name.* are removed before name, which they leave empty: the check knows it, from the
    answers (200 with the resource, or a GET after a 204), and gives name a value again before
    removing it. Results keep the order of the paths."""
    app = Broken(make_app()).reroute("PATCH", USER, QUERY_STRING="excludedAttributes=password") if answers_200 else make_app()
    results = run(serve(app).url, "check_remove_attribute")
    paths = list(by_path(results))
    assert paths.index("name") < paths.index("name.givenName") and paths.index(ENTERPRISE) < paths.index(f"{ENTERPRISE}:manager.value")

    def operations(path):
        return [json.loads(e.request_body)["Operations"][0]["op"] for e in by_path(results)[path].exchanges if e.method == "PATCH"]

    assert operations("name.givenName") == operations(f"{ENTERPRISE}:manager.value") == operations("displayName") == ["remove"]
    assert operations("name") == operations(ENTERPRISE) == ["add", "remove"]
    assert all(r.status is Status.SUCCESS for r in results)


def test_a_200_turned_into_a_204_without_body_still_succeeds(serve):
    silenced = Broken(make_app()).rewrite("PATCH", USER, lambda answer: (204, [h for h in answer[1] if h[0].lower() != "content-type"], b""))
    server = serve(silenced)
    results = run(server.url, "check_add_attribute")
    assert results and all(r.status is Status.SUCCESS for r in results)
    assert [e.method for e in judged(by_path(results)["nickName"])] == ["PATCH", "GET"]


@pytest.mark.parametrize(
    ("checker", "expected"),
    [
        ("check_add_attribute", "after add, a GET after the 204 answer holds"),
        ("check_replace_attribute", "after replace, a GET after the 204 answer holds"),
        ("check_remove_attribute", "after remove, a GET after the 204 answer still holds"),
    ],
)
def test_a_patch_the_server_ignores_is_an_error_naming_each_attribute(serve, checker, expected):
    server = serve(Broken(make_app()).answer("PATCH", USER, 204, b""))
    results = by_path(run(server.url, checker))
    for path in ("displayName", "name.givenName", f"{ENTERPRISE}:costCenter"):
        assert results[path].status is Status.ERROR, results[path].reason
        assert results[path].reason.startswith(f"{path}: {expected}")
    assert results["password"].status is Status.SUCCESS  # never returned: nothing to compare
    assert stored(server.url) == []


def test_a_patch_add_answered_with_the_old_resource_is_an_error(serve):
    server = serve(Broken(make_app()).reroute("PATCH", USER, REQUEST_METHOD="GET"))
    results = by_path(run(server.url, "check_add_attribute"))
    assert results["title"].status is Status.ERROR
    assert results["title"].reason.startswith('title: after add, the PATCH answer holds null instead of "scim-tui-title-')


def test_a_refused_patch_is_an_error_naming_the_attribute(serve):
    broken = Broken(make_app()).answer(
        "PATCH", USER, 400, b'{"schemas": ["urn:ietf:params:scim:api:messages:2.0:Error"], "status": "400", "scimType": "invalidPath"}'
    )
    server = serve(broken)
    results = by_path(run(server.url, "check_add_attribute"))
    assert results["title"].status is Status.ERROR
    assert results["title"].reason.startswith("title: PATCH /v2/Users/")
    assert "answered 400: The path attribute was invalid" in results["title"].reason
    assert [e.method for e in results["title"].exchanges] == ["PATCH"]


@pytest.mark.parametrize("checker", PATCH_CHECKERS)
def test_patch_unsupported_in_the_service_provider_config_is_skipped(serve, checker):
    config = load_default_service_provider_config()
    server = serve(make_app(config=config.model_copy(update={"patch": Patch(supported=False)})))
    [result] = run(server.url, checker)
    assert result.status is Status.SKIPPED
    assert "ServiceProviderConfig does not claim patch support" in result.reason
    assert not any(e.method == "PATCH" for e in result.exchanges)


class Sealed(Resource):
    """A resource whose every attribute is required or read-only: nothing can be added."""

    __schema__ = URN("urn:scim-tui:params:scim:schemas:test:2.0:Sealed")
    external_id: Annotated[str | None, Mutability.read_only] = None
    label: Annotated[str | None, Required.true] = None


def test_nothing_to_add_is_skipped(client):
    [result] = check_add_attribute(CheckContext(client), Sealed)
    assert result.status is Status.SKIPPED
    assert result.reason == "No attribute of Sealed can be added."


def _without_nick_name(body: dict) -> dict:
    return {key: value for key, value in body.items() if key != "nickName"}


@pytest.mark.parametrize("checker", PATCH_CHECKERS)
def test_an_attribute_returned_only_on_request_is_not_expected_in_the_answers(serve, checker):
    """nickName declared "returned": "request" (RFC 7643 §2.2: returned only when a request names
    it), and left out of the answers as declared: its PATCH is accepted and not read back."""
    app = _schema_change(make_app(), SCHEMA_USER, _attribute_change("nickName", returned="request"))
    server = serve(Broken(app).rewrite_json("GET", USER, _without_nick_name).rewrite_json("PATCH", USER, _without_nick_name))
    result = by_path(run(server.url, checker))["nickName"]
    assert result.status is Status.SUCCESS
    assert re.fullmatch(r'nickName: \w+ accepted; nickName is declared "returned": "request", so (the value|its absence) cannot be read back\.', result.reason)
    assert stored(server.url) == []


def _on_several_operations(app, status: int, applied: bool = False, alone=None):
    """A server answering `status` to a PATCH of more than one operation: one taking one operation
    a request (400, or 501 Not Implemented), or, when `applied`, one that applies them and fails after
    (not atomic, RFC 7644 §3.5.2). `alone` answers the other requests (`app` when not given)."""

    def serve(environ, start_response):
        if environ["REQUEST_METHOD"] == "PATCH":
            body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
            environ = {**environ, "wsgi.input": io.BytesIO(body)}
            if len(json.loads(body).get("Operations", [])) > 1:
                if applied:
                    b"".join(app(environ, lambda *args: lambda data: None))
                start_response(f"{status} Refused", [("Content-Type", "application/scim+json")])
                return [scim_error(status, "one operation a request")]
        return (alone or app)(environ, start_response)

    return serve


def patch_results(url: str) -> list:
    with make_client(url) as scim:
        results = list(iter_checks(scim, CheckConfig(include_tags={"crud:update"}, resource_types=["User"])))
    return [r for r in results if r.title in PATCH_CHECKERS and r.resource_type == "User"]


def single_operations(result) -> list[str]:
    """The paths of the PATCH requests of one operation a result holds."""
    sent = [json.loads(e.request_body)["Operations"] for e in judged(result) if e.method == "PATCH"]
    return [operations[0]["path"] for operations in sent if len(operations) == 1]


@pytest.mark.parametrize(("status", "applied"), [(400, False), (501, False), (500, True)], ids=["refused", "not implemented", "applied then failed"])
def test_a_server_failing_a_patch_of_several_operations_has_each_path_judged_by_its_own(serve, status, applied):
    """The paths go together first; when that request fails, each is sent alone, planned on the
    resource read again, and judged by its own answer. The request of several operations is in no
    result: its answer does not read as PATCH failing as a whole (a 501 would SKIP the other checks)."""
    server = serve(_on_several_operations(make_app(), status, applied))
    results = patch_results(server.url)
    assert {r.title for r in results} == set(PATCH_CHECKERS)
    assert all(r.status is Status.SUCCESS for r in results), [r.reason for r in results if r.status is not Status.SUCCESS]
    for result in results:
        path = result.reason.split(": ", 1)[0]
        assert single_operations(result)[-1] == path, (path, single_operations(result))
        assert all(e.status_code != status for e in result.exchanges)
    assert stored(server.url) == []


def test_a_server_applying_the_first_operation_only_has_the_others_judged_by_their_own(serve):
    """A PATCH of several operations of which the server applied only the first: the paths its
    answer does not show done are sent again alone, and judged by their own answer."""
    server = serve(Broken(make_app()).rewrite_request_json("PATCH", USER, lambda body: {**body, "Operations": body["Operations"][:1]}))
    results = patch_results(server.url)
    assert results and all(r.status is Status.SUCCESS for r in results), [r.reason for r in results if r.status is not Status.SUCCESS]
    alone = [r for r in results if single_operations(r)]
    assert len(alone) > len(results) / 2
    assert all(single_operations(r)[-1] == r.reason.split(": ", 1)[0] for r in alone)


def test_after_a_patch_that_failed_each_path_is_planned_on_the_resource_read_again(serve):
    """A server that applied the operations of a PATCH before failing it, and ignores a PATCH of one
    operation: each path's own request is planned on the resource read again, so a boolean is given
    the value it does not hold (given the one the failed request left, an ignored PATCH would read as done)."""
    app = make_app()
    server = serve(_on_several_operations(app, 500, applied=True, alone=Broken(app).answer("PATCH", USER, 204, b"")))
    results = by_path(run(server.url, "check_replace_attribute"))
    assert results["active"].status is Status.ERROR, results["active"].reason
    assert results["active"].reason.startswith("active: after replace, a GET after the 204 answer holds")


def _second_least_user_refused(app):
    """A server that creates one User with its required attributes only, then answers 500 to the others."""
    least = {"schemas", "userName", "displayName", "externalId"}
    made = []

    def serve(environ, start_response):
        if environ["REQUEST_METHOD"] == "POST" and environ["PATH_INFO"] == "/v2/Users":
            body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
            environ = {**environ, "wsgi.input": io.BytesIO(body)}
            if set(json.loads(body)) <= least:
                made.append(body)
                if len(made) > 1:
                    start_response("500 Internal Server Error", [("Content-Type", "application/scim+json")])
                    return [scim_error(500)]
        return app(environ, start_response)

    return serve


def test_a_path_whose_value_could_not_be_made_fails_alone(serve):
    """Replacing manager (manager.$ref, the enterprise extension as a whole) takes a User to point at
    that the check does not point at yet: when the server refuses to create it, those paths are
    SKIPPED naming it, and the paths sent with them are judged all the same."""
    server = serve(_second_least_user_refused(make_app()))
    results = by_path(run(server.url, "check_replace_attribute"))
    for path in (ENTERPRISE, f"{ENTERPRISE}:manager", f"{ENTERPRISE}:manager.$ref"):
        manager = results.pop(path)
        assert manager.status is Status.SKIPPED and "could not be created: POST /v2/Users answered 500" in manager.reason, manager.reason
    assert len(results) > 10 and all(r.status is Status.SUCCESS for r in results.values()), [
        r.reason for r in results.values() if r.status is not Status.SUCCESS
    ]


def _members_answered(change):
    """scim2-server answering each group's members changed by `change` (None leaves the members out)."""

    def apply(body):
        if isinstance(body, dict) and isinstance(body.get("members"), list):
            members = [change(dict(item)) for item in body["members"]]
            return {key: value for key, value in body.items() if key != "members"} | ({"members": members} if None not in members else {})
        return body

    return Broken(make_app()).rewrite_json(None, r"/v2/Groups(/[^/]+)?", apply)


def _without(*names):
    return lambda item: {key: value for key, value in item.items() if key not in names}


def _relative_ref(item):
    return item | {"$ref": item["$ref"].split("/v2/", 1)[1]}


def _other(item, key):
    return item | {key: item[key][:-1] + ("0" if item[key][-1] != "0" else "1")}


@pytest.mark.parametrize("checker", ["check_add_attribute", "check_replace_attribute"])
@pytest.mark.parametrize(
    "change",
    [_without("$ref"), _without("$ref", "type", "display"), _without("display"), _relative_ref],
    ids=["without $ref", "value alone", "without display", "a relative $ref"],
)
def test_a_member_answered_by_its_value_alone_is_the_member_sent(serve, checker, change):
    """A member is the resource its "value" names (RFC 7643 §4.2); its "$ref" and "type" are
    "required": false (§8.7.1), a "$ref" is OPTIONAL and may be relative (§2.3.7): a server that
    keeps the ids only (as Entra ID and Okta send members) holds the member sent."""
    results = by_path(run(serve(_members_answered(change)).url, checker, "Group"))
    assert results["members"].status is Status.SUCCESS, results["members"].reason


@pytest.mark.parametrize("checker", ["check_add_attribute", "check_replace_attribute"])
@pytest.mark.parametrize(
    "change",
    [lambda item: _other(item, "value"), lambda item: _other(item, "$ref"), lambda item: item | {"type": "Group"}, lambda item: None],
    ids=["another value", "a $ref to another resource", "another type", "no members"],
)
def test_a_member_answered_with_another_value_or_not_at_all_is_an_error(serve, checker, change):
    results = by_path(run(serve(_members_answered(change)).url, checker, "Group"))
    members = results["members"]
    assert members.status is Status.ERROR
    assert members.reason.startswith(f"members: after {checker.split('_')[1]}, "), members.reason
