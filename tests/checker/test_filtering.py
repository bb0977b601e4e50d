"""The filter checkers (RFC 7644 §3.4.2.2): each operator against scim2-server, and servers that misread one."""

from __future__ import annotations

import re

import pytest
from scim2_models import URN
from scim2_models import Resource

from scim_tui.checker import CheckContext
from scim_tui.checker import Status
from scim_tui.checker.checks.filter_rules import SCOPED
from scim_tui.checker.checks.filtering import filter_operators
from scim_tui.checker.checks.sorting import sort_order
from scim_tui.demo import make_app
from tests.support.filters import RULES
from tests.support.filters import by_rule
from tests.support.filters import case_exact_user_names
from tests.support.filters import run
from tests.support.filters import without_filter_support
from tests.support.servers import Broken
from tests.support.servers import stored
from tests.support.unlike import FewFilterable
from tests.support.unlike import OnlyEq

USERS = "/v2/Users"


def with_filter(change):
    """A query rewrite that changes only the filter parameter."""
    return lambda params: {**params, "filter": change(params["filter"])} if "filter" in params else params


@pytest.mark.parametrize(("resource_type", "typed"), [("User", 'emails[type eq "work"]'), ("Group", 'members[type eq "User"]')])
def test_every_operator_selects_exactly_its_resources_on_scim2_server(serve, resource_type, typed):
    server = serve(make_app())
    results = run(server.url, "filter_operators", resource_type)
    rules = by_rule(results)
    assert list(rules) == RULES
    assert all(r.status is Status.SUCCESS for r in results), [r.reason for r in results if r.status is not Status.SUCCESS]
    assert "answered 1 resource (" in rules["eq"].reason and "as expected" in rules["eq"].reason
    assert typed in rules["value filter"].reason
    assert "answered 3 resources (" in rules["sw"].reason
    for result in results:
        assert [(e.method, e.status_code) for e in result.exchanges] == [("GET", 200)]
        assert result.leftovers == []
    assert stored(server.url, f"/{resource_type}s") == []
    assert stored(server.url, "/Users") == []  # the member a Group's value filter needed is gone too


def test_a_case_exact_name_is_compared_with_case(serve):
    server = serve(case_exact_user_names())
    rules = by_rule(run(server.url, "filter_operators"))
    assert all(r.status is Status.SUCCESS for r in rules.values()), [r.reason for r in rules.values()]
    assert "answered no resource, as expected" in rules["eq, other case"].reason


def test_a_case_exact_name_compared_without_case_fails(serve):
    lower = with_filter(lambda f: f.lower() if f.startswith("userName eq") else f)
    server = serve(Broken(case_exact_user_names()).rewrite_query("GET", USERS, lower))
    rules = by_rule(run(server.url, "filter_operators"))
    assert rules["eq, other case"].status is Status.ERROR
    assert "answered 1 resource" in rules["eq, other case"].reason and "instead of no resource (userName has caseExact true" in rules["eq, other case"].reason


@pytest.mark.parametrize(
    ("rule", "change", "seen"),
    [
        # "co" read as "sw": the substring in the middle of the name finds nothing.
        ("co", lambda f: f.replace(" co ", " sw "), "answered no resource instead of 1 resource"),
        # eq compared with case, though userName's caseExact is false.
        ("eq, other case", lambda f: re.sub(r'eq "([^"a-z]*[A-Z][^"a-z]*)"', r'eq "\1-exact"', f), "caseExact false"),
        # "and" read as "or", "or" read as "and".
        ("and", lambda f: f.replace(" and ", " or "), "instead of 1 resource ("),
        ("or", lambda f: f.replace(" or ", " and "), "answered no resource instead of 2 resources"),
        # pr ignored: every resource of the scope comes back.
        ("pr", lambda f: f.replace("externalId pr and ", ""), "answered 3 resources"),
        # the value filter read as "has any email".
        ("value filter", lambda f: f.replace('emails[type eq "work"]', "emails pr"), "answered 3 resources"),
        # attribute names and operators compared with case: USERNAME EQ names no attribute.
        ("eq, names in capitals", lambda f: 'id eq "none"' if f.startswith("USERNAME EQ") else f, "answered no resource instead of 1 resource"),
        # a name qualified by its schema URN refused as a filter the server cannot read.
        ("eq, URN-qualified name", lambda f: "(" if f.startswith("urn:") else f, "answered 400"),
        # externalId (caseExact true) compared without case.
        ("eq, caseExact attribute", lambda f: f.lower() if f.startswith("externalId eq") else f, "instead of no resource (externalId has caseExact true"),
        ("ne", lambda f: f.replace(" ne ", " eq "), "answered 1 resource"),
        ("ew", lambda f: f.replace(" ew ", " sw "), "answered no resource instead of 1 resource"),
        ("gt", lambda f: f.replace(" gt ", " lt "), "answered no resource instead of 3 resources"),
        # ge read as gt: the resource modified at the very moment compared with is left out.
        ("ge", lambda f: f.replace(" ge ", " gt "), "answered 2 resources"),
        ("lt", lambda f: f.replace(" lt ", " gt "), "instead of no resource"),
        ("le", lambda f: f.replace(" le ", " ge "), "answered no resource instead of 3 resources"),
        ("not", lambda f: f.replace("not (", "("), "answered 1 resource"),
        # without its parentheses, "and" binds first: a or (b and b).
        ("parentheses", lambda f: f.replace("(", "").replace(")", "") if f.startswith("(") else f, "answered 2 resources"),
        ("pr in a value path", lambda f: f.replace(" and value pr]", ' and value eq "none"]'), "answered no resource instead of 1 resource"),
    ],
)
def test_a_server_misreading_one_operator_fails_that_rule_only(serve, rule, change, seen):
    server = serve(Broken(make_app()).rewrite_query("GET", USERS, with_filter(change)))
    rules = by_rule(run(server.url, "filter_operators"))
    broken = rules[rule]
    assert broken.status is Status.ERROR, broken.reason
    assert seen in broken.reason and "RFC 7644 §3.4.2.2" in broken.reason
    assert rules["eq"].status is Status.SUCCESS and rules["sw"].status is Status.SUCCESS
    assert stored(server.url, "/Users") == []


