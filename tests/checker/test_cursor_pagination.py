"""Cursor pagination (RFC 9865): checked when the ServiceProviderConfig announces it, against
scim2-server serving cursors, and against middlewares that break each rule."""

from __future__ import annotations

import json
import re
import threading
from typing import Any
from urllib.parse import parse_qsl

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.checker.checks.cursor_pagination import MADE_UP_CURSOR
from tests.support.servers import SCIM_JSON
from tests.support.servers import Broken
from tests.support.servers import cursor_app
from tests.support.servers import make_client
from tests.support.servers import stored

USERS = "/v2/Users"
ERROR = "urn:ietf:params:scim:api:messages:2.0:Error"
RULES = ("first page", "nextCursor", "previousCursor", "invalid cursor", "expired cursor")


def rules(url: str) -> dict[str, tuple[Status, str]]:
    """The cursor check's results on User, by rule."""
    with make_client(url) as scim:
        results = [
            r
            for r in iter_checks(scim, CheckConfig(include_tags={"pagination:cursor"}, resource_types=["User"]))
            if r.title == "cursor_pagination" and r.resource_type == "User"
        ]
    assert stored(url, "/Users") == [], "the check's resources are deleted"
    if len(results) == 1:
        return {"": (results[0].status, results[0].reason or "")}
    by_rule = {}
    for result in results:
        rule, _, reason = (result.reason or "").partition(": ")
        by_rule[rule] = (result.status, reason)
    assert tuple(by_rule) == RULES
    return by_rule


def announcing_a_timeout_of_one_second(app: Broken) -> Broken:
    return app.rewrite_json("GET", "/v2/ServiceProviderConfig", lambda body: {**body, "pagination": {**body["pagination"], "cursorTimeout": 1}})


def expiring_cursors_on_second_use(app: Any) -> Any:
    """A cursor presented a second time is answered 400 expiredCursor. scim2-server expires a
    cursor by the clock (cursorTimeout), which a test cannot do without racing the pages read
    before; here the expiry is deterministic: the check presents the first page's nextCursor
    once while walking the pages, and again after waiting out the timeout announced."""
    seen: set[str] = set()
    lock = threading.Lock()

    def serve(environ: dict[str, Any], start_response: Any) -> Any:
        cursor = dict(parse_qsl(environ.get("QUERY_STRING", ""), keep_blank_values=True)).get("cursor")
        with lock:
            again = bool(cursor) and cursor in seen
            seen.add(cursor or "")
        if not again:
            return app(environ, start_response)
        body = json.dumps({"schemas": [ERROR], "status": "400", "scimType": "expiredCursor", "detail": "expired"}).encode()
        start_response("400 Bad Request", [*SCIM_JSON, ("Content-Length", str(len(body)))])
        return [body]

    return serve


def test_a_server_serving_cursors_passes_every_rule(serve):
    seen = rules(serve(expiring_cursors_on_second_use(announcing_a_timeout_of_one_second(Broken(cursor_app())))).url)
    assert {rule: status for rule, (status, _) in seen.items()} == dict.fromkeys(RULES, Status.SUCCESS), seen
    assert seen["expired cursor"][1].endswith("answered 400 with scimType expiredCursor.")
    assert re.fullmatch(
        r"1 page\(s\) reached by nextCursor hold 1 resource \(scim-tui-[0-9a-f]+-(alpha-one|gamma-two|Beta-two)@example\.com\), the matches after .*",
        seen["nextCursor"][1],
    )


def test_a_server_that_does_not_announce_cursors_is_skipped(scim_server):
    assert rules(scim_server.url) == {
        "": (Status.SKIPPED, "Skipped: the ServiceProviderConfig does not announce cursor pagination (pagination.cursor is not true).")
    }


def test_a_long_cursor_timeout_is_not_waited_out(serve):
    seen = rules(serve(cursor_app(timeout=3600)).url)
    assert seen["expired cursor"] == (
        Status.SKIPPED,
        "Skipped: the ServiceProviderConfig announces a cursorTimeout of 3600 s, longer than the 5 s this check waits.",
    )


def without(key: str):
    return lambda body: {k: v for k, v in body.items() if k != key}


def previous_to_second_page():
    """previousCursor rewritten to the first page's nextCursor: it leads forward, not back."""
    first_next: list[str] = []

    def change(body: dict) -> dict:
        if "nextCursor" in body and "previousCursor" not in body:
            first_next.append(body["nextCursor"])
        if "previousCursor" in body and first_next:
            body["previousCursor"] = first_next[0]
        return body

    return change


BREAKS = {
    "count ignored": (
        lambda app: app.rewrite_query("GET", USERS, without("count")),
        "first page",
        Status.ERROR,
        "answered 3 resources, more than count=2.",
    ),
    "no nextCursor": (
        lambda app: app.rewrite_json("GET", USERS, without("nextCursor")),
        "first page",
        Status.ERROR,
        "without a nextCursor to the others.",
    ),
    "every cursor gives the first page": (
        lambda app: app.rewrite_query("GET", USERS, lambda q: {**q, "cursor": ""} if q.get("cursor") else q),
        "nextCursor",
        Status.ERROR,
        "already on an earlier page.",
    ),
    "previousCursor leads forward": (
        lambda app: app.rewrite_json("GET", USERS, previous_to_second_page()),
        "previousCursor",
        Status.ERROR,
        "instead of the first page's 2 resources",
    ),
    "a made-up cursor gives the first page": (
        lambda app: app.rewrite_query("GET", USERS, lambda q: {**q, "cursor": ""} if q.get("cursor") == MADE_UP_CURSOR else q),
        "invalid cursor",
        Status.ERROR,
        "answered 200 instead of 400 with scimType invalidCursor.",
    ),
    "another scimType": (
        lambda app: app.rewrite_json("GET", USERS, lambda body: {**body, "scimType": "invalidValue"} if body.get("status") == "400" else body),
        "invalid cursor",
        Status.DEVIATION,
        'answered 400 with scimType "invalidValue" instead of invalidCursor.',
    ),
    "a cursor served past its announced timeout": (
        announcing_a_timeout_of_one_second,
        "expired cursor",
        Status.ACCEPTABLE,
        "past the cursorTimeout of 1 s, was still served, which the RFC allows (the timeout is a minimum).",
    ),
}


@pytest.mark.parametrize("broken", BREAKS, ids=list(BREAKS))
def test_a_broken_rule_is_found(serve, broken):
    breaking, rule, status, ending = BREAKS[broken]
    seen = rules(serve(breaking(Broken(cursor_app()))).url)
    assert seen[rule][0] is status and ending in seen[rule][1], seen[rule]
