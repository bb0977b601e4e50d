"""The error checkers: bad creations and bad PATCH requests get the SCIM Error of RFC 7644 §3.12."""

from __future__ import annotations

import contextlib
import io
import json
import re
import uuid

import pytest
from scim2_models import Patch
from scim2_server.utils import load_default_service_provider_config

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.checker.checks.probes import scim_error_problem
from scim_tui.demo import make_app
from tests.support.servers import SCIM_JSON
from tests.support.servers import Broken
from tests.support.servers import make_client
from tests.support.servers import stored
from tests.support.unlike import GROUP as SCHEMA_GROUP
from tests.support.unlike import SameNameCrashes
from tests.support.unlike import _attribute_change
from tests.support.unlike import _schema_change

USERS = "/v2/Users"
USER = r"/v2/Users/[^/]+"
ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error"
CRASH = (500, [("Content-Type", "text/html")], b"<h1>oops</h1>")


def run(url: str, checker: str, resource_type: str = "User"):
    with make_client(url) as scim:
        return list(iter_checks(scim, CheckConfig(), only={CheckId(checker, resource_type)}))


def statuses(results) -> list[Status]:
    return [r.status for r in results]


def test_scim2_server_refuses_bad_creations_as_rfc_7644_says(serve):
    server = serve(make_app())
    users = run(server.url, "creation_errors")
    assert statuses(users) == [Status.COMPLIANT, Status.COMPLIANT, Status.SUCCESS, Status.SUCCESS], [r.reason for r in users]
    invalid, missing, duplicate, upper = users
    assert "not valid JSON" in invalid.reason and 'scimType "invalidSyntax"' in invalid.reason
    assert "without the required userName" in missing.reason and 'scimType "invalidValue"' in missing.reason
    assert "with the userName of an existing" in duplicate.reason and "answered 409" in duplicate.reason
    assert [(e.method, e.status_code) for e in duplicate.exchanges] == [("POST", 201), ("POST", 409)]
    assert [(e.method, e.status_code) for e in invalid.exchanges] == [("POST", 400)]
    assert "in upper case (userName has caseExact false, RFC 7643 §2.2) answered 409" in upper.reason
    [taken] = [e for e in duplicate.exchanges if e.status_code == 201]
    [post] = upper.exchanges
    taken_name = json.loads(taken.request_body)["userName"]
    assert json.loads(post.request_body)["userName"] == "scim-tui-" + taken_name.removeprefix("scim-tui-").upper() != taken_name
    assert stored(server.url) == []


def test_a_name_nothing_declares_unique_may_repeat(serve):
    server = serve(make_app())
    groups = run(server.url, "creation_errors", "Group")
    assert statuses(groups) == [Status.COMPLIANT, Status.COMPLIANT, Status.SUCCESS]
    assert re.fullmatch(
        r"POST /v2/Groups with the displayName of an existing Group \(nothing declares it unique\) answered 201: "
        r'a value with uniqueness "none" may repeat \(RFC 7643 §2\.2\)\.',
        groups[2].reason,
    )
    assert [(e.method, e.status_code) for e in groups[2].exchanges][-2:] == [("POST", 201), ("POST", 201)]
    assert stored(server.url) == []


def test_a_repeated_name_answered_with_a_crash_is_an_error(serve):
    """Two Groups with one displayName: 201 or a SCIM 409 are right, an HTML 500 never."""
    server = serve(SameNameCrashes(make_app()))
    same = run(server.url, "creation_errors", "Group")[2]
    assert same.status is Status.ERROR
    assert same.reason.endswith(
        "(nothing declares it unique) answered 500: a repeated value nothing declares unique is created (201) "
        "or refused as a conflict (409 uniqueness, RFC 7644 §3.3), never failed on."
    )
    assert stored(server.url) == []


def test_a_repeated_name_refused_as_a_conflict_is_right(serve):
    conflict = {"schemas": [ERROR_SCHEMA], "status": "409", "scimType": "uniqueness", "detail": "taken"}
    server = serve(
        Broken(SameNameCrashes(make_app())).rewrite(
            "POST", "/v2/Groups", lambda answer: (409, SCIM_JSON, json.dumps(conflict).encode()) if answer[0] == 500 else answer
        )
    )
    same = run(server.url, "creation_errors", "Group")[2]
    assert same.status is Status.SUCCESS
    assert same.reason.endswith('answered 409 with a SCIM Error of scimType "uniqueness".')


