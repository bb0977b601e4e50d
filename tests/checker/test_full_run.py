"""Whole runs of the engine against real scim2-servers: default, with the enterprise extension, with a custom schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scim2_client.engines.httpx2 import SyncSCIMClient
from scim2_models import EnterpriseUser
from scim2_models import Group
from scim2_models import ResourceType
from scim2_models import Schema
from scim2_models import ScimProvider
from scim2_models import User
from scim2_server.utils import load_default_resource_types
from scim2_server.utils import load_default_schemas

from scim_tui.checker import CheckConfig
from scim_tui.checker import Status
from scim_tui.checker import check_server
from scim_tui.checker import iter_checks
from scim_tui.checker.registry import all_checkers
from scim_tui.demo import make_app
from tests.checker.test_discovery import DISCOVERY_CHECKERS
from tests.support.servers import http_client
from tests.support.servers import make_client

pytestmark = pytest.mark.slow  # whole runs

SCHEMAS = Path(__file__).parent / "schemas"
ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"

RESOURCE_CHECKERS = {
    "resource_type_tests",
    "object_creation",
    "object_query",
    "object_query_without_id",
    "object_query_with_attributes",
    "object_list_with_attributes",
    "search_with_attributes",
    "object_replacement",
    "object_deletion",
    "check_add_attribute",
    "check_remove_attribute",
    "check_replace_attribute",
}
SPEC_CHECKERS = DISCOVERY_CHECKERS | RESOURCE_CHECKERS
"""The 25 checkers of SPEC.md §4.3."""
BEYOND_SPEC_SERVER_CHECKERS = {"service_provider_config_document", "resource_type_documents", "schema_documents", "me_endpoint"}
BEYOND_SPEC_CHECKERS = BEYOND_SPEC_SERVER_CHECKERS | {
    "http_headers",
    "resource_metadata",
    "filter_operators",
    "filter_invalid",
    "pagination_parameters",
    "sort_order",
    "attribute_projection",
    "resource_versions",
    "creation_errors",
    "patch_errors",
    "dangling_member",
    "bulk_operations",
    "bulk_fail_on_errors",
    "bulk_max_operations",
    "unauthenticated_access",
    "patch_filtered_replace",
    "patch_filtered_remove",
    "patch_without_path",
    "patch_operations_in_order",
}
"""The checks beyond SPEC.md: the protocol real SCIM clients depend on, beyond SPEC.md."""
NEWER_STANDARDS_CHECKERS = {"cursor_pagination", "security_events_config", "async_requests"}
"""The checks of standards after RFC 7644: cursor pagination (RFC 9865), Security Event Tokens (RFC 9967)."""
UNASKED_CHECKERS = {
    "not_found_writes",
    "empty_bodies",
    "attribute_name_case",
    "replacement_with_another_id",
    "null_values",
    "never_returned",
    "allow_header",
}
"""The requests real servers get wrong that the checks above never sent: deletes, nulls, case rules, negatives."""
NEWER_SERVER_CHECKERS = {"allow_header", "security_events_config"}
"""Of these, the checks of the server as a whole (no resource type)."""
INTEROP_CHECKERS = {checker.name for checker in all_checkers() if "profile:interop" in checker.tags}
"""The interoperability profile: opt-in, so a default run reports them left out."""
IDP_CHECKERS = {checker.name for checker in all_checkers() if "idp" in checker.tags}
"""The identity providers' steps and readiness verdicts."""
ALL_CHECKERS = SPEC_CHECKERS | BEYOND_SPEC_CHECKERS | NEWER_STANDARDS_CHECKERS | UNASKED_CHECKERS | INTEROP_CHECKERS | IDP_CHECKERS


def scim2_server_violations(resource_types: tuple[str, ...]) -> dict[tuple[str | None, str], str]:
    """Where scim2-server really breaks an RFC MUST, by check, with words its reason must hold.

    RFC 7643 §5 marks authenticationSchemes REQUIRED, and scim2-server's default
    ServiceProviderConfig has none. RFC 7644 §3.9: with "attributes", "the default list of
    attributes SHALL be overridden" on any operation returning a resource, and scim2-server
    answers a POST with the whole resource. Each resource type's summary names that check.
    (It also keeps a Group member whose value names no resource: a DEVIATION, not a failure.)
    Three of Entra ID's shapes are refused (docs/identity-providers.md): DEVIATIONs, the
    RFC's spelling of each passing, that make Entra NOT READY (a DEVIATION too: the run requires no
    provider); tests/checker/test_idp.py holds them.
    """
    violations: dict[tuple[str | None, str], str] = {
        (None, "service_provider_config_document"): "authenticationSchemes is missing, though REQUIRED",
    }
    for name in resource_types:
        violations[(name, "attribute_projection")] = "?attributes=externalId: it also holds"
        violations[(name, "resource_type_tests")] = "failed for"
    return violations


def assert_only_known_violations(results, resource_types: tuple[str, ...] = ("User", "Group")) -> None:
    failed = {(r.resource_type, r.title): r.reason for r in results if r.status.failed}
    known = scim2_server_violations(resource_types)
    assert set(failed) == set(known), failed
    for check, words in known.items():
        assert words in failed[check], (check, failed[check])


def pet_app():
    """scim2-server serving User (with the enterprise extension), Group and the custom Pet resource type."""
    schema = Schema.model_validate(json.loads((SCHEMAS / "pet.schema.json").read_text()))
    resource_type = ResourceType.model_validate(json.loads((SCHEMAS / "pet.resource_type.json").read_text()))
    return make_app(
        schemas=[*load_default_schemas().values(), schema],
        resource_types=[*load_default_resource_types().values(), resource_type],
    )


