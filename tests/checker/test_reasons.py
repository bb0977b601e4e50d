"""Reasons are written for a person: what the library that reads JSON into SCIM objects says of a
body it refuses is told in plain words, once, in one place (answers.plain_validation), and no
reason of a run carries its wording or the address of its documentation."""

from __future__ import annotations

import json
import re

import pytest
from pydantic import ValidationError
from scim2_models import Group
from scim2_models import ListResponse
from scim2_models import User

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import CheckResult
from scim_tui.checker import iter_checks
from scim_tui.checker.answers import plain_title
from scim_tui.checker.answers import plain_validation
from scim_tui.checker.exchanges import describe_error
from scim_tui.demo import make_app
from tests.support.servers import Broken
from tests.support.servers import make_client
from tests.support.servers import stored
from tests.support.wording import LIBRARY_WORDING
from tests.support.wording import library_wording

USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User"
LIST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse"


def refused(model, data) -> ValidationError:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(data)
    return caught.value


@pytest.mark.parametrize(
    ("model", "data", "words"),
    [
        (
            ListResponse[User | Group],
            {"schemas": [LIST_SCHEMA], "totalResults": 1, "Resources": [{"id": "x"}]},
            'Resources[0] has no "schemas" naming a kind of resource expected there',
        ),
        (
            ListResponse[User | Group],
            {"schemas": [LIST_SCHEMA], "totalResults": 1, "Resources": [{"schemas": [USER_SCHEMA], "id": "x", "userName": 3}]},
            "Resources[0].userName is 3, not a string",
        ),
        (
            User,
            {"schemas": [USER_SCHEMA], "userName": "x", "emails": [{"value": "a@example.com", "primary": "perhaps"}]},
            'emails[0].primary is "perhaps", not a boolean',
        ),
        (User, {"schemas": [USER_SCHEMA], "userName": "x", "active": [True], "emails": "none"}, "active is a JSON array, not a boolean (and 1 more problem)"),
        (User, {"schemas": [USER_SCHEMA], "userName": "x", "meta": {"created": "yesterday"}}, 'meta.created is "yesterday", not a date and time'),
    ],
    ids=["no schemas in a list", "a number for a string", "a string for a boolean", "two problems", "not a date"],
)
def test_a_validation_error_is_told_in_plain_words(model, data, words):
    error = refused(model, data)
    assert plain_validation(error) == words
    assert not LIBRARY_WORDING.search(plain_validation(error)) and not LIBRARY_WORDING.search(plain_title(error))


def test_the_name_of_a_list_is_not_the_libraries_type_expression():
    error = refused(ListResponse[User | Group], {"schemas": [LIST_SCHEMA], "totalResults": "many"})
    assert plain_title(error) == "ListResponse"


def test_an_error_raised_from_a_validation_error_is_told_by_its_cause_alone():
    """scim2-models re-raises a refused body with the library's message ("Extra inputs are not
    permitted: bogus"); the reason tells the cause in plain words, once."""
    try:
        try:
            User.model_validate({"schemas": [USER_SCHEMA], "userName": "x", "nickName": {"a": 1}})
        except ValidationError as error:
            raise ValueError(str(error).splitlines()[0]) from error
    except ValueError as raised:
        assert describe_error(raised) == "nickName is a JSON object, not a string"


def _listed_detail(answer):
    """Every error answer's "detail" a JSON array: the SCIM Error does not validate."""
    status, headers, body = answer
    if status < 400 or not body:
        return answer
    error = json.loads(body) | {"detail": ["not", "a", "string"]}
    return status, [(k, v) for k, v in headers if k.lower() != "content-length"], json.dumps(error).encode()


def _emails_not_a_list(user):
    return user | {"emails": "not-a-list"}


def _schemaless_stranger(listed):
    return listed | {"Resources": [*listed.get("Resources", []), {"id": "stranger"}], "totalResults": listed.get("totalResults", 0) + 1}