def _numbered(status: dict) -> dict:
    return {**status, "status": int(status["status"])} if "status" in status else status


def test_an_error_whose_status_is_a_number_is_an_error(serve):
    server = serve(Broken(make_app()).rewrite_json("POST", USERS, _numbered))
    results = run(server.url, "creation_errors")
    assert statuses(results) == [Status.ERROR] * 4
    assert all('its "status" is 400, a JSON number instead of a JSON string' in r.reason for r in results[:2])
    assert all('its "status" is 409, a JSON number' in r.reason for r in results[2:])
    assert stored(server.url) == []


def test_an_error_that_is_not_a_scim_error_is_an_error_even_where_the_status_is_a_should(serve):
    server = serve(Broken(make_app()).rewrite("POST", USERS, lambda answer: CRASH if b"invalidSyntax" in answer[2] else answer))
    invalid, missing, duplicate, _upper = run(server.url, "creation_errors")
    assert invalid.status is Status.ERROR
    assert "answered 500 instead of 400 (RFC 7644 §3.12, Tables 8 and 9, SHOULD), and its body is not a JSON object" in invalid.reason
    assert (missing.status, duplicate.status) == (Status.COMPLIANT, Status.SUCCESS)


def test_a_resource_that_cannot_be_created_leaves_nothing_to_duplicate(serve):
    server = serve(Broken(make_app()).rewrite("POST", USERS, lambda answer: CRASH))
    invalid, missing, duplicate = run(server.url, "creation_errors")  # no upper case: nothing to duplicate
    assert statuses([invalid, missing, duplicate]) == [Status.ERROR, Status.ERROR, Status.SKIPPED]
    assert duplicate.reason.startswith("Skipped: the User[EnterpriseUser] it needs could not be created: POST /v2/Users answered 500: ")
    assert duplicate.reason.endswith(", so none could be duplicated.")
    assert [exchange.method for exchange in duplicate.exchanges] == ["POST"]


def _without_syntax_type(error: dict) -> dict:
    return {key: value for key, value in error.items() if not (key == "scimType" and value == "invalidSyntax")}


def test_a_missing_scim_type_is_a_deviation_where_table_9_is_a_should(serve):
    server = serve(Broken(make_app()).rewrite_json("POST", USERS, _without_syntax_type))
    invalid, missing, duplicate, _upper = run(server.url, "creation_errors")
    assert invalid.status is Status.DEVIATION
    assert 'answered 400 with no scimType instead of "invalidSyntax"' in invalid.reason
    assert (missing.status, duplicate.status) == (Status.COMPLIANT, Status.SUCCESS)


def _uniqueness_as_invalid_value(answer):
    status, headers, body = answer
    if status != 409:
        return answer
    return 400, headers, json.dumps({"schemas": [ERROR_SCHEMA], "status": "400", "scimType": "invalidValue"}).encode()


def test_a_duplicate_refused_with_another_error_than_409_uniqueness_is_an_error(serve):
    server = serve(Broken(make_app()).rewrite("POST", USERS, _uniqueness_as_invalid_value))
    duplicate = run(server.url, "creation_errors")[2]
    assert duplicate.status is Status.ERROR
    assert "answered 400 instead of 409 (RFC 7644 §3.3, MUST)" in duplicate.reason
    assert stored(server.url) == []


class PostedUserChanged:
    """scim2-server storing another User than the one POSTed: `change` edits the JSON sent
    (a body that is not JSON goes through as it is)."""

    def __init__(self, app, change):
        self.app = app
        self.change = change

    def __call__(self, environ, start_response):
        if environ["REQUEST_METHOD"] == "POST" and environ.get("PATH_INFO") == USERS:
            body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
            with contextlib.suppress(ValueError):
                body = json.dumps(self.change(json.loads(body))).encode()
            environ = {**environ, "wsgi.input": io.BytesIO(body), "CONTENT_LENGTH": str(len(body))}
        return self.app(environ, start_response)


def _suffixed(user: dict) -> dict:
    return {**user, "userName": f"{user['userName']}-{uuid.uuid4().hex[:6]}"} if "userName" in user else user