def holdings(url: str) -> dict[str, list[dict]]:
    """Every resource of every resource type the server serves, as it serves them."""
    with http_client(url) as http:
        resource_types = http.get("/ResourceTypes").json()["Resources"]
        return {
            rt["name"]: sorted(http.get(rt["endpoint"], params={"count": 1000}).json().get("Resources", []), key=lambda r: r["id"]) for rt in resource_types
        }


def seed(url: str) -> None:
    """Resources the engine did not create: it must leave them as they are."""
    with http_client(url) as http:
        user = http.post("/Users", json={"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "userName": "someone-else"}).json()
        http.post("/Groups", json={"schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"], "displayName": "theirs", "members": [{"value": user["id"]}]})


def assert_clean_full_run(url: str) -> list:
    seed(url)
    before = holdings(url)
    with make_client(url) as scim:
        results = check_server(scim)
    assert_only_known_violations(results, tuple(sorted({r.resource_type for r in results if r.resource_type})))
    assert {r.title for r in results} == ALL_CHECKERS
    assert all(r.leftovers == [] for r in results)
    assert holdings(url) == before
    return results


def test_a_full_run_on_the_default_server_passes(full_run):
    """The session's full run (tests/conftest.py); that a run leaves the server as it was is held
    by the runs below, on servers seeded with resources of others."""
    assert len(SPEC_CHECKERS) == 25
    results = full_run
    assert_only_known_violations(results, ("Group", "User"))
    assert {r.title for r in results} == ALL_CHECKERS
    assert all(r.leftovers == [] for r in results)
    assert all(r.deselected for r in results if r.title in INTEROP_CHECKERS), "the interoperability profile is opt-in"
    ran = {(r.resource_type, r.title) for r in results if r.status is not Status.SKIPPED}
    for resource_type in ("User", "Group"):
        assert (resource_type, "check_add_attribute") in ran and (resource_type, "object_deletion") in ran


def test_the_enterprise_extension_is_patched_by_urn(full_run):
    results = full_run
    for checker in ("check_add_attribute", "check_remove_attribute", "check_replace_attribute"):
        reasons = [r.reason for r in results if r.title == checker and r.resource_type == "User"]
        assert any(reason.startswith(f"{ENTERPRISE}:employeeNumber:") for reason in reasons), checker
        assert any(reason.startswith(f"{ENTERPRISE}:manager.value:") for reason in reasons), checker


def test_a_full_run_on_scim2_server_at_its_root_gives_the_same_verdicts(serve):
    """Served at its root, scim2-server names its documents and resources under /v2/, which work
    too: no false ERROR for a location that serves the same thing (RFC 7644 §3.1)."""
    server = serve(make_app())
    results = assert_clean_full_run(server.url.removesuffix("/v2"))
    assert_only_known_violations(results)


def test_a_full_run_on_a_server_with_a_custom_schema_passes_and_leaves_it_as_it_was(serve):
    results = assert_clean_full_run(serve(pet_app()).url)
    pet = [r for r in results if r.resource_type == "Pet"]
    assert {r.title for r in pet} == {r.title for r in results if r.resource_type == "User"} - IDP_CHECKERS
    assert all(r.status is Status.SUCCESS for r in pet if r.title in SPEC_CHECKERS - {"resource_type_tests"})
    beyond = [r for r in pet if r.title in BEYOND_SPEC_CHECKERS]
    # Pet has no list of references to filter on, nor members (nor a bulkId to put in them); the server claims no authentication scheme.
    assert {r.title for r in beyond if r.status is Status.SKIPPED} == {"patch_filtered_remove", "unauthenticated_access", "dangling_member", "bulk_operations"}
    assert {r.title for r in beyond if r.status.failed} == {"attribute_projection"}
    added = {r.reason.split(":")[0] for r in pet if r.title == "check_add_attribute" and r.status is Status.SUCCESS}
    assert {"species", "vaccinated", "weight", "age", "birthDate", "photo", "website", "owner", "nicknames", "toys", "vet", "vet.$ref"} <= added


def test_concurrent_checks_give_the_same_results_and_leave_nothing(serve):
    url = serve(pet_app()).url
    before = holdings(url)
    with make_client(url) as scim:
        results = list(iter_checks(scim, CheckConfig(jobs=2)))
    assert_only_known_violations(results, ("Group", "Pet", "User"))
    assert holdings(url) == before


@pytest.mark.parametrize("resource_type", ["User", "Group"])
def test_every_resource_check_records_its_exchanges(client, resource_type):
    results = check_server(client, include_tags={"crud"}, resource_types=[resource_type])
    mine = [r for r in results if r.resource_type == resource_type and r.status is not Status.SKIPPED and r.title != "resource_type_tests"]
    assert mine and all(r.exchanges and r.reason and r.section and r.description for r in mine)


def test_a_client_configured_with_the_scim2_models_classes_runs_the_same_suite(serve):
    """Resource types configured on the client (SPEC.md §1 step 3), not discovered."""
    server = serve(make_app())
    provider = ScimProvider(
        models=[User, EnterpriseUser, Group],
        resource_types=[ResourceType.from_resource(User[EnterpriseUser]), ResourceType.from_resource(Group)],
    )
    with http_client(server.url) as http:
        results = check_server(SyncSCIMClient(http, provider=provider))
    assert {r.title for r in results} == ALL_CHECKERS
    assert_only_known_violations(results)
    assert holdings(server.url) == {"User": [], "Group": []}
