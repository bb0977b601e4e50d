"""The sort checker (RFC 7644 §3.4.2.3): both orders and the default against scim2-server, and servers that sort wrongly."""

from __future__ import annotations

import re

import pytest
from scim2_server.utils import load_default_service_provider_config

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.demo import make_app
from tests.support.filters import by_rule
from tests.support.filters import case_exact_user_names
from tests.support.filters import run
from tests.support.filters import without_filter_support
from tests.support.servers import Broken
from tests.support.servers import make_client
from tests.support.servers import stored

USERS = "/v2/Users"


def sort(url: str, resource_type: str = "User") -> dict:
    return by_rule(run(url, "sort_order", resource_type))


def suffixes(reason: str) -> list[str]:
    """The order a reason tells, as the names' suffixes: "... answered alpha-one, Beta-two, gamma-two in that order"."""
    return reason.split(" answered ", 1)[1].split(" in that order", 1)[0].split(" instead of ", 1)[0].split(", ")


def without_sort_support():
    config = load_default_service_provider_config()
    return make_app(config=config.model_copy(update={"sort": config.sort.model_copy(update={"supported": False})}))


@pytest.mark.parametrize("resource_type", ["User", "Group"])
def test_both_orders_and_the_default_on_scim2_server(serve, resource_type):
    server = serve(make_app())
    rules = sort(server.url, resource_type)
    assert list(rules) == ["ascending", "descending", "default order"]
    assert all(r.status is Status.SUCCESS for r in rules.values()), [r.reason for r in rules.values() if r.status is not Status.SUCCESS]
    assert suffixes(rules["ascending"].reason) == ["alpha-one", "Beta-two", "gamma-two"]
    assert suffixes(rules["descending"].reason) == ["gamma-two", "Beta-two", "alpha-one"]
    assert "sortOrder" not in rules["default order"].exchanges[0].url
    assert "without case" in rules["ascending"].reason
    assert all(r.leftovers == [] for r in rules.values())
    assert stored(server.url, f"/{resource_type}s") == []


def test_a_case_exact_name_sorts_with_case(serve):
    server = serve(case_exact_user_names())
    rules = sort(server.url)
    assert all(r.status is Status.SUCCESS for r in rules.values()), [r.reason for r in rules.values()]
    assert suffixes(rules["ascending"].reason) == ["Beta-two", "alpha-one", "gamma-two"]
    assert "caseExact true, so it sorts with case" in rules["ascending"].reason


def test_a_server_ignoring_sort_order_fails_descending(serve):
    server = serve(Broken(make_app()).rewrite_query("GET", USERS, lambda p: {k: v for k, v in p.items() if k != "sortOrder"}))
    rules = sort(server.url)
    assert rules["descending"].status is Status.ERROR
    assert "answered alpha-one, Beta-two, gamma-two instead of gamma-two, Beta-two, alpha-one" in rules["descending"].reason
    assert rules["ascending"].status is Status.SUCCESS and rules["default order"].status is Status.SUCCESS
    assert stored(server.url, "/Users") == []


def test_a_server_defaulting_to_descending_fails_the_default_order(serve):
    server = serve(Broken(make_app()).rewrite_query("GET", USERS, lambda p: {"sortOrder": "descending", **p} if "sortBy" in p else p))
    rules = sort(server.url)
    assert rules["default order"].status is Status.ERROR
    assert "without sortOrder the order SHALL be ascending" in rules["default order"].reason
    assert rules["ascending"].status is Status.SUCCESS and rules["descending"].status is Status.SUCCESS


def test_a_server_sorting_with_case_a_name_without_case_fails(serve):
    def with_case(body):
        if "Resources" in body:
            body["Resources"] = sorted(body["Resources"], key=lambda r: r["userName"])
        return body

    server = serve(Broken(make_app()).rewrite_json("GET", USERS, with_case))
    rules = sort(server.url)
    assert rules["ascending"].status is Status.ERROR
    assert (
        "answered Beta-two, alpha-one, gamma-two instead of alpha-one, Beta-two, gamma-two (userName has caseExact false, so it sorts without case)"
        in rules["ascending"].reason
    )


@pytest.mark.parametrize(("app", "claim"), [(without_sort_support, "does not claim sort"), (without_filter_support, "does not claim filter")])
def test_skipped_without_sort_or_filter_support(serve, app, claim):
    server = serve(app())
    [result] = run(server.url, "sort_order")
    assert result.status is Status.SKIPPED
    assert claim in result.reason
    assert stored(server.url, "/Users") == []


@pytest.mark.parametrize("jobs", [1, 4])
def test_the_list_checks_share_the_three_resources_they_only_list(serve, jobs):
    """filter_operators, pagination_parameters and sort_order list the same three Users, made once a
    run and deleted at its end, and each verdict stays its own (RFC 7644 §3.4.2.2 to §3.4.2.4)."""
    app = make_app()
    created: list[str] = []

    def counting(environ, start_response):
        if environ["REQUEST_METHOD"] == "POST" and environ.get("PATH_INFO") == USERS:
            created.append(USERS)
        return app(environ, start_response)

    server = serve(counting)
    with make_client(server.url) as scim:
        only = {CheckId(name, "User") for name in ("filter_operators", "pagination_parameters", "sort_order")}
        results = list(iter_checks(scim, CheckConfig(jobs=jobs), only=only))
    assert len(created) == 3, created
    assert {r.title for r in results} == {"filter_operators", "pagination_parameters", "sort_order"}
    assert all(r.status in (Status.SUCCESS, Status.ACCEPTABLE) for r in results), [r.reason for r in results if r.status is not Status.SUCCESS]
    prefixes = {re.search(r"sw\+%22([\w-]+)%22", e.url)[1] for r in results for e in r.exchanges if "+sw+" in e.url}
    assert len(prefixes) == 1, f"both list the same resources by one prefix: {prefixes}"
    assert stored(server.url) == []
