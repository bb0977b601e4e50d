"""Servers that answer the resource requests with garbage.

Each fault is scim2-server behind a middleware that spoils one kind of answer: a 5xx, an
HTML page, invalid JSON, JSON that is not a SCIM object, a wrong Content-Type, an empty body.
For each, the affected check is an ERROR whose reason says what came back, with the
exchange attached; the run ends within its bound; and the server holds nothing afterwards but
what the run names (a resource whose own URL answers garbage is never proven the run's, so
never deleted).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from datetime import UTC
from datetime import datetime
from typing import Any

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.checker.registry import verdict_names
from scim_tui.demo import make_app
from scim_tui.reports import RunReport
from scim_tui.reports import write_report
from scim_tui.reports.text import told
from tests.support.servers import SCIM2_SERVER_BREAKS
from tests.support.servers import Broken
from tests.support.servers import Response
from tests.support.servers import http_client
from tests.support.servers import make_client
from tests.support.servers import scim_error
from tests.support.wording import own_words

USERS = "/v2/Users"
USER = r"/v2/Users/[^/?]+"
HTML_PAGE = b"<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1><p>nginx</p></body></html>"
HTML = [("Content-Type", "text/html; charset=utf-8")]
RUN_BOUND = 60
"""Seconds a whole run against one faulty server may take (a sound run takes a few)."""
UNREADABLE = ("Traceback", "NoneType", "pydantic", "validation error for", "Input should be", "Expecting value: line", "<html", "<!DOCTYPE")
"""What a reason must never show of its own: internals, raw decoder or validation dumps, the page itself."""


def body(content: bytes) -> Callable[[Response], Response]:
    """Keep scim2-server's status and headers, send another body."""
    return lambda answer: (answer[0], answer[1], content)


def content_type(value: str) -> Callable[[Response], Response]:
    return lambda answer: (answer[0], [(k, v) for k, v in answer[1] if k.lower() != "content-type"] + [("Content-Type", value)], answer[2])


def invalid_user(user: dict[str, Any]) -> dict[str, Any]:
    return user | {"userName": ["not", "a", "string"]}


FAULTS = [
    pytest.param(
        "GET",
        lambda b: b.answer("GET", USER, 500, scim_error(500, "database unavailable")),
        "object_query",
        500,
        r"^GET /v2/Users/\w+ answered 500: database unavailable$",
        id="500 with a SCIM error",
    ),
    pytest.param(
        "POST",
        lambda b: b.answer("POST", USERS, 502, HTML_PAGE, HTML),
        "object_creation",
        502,
        r"^POST /v2/Users answered 502: the 502 answer carries an HTML page, not a SCIM Error \(RFC 7644 §3\.12\)$",
        id="502 HTML page",
    ),
    pytest.param(
        "GET",
        lambda b: b.answer("GET", USER, 200, HTML_PAGE, HTML),
        "object_query",
        200,
        r"^GET /v2/Users/\w+ answered 200: the body is an HTML page, not JSON$",
        id="200 HTML page",
    ),
    pytest.param(
        "GET",
        lambda b: b.rewrite("GET", USER, body(b'{"id": ')),
        "object_query",
        200,
        r"answered 200: the body is not valid JSON \(Expecting value at line 1, column 8\)$",
        id="invalid JSON",
    ),
    pytest.param(
        "POST",
        lambda b: b.rewrite("POST", USERS, body(b'{"schemas": [')),
        "object_creation",
        201,
        r"^POST /v2/Users answered 201: the body is not valid JSON",
        id="invalid JSON after a create",
    ),
    pytest.param(
        "GET",
        lambda b: b.rewrite("GET", USER, body(b"[1, 2]")),
        "object_query",
        200,
        r"answered 200: the body is a JSON array, not a JSON object$",
        id="JSON list",
    ),
    pytest.param(
        "GET",
        lambda b: b.rewrite("GET", USER, body(b'{"foo": 1}')),
        "object_query",
        200,
        r'answered 200: the body is a JSON object without "schemas", so not a SCIM resource',
        id="JSON without schemas",
    ),
    pytest.param(
        "POST",
        lambda b: b.rewrite("POST", USERS, body(b'{"foo": 1}')),
        "object_creation",
        201,
        r'^POST /v2/Users answered 201: the body is a JSON object without "schemas"',
        id="JSON without schemas after a create",
    ),
    pytest.param(
        "GET",
        lambda b: b.rewrite_json("GET", USER, invalid_user),
        "object_query",
        200,
        r"answered 200: the body is not a valid User\[EnterpriseUser\]: userName is a JSON array, not a string$",
        id="invalid SCIM resource",
    ),
    pytest.param(
        "GET",
        lambda b: b.rewrite("GET", USERS, body(b'{"foo": 1}')),
        "object_query_without_id",
        200,
        r'^GET /v2/Users answered 200: the body is a JSON object without "schemas"',
        id="list without schemas",
    ),
    pytest.param(
        "GET",
        lambda b: b.rewrite("GET", USER, content_type("text/plain")),
        "object_query",
        200,
        r"answered 200: its Content-Type is text/plain, not application/scim\+json \(RFC 7644 §8\.1\)$",
        id="text/plain JSON",
    ),
    pytest.param(
        "POST",
        lambda b: b.rewrite("POST", USERS, content_type("text/plain")),
        "object_creation",
        201,
        r"^POST /v2/Users answered 201: its Content-Type is text/plain",
        id="text/plain JSON after a create",
    ),
    pytest.param(
        "GET",
        lambda b: b.rewrite("GET", USER, body(b"")),
        "object_query",
        200,
        r"^GET /v2/Users/\w+ answered an empty body instead of the User\[EnterpriseUser\] \w+\.$",
        id="read answers no body",
    ),
    pytest.param(
        "PUT",
        lambda b: b.rewrite("PUT", USER, body(b"")),
        "object_replacement",
        200,
        r"^PUT /v2/Users/\w+ answered an empty body instead of the User\[EnterpriseUser\]\.$",
        id="replace answers no body",
    ),
    pytest.param(
        "PATCH",
        lambda b: b.rewrite("PATCH", USER, lambda answer: (200, answer[1], b"")),
        "check_replace_attribute",
        200,
        r"answered 200: the answer is an empty body, but a 200 must hold the resource; only a 204 has no body \(RFC 7644 §3\.5\.2\)$",
        id="patch answers 200 and no body",
    ),
]