TAKEN_USER_NAME_RULE = "(RFC 7643 §4.1.1: userName MUST be unique across the service provider's entire set of Users)."


def test_a_duplicate_user_name_accepted_is_an_error_and_is_deleted(serve):
    """A server ignoring the uniqueness of userName: the duplicate is created (201), which breaks
    the MUST of RFC 7643 §4.1.1."""
    server = serve(PostedUserChanged(make_app(), _suffixed))
    invalid, missing, duplicate, upper = run(server.url, "creation_errors")
    assert (duplicate.status, upper.status) == (Status.ERROR, Status.ERROR)
    assert duplicate.reason.endswith(f"with the userName of an existing User[EnterpriseUser] answered 201 instead of 409 {TAKEN_USER_NAME_RULE}")
    assert [(e.method, e.status_code) for e in duplicate.exchanges] == [("POST", 201), ("POST", 201)]
    assert (invalid.status, missing.status) == (Status.COMPLIANT, Status.COMPLIANT)
    assert duplicate.leftovers == [] and stored(server.url) == []


def test_a_user_name_taken_in_another_case_accepted_is_an_error(serve):
    """userName has caseExact false (RFC 7643 §4.1.1): BJENSEN is bjensen, taken."""

    def case_sensitive(user: dict) -> dict:
        return {**user, "userName": f"{user['userName']}-other"} if user.get("userName", "").startswith("scim-tui-CASE-") else user

    server = serve(PostedUserChanged(make_app(), case_sensitive))
    _invalid, _missing, duplicate, upper = run(server.url, "creation_errors")
    assert duplicate.status is Status.SUCCESS
    assert upper.status is Status.ERROR
    assert f"in upper case (userName has caseExact false, RFC 7643 §2.2) answered 201 instead of 409 {TAKEN_USER_NAME_RULE}" in upper.reason
    assert upper.leftovers == [] and stored(server.url) == []


def test_a_duplicate_of_another_unique_attribute_accepted_is_a_deviation(serve):
    """A Group displayName the schema declares "uniqueness": "server", which a server SHOULD keep
    unique (RFC 7643 §2.2): only a SHOULD, unlike a User's userName."""
    declared = _schema_change(make_app(), SCHEMA_GROUP, _attribute_change("displayName", uniqueness="server"))
    server = serve(declared)
    _invalid, _missing, duplicate, upper = run(server.url, "creation_errors", "Group")
    assert (duplicate.status, upper.status) == (Status.DEVIATION, Status.DEVIATION)
    assert duplicate.reason.endswith(
        "with the displayName of an existing Group answered 201 instead of 409 (RFC 7643 §2.2: a server-unique value SHOULD be unique)."
    )
    assert stored(server.url) == []


def test_a_taken_user_name_answered_with_the_existing_user_is_an_error(serve):
    """RFC 7644 §3.3: a conflict MUST be told (409), not hidden behind the existing resource."""
    existing: dict[str, bytes] = {}

    def hiding_conflicts(answer):
        status, headers, body = answer
        if status == 201:
            existing[json.loads(body)["userName"].lower()] = body
        if status == 409 and existing:
            return 201, headers, list(existing.values())[-1]
        return answer

    server = serve(Broken(make_app()).rewrite("POST", USERS, hiding_conflicts))
    _invalid, _missing, duplicate, upper = run(server.url, "creation_errors")
    for result in (duplicate, upper):
        assert result.status is Status.ERROR
        assert "as if it had created it, instead of 409 (RFC 7644 §3.3, MUST)" in result.reason
    assert stored(server.url) == []


def test_every_problem_of_an_error_body_is_named(serve):
    """A numeric "status" does not hide a missing scimType (RFC 7644 §3.12)."""

    def numbered_without_type(answer):
        status, headers, _body = answer
        return (409, headers, json.dumps({"schemas": [ERROR_SCHEMA], "status": 409}).encode()) if status == 409 else answer

    server = serve(Broken(make_app()).rewrite("POST", USERS, numbered_without_type))
    duplicate = run(server.url, "creation_errors")[2]
    assert duplicate.status is Status.ERROR
    assert 'its "status" is 409, a JSON number' in duplicate.reason
    assert 'with no scimType instead of "uniqueness"' in duplicate.reason