def test_a_filter_the_server_refuses_is_an_error_of_its_rule(serve):
    broken = Broken(make_app()).answer(
        "GET", USERS, 400, {"schemas": ["urn:ietf:params:scim:api:messages:2.0:Error"], "status": "400", "detail": "no filters here"}
    )
    server = serve(broken)
    rules = by_rule(run(server.url, "filter_operators"))
    scoped = set(SCOPED)
    assert all(rules[rule].status is Status.ERROR for rule in set(RULES) - scoped)
    assert "answered 400 (no filters here) instead of 200 with a ListResponse" in rules["co"].reason
    for rule in scoped:  # they need a filter that lists the check's resources: none did
        assert rules[rule].status is Status.SKIPPED
        assert re.search(
            r"Skipped: GET /v2/Users\?filter=userName eq \S+ answered 400 \(no filters here\) .*, so no filter lists only this check's resources",
            rules[rule].reason,
        )
    broken.repaired = True
    assert stored(server.url, "/Users") == []


@pytest.mark.parametrize("checker", ["filter_operators", "filter_invalid"])
def test_skipped_when_filter_is_not_claimed(serve, checker):
    server = serve(without_filter_support())
    [result] = run(server.url, checker)
    assert result.status is Status.SKIPPED
    assert "does not claim filter" in result.reason and "filter.supported" in result.reason
    assert [e.url.rsplit("/", 1)[-1] for e in result.exchanges] in ([], ["ServiceProviderConfig"])


@pytest.mark.parametrize("resource_type", ["User", "Group"])
def test_a_malformed_filter_gets_400_invalid_filter_from_scim2_server(scim_server, resource_type):
    [result] = run(scim_server.url, "filter_invalid", resource_type)
    assert result.status is Status.SUCCESS, result.reason
    assert 'answered 400 with a SCIM Error of scimType "invalidFilter"' in result.reason
    [exchange] = result.exchanges
    assert "filter=%28" in exchange.url


def test_a_malformed_filter_answered_with_a_list_is_an_error(serve):
    ignoring = with_filter(lambda f: "" if f.startswith("(") else f)
    server = serve(Broken(make_app()).rewrite_query("GET", USERS, lambda params: {k: v for k, v in ignoring(params).items() if v}))
    [result] = run(server.url, "filter_invalid")
    assert result.status is Status.ERROR
    assert "(an unclosed parenthesis) answered 200 instead of 400 (RFC 7644 §3.4.2.2 and §3.12, Table 9)" in result.reason


def test_a_400_without_invalid_filter_is_a_deviation(serve):
    server = serve(Broken(make_app()).rewrite_json("GET", USERS, lambda body: {k: v for k, v in body.items() if k != "scimType"}))
    [result] = run(server.url, "filter_invalid")
    assert result.status is Status.DEVIATION
    assert 'answered 400 with no scimType instead of "invalidFilter"' in result.reason


