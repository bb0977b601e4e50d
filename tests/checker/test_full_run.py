"""Whole runs of the engine against real scim2-servers: default, with the enterprise extension, with a custom schema."""

from __future__ import annotations

import pytest
from scim2_client.engines.httpx2 import SyncSCIMClient
from scim2_models import EnterpriseUser
from scim2_models import Group
from scim2_models import ResourceType
from scim2_models import ScimProvider
from scim2_models import User

from scim_tui.checker import CheckConfig
from scim_tui.checker import Status
from scim_tui.checker import check_server
from scim_tui.checker import iter_checks
from scim_tui.demo import make_app
from tests.support.catalogue import ALL_CHECKERS
from tests.support.catalogue import BEYOND_SPEC_CHECKERS
from tests.support.catalogue import IDP_CHECKERS
from tests.support.catalogue import INTEROP_CHECKERS
from tests.support.catalogue import SPEC_CHECKERS
from tests.support.catalogue import assert_only_known_violations
from tests.support.pets import holdings
from tests.support.pets import pet_app
from tests.support.pets import seed
from tests.support.servers import http_client
from tests.support.servers import make_client

pytestmark = pytest.mark.slow  # whole runs

ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"


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