def test_a_user_created_without_user_name_is_an_error_and_is_deleted(serve):
    """A server that names a User itself when userName is missing: the creation succeeds, though
    "each User MUST include a non-empty userName value" (RFC 7643 §4.1.1)."""
    server = serve(PostedUserChanged(make_app(), lambda user: {"userName": f"filled-{uuid.uuid4().hex[:6]}", **user}))
    missing = run(server.url, "creation_errors")[1]
    assert missing.status is Status.ERROR
    assert missing.reason.endswith(
        "without the required userName answered 201 instead of 400 (RFC 7643 §4.1.1: each User MUST include a non-empty userName value)."
    )
    assert stored(server.url) == []


def test_a_creation_missing_another_required_attribute_accepted_is_a_deviation_and_is_deleted(serve):
    """A Group created without its required displayName: Table 8's SHOULD (400) is broken, no MUST."""

    def named(group: dict) -> dict:
        return {"displayName": f"scim-tui-filled-{uuid.uuid4().hex[:6]}", **group}

    server = serve(Broken(make_app()).rewrite_request_json("POST", "/v2/Groups", named))
    missing = run(server.url, "creation_errors", "Group")[1]
    assert missing.status is Status.DEVIATION
    assert missing.reason.endswith("without the required displayName answered 201 instead of 400 (RFC 7644 §3.12, Tables 8 and 9, SHOULD).")
    assert stored(server.url) == []


def test_scim2_server_refuses_bad_patches_with_the_right_scim_type(serve):
    server = serve(make_app())
    for resource_type, listed in (("User", "emails"), ("Group", "members")):
        results = run(server.url, "patch_errors", resource_type)
        assert statuses(results) == [Status.SUCCESS] * 3, [r.reason for r in results]
        malformed, unpathed, unmatched = results
        assert "a malformed path" in malformed.reason and 'scimType "invalidPath"' in malformed.reason
        assert "a remove without a path" in unpathed.reason and 'scimType "noTarget"' in unpathed.reason
        assert f"a replace of {listed}[value eq" in unmatched.reason and 'scimType "noTarget"' in unmatched.reason
        patches = [next(e for e in r.exchanges if e.method == "PATCH") for r in results]
        operations = [json.loads(patch.request_body)["Operations"][0] for patch in patches]
        assert operations[1] == {"op": "remove"}
        assert all(patch.request_headers.get("content-type") == "application/scim+json" for patch in patches)
    assert stored(server.url) == []


GROUP = r"/v2/Groups/[^/]+"


def test_scim2_server_keeps_a_member_that_names_no_resource(serve):
    """One of scim2-server's known deviations (docs/checks.md)."""
    server = serve(make_app())
    [dangling] = run(server.url, "dangling_member", "Group")
    assert dangling.status is Status.DEVIATION
    assert "adding a member whose value (" in dangling.reason
    assert (
        ") names no resource answered 204, and the group now holds that member, which is no resource (RFC 7643 §4.2: a member's value identifies a member)."
        in dangling.reason
    )
    [patch] = [e for e in dangling.exchanges if e.method == "PATCH"]
    assert json.loads(patch.request_body)["Operations"][0]["path"] == "members"
    assert stored(server.url) == []


def test_a_member_that_names_no_resource_dropped_without_a_word_is_acceptable(serve):
    """A server that accepts the PATCH but keeps no member naming nothing: the group holds no
    such member, and the reason does not say it does."""

    def dropping_unknown_members(patch: dict) -> dict:
        return patch | {"Operations": [op | {"value": []} if op.get("path") == "members" else op for op in patch["Operations"]]}

    server = serve(Broken(make_app()).rewrite_request_json("PATCH", GROUP, dropping_unknown_members))
    [dangling] = run(server.url, "dangling_member", "Group")
    assert dangling.status is Status.ACCEPTABLE
    assert re.search(
        r"names no resource answered 204, and GET /v2/Groups/\w+ then holds no such member: the server dropped it without telling the client, "
        r"where a 4xx SCIM Error would \(RFC 7644 §3\.12\)\.$",
        dangling.reason,
    ), dangling.reason
    assert "now holds" not in dangling.reason
    assert stored(server.url) == []


