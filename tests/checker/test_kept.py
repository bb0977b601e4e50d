"""A server keeping only part of what a creation sends (tests/support/unlike.ExternalIdIgnored: a
store without an externalId). The checks that write an attribute and read it back do not judge
the server on the one it keeps none of: they say so, and judge the others."""

from __future__ import annotations

import json

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.demo import make_app
from tests.support.servers import Broken
from tests.support.servers import make_client
from tests.support.servers import stored
from tests.support.unlike import ExternalIdIgnored

WRITING = (
    "object_query_with_attributes",
    "object_list_with_attributes",
    "search_with_attributes",
    "object_replacement",
    "check_add_attribute",
    "check_replace_attribute",
    "check_remove_attribute",
    "patch_without_path",
    "patch_operations_in_order",
)
NOT_KEPT = "the server keeps no externalId: the creation of this"


@pytest.mark.parametrize("jobs", [1, 4])
def test_an_attribute_the_server_keeps_none_of_is_not_judged(serve, jobs):
    """Once, a store without an externalId got 20 ERRORs: attributes=externalId "missing", a PUT
    and PATCH add, replace, without a path and in order "holding null instead of" the value sent."""
    server = serve(ExternalIdIgnored(make_app()))
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(jobs=jobs), only={CheckId(name, kind) for name in WRITING for kind in ("User", "Group")}))
    assert not [(r.resource_type, r.title, r.reason) for r in results if r.status.failed]
    told = [r for r in results if NOT_KEPT in r.reason]
    assert {r.title for r in told} >= {"object_query_with_attributes", "check_add_attribute", "check_replace_attribute", "check_remove_attribute"}
    assert all(r.status is Status.SKIPPED for r in told)
    [replaced] = [r for r in results if r.title == "object_replacement" and r.resource_type == "User"]
    assert replaced.status is Status.SUCCESS and "(but externalId, which its creation answered without" in replaced.reason
    users = [r for r in results if r.resource_type == "User"]
    without_path = [json.loads(e.request_body) for r in users if r.title == "patch_without_path" for e in r.exchanges if e.method == "PATCH"]
    assert without_path and all("externalId" not in op["value"] for body in without_path for op in body["Operations"])
    in_order = [r for r in users if r.title == "patch_operations_in_order"]
    assert [r.status for r in in_order] == [Status.SUCCESS, Status.SUCCESS] and "externalId" not in in_order[0].reason
    assert stored(server.url) == []


def test_an_attribute_a_creation_answered_without_but_the_server_keeps_is_judged(serve):
    """A creation answered without the externalId it stored (a GET shows it): the server keeps it,
    and the checks judge it as usual."""
    broken = Broken(make_app())
    broken.rewrite_json("POST", "/v2/Users", lambda body: {key: value for key, value in body.items() if key != "externalId"})
    server = serve(broken)
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(), only={CheckId(name, "User") for name in ("check_replace_attribute", "object_query_with_attributes")}))
    assert not [r for r in results if NOT_KEPT in r.reason]
    judged = [r for r in results if "externalId" in r.reason]
    assert judged and all(r.status is Status.SUCCESS for r in judged), [(r.title, r.reason) for r in judged]
    assert stored(server.url) == []
