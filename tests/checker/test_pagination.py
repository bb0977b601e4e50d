"""The pagination checker (RFC 7644 §3.4.2.4): each rule against scim2-server, and servers that break one."""

from __future__ import annotations

import json
from typing import Any

import pytest

from scim_tui.checker import Status
from scim_tui.demo import make_app
from tests.support.filters import by_rule
from tests.support.filters import run
from tests.support.filters import without_filter_support
from tests.support.servers import SCIM_JSON
from tests.support.servers import Broken
from tests.support.servers import Response
from tests.support.servers import scim_error
from tests.support.servers import stored
from tests.support.unlike import Middleware
from tests.support.unlike import OnlyEq

USERS = "/v2/Users"
RULES = ["count", "startIndex", "totalResults", "itemsPerPage and startIndex", "count=0", "startIndex below 1", "negative count"]


def paginate(url: str, resource_type: str = "User") -> dict:
    return by_rule(run(url, "pagination_parameters", resource_type))


def without(*names: str):
    """A query rewrite: a server that ignores these parameters."""
    return lambda params: {k: v for k, v in params.items() if k not in names}


def list_answer(change):
    """An answer rewrite that changes ListResponses only."""
    return lambda body: change(body) if "Resources" in body or "totalResults" in body else body


@pytest.mark.parametrize("resource_type", ["User", "Group"])
def test_every_rule_holds_on_scim2_server(serve, resource_type):
    server = serve(make_app())
    rules = paginate(server.url, resource_type)
    assert list(rules) == RULES
    assert all(r.status is Status.SUCCESS for r in rules.values()), [r.reason for r in rules.values() if r.status is not Status.SUCCESS]
    assert "startIndex=3&count=2 answered 1 resource" in rules["startIndex"].reason
    assert "both answered totalResults 3" in rules["totalResults"].reason
    assert [e.status_code for e in rules["totalResults"].exchanges] == [200, 200]
    assert all(r.leftovers == [] for r in rules.values())
    assert stored(server.url, f"/{resource_type}s") == []


@pytest.mark.parametrize(
    ("broken", "rule", "seen", "intact"),
    [
        (lambda b: b.rewrite_query("GET", USERS, without("startIndex")), "startIndex", "already on the page at startIndex=1", "count"),
        (
            lambda b: b.rewrite_query("GET", USERS, without("count")),
            "count",
            "answered 3 resources, more than count=2 (the service provider MUST NOT",
            "totalResults",
        ),
        (
            lambda b: b.rewrite_json("GET", USERS, list_answer(lambda d: {**d, "totalResults": len(d.get("Resources", []))})),
            "totalResults",
            "it counts the page, not every match",
            "count",
        ),
        (
            lambda b: b.rewrite_json("GET", USERS, list_answer(lambda d: {k: v for k, v in d.items() if k != "itemsPerPage"})),
            "itemsPerPage and startIndex",
            "itemsPerPage null for 2 resource(s)",
            "totalResults",
        ),
        (
            lambda b: b.rewrite_query("GET", USERS, lambda p: {**p, "count": "1"} if p.get("count") == "0" else p),
            "count=0",
            "answered 1 resource(s) instead of none",
            "negative count",
        ),
        (
            lambda b: b.rewrite_json("GET", USERS, list_answer(lambda d: {**d, "startIndex": 0} if d.get("startIndex") == 1 else d)),
            "startIndex below 1",
            "answered startIndex 0",
            "count=0",
        ),
        (
            lambda b: b.rewrite_query("GET", USERS, lambda p: without("count")(p) if p.get("count") == "-1" else p),
            "negative count",
            "a negative count SHALL be interpreted",
            "count=0",
        ),
    ],
)
def test_a_server_breaking_one_rule_fails_it(serve, broken, rule, seen, intact):
    server = serve(broken(Broken(make_app())))
    rules = paginate(server.url)
    assert rules[rule].status is Status.ERROR, rules[rule].reason
    assert seen in rules[rule].reason
    assert rules[intact].status is Status.SUCCESS, rules[intact].reason
    assert stored(server.url, "/Users") == []


def test_fewer_resources_than_count_is_acceptable(serve):
    server = serve(Broken(make_app()).rewrite_query("GET", USERS, lambda p: {**p, "count": "1"} if p.get("count") == "2" else p))
    rules = paginate(server.url)
    assert rules["count"].status is Status.ACCEPTABLE
    assert "answered 1 resource(s) of the 2 asked for, which a service provider MAY do" in rules["count"].reason