@pytest.mark.parametrize(
    ("status", "body", "expected", "reason"),
    [
        (400, {"schemas": [ERROR_SCHEMA], "status": "400", "scimType": "invalidValue"}, Status.SUCCESS, "answered 400 with a SCIM Error."),
        (404, {"schemas": [ERROR_SCHEMA], "status": "404"}, Status.SUCCESS, "answered 404 with a SCIM Error."),
        (500, {"schemas": [ERROR_SCHEMA], "status": "500"}, Status.ERROR, "answered 500: the server failed on a client's mistake"),
        (400, {"detail": "bad member"}, Status.ERROR, "answered 400, and "),
    ],
    ids=["400", "404", "500", "400 not a SCIM Error"],
)
def test_a_member_that_names_no_resource_must_be_refused(serve, status, body, expected, reason):
    def answer(response):
        code, headers, sent = response
        return (status, headers, json.dumps(body).encode()) if code == 204 and refusing["on"] else response

    refusing = {"on": False}  # only a PATCH adding a member is refused

    def arm(patch: dict) -> dict:
        refusing["on"] = patch["Operations"][0].get("op") == "add"
        return patch

    server = serve(Broken(make_app()).rewrite_request_json("PATCH", GROUP, arm).rewrite("PATCH", GROUP, answer))
    [dangling] = run(server.url, "dangling_member", "Group")
    assert dangling.status is expected, dangling.reason
    assert reason in dangling.reason
    assert stored(server.url) == []


def test_a_resource_type_without_members_skips_the_dangling_member(serve):
    server = serve(make_app())
    [result] = run(server.url, "dangling_member", "User")
    assert result.status is Status.SKIPPED and result.reason == "Skipped: User[EnterpriseUser] has no members attribute."
    assert result.exchanges == []


def test_a_server_answering_another_scim_type_than_no_target_is_an_error(serve):
    def as_invalid_value(error: dict) -> dict:
        return {**error, "scimType": "invalidValue"} if error.get("scimType") == "noTarget" else error

    server = serve(Broken(make_app()).rewrite_json("PATCH", USER, as_invalid_value))
    malformed, unpathed, unmatched = run(server.url, "patch_errors")
    assert malformed.status is Status.SUCCESS
    assert unpathed.status is Status.ERROR and 'with scimType "invalidValue" instead of "noTarget" (RFC 7644 §3.5.2.2)' in unpathed.reason
    assert unmatched.status is Status.ERROR and "(RFC 7644 §3.5.2.3, SHALL)" in unmatched.reason


def test_a_server_accepting_every_patch_is_an_error_for_each(serve):
    server = serve(Broken(make_app()).answer("PATCH", USER, 204, b""))
    results = run(server.url, "patch_errors")
    assert statuses(results) == [Status.ERROR] * 3
    assert all("answered 204 instead of 400" in r.reason for r in results)
    assert "(RFC 7644 §3.5.2, SHALL)" in results[0].reason
    assert stored(server.url) == []


def test_patch_unclaimed_skips_the_patch_errors(serve):
    config = load_default_service_provider_config()
    server = serve(make_app(config=config.model_copy(update={"patch": Patch(supported=False)})))
    [result] = run(server.url, "patch_errors")
    assert result.status is Status.SKIPPED
    assert "does not claim patch support" in result.reason
    assert not any(e.method == "PATCH" for e in result.exchanges)


@pytest.mark.parametrize(
    ("payload", "status", "problem"),
    [
        ({"schemas": [ERROR_SCHEMA], "status": "400"}, 400, None),
        ({"schemas": [ERROR_SCHEMA], "status": 400}, 400, 'its "status" is 400, a JSON number instead of a JSON string'),
        ({"schemas": [ERROR_SCHEMA]}, None, 'its SCIM Error has no "status", which is REQUIRED'),
        ({"schemas": [ERROR_SCHEMA], "status": "404"}, 400, 'its "status" is "404" while the answer\'s status is 400'),
        ({"schemas": [ERROR_SCHEMA], "status": "404"}, None, None),
        ({"status": "400"}, 400, f"its body does not carry the schema {ERROR_SCHEMA}"),
        ("<html>", 400, "its body is not a JSON object"),
    ],
)
def test_scim_error_problem_reads_the_raw_json(payload, status, problem):
    assert scim_error_problem(payload, status) == problem
