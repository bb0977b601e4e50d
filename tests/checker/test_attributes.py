"""The attribute-filtering checkers (SPEC.md §4.5) against scim2-server and servers that mishandle the parameters."""

from __future__ import annotations

import json
from typing import Annotated
from urllib.parse import parse_qsl
from urllib.parse import urlsplit

import pytest
from scim2_client.engines.httpx2 import SyncSCIMClient
from scim2_models import URN
from scim2_models import ListResponse
from scim2_models import Mutability
from scim2_models import Required
from scim2_models import Resource
from scim2_models import Returned

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckContext
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.checker.checks.attributes import filtering_candidates
from scim_tui.checker.checks.attributes import object_query_with_attributes
from scim_tui.demo import make_app
from tests.support.bystanders import Bystanders
from tests.support.servers import Broken
from tests.support.servers import make_client
from tests.support.servers import scim_error
from tests.support.unlike import Capped

USER = r"/v2/Users/[^/]+"
LABELS = {
    "object_query_with_attributes": "GET /Resource/{id}: ",
    "object_list_with_attributes": "GET /Resource: ",
    "search_with_attributes": "POST /.search: ",
}
ENDPOINTS = {
    "object_query_with_attributes": ("GET", USER),
    "object_list_with_attributes": ("GET", "/v2/Users"),
    "search_with_attributes": ("POST", "/v2/.search"),
}


def run(url: str, checker: str, resource_type: str = "User", conf: CheckConfig | None = None, **client_options):
    with make_client(url) as scim:
        if client_options:
            scim = SyncSCIMClient(scim.client, **client_options)
        return list(iter_checks(scim, conf or CheckConfig(), only={CheckId(checker, resource_type)}))


class Sealed(Resource):
    """No attribute fits: each is read-only, required, or not returned by default."""

    __schema__ = URN("urn:scim-tui:params:scim:schemas:test:2.0:Sealed")
    external_id: Annotated[str | None, Mutability.read_only] = None
    label: Annotated[str | None, Required.true] = None
    secret: Annotated[str | None, Returned.never] = None


class Single(Resource):
    """One attribute fits."""

    __schema__ = URN("urn:scim-tui:params:scim:schemas:test:2.0:Single")
    external_id: Annotated[str | None, Mutability.read_only] = None
    nick: Annotated[str | None, Mutability.read_write] = None
    code: Annotated[str | None, Mutability.read_only] = None


def test_candidates_follow_the_rules_of_the_spec(client):
    list(iter_checks(client, CheckConfig(include_tags={"discovery"})))
    assert filtering_candidates(client.get_resource_model("User")) == ("externalId", "name")
    assert filtering_candidates(client.get_resource_model("Group")) == ("externalId", "members")
    assert filtering_candidates(Sealed) == (None, None)
    assert filtering_candidates(Single) == ("nick", None)


def test_a_model_without_candidates_is_skipped_naming_it(client):
    [result] = object_query_with_attributes(CheckContext(client), Sealed)
    assert result.status is Status.SKIPPED
    assert result.reason.startswith("GET /Resource/{id}: ") and "Sealed" in result.reason


@pytest.mark.parametrize("checker", list(LABELS))
@pytest.mark.parametrize("resource_type", ["User", "Group"])
def test_filtering_is_honoured_by_scim2_server(serve, checker, resource_type):
    server = serve(make_app())
    results = run(server.url, checker, resource_type)
    assert [r.status for r in results] == [Status.SUCCESS, Status.SUCCESS]
    assert all(r.reason.startswith(LABELS[checker]) for r in results)
    assert "(attributes=externalId)" in results[0].reason and "(excludedAttributes=" in results[1].reason
    expected_type = Resource if checker == "object_query_with_attributes" else ListResponse
    assert all(isinstance(r.data, expected_type) for r in results)
    assert all(r.leftovers == [] for r in results)


@pytest.mark.parametrize(("checker", "asked"), [("object_query_with_attributes", Status.SUCCESS), ("object_list_with_attributes", Status.ERROR)])
def test_ignored_excluded_attributes_is_an_error(serve, checker, asked):
    method, path = ENDPOINTS[checker]
    server = serve(Broken(make_app()).reroute(method, path, QUERY_STRING=""))
    included, excluded = run(server.url, checker)
    assert included.status is asked  # the whole resource holds the attribute asked for: only the list's rule sees more (attribute_projection the others)
    assert excluded.status is Status.ERROR
    assert excluded.reason == f"{LABELS[checker]}excluded attribute 'name' is still present in the User[EnterpriseUser] response."


@pytest.mark.parametrize("resource_type", ["User", "Group"])
def test_attributes_ignored_on_a_list_is_an_error(serve, resource_type):
    """RFC 7644 §3.9: with attributes, "the default list of attributes SHALL be overridden"."""
    ignored = Broken(make_app()).rewrite_query("GET", f"/v2/{resource_type}s", lambda query: {k: v for k, v in query.items() if k != "attributes"})
    included, excluded = run(serve(ignored).url, "object_list_with_attributes", resource_type)
    assert included.status is Status.ERROR
    assert included.reason.startswith(
        f"GET /Resource: the {'User[EnterpriseUser]' if resource_type == 'User' else 'Group'} answered to attributes=externalId also holds "
    )
    assert "meta" in included.reason and included.reason.endswith("though the default list of attributes SHALL be overridden (RFC 7644 §3.9).")
    assert excluded.status is Status.SUCCESS