def test_without_filter_support_the_rules_needing_exact_matches_are_skipped(serve):
    server = serve(without_filter_support())
    rules = paginate(server.url)
    assert list(rules) == RULES
    for rule in ("startIndex", "totalResults"):
        assert rules[rule].status is Status.SKIPPED
        assert "does not claim filter" in rules[rule].reason and "exact" in rules[rule].reason
    others = [r for name, r in rules.items() if name not in ("startIndex", "totalResults")]
    assert all(r.status is Status.SUCCESS for r in others), [r.reason for r in others if r.status is not Status.SUCCESS]
    assert all("filter=" not in e.url for r in others for e in r.exchanges)
    assert "totalResults 3" in rules["count=0"].reason
    assert stored(server.url, "/Users") == []


def test_count_ignored_fails_the_count_rules_only(serve):
    """A server answering every match whatever count asks fails count, count=0 and negative count;
    where its pages start is then not told by the number of resources: the startIndex rule is
    SKIPPED naming the count rule, and startIndex below 1 holds by the startIndex it answered."""
    server = serve(Broken(make_app()).rewrite_query("GET", USERS, without("count")))
    rules = paginate(server.url)
    assert {name for name, r in rules.items() if r.status is Status.ERROR} == {"count", "count=0", "negative count"}
    assert rules["startIndex"].status is Status.SKIPPED and "the count rule's finding" in rules["startIndex"].reason
    assert rules["startIndex below 1"].status is Status.SUCCESS, rules["startIndex below 1"].reason


class PastTheEndRefused(Middleware):
    """Answers 400 invalidValue to a list whose startIndex lies past its last result, as servers
    guarding their pages do (RFC 7644 §3.4.2.4 says nothing of such a page)."""

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        if environ["REQUEST_METHOD"] != "GET" or "startIndex" not in environ.get("QUERY_STRING", ""):
            return None
        status, headers, body = self.call(environ)
        answer = json.loads(body) if status == 200 and body else {}
        if isinstance(answer.get("startIndex"), int) and answer["startIndex"] > answer.get("totalResults", 0):
            return 400, SCIM_JSON, scim_error(400, "startIndex is past the last result")
        return status, headers, body


@pytest.mark.parametrize(("resource_type", "name"), [("User", "userName"), ("Group", "displayName")])
def test_a_server_filtering_on_one_eq_alone_has_start_index_and_total_results_judged_on_one_match(serve, resource_type, name):
    """sw, or and and refused (invalidFilter, RFC 7644 Table 9): no filter lists the check's three
    resources, but an eq on one's name lists it alone, which tells where a page starts and what
    totalResults counts."""
    server = serve(OnlyEq(make_app()))
    rules = paginate(server.url, resource_type)
    assert list(rules) == RULES
    assert all(r.status is Status.SUCCESS for r in rules.values()), {label: r.reason for label, r in rules.items() if r.status is not Status.SUCCESS}
    assert f'filter={name} eq "' in rules["startIndex"].reason and "startIndex=2&count=1 answered no resource, none is left after" in rules["startIndex"].reason
    assert "both answered totalResults 1, every match" in rules["totalResults"].reason
    assert [e.status_code for e in rules["totalResults"].exchanges] == [200, 200]
    assert stored(server.url, f"/{resource_type}s") == []


@pytest.mark.parametrize(
    ("broken", "rule", "seen"),
    [
        (lambda b: b.rewrite_query("GET", USERS, without("startIndex")), "startIndex", "already on the page at startIndex=1"),
        (
            lambda b: b.rewrite_json("GET", USERS, list_answer(lambda d: {**d, "totalResults": len(d.get("Resources", []))})),
            "totalResults",
            "instead of the 1 match (it counts the page, not every match)",
        ),
    ],
)
def test_a_server_filtering_on_one_eq_alone_breaking_a_rule_fails_it(serve, broken, rule, seen):
    rules = paginate(serve(OnlyEq(broken(Broken(make_app())))).url)
    assert rules[rule].status is Status.ERROR, rules[rule].reason
    assert seen in rules[rule].reason


def test_a_page_past_the_one_match_refused_leaves_start_index_skipped(serve):
    """With one match, the page at startIndex=2 lies past the end, which RFC 7644 leaves open: a
    server refusing it is not at fault, and its totalResults is still judged."""
    rules = paginate(serve(OnlyEq(PastTheEndRefused(make_app()))).url)
    assert rules["startIndex"].status is Status.SKIPPED
    assert "answered 400 (startIndex is past the last result)" in rules["startIndex"].reason and "past the end" in rules["startIndex"].reason
    assert rules["totalResults"].status is Status.SUCCESS, rules["totalResults"].reason
    assert [label for label, r in rules.items() if r.status.failed] == []