SUMMARIES = {"resource_type_tests", *verdict_names()}
"""The results that sum up others (a suite, a provider's readiness), and make no request of their own."""


def run(url: str, **options: Any) -> tuple[list[CheckResult], float]:
    """Every check of the User resource type (and of the server), timed."""
    started = time.perf_counter()
    with make_client(url) as scim:
        results = list(iter_checks(scim, CheckConfig(resource_types=["User"]), **options))
    return results, time.perf_counter() - started


def stored(url: str) -> dict[str, list[str]]:
    """The ids of the resources on a server, by resource type, every type it publishes."""
    with http_client(url) as http:
        types = http.get("/ResourceTypes").json()["Resources"]
        return {kind["name"]: [item["id"] for item in http.get(kind["endpoint"]).json().get("Resources", [])] for kind in types}


def assert_understandable(result: CheckResult) -> None:
    shown = own_words(result, [word for word in UNREADABLE if word in (result.reason or "")])
    assert not shown, f"{result.title}: {shown} in {result.reason!r}"
    said = (result.reason or "").split(" Clean-up failed: ")[0]  # then the list of what was left, as long as it is
    assert "\n" not in (result.reason or "") and len(said) < 400


@pytest.mark.slow  # every check of the User resource type, for each fault
@pytest.mark.parametrize(("method", "breaks", "checker", "status", "expected"), FAULTS)
def test_a_garbled_answer_is_an_error_that_says_what_came_back(serve, method, breaks, checker, status, expected):
    broken = breaks(Broken(make_app()))
    server = serve(broken)
    results, seconds = run(server.url)

    affected = [r for r in results if r.title == checker and r.resource_type == "User"]
    assert affected
    for result in affected:
        assert result.status is Status.ERROR, result
        said = result.reason.split(" Clean-up failed: ")[0]  # what it left is told after, and asserted below
        assert re.search(expected, said), result.reason
        assert any(e.method == method and e.status_code == status for e in result.exchanges), "the faulty exchange is attached"
    for result in results:
        if result.status.failed:
            assert_understandable(result)
            assert result.exchanges or result.title in SUMMARIES, result
    assert seconds < RUN_BOUND

    broken.repaired = True
    left = stored(server.url)
    named = [item for result in results for item in result.leftovers]
    assert left["Group"] == []
    # A user whose own URL answers no readable resource is never proven the run's own, so never deleted: each is named once.
    assert len(named) == len(left["User"]) and all(any(user in item for item in named) for user in left["User"]), (named, left)
    assert not named or method == "GET"


def test_a_resource_created_without_a_body_is_read_and_deleted_at_its_location(serve):
    """A 201 whose body is empty (its Content-Type still says SCIM): the body SHOULD hold the
    resource (RFC 7644 §3.3), so object_creation is a DEVIATION; each resource is read at its
    Location, and deleted by the run's end (tests/checker/test_created_without_a_body.py holds the rest)."""
    broken = Broken(make_app()).rewrite("POST", USERS, body(b""))
    server = serve(broken)
    results = list(run(server.url, only={CheckId("object_creation", "User")})[0])
    assert [result.status for result in results] == [Status.DEVIATION, Status.SUCCESS], [result.reason for result in results]
    exchanges = [e for result in results for e in result.exchanges]
    locations = {e.response_headers["location"] for e in exchanges if e.method == "POST"}
    assert locations and locations <= {e.url for e in exchanges if e.method == "GET" and e.status_code == 200}
    broken.repaired = True
    assert stored(server.url)["User"] == []


