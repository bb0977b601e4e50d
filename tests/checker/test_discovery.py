"""The discovery and misc checkers against a real scim2-server, and against servers broken on purpose."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.checker.pacing import Pacing
from scim_tui.demo import make_app
from tests.support.catalogue import BEYOND_SPEC_SERVER_CHECKERS
from tests.support.catalogue import DISCOVERY_CHECKERS
from tests.support.catalogue import NEWER_SERVER_CHECKERS
from tests.support.servers import Broken
from tests.support.servers import make_client
from tests.support.servers import scim_error
from tests.support.unlike import full_path_endpoints
from tests.support.unlike import rfc_schema_name


def run(url: str, checker: str, resource_type: str | None = None):
    with make_client(url) as scim:
        # a 503 is waited out as a busy server's: a short back-off, the same verdict
        return list(iter_checks(scim, CheckConfig(pacing=Pacing(backoff=0.01)), only={CheckId(checker, resource_type)}))


def test_every_discovery_checker_succeeds_on_scim2_server(client):
    results = [r for r in iter_checks(client, CheckConfig(include_tags={"discovery", "misc"})) if r.title in DISCOVERY_CHECKERS]
    assert {r.title for r in results} == DISCOVERY_CHECKERS
    assert [r for r in results if r.status is not Status.SUCCESS] == []
    for result in results:
        assert result.reason and result.description and result.section and result.tags
        assert result.exchanges, f"{result.title} recorded no exchange"


def test_each_schema_is_read_by_id_once_and_each_check_judging_it_shows_that_read(serve):
    """resource_types_schema_validation and access_schema_by_id both judge GET /Schemas/{id}: it is
    sent once a run, and each result shows its exchange (RFC 7644 §4)."""
    served: list[str] = []
    app = make_app()

    def counting(environ, start_response):
        served.append(environ["REQUEST_METHOD"] + " " + environ.get("PATH_INFO", ""))
        return app(environ, start_response)

    server = serve(counting)
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(include_tags={"schemas", "resource-types"}, jobs=1)))
    by_id = [request for request in served if request.startswith("GET /v2/Schemas/urn:")]
    assert len(by_id) == len(set(by_id)) == 3, by_id
    for title in ("resource_types_schema_validation", "access_schema_by_id"):
        shown = {urlsplit(e.url).path for r in results if r.title == title for e in r.exchanges}
        assert {request.removeprefix("GET ") for request in by_id} <= shown, title


@pytest.mark.parametrize(
    ("checker", "method", "path", "expected"),
    [
        ("service_provider_config_endpoint_methods", "PUT", "/v2/ServiceProviderConfig", "PUT /v2/ServiceProviderConfig answered 200"),
        ("resource_types_endpoint_methods", "DELETE", "/v2/ResourceTypes", "DELETE /v2/ResourceTypes answered 200"),
        ("schemas_endpoint_methods", "POST", "/v2/Schemas", "POST /v2/Schemas answered 200"),
    ],
)
def test_a_write_method_that_is_not_refused_is_an_error(serve, checker, method, path, expected):
    server = serve(Broken(make_app()).answer(method, path, 200, {"schemas": []}))
    results = run(server.url, checker)
    failed = [r for r in results if r.status is Status.ERROR]
    assert len(results) == 4 and len(failed) == 1
    assert expected in failed[0].reason
    assert failed[0].exchanges[0].method == method


def test_an_invalid_service_provider_config_is_an_error(serve):
    server = serve(
        Broken(make_app()).answer(
            "GET", "/v2/ServiceProviderConfig", 200, {"schemas": ["urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"], "patch": "yes"}
        )
    )
    [result] = run(server.url, "service_provider_config_endpoint")
    assert result.status is Status.ERROR
    assert "patch" in result.reason.lower()


def test_an_unreachable_service_provider_config_is_an_error(serve):
    server = serve(Broken(make_app()).answer("GET", "/v2/ServiceProviderConfig", 500, scim_error(500)))
    [result] = run(server.url, "service_provider_config_endpoint")
    assert result.status is Status.ERROR
    assert "500" in result.reason


def test_an_empty_resource_type_list_is_an_error(serve):
    empty = {"schemas": ["urn:ietf:params:scim:api:messages:2.0:ListResponse"], "totalResults": 0, "Resources": []}
    server = serve(Broken(make_app()).answer("GET", "/v2/ResourceTypes", 200, empty))
    [result] = run(server.url, "query_all_resource_types")
    assert result.status is Status.ERROR
    assert "empty list" in result.reason


def test_a_resource_type_answered_without_meta_is_an_error(serve):
    def drop_meta(body):
        body.pop("meta", None)
        return body

    server = serve(Broken(make_app()).rewrite_json("GET", "/v2/ResourceTypes/User", drop_meta))
    [result] = run(server.url, "query_resource_type_by_id", "User")
    assert result.status is Status.ERROR
    assert "without its meta" in result.reason


def test_another_resource_type_answered_by_id_is_an_error(serve):
    def swap(body):
        body["endpoint"] = "/Elsewhere"
        return body

    server = serve(Broken(make_app()).rewrite_json("GET", "/v2/ResourceTypes/Group", swap))
    [result] = run(server.url, "query_resource_type_by_id", "Group")
    assert result.status is Status.ERROR
    assert "answered another resource type than the list holds: endpoint /Elsewhere where the list has /Groups." in result.reason


@pytest.mark.parametrize(
    ("checker", "path"),
    [("access_invalid_resource_type", "/v2/ResourceTypes/.+"), ("access_invalid_schema", "/v2/Schemas/scim-tui-.+"), ("random_url", "/v2/scim-tui-.+")],
)
def test_unknown_ids_must_answer_404(serve, checker, path):
    server = serve(Broken(make_app()).answer("GET", path, 200, {"schemas": []}))
    [result] = run(server.url, checker)
    assert result.status is Status.ERROR
    assert "answered 200 instead of 404" in result.reason


@pytest.mark.parametrize(("checker", "path"), [("access_invalid_resource_type", "/v2/ResourceTypes/.+"), ("random_url", "/v2/scim-tui-.+")])
def test_a_404_without_a_scim_error_is_an_error(serve, checker, path):
    server = serve(Broken(make_app()).answer("GET", path, 404, b"<html>Not Found</html>", headers=[("Content-Type", "text/html")]))
    [result] = run(server.url, checker)
    assert result.status is Status.ERROR
    assert "not a JSON object" in result.reason


def test_a_referenced_schema_that_is_missing_is_an_error(serve):
    server = serve(Broken(make_app()).answer("GET", "/v2/Schemas/urn:ietf:params:scim:schemas:extension:enterprise:2.0:User", 404, scim_error(404)))
    results = run(server.url, "resource_types_schema_validation")
    by_type = {r.reason.split(":")[0]: r for r in results}
    assert by_type["Resource type User"].status is Status.ERROR
    assert "enterprise:2.0:User" in by_type["Resource type User"].reason
    assert by_type["Resource type Group"].status is Status.SUCCESS


def test_an_empty_schema_list_is_an_error(serve):
    empty = {"schemas": ["urn:ietf:params:scim:api:messages:2.0:ListResponse"], "totalResults": 0, "Resources": []}
    server = serve(Broken(make_app()).answer("GET", "/v2/Schemas", 200, empty))
    [result] = run(server.url, "query_all_schemas")
    assert result.status is Status.ERROR


def test_an_unreachable_schema_list_is_an_error(serve):
    server = serve(Broken(make_app()).answer("GET", "/v2/Schemas", 503, b"down", headers=[("Content-Type", "text/plain")]))
    [result] = run(server.url, "query_all_schemas")
    assert result.status is Status.ERROR
    assert "503" in result.reason


def test_a_schema_by_id_without_attributes_is_an_error(serve):
    def strip(body):
        body["attributes"] = []
        return body

    server = serve(Broken(make_app()).rewrite_json("GET", "/v2/Schemas/urn:ietf:params:scim:schemas:core:2.0:Group", strip))
    results = run(server.url, "access_schema_by_id")
    failed = [r for r in results if r.status is Status.ERROR]
    assert len(failed) == 1 and "core:2.0:Group" in failed[0].reason
    assert "0 attribute definition(s)" in failed[0].reason


def test_a_malformed_core_schema_is_an_error(serve):
    def add_bad_core_schema(body):
        body["Resources"].append(
            {
                "schemas": ["urn:ietf:params:scim:schemas:core:2.0:Schema"],
                "id": "urn:ietf:params:scim:schemas:core:2.0:ResourceType",
                "name": "Wrong",
                "attributes": [],
            }
        )
        body["totalResults"] += 1
        return body

    server = serve(Broken(make_app()).rewrite_json("GET", "/v2/Schemas", add_bad_core_schema))
    [result] = run(server.url, "core_schemas_validation")
    assert result.status is Status.ERROR
    assert "urn:ietf:params:scim:schemas:core:2.0:ResourceType (Wrong) is published without any attribute definition" in result.reason


def test_a_core_schema_named_as_the_rfc_names_it_is_right(serve):
    """RFC 7643 §8.7.2 names the ServiceProviderConfig schema "Service Provider Configuration"."""
    server = serve(rfc_schema_name(make_app()))
    [result] = run(server.url, "core_schemas_validation")
    assert result.status is Status.SUCCESS, result.reason
    assert result.reason == "Not published, which RFC 7644 allows: ResourceType, Schema; the published core schemas are well formed."


def test_a_server_that_is_down_gives_error_results_not_exceptions(serve):
    server = serve(make_app())
    url = server.url
    server.stop()
    with make_client(url) as scim:
        results = list(iter_checks(scim))

    server_checks = (DISCOVERY_CHECKERS | BEYOND_SPEC_SERVER_CHECKERS | NEWER_SERVER_CHECKERS) - {"query_resource_type_by_id"}
    results = [r for r in results if not r.deselected]
    discovery = [r for r in results if r.title in server_checks]
    assert discovery and all(r.status is Status.ERROR for r in discovery)
    assert all(r.exchanges and r.exchanges[0].error for r in discovery)
    # The identity providers' server-wide steps send what the provider sends, as it would: they fail, or are skipped.
    replayed = [r for r in results if "idp" in r.tags and r.resource_type is None and not r.title.endswith("_readiness")]
    assert all(r.status in (Status.ERROR, Status.SKIPPED) for r in replayed)
    resource_checks = [r for r in results if r.title not in server_checks and r not in replayed]
    assert resource_checks and all(r.status is Status.SKIPPED for r in resource_checks)
    assert "could not be described" in resource_checks[0].reason


def test_a_resource_type_is_compared_with_the_list_as_served(serve):
    """Both documents give the endpoint as the whole path (/v2/Users), alike: that is one finding
    of resource_type_documents (RFC 7643 §6), not a difference between the list and the by-id answer."""
    server = serve(full_path_endpoints(make_app()))
    for name in ("User", "Group"):
        [result] = run(server.url, "query_resource_type_by_id", name)
        assert result.status is Status.SUCCESS, result.reason
        assert [urlsplit(e.url).path for e in result.exchanges] == ["/v2/ResourceTypes", f"/v2/ResourceTypes/{name}"]
