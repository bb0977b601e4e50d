"""Lists narrowed to a check's own resources (narrowing.py): plumbing, never a verdict.

A server that refuses `sw` (400 invalidFilter, which RFC 7644 §3.4.2.2 and Table 9 allow) gets
its lists narrowed by eq on each name; a server that ignores `filter` is told once, by
filter_operators, and the rules that need the exact matches say so, the same at one and four jobs.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.demo import make_app
from tests.support.filters import RULES
from tests.support.filters import by_rule
from tests.support.filters import run
from tests.support.servers import make_client
from tests.support.servers import stored
from tests.support.unlike import SwUnsupported
from tests.support.unlike import filter_ignored

LISTING = {"filter", "pagination", "sort"}
"""The tags of the checks that narrow lists."""


def listing_checks(url: str, jobs: int) -> list:
    with make_client(url) as scim:
        return [r for r in iter_checks(scim, CheckConfig(jobs=jobs, include_tags=LISTING)) if not r.deselected and r.title != "resource_type_tests"]


@pytest.mark.parametrize("resource_type", ["User", "Group"])
def test_without_sw_pagination_and_sorting_narrow_by_each_name(serve, resource_type):
    server = serve(SwUnsupported(make_app()))
    for checker in ("pagination_parameters", "sort_order"):
        results = run(server.url, checker, resource_type)
        assert all(r.status is Status.SUCCESS for r in results), [r.reason for r in results if r.status is not Status.SUCCESS]
        name = "userName" if resource_type == "User" else "displayName"
        assert all(re.search(rf'filter={name} eq "[^"]+" or {name} eq "[^"]+" or {name} eq "[^"]+"', r.reason) for r in results), [r.reason for r in results]
    assert stored(server.url) == []


def test_sw_refused_with_invalid_filter_is_an_unsupported_operator_not_an_error(serve):
    server = serve(SwUnsupported(make_app()))
    rules = by_rule(run(server.url, "filter_operators"))
    assert list(rules) == RULES
    assert rules["sw"].status is Status.ACCEPTABLE
    assert re.match(r'sw: GET /v2/Users\?filter=userName sw "scim-tui-[0-9a-f]+-" answered', rules["sw"].reason), rules["sw"].reason
    assert rules["sw"].reason.endswith(
        'answered 400 invalidFilter, which a service provider answers when "the specified attribute and filter '
        'comparison combination is not supported" (RFC 7644 §3.12, Table 9).'
    )
    for rule in set(RULES) - {"sw"}:
        assert rules[rule].status is Status.SUCCESS, rules[rule].reason
    assert "externalId pr and (userName eq" in rules["pr"].reason  # the rules combined with the scope use eq on each name
    assert stored(server.url) == []


def test_no_listing_check_fails_on_a_server_without_sw(serve):
    server = serve(SwUnsupported(make_app()))
    results = listing_checks(server.url, jobs=4)
    assert [r for r in results if r.status.failed] == []
    assert {(r.title, r.status) for r in results if r.status is Status.ACCEPTABLE} == {("filter_operators", Status.ACCEPTABLE)}
    assert stored(server.url) == []


def test_an_ignored_filter_is_one_finding_and_the_rules_needing_it_say_so(serve):
    server = serve(filter_ignored(make_app()))
    results = listing_checks(server.url, jobs=1)
    failed = Counter((r.resource_type, r.title) for r in results if r.status.failed)
    # filter_operators once (its eq rule), and filter_invalid's 200 to a malformed filter, a fault of its own.
    assert failed == Counter({(kind, title): 1 for kind in ("User", "Group") for title in ("filter_operators", "filter_invalid")})
    for resource_type in ("User", "Group"):
        mine = [r for r in results if r.resource_type == resource_type]
        operators = by_rule([r for r in mine if r.title == "filter_operators"])
        assert "instead of 1 resource" in operators["eq"].reason
        for rule in RULES[1:]:
            assert operators[rule].status is Status.SKIPPED
            assert (
                "Skipped: the eq rule shows that the server does not narrow a list by its filter (its answer holds resources the filter does not match)"
                in operators[rule].reason
            )
        pages = by_rule([r for r in mine if r.title == "pagination_parameters"])
        for rule in ("startIndex", "totalResults"):
            assert pages[rule].status is Status.SKIPPED
            assert "instead of that resource alone: the server does not narrow a list by its filter (filter_operators reports it)" in pages[rule].reason
        assert all(pages[rule].status is Status.SUCCESS for rule in ("count", "itemsPerPage and startIndex", "count=0", "startIndex below 1", "negative count"))
        [sort] = [r for r in mine if r.title == "sort_order"]
        assert sort.status is Status.SKIPPED and "the server does not narrow a list by its filter (filter_operators reports it)" in sort.reason
    assert stored(server.url) == []


def test_an_ignored_filter_gives_the_same_verdicts_at_one_and_four_jobs(serve):
    server = serve(filter_ignored(make_app()))
    one, four = (Counter((r.resource_type, r.title, r.status) for r in listing_checks(server.url, jobs)) for jobs in (1, 4))
    assert one == four
    assert stored(server.url) == []