BROKEN = [
    pytest.param(lambda app: Broken(app).rewrite(None, "/v2/.*", _listed_detail), id="error detail a list"),
    pytest.param(lambda app: Broken(app).rewrite_json("PUT", "/v2/Users/[^/]+", _emails_not_a_list), id="a PUT answering an invalid user"),
    pytest.param(lambda app: Broken(app).rewrite_json("POST", "/v2/.search", _schemaless_stranger), id="a search answering a resource without schemas"),
]


def full_run(url: str) -> list[CheckResult]:
    with make_client(url) as scim:
        return list(iter_checks(scim, CheckConfig(jobs=4)))


@pytest.mark.slow  # whole runs
@pytest.mark.parametrize("breaks", BROKEN)
def test_no_reason_of_a_run_on_a_broken_server_carries_library_wording(serve, breaks):
    server = serve(breaks(make_app()))
    results = full_run(server.url)
    worded = [(r.title, r.reason) for r in results if library_wording(r)]
    assert worded == []
    assert any(r.status.failed for r in results if r.title not in ("resource_type_tests", "service_provider_config_document"))
    assert stored(server.url) == []


def test_an_invalid_scim_error_is_named_in_plain_words_and_in_a_sentence(serve):
    server = serve(Broken(make_app()).rewrite(None, "/v2/.*", _listed_detail))
    with make_client(server.url) as scim:
        [unknown] = list(iter_checks(scim, CheckConfig(), only={CheckId("random_url", None)}))
        invalid_json, *_ = list(iter_checks(scim, CheckConfig(), only={CheckId("creation_errors", "User")}))
    assert re.fullmatch(
        r"GET /v2/scim-tui-missing-\w+ answered 404, but its SCIM Error is invalid \(detail is a JSON array, not a string\)\.", unknown.reason
    ), unknown.reason
    assert invalid_json.reason.endswith("answered 400, but its SCIM Error is invalid (detail is a JSON array, not a string) (RFC 7644 §3.12, MUST)."), (
        invalid_json.reason
    )


PYTHON_SPELLING = re.compile(r"(?<![\"\w])(False|True|None)(?![\"\w])|\['|\{'")
"""Python's way of writing a value (False, None, ['a'], {'a': 1}), where SCIM writes JSON; a
string such as "False" (Entra's spelling of a boolean) is quoted JSON, not Python."""


def _garbled(user):
    """A User answered with active the other way round, displayName, nickName and title null, and
    each email's value another."""
    if not isinstance(user, dict) or "userName" not in user:
        return user
    nulled = {name: None for name in ("displayName", "nickName", "title") if name in user}
    emails = [{**email, "value": f"other-{email.get('value')}"} for email in user.get("emails") or [] if isinstance(email, dict)]
    return user | nulled | ({"active": not user["active"]} if "active" in user else {}) | ({"emails": emails} if emails else {})


def test_reasons_show_the_values_compared_as_json(serve):
    """Values a check compares are shown as SCIM writes them: `false`, `null`, `["a"]`, `"x"`."""
    broken = Broken(make_app())
    for method in ("GET", "PUT", "PATCH"):
        broken.rewrite_json(method, "/v2/Users/[^/]+", _garbled)
    server = serve(broken)
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(include_tags={"crud:update", "patch"}, resource_types=["User"], jobs=2)))
    reasons = [r.reason or "" for r in results if r.status.failed]
    assert any(re.search(r"holds (true|false) instead of (true|false)\.", reason) for reason in reasons), reasons
    assert any(re.search(r'holds null instead of "scim-tui-displayName-\w+"\.', reason) for reason in reasons), reasons
    assert any(
        re.search(r'holds \["other-scim-tui-\w+@example\.com"\] as the work value instead of "scim-tui-\w+@example\.com"\.', reason) for reason in reasons
    )
    assert any('holds [{"value":"other-scim-tui-' in reason for reason in reasons), "a list of objects, compact"
    assert [reason for r in results if PYTHON_SPELLING.search(reason := r.reason or "")] == []
    assert stored(server.url) == []