def test_a_400_that_is_not_a_scim_error_is_an_error_as_for_every_refusal(serve):
    server = serve(
        Broken(make_app()).rewrite(
            "GET", USERS, lambda answer: (answer[0], [("Content-Type", "text/html")], b"<h1>Bad filter</h1>") if answer[0] == 400 else answer
        )
    )
    [result] = run(server.url, "filter_invalid")
    assert result.status is Status.ERROR
    assert "answered 400" in result.reason and "(RFC 7644 §3.12, MUST)" in result.reason


class Nameless(Resource):
    """A resource type without a required single-valued string attribute to name it by."""

    __schema__ = URN("urn:scim-tui:params:scim:schemas:test:2.0:Nameless")
    note: str | None = None


@pytest.mark.parametrize(("checker", "purpose"), [(filter_operators, "filter on"), (sort_order, "sort by")])
def test_skipped_without_a_name_attribute(client, checker, purpose):
    context = CheckContext(client)
    [result] = checker(context, Nameless)
    assert result.status is Status.SKIPPED
    assert f"the Nameless schema has no required single-valued string attribute to name resources with and {purpose}" in result.reason
    assert context.resource_manager.owned == []


def test_pr_is_skipped_when_the_server_drops_external_id(serve):
    server = serve(Broken(make_app()).rewrite_request_json("POST", USERS, lambda body: {k: v for k, v in body.items() if k != "externalId"}))
    rules = by_rule(run(server.url, "filter_operators"))
    assert rules["pr"].status is Status.SKIPPED
    assert "did not keep the externalId sent" in rules["pr"].reason
    assert "POST" in {e.method for e in rules["pr"].exchanges} and not [e.url for e in rules["pr"].exchanges if "filter=" in e.url]
    assert rules["eq, caseExact attribute"].status is Status.SKIPPED and "did not keep the externalId sent" in rules["eq, caseExact attribute"].reason
    assert all(r.status is Status.SUCCESS for label, r in rules.items() if label not in ("pr", "eq, caseExact attribute"))
    assert stored(server.url, "/Users") == []


@pytest.mark.parametrize(
    ("rule", "token"),
    [("ne", " ne "), ("ew", " ew "), ("ge", " ge "), ("le", " le "), ("not", "not ("), ("parentheses", "("), ("pr in a value path", "value pr]")],
)
def test_an_operator_refused_as_unsupported_is_acceptable(serve, rule, token):
    """RFC 7644 §3.12, Table 9: invalidFilter, "the specified attribute and filter comparison combination is not supported"."""
    unreadable = with_filter(lambda f: "(" if (f.startswith(token) if token == "(" else token in f) else f)
    server = serve(Broken(make_app()).rewrite_query("GET", USERS, unreadable))
    rules = by_rule(run(server.url, "filter_operators"))
    assert rules[rule].status is Status.ACCEPTABLE, rules[rule].reason
    assert "answered 400 invalidFilter, which a service provider answers when" in rules[rule].reason
    assert rules["eq"].status is Status.SUCCESS and rules["or"].status is Status.SUCCESS


def test_a_server_filtering_on_one_eq_only_fails_no_rule(serve):
    """A server on a key-value store filters on one eq comparison: every other operator, or and
    and included, is refused with 400 invalidFilter, which Table 9 of RFC 7644 §3.12 provides for."""
    rules = by_rule(run(serve(OnlyEq(make_app())).url, "filter_operators"))
    assert rules["eq"].status is Status.SUCCESS
    assert rules["or"].status is Status.ACCEPTABLE and "answered 400 invalidFilter, which a service provider answers when" in rules["or"].reason
    assert [label for label, result in rules.items() if result.status.failed] == []


def test_a_server_filtering_on_few_attributes_fails_no_rule(serve):
    """A server filtering on userName, externalId, displayName and id only refuses a value filter
    (emails[type eq "work"]) and the comparisons of meta.lastModified with 400 invalidFilter, "the
    specified attribute and filter comparison combination is not supported" (RFC 7644 §3.12, Table 9)."""
    rules = by_rule(run(serve(FewFilterable(make_app())).url, "filter_operators"))
    refused = {"value filter", "gt", "ge", "lt", "le", "pr in a value path"}
    assert {label for label, result in rules.items() if result.status is Status.ACCEPTABLE} == refused, {label: r.reason for label, r in rules.items()}
    assert all(result.status is Status.SUCCESS for label, result in rules.items() if label not in refused)


def test_and_is_judged_on_a_server_without_co(serve):
    """The and rule combines eq comparisons: a server that leaves co unsupported still has its and judged."""
    refusing_co = with_filter(lambda f: "(" if " co " in f else f)
    rules = by_rule(run(serve(Broken(make_app()).rewrite_query("GET", USERS, refusing_co)).url, "filter_operators"))
    assert rules["co"].status is Status.ACCEPTABLE
    assert rules["and"].status is Status.SUCCESS, rules["and"].reason