def test_a_location_elsewhere_is_never_deleted(serve):
    """A Location outside the endpoint posted to could name anything: the engine leaves it, and
    finds what it created by the values it gave it (and only what carries them)."""

    def elsewhere(answer: Response) -> Response:
        headers = [(k, v if k.lower() != "location" else v.replace("/Users/", "/Groups/")) for k, v in answer[1]]
        return answer[0], headers, b""

    broken = Broken(make_app()).rewrite("POST", USERS, elsewhere)
    server = serve(broken)
    [result] = list(run(server.url, only={CheckId("object_creation", "User")})[0])
    assert result.status is Status.ERROR
    deletes = [e for e in result.exchanges if e.method == "DELETE"]
    assert all("/Groups/" not in e.url for e in deletes), "the location elsewhere is never deleted"
    broken.repaired = True
    assert stored(server.url)["User"] == [], "the user it created was found by its userName and deleted"
    assert result.leftovers == []


def test_a_deletion_that_fails_during_clean_up_names_the_leftovers(serve):
    broken = Broken(make_app()).answer("DELETE", USER, 500, scim_error(500, "deletion refused"))
    server = serve(broken)
    results, _ = run(server.url, only={CheckId("object_creation", "User")})
    _full, result = results  # the resource with every attribute, then the least one: the last result names the leftovers
    left = stored(server.url)["User"]
    assert left, "the server kept what the check created"
    assert sorted(result.leftovers) == sorted(f"User/{user}" for user in left)
    assert told(result) == result.reason, "what it left is told once for the run, not on each result"
    report = RunReport.create(results, target=server.url, started_at=datetime.now(UTC), duration=1.0)
    assert report.leftovers == result.leftovers
    assert f"Left on the server: {len(left)} resources (delete them by hand): {', '.join(result.leftovers)}" in write_report(report, "text")
    assert json.loads(write_report(report, "json"))["leftovers"] == result.leftovers
    broken.repaired = True
    with http_client(server.url) as http:
        for user in left:
            http.delete(f"/Users/{user}")


def chosen_values(payload: Any, keys: frozenset[str]) -> list[str]:
    """The values of these keys anywhere in a JSON document."""
    if isinstance(payload, dict):
        found = [value for key, value in payload.items() if key in keys and isinstance(value, str)]
        return found + [v for value in payload.values() for v in chosen_values(value, keys)]
    if isinstance(payload, list):
        return [v for value in payload for v in chosen_values(value, keys)]
    return []


def parsed(body: str) -> Any:
    """A request body as JSON; None for the bodies made invalid on purpose (errors checks) or cut short."""
    try:
        return json.loads(body)
    except ValueError:
        return None


@pytest.mark.slow
def test_the_names_and_ids_the_client_chooses_start_with_scim_tui(scim_server, full_run):
    exchanges = [e for r in full_run for e in r.exchanges]
    sent = [parsed(e.request_body) for e in exchanges if e.method in ("POST", "PUT") and e.request_body]
    names = chosen_values(sent, frozenset({"userName", "displayName", "externalId", "nickName"}))
    assert len(names) > 20
    assert all(name.startswith("scim-tui-") for name in names), [n for n in names if not n.startswith("scim-tui-")]
    unknown = [e.url for e in exchanges if e.method == "GET" and e.status_code == 404 and "/Users/" not in e.url and "/Groups/" not in e.url]
    assert unknown and all("/scim-tui-" in url for url in unknown), unknown
    assert stored(scim_server.url) == {"User": [], "Group": []}


def test_a_summary_names_six_failed_checks_and_counts_the_rest(serve):
    server = serve(Broken(make_app()).answer("GET", USER, 500, scim_error(500)))
    with make_client(server.url) as scim:
        # the checks scim2-server fails anyway left out: every failure here is the 500's
        results = list(iter_checks(scim, CheckConfig(resource_types=["User"], exclude_tags=set(SCIM2_SERVER_BREAKS))))
    failed = sorted({r.title for r in results if r.resource_type == "User" and r.status.failed and r.title != "resource_type_tests"})
    summary = next(r for r in results if r.resource_type == "User" and r.title == "resource_type_tests")
    assert len(failed) > 6
    named = ", ".join(failed[:6])
    assert f": {named} and {len(failed) - 6} more." in summary.reason
    assert summary.reason.startswith(f"{len(failed)} check(s) failed for User")
    # one server fault, one finding: the checks it failed read as one cause, in the summary and the reports
    cause = "GET /v2/Users/{id} answered 500"
    assert summary.reason.split(" Clean-up failed: ")[0].endswith(f"more. All of them share one cause: {cause}.")
    report = RunReport.create(results, target=server.url, started_at=datetime.now(UTC), duration=1.0)
    failing = [r for r in results if r.status.failed and any(e.status_code == 500 for e in r.exchanges)]
    [line] = [line for line in write_report(report, "text").splitlines() if line.startswith("Shared cause:")]
    assert line.startswith(f"Shared cause: {cause}: {len(failing)} results of object_query (User), ")
    assert all(f"{name} (User)" in line for name in failed)
    markdown = write_report(report, "markdown")
    assert f"## Causes shared by several results (1)\n\n- `GET /v2/Users/{{id}} answered 500`: {len(failing)} results of " in markdown
