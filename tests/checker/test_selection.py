"""Choosing what runs (SPEC.md §4.2 examples), raise_exceptions, and the WSGI engine."""

from __future__ import annotations

from collections import Counter

import pytest
from scim2_client.engines.wsgi import WSGISCIMClient

from scim_tui.checker import CheckConfig
from scim_tui.checker import SCIMTesterError
from scim_tui.checker import Status
from scim_tui.checker import check_server
from scim_tui.checker import iter_checks
from scim_tui.demo import make_app
from tests.support.catalogue import ALL_CHECKERS
from tests.support.catalogue import DISCOVERY_CHECKERS
from tests.support.catalogue import RESOURCE_CHECKERS
from tests.support.catalogue import assert_only_known_violations
from tests.support.servers import Broken
from tests.support.servers import make_client
from tests.support.servers import scim_error

DISCOVERY = DISCOVERY_CHECKERS - {"random_url"} | {"service_provider_config_document", "resource_type_documents", "schema_documents"}
CRUD = RESOURCE_CHECKERS


def ran(results) -> set[tuple[str | None, str]]:
    return {(r.resource_type, r.title) for r in results if r.status is not Status.SKIPPED}


def skipped(results) -> dict[tuple[str | None, str], str]:
    return {(r.resource_type, r.title): r.reason for r in results if r.status is Status.SKIPPED}


def test_discovery_only(client):
    results = check_server(client, include_tags={"discovery"})
    assert {title for _, title in ran(results)} == DISCOVERY
    others = skipped(results)
    assert {title for _, title in others} == ALL_CHECKERS - DISCOVERY
    assert all(reason == "Skipped: none of its tags matches include_tags (discovery)." for reason in others.values())


def test_crud_without_delete(client):
    results = check_server(client, include_tags={"crud"}, exclude_tags={"crud:delete"})
    assert ran(results) == {(rt, title) for rt in ("User", "Group") for title in CRUD - {"object_deletion"}}
    others = skipped(results)
    for resource_type in ("User", "Group"):
        assert others[(resource_type, "object_deletion")] == "Skipped: one of its tags matches exclude_tags (crud:delete)."
    assert "include_tags (crud)" in others[(None, "random_url")]
    assert all(r.status is Status.SUCCESS for r in results if r.status is not Status.SKIPPED)


def test_create_and_read_for_one_resource_type(client):
    results = check_server(client, include_tags={"crud:create", "crud:read"}, resource_types=["Group"])
    reads = {"object_query", "object_query_without_id", "object_query_with_attributes", "object_list_with_attributes", "search_with_attributes"}
    assert ran(results) == {("Group", title) for title in {"object_creation"} | reads}
    others = skipped(results)
    assert all("is not in resource_types (Group)" in others[("User", title)] for title in CRUD)
    for title in ("object_replacement", "object_deletion", "check_add_attribute", "resource_type_tests"):
        assert others[("Group", title)] == "Skipped: none of its tags matches include_tags (crud:create, crud:read)."


def test_raise_exceptions_raises_on_a_broken_server(serve):
    server = serve(Broken(make_app()).rewrite("DELETE", r"/v2/Users/[^/]+", lambda answer: (200, *answer[1:])))
    with make_client(server.url) as scim, pytest.raises(SCIMTesterError) as raised:
        check_server(scim, raise_exceptions=True, include_tags={"crud:delete"}, resource_types=["User"])
    assert "object_deletion" in raised.value.message and "answered 200 instead of 204" in raised.value.message
    assert raised.value.conf.raise_exceptions is True


def test_raise_exceptions_raises_when_a_check_stops_on_an_error(serve):
    server = serve(Broken(make_app()).answer("POST", "/v2/Users", 500, scim_error(500)))
    with make_client(server.url) as scim, pytest.raises(SCIMTesterError, match="object_creation: POST /v2/Users answered 500"):
        check_server(scim, raise_exceptions=True, include_tags={"crud:create"}, resource_types=["User"])


@pytest.mark.slow
def test_the_wsgi_engine_gives_the_same_statuses_as_httpx2(full_run):
    over_http = full_run
    in_process = check_server(WSGISCIMClient(make_app(), base_url="http://localhost/v2"))
    assert Counter((r.resource_type, r.title, r.status) for r in in_process) == Counter((r.resource_type, r.title, r.status) for r in over_http)
    assert_only_known_violations(in_process)


@pytest.mark.parametrize(
    "selection",
    [
        {"include_tags": {"misc", "discovery", "crud"}},
        {"include_tags": {"crud", "errors"}, "resource_types": ["User"]},
        {"exclude_tags": {"crud", "patch", "filtering", "pagination", "attributes", "bulk", "idp", "errors", "versioning", "references"}},
    ],
    ids=["some tags", "tags and a resource type", "all but some tags"],
)
def test_the_plan_counts_the_checks_the_selection_keeps(scim_server, selection):
    """The progress of a run chosen by tags ends at its plan, the checks that gave results:
    a check a filter leaves out is neither planned nor counted (the app shows no row for it),
    and a summary is neither."""
    plans: list[int] = []
    with make_client(scim_server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(**selection), on_plan=plans.append))
    counted = {r.check_id for r in results if not r.deselected and not r.check_id.is_summary}
    assert any(r.deselected for r in results)
    assert plans[-1] == len(counted) > 0
