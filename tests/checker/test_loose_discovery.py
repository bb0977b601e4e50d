"""Discovery served as real servers serve it: loose lists, endpoints as full URLs, schemas only by id.

Each break of the RFCs is reported once, by the discovery check that reads that document, and
the run goes on with what it understands: the User and Group checks run as on a sound server,
and nothing is left on it.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

import pytest
from scim2_models import Attribute
from scim2_models import Mutability
from scim2_models import ResourceType
from scim2_models import Schema
from scim2_models import SchemaExtension
from scim2_server.utils import load_default_schemas

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.demo import make_app
from tests.support.command import scim_tui_here
from tests.support.servers import Broken
from tests.support.servers import make_client
from tests.support.servers import stored
from tests.support.unlike import BehindAProxy

RESOURCE_TYPES = "/v2/ResourceTypes"
SCHEMAS = "/v2/Schemas"
ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"
USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User"
CREATIONS = {("object_creation", "User"), ("object_creation", "Group")}


def run(url: str, config: CheckConfig | None = None) -> list[CheckResult]:
    with make_client(url) as scim:
        return list(iter_checks(scim, config or CheckConfig(include_tags={"discovery", "crud:create"})))


def failed(results: list[CheckResult]) -> dict[str, str]:
    """The failed results by check (and resource type), with their reasons."""
    return {f"{r.title}/{r.resource_type}" if r.resource_type else r.title: r.reason for r in results if r.status.failed}


def passed(results: list[CheckResult]) -> set[tuple[str, str | None]]:
    return {(r.title, r.resource_type) for r in results if r.status is Status.SUCCESS}


def without_total(body: dict) -> dict:
    body.pop("totalResults")
    return body


def bare(body: dict) -> list:
    return body["Resources"]


def only_user(body: dict) -> dict:
    return next(item for item in body["Resources"] if item["id"] == "User")


def test_scim2_server_passes_every_discovery_check_but_its_configuration(serve):
    """The baseline the other tests compare with: one known break, both creations pass."""
    results = run(serve(make_app()).url)
    assert set(failed(results)) == {"service_provider_config_document"}
    assert passed(results) >= CREATIONS


@pytest.mark.parametrize(
    ("path", "change", "problem"),
    [
        (RESOURCE_TYPES, without_total, 'it has no "totalResults", which is REQUIRED'),
        (RESOURCE_TYPES, bare, "it is a bare JSON array, not a ListResponse"),
        (SCHEMAS, without_total, 'it has no "totalResults", which is REQUIRED'),
        (SCHEMAS, bare, "it is a bare JSON array, not a ListResponse"),
    ],
    ids=["resource types without totalResults", "resource types as an array", "schemas without totalResults", "schemas as an array"],
)
def test_a_list_in_a_loose_form_is_one_error_and_the_run_goes_on(serve, path, change, problem):
    server = serve(Broken(make_app()).rewrite_json("GET", path, change))
    results = run(server.url)
    checker = "query_all_resource_types" if path == RESOURCE_TYPES else "query_all_schemas"
    assert set(failed(results)) == {"service_provider_config_document", checker}
    assert problem in failed(results)[checker]
    assert passed(results) >= CREATIONS
    assert stored(server.url) == []


def test_a_single_resource_type_instead_of_a_list_is_read(serve):
    server = serve(Broken(make_app()).rewrite_json("GET", RESOURCE_TYPES, only_user))
    results = run(server.url)
    assert "it is a single object, not a ListResponse" in failed(results)["query_all_resource_types"]
    assert ("object_creation", "User") in passed(results)
    groups = [r for r in results if r.resource_type == "Group"]  # the identity providers' Group steps, left out by the tags
    assert groups and all(r.deselected for r in groups), "the server publishes no Group: no Group check ran"


@pytest.mark.parametrize("endpoint", ["/v2/Users", "{base}/Users"], ids=["full path", "absolute URL"])
def test_an_endpoint_not_relative_to_the_base_url_is_an_error_and_still_used(serve, endpoint):
    def spelled(body: dict) -> dict:
        for item in body["Resources"]:
            if item["id"] == "User":
                item["endpoint"] = endpoint.format(base=server.url)
        return body

    server = serve(Broken(make_app()).rewrite_json("GET", RESOURCE_TYPES, spelled))
    results = run(server.url)
    errors = failed(results)
    assert set(errors) == {"service_provider_config_document", "resource_type_documents"}
    assert f"endpoint {endpoint.format(base=server.url)} is not relative to the base URL" in errors["resource_type_documents"]
    assert "the run uses /Users" in errors["resource_type_documents"]
    assert passed(results) >= CREATIONS
    assert stored(server.url) == []


def test_a_schema_missing_from_the_list_is_read_by_its_id(serve):
    def lacking_user(body: dict) -> dict:
        body["Resources"] = [item for item in body["Resources"] if item["id"] != USER_SCHEMA]
        body["totalResults"] = len(body["Resources"])
        return body

    server = serve(Broken(make_app()).rewrite_json("GET", SCHEMAS, lacking_user))
    results = run(server.url)
    errors = failed(results)
    assert set(errors) == {"service_provider_config_document", "query_all_schemas"}
    assert USER_SCHEMA in errors["query_all_schemas"]
    assert passed(results) >= CREATIONS
    creation = next(r for r in results if (r.title, r.resource_type) == ("object_creation", "User"))
    assert creation.status is Status.SUCCESS


def test_an_extension_served_nowhere_leaves_the_core_schema_to_check(serve):
    def lacking_enterprise(body: dict) -> dict:
        body["Resources"] = [item for item in body["Resources"] if item["id"] != ENTERPRISE]
        body["totalResults"] = len(body["Resources"])
        return body

    broken = Broken(make_app()).rewrite_json("GET", SCHEMAS, lacking_enterprise).answer("GET", f"{SCHEMAS}/{ENTERPRISE}", 404, b"")
    server = serve(broken)
    results = run(server.url)
    assert ENTERPRISE in failed(results)["query_all_schemas"]
    creation = next(r for r in results if (r.title, r.resource_type) == ("object_creation", "User"))
    assert creation.status is Status.SUCCESS, creation.reason
    [post] = [e for e in creation.exchanges if e.method == "POST"]
    assert ENTERPRISE not in post.request_body
    assert stored(server.url) == []


def test_a_required_extension_is_filled_in_every_resource_created(serve):
    def enterprise_required(body: dict) -> dict:
        for item in body["Resources"]:
            for extension in item.get("schemaExtensions", []):
                extension["required"] = True
        return body

    server = serve(Broken(make_app()).rewrite_json("GET", RESOURCE_TYPES, enterprise_required))
    results = run(server.url, CheckConfig(include_tags={"crud"}, resource_types=["User"]))
    assert not failed(results), failed(results)
    posts = [json.loads(e.request_body) for r in results for e in r.exchanges if e.method == "POST" and urlsplit(e.url).path == "/v2/Users"]
    assert posts and all(ENTERPRISE in post["schemas"] and ENTERPRISE in post for post in posts)
    assert stored(server.url) == []


def test_a_location_under_another_prefix_that_serves_the_document_is_right(serve):
    """scim2-server served at its root answers locations under /v2, which work."""
    server = serve(make_app())
    results = run(server.url.removesuffix("/v2"), CheckConfig(include_tags={"discovery:strict"}))
    assert set(failed(results)) == {"service_provider_config_document"}
    assert "meta.location" not in failed(results)["service_provider_config_document"]
    user = next(r for r in results if r.title == "resource_type_documents" and "ResourceType User " in r.reason)
    assert user.status is Status.SUCCESS
    assert user.reason.endswith("Meta.location names /v2/ResourceTypes/User, another URL that serves the same resource.")


UNJUDGED = (
    "is on another origin, under another path than /v2/ResourceTypes/User: not followed, so that no credentials go there, "
    "and not judged (a reverse proxy may map its public URL to another path, /api/v2/Users to /v2/Users)."
)


@pytest.mark.parametrize(
    ("location", "status", "words"),
    [
        ("/v2/ResourceTypes/Group", Status.ERROR, "points to /v2/ResourceTypes/Group instead of /v2/ResourceTypes/User, which serves another resource"),
        ("/v2/Nowhere/User", Status.ERROR, "points to /v2/Nowhere/User instead of /v2/ResourceTypes/User, which does not serve it"),
        ("https://elsewhere.example/ResourceTypes/User", Status.SUCCESS, f"Meta.location https://elsewhere.example/ResourceTypes/User {UNJUDGED}"),
        ("http://elsewhere.example/v2/ResourceTypes/Group", Status.SUCCESS, f"Meta.location http://elsewhere.example/v2/ResourceTypes/Group {UNJUDGED}"),
    ],
    ids=["another document", "nothing there", "another origin and path", "another origin, another document"],
)
def test_a_location_is_judged_by_what_a_get_on_its_origin_answers(serve, location, status, words):
    """A location on the base URL's origin that does not serve the document is an ERROR; one under
    another path on another origin is not judged (no GET from here can tell what it serves, and a
    reverse proxy may map its public /api/v2 to /v2): the reason says why, and nothing is sent there."""

    def relocated(body: dict) -> dict:
        next(item for item in body["Resources"] if item["id"] == "User")["meta"]["location"] = location
        return body

    server = serve(Broken(make_app()).rewrite_json("GET", RESOURCE_TYPES, relocated))
    results = run(server.url, CheckConfig(include_tags={"discovery:strict"}))
    user = next(r for r in results if r.title == "resource_type_documents" and "ResourceType User " in r.reason)
    assert user.status is status, user.reason
    assert words in user.reason
    assert not any("elsewhere.example" in e.url for r in results for e in r.exchanges)


@pytest.mark.parametrize("public", ["https://scim.public.invalid/api/v2", "https://scim.public.invalid/v2"], ids=["another path", "the same path"])
def test_locations_behind_a_reverse_proxy_are_never_the_servers_fault(serve, public):
    """Every location names the proxy's public URL (BehindAProxy): on another origin, under the
    same path it passes as the server's own, under another one it is not judged (no GET from here
    can tell what it serves), and nothing is sent there. The documents and the meta of created
    resources fail only as on scim2-server."""
    server = serve(BehindAProxy(make_app(), public))
    results = run(server.url, CheckConfig(include_tags={"discovery:strict", "meta"}))
    assert set(failed(results)) == {"service_provider_config_document"}  # no authenticationSchemes, as scim2-server
    assert "meta.location" not in failed(results)["service_provider_config_document"]
    unjudged = [r for r in results if "is on another origin, under another path than /v2/" in (r.reason or "")]
    documents = {(r.title, r.resource_type) for r in unjudged}
    assert documents == (
        {("resource_type_documents", None), ("schema_documents", None), ("resource_metadata", "User"), ("resource_metadata", "Group")}
        if public.endswith("api/v2")
        else set()
    )
    assert all(r.status is Status.SUCCESS for r in unjudged)
    assert not any("public.invalid" in e.url for r in results for e in r.exchanges)
    assert stored(server.url) == []


def documents_of(server_url: str) -> dict[str, Any]:
    with make_client(server_url) as scim:
        http = scim.client
        return {
            kind: http.get(path).json()
            for kind, path in (("service_provider_config", "/ServiceProviderConfig"), ("resource_types", "/ResourceTypes"), ("schemas", "/Schemas"))
        }


def test_documents_supplied_stand_in_for_a_server_that_serves_none(serve):
    documents = documents_of(serve(make_app()).url)
    server = serve(Broken(make_app()).answer("GET", r"/v2/(ServiceProviderConfig|ResourceTypes|Schemas)(/.*)?", 404, b""))
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(include_tags={"crud"}, documents=documents)))
    assert not failed(results), failed(results)
    assert {("object_creation", "User"), ("object_deletion", "Group")} <= passed(results)
    assert stored(server.url) == []


def test_scim_tui_check_reads_discovery_files(serve, tmp_path):
    documents = documents_of(serve(make_app()).url)
    server = serve(Broken(make_app()).answer("GET", r"/v2/(ResourceTypes|Schemas)(/.*)?", 404, b""))
    files = []
    for kind, flag in (("resource_types", "--resource-types"), ("schemas", "--schemas")):
        path = tmp_path / f"{kind}.json"
        path.write_text(json.dumps(documents[kind]))
        files += [flag, str(path)]
    output = tmp_path / "report.json"
    process = scim_tui_here("check", "--url", server.url, "--include-tags", "crud:create", *files, "--format", "json", "--output", str(output))
    report = json.loads(output.read_text())
    creations = {(r["title"], r["resource_type"]): r["status"] for r in report["results"] if r["title"] == "object_creation"}
    assert creations == {("object_creation", "User"): "SUCCESS", ("object_creation", "Group"): "SUCCESS"}, process.stderr
    assert process.returncode == 0


def test_a_discovery_file_that_holds_no_document_is_one_line_naming_it(serve, tmp_path):
    server = serve(make_app())
    path = tmp_path / "schemas.json"
    path.write_text("[1, 2")
    process = scim_tui_here("check", "--url", server.url, "--schemas", str(path))
    assert process.returncode == 2, process.stderr
    [line] = process.stderr.strip().splitlines()
    assert f"The schemas file {path} holds no schemas document" in line and "fix the file" in line


def test_two_runs_in_a_row_give_the_same_verdicts(serve):
    server = serve(Broken(make_app()).rewrite_json("GET", RESOURCE_TYPES, bare).rewrite_json("GET", SCHEMAS, without_total))
    first, second = (run(server.url, CheckConfig(include_tags={"discovery", "crud", "errors"})) for _ in range(2))
    assert [(r.check_id, r.status) for r in first] == [(r.check_id, r.status) for r in second]
    assert stored(server.url) == []


BADGE = "urn:scim-tui:params:scim:schemas:extension:test:2.0:Badge"


def test_a_request_the_client_refuses_to_send_is_not_the_servers_fault(serve):
    """A required extension holding nothing a client may write: scim2-client refuses every creation
    (RFC 7644 §4). No request goes, and no result blames the server."""
    badge = Schema(
        id=BADGE,
        name="Badge",
        attributes=[Attribute(name="issued", type=Attribute.Type.string, mutability=Mutability.read_only, multi_valued=False)],
    )
    user_type = ResourceType(id="User", name="User", endpoint="/Users", schema_=USER_SCHEMA, schema_extensions=[SchemaExtension(schema_=BADGE, required=True)])
    default = load_default_schemas()
    server = serve(make_app(schemas=[default[USER_SCHEMA], badge], resource_types=[user_type]))
    results = run(server.url, CheckConfig(include_tags={"crud"}))
    creation = next(r for r in results if r.title == "object_creation")
    assert creation.status is Status.SKIPPED
    assert creation.reason == (
        f"Not sent: scim2-client refused to send the request (The resource type 'User' requires the extension '{BADGE}'), so the server was not asked."
    )
    assert not any(e.method == "POST" for r in results for e in r.exchanges)
    assert not failed(results)