@pytest.mark.parametrize("checker", list(LABELS))
def test_a_requested_attribute_left_out_is_an_error(serve, checker):
    def drop_external_id(body):
        for resource in body.get("Resources", [body]):
            resource.pop("externalId", None)
        return body

    method, path = ENDPOINTS[checker]
    server = serve(Broken(make_app()).rewrite_json(method, path, drop_external_id))
    included, excluded = run(server.url, checker)
    assert included.status is Status.ERROR
    assert included.reason == f"{LABELS[checker]}requested attribute 'externalId' is missing from the User[EnterpriseUser] response."
    assert excluded.status is Status.SUCCESS


@pytest.mark.parametrize("checker", ["object_list_with_attributes", "search_with_attributes"])
def test_a_list_without_the_created_resource_is_an_error(serve, checker):
    method, path = ENDPOINTS[checker]
    server = serve(Broken(make_app()).rewrite_json(method, path, lambda body: body | {"totalResults": 0, "Resources": []}))
    results = run(server.url, checker)
    assert [r.status for r in results] == [Status.ERROR, Status.ERROR]
    assert all(r.reason.startswith(f"{LABELS[checker]}could not find User[EnterpriseUser] with id ") for r in results)
    assert all(isinstance(r.data, ListResponse) for r in results)


def test_an_answer_that_is_neither_a_resource_nor_a_list_is_an_error(serve):
    """A client configured not to raise SCIM errors hands the Error object over."""
    server = serve(Broken(make_app()).answer("GET", USER, 404, scim_error(404)))
    results = run(server.url, "object_query_with_attributes", raise_scim_errors=False)
    assert [r.status for r in results] == [Status.ERROR, Status.ERROR]
    assert all(r.reason.startswith("GET /Resource/{id}: unexpected response type Error.") for r in results)
    # No GET of a user's own URL shows it, so none is proven the run's own: none is deleted, each is named.
    assert [len(r.leftovers) for r in results] == [0, 2]
    assert all("(may remain: nothing was found at the id" in left for left in results[-1].leftovers)


def test_the_expected_status_codes_are_200_unless_configured(serve):
    server = serve(Broken(make_app()).rewrite("GET", USER, lambda answer: (203, *answer[1:])))
    refused = run(server.url, "object_query_with_attributes")
    assert [r.status for r in refused] == [Status.ERROR, Status.ERROR]
    assert all(r.reason.startswith("GET /Resource/{id}: GET /v2/Users/") and "answered 203" in r.reason for r in refused)
    accepting = CheckConfig(expected_status_codes=[200, 203])
    assert [r.status for r in run(server.url, "object_query_with_attributes", conf=accepting)] == [Status.SUCCESS, Status.SUCCESS]


@pytest.mark.parametrize("status", [404, 405, 501])
@pytest.mark.parametrize("resource_type", ["User", "Group"])
def test_a_server_that_does_not_search_from_its_root_is_skipped(serve, status, resource_type):
    """RFC 7644 §3.4.2.1: queries "MAY be performed against ... a SCIM server root"; §3.4.3: clients
    MAY search with POST .search. A server without it answers "endpoint does not exist" (404), has
    no POST there (405) or "does not support the request operation" (501): not offered, not failed."""
    server = serve(Broken(make_app()).answer("POST", r"/v2/\.search", status, scim_error(status)))
    [result] = run(server.url, "search_with_attributes", resource_type)
    assert result.status is Status.SKIPPED
    assert result.reason.startswith(f"POST /.search: POST /v2/.search answered {status}: the server does not offer POST .search there")
    assert "RFC 7644 §3.4.3" in result.reason
    assert [e.status_code for e in result.exchanges if e.url.endswith("/.search")] == [status], "one search is enough to tell"
    assert result.leftovers == []


@pytest.mark.parametrize("status", [400, 500])
def test_a_search_from_the_root_failing_otherwise_is_an_error(serve, status):
    server = serve(Broken(make_app()).answer("POST", r"/v2/\.search", status, scim_error(status)))
    results = run(server.url, "search_with_attributes")
    assert [r.status for r in results] == [Status.ERROR, Status.ERROR]
    assert all(r.reason.startswith(f"POST /.search: POST /v2/.search answered {status}") for r in results), [r.reason for r in results]


@pytest.mark.parametrize("checker", ["object_list_with_attributes", "search_with_attributes"])
@pytest.mark.parametrize("resource_type", ["User", "Group"])
def test_a_list_in_pages_smaller_than_asked_is_narrowed_to_the_resource(serve, checker, resource_type):
    """A server holding many resources answers two a page whatever count asks (RFC 7644 §3.4.2.4
    lets it): the run's other checks create and delete resources while pages are read, which shifts
    them, so the resource is asked for by a filter on its name, and found in one page."""
    server = serve(Capped(make_app(), cap=2))
    Bystanders.seed(server.url, users=12, groups=12)
    results = run(server.url, checker, resource_type)
    assert [r.status for r in results] == [Status.SUCCESS, Status.SUCCESS], [r.reason for r in results]
    name = "userName" if resource_type == "User" else "displayName"
    method, path = ENDPOINTS[checker][0], ENDPOINTS[checker][1].replace("Users", f"{resource_type}s")
    for result in results:
        judged = [e for e in result.exchanges if e.method == method and urlsplit(e.url).path == path]
        sent = [json.loads(e.request_body) if method == "POST" else dict(parse_qsl(urlsplit(e.url).query)) for e in judged]
        assert len(judged) == 1 and sent[0]["filter"].startswith(f'{name} eq "scim-tui-'), sent
