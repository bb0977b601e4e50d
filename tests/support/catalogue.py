"""Every checker by family, as the full runs expect them, and scim2-server's known violations."""

from __future__ import annotations

from scim_tui.checker.registry import all_checkers

DISCOVERY_CHECKERS = {
    "service_provider_config_endpoint",
    "service_provider_config_endpoint_methods",
    "query_all_resource_types",
    "query_resource_type_by_id",
    "access_invalid_resource_type",
    "resource_types_endpoint_methods",
    "resource_types_schema_validation",
    "query_all_schemas",
    "access_schema_by_id",
    "access_invalid_schema",
    "core_schemas_validation",
    "schemas_endpoint_methods",
    "random_url",
}


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
