"""The SCIM interoperability profile (draft-zollner-scim-interop-profile-02): opt-in, and each of its rules."""

from __future__ import annotations

import io
import json
import re

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.checker.registry import all_checkers
from scim_tui.checker.registry import filtered_out
from scim_tui.demo import make_app
from tests.support.servers import SCIM_JSON
from tests.support.servers import Broken
from tests.support.servers import make_client
from tests.support.servers import stored
from tests.support.unlike import DuplicatesAccepted
from tests.support.unlike import FilterRefused
from tests.support.unlike import Middleware
from tests.support.unlike import _error
from tests.support.unlike import _json_body
from tests.support.unlike import patch_unsupported_and_said

INTEROP = {"profile:interop"}
USERS = "/v2/Users"
USER = r"/v2/Users/[^/]+"


def run(url: str, checker: str, resource_type: str | None = "User") -> list:
    with make_client(url) as scim:
        check = CheckId(checker, None if checker == "interop_discovery" else resource_type)
        return list(iter_checks(scim, CheckConfig(include_tags=INTEROP), only={check}))


def test_the_profile_runs_only_when_its_tag_is_named(serve):
    interop = {c.name for c in all_checkers() if "profile:interop" in c.tags}
    assert interop == {"interop_discovery", "interop_unknown_names", "interop_operations", "interop_lifecycle"}
    assert filtered_out(["profile:interop"], CheckConfig()) == "Skipped: its tag profile:interop is opt-in, and include_tags does not name it."
    assert filtered_out(["profile:interop"], CheckConfig(include_tags={"profile"})) is None
    assert filtered_out(["profile:interop"], CheckConfig(include_tags={"profile:interop"}, exclude_tags={"profile"})) is not None
    with make_client(serve(make_app()).url) as scim:
        [result] = iter_checks(scim, CheckConfig(), only={CheckId("interop_lifecycle", "User")})
    assert result.status is Status.SKIPPED and result.deselected and result.exchanges == []


def test_scim2_server_breaks_three_rules_of_the_profile(serve):
    """It claims no conformance, declares no canonicalValues for the type of entitlements, roles and
    x509Certificates, and takes a PATCH operation without a path (as Entra ID and Okta send it)."""
    server = serve(make_app())
    claim, ids, canonical = run(server.url, "interop_discovery")
    assert (claim.status, ids.status, canonical.status) == (Status.ERROR, Status.SUCCESS, Status.ERROR)
    assert claim.reason.startswith("The ServiceProviderConfig has no interopProfileConformant: ")
    assert canonical.reason.startswith("/Schemas: User.entitlements, User.roles, User.x509Certificates declare no canonicalValues for their type: ")
    for resource_type in ("User", "Group"):
        assert [r.status for r in run(server.url, "interop_unknown_names", resource_type)] == [Status.SUCCESS] * 3
        count, path_less, *conflicts = run(server.url, "interop_operations", resource_type)
        assert count.status is Status.SUCCESS and re.fullmatch(rf"GET /v2/{resource_type}s\?count=100 answered (\d+) of \1 resources\.", count.reason)
        assert path_less.status is Status.ERROR and path_less.reason.endswith("without a path answered 204 instead of 400 (interop profile §6.5.1.1, MUST).")
        assert [r.status for r in conflicts] == ([Status.SUCCESS] * 2 if resource_type == "User" else [Status.SKIPPED] * 2)
        assert [r.status for r in run(server.url, "interop_lifecycle", resource_type)] == [Status.SUCCESS] * 2
    assert stored(server.url) == []


def _conformant(app):
    """scim2-server claiming the profile, with canonicalValues for every type."""

    def declared(schema):
        for attribute in schema.get("attributes", []):
            for sub in attribute.get("subAttributes") or []:
                if sub["name"] == "type" and not sub.get("canonicalValues"):
                    sub["canonicalValues"] = ["work", "other"]
        return schema

    return (
        Broken(app)
        .rewrite_json("GET", "/v2/ServiceProviderConfig", lambda config: config | {"interopProfileConformant": True})
        .rewrite_json("GET", "/v2/Schemas", lambda body: body | {"Resources": [declared(item) for item in body["Resources"]]})
    )


def test_a_conformant_discovery_passes(serve):
    assert [r.status for r in run(serve(_conformant(make_app())).url, "interop_discovery")] == [Status.SUCCESS] * 3


def test_a_resource_type_whose_id_is_not_its_name_is_an_error(serve):
    renamed = lambda body: body | {"Resources": [item | {"id": item["name"].lower()} for item in body["Resources"]]}  # noqa: E731
    ids = run(serve(Broken(make_app()).rewrite_json("GET", "/v2/ResourceTypes", renamed)).url, "interop_discovery")[1]
    assert ids.status is Status.ERROR
    assert (
        ids.reason
        == '/ResourceTypes: "User" has the id "user"; "Group" has the id "group": every ResourceType MUST have an id equal to its name (interop profile §5.1).'
    )


def _unknown_dropped(body):
    return {k: v for k, v in body.items() if "Unknown" not in k and "unknown" not in k} | {
        "schemas": [s for s in body.get("schemas", []) if "unknown" not in s]
    }


def test_unknown_names_taken_in_silence_are_errors(serve):
    broken = Broken(make_app()).rewrite_request_json("POST", USERS, _unknown_dropped)
    broken.rewrite_query("GET", USERS, lambda query: {**query, "filter": 'id eq "none"'} if "Unknown" in query.get("filter", "") else query)
    server = serve(broken)
    attribute, schema, filtered = run(server.url, "interop_unknown_names")
    assert attribute.status is schema.status is filtered.status is Status.ERROR
    assert attribute.reason.endswith("(no schema defines it) answered 201 instead of 400 (interop profile §5.3, MUST).")
    assert schema.reason.endswith("(the resource type does not have it) answered 201 instead of 400 (interop profile §5.3, MUST).")
    assert filtered.reason.endswith("(no schema defines the attribute) answered 200 instead of 400 (interop profile §6.3, MUST).")
    assert stored(server.url) == []


def test_a_page_smaller_than_asked_is_an_error(serve):
    capped = Broken(make_app()).rewrite_query("GET", USERS, lambda query: {**query, "count": "1"} if "count" in query else query)
    count = run(serve(capped).url, "interop_operations")[0]
    assert count.status is Status.ERROR
    assert re.fullmatch(
        r"GET /v2/Users\?count=100 answered 1 of \d resources: a service provider MUST support a client-requested "
        r"count of at least 100 \(interop profile §6\.4\)\.",
        count.reason,
    )


class PathRequired(Middleware):
    """Refuses a PATCH operation without a path (400 invalidSyntax), as the profile asks."""

    def intercept(self, environ):
        body = _json_body(environ)
        if environ["REQUEST_METHOD"] == "PATCH" and any("path" not in op for op in (body or {}).get("Operations", [])):
            return 400, SCIM_JSON, _error(400, "every operation needs a path", "invalidSyntax")
        return None


def test_a_path_less_patch_refused_passes_and_a_taken_user_name_patched_is_an_error(serve):
    server = serve(PathRequired(Broken(make_app()).rewrite("PATCH", USER, lambda answer: (204, [], b"") if answer[0] == 409 else answer)))
    _count, path_less, post, patch = run(server.url, "interop_operations")
    assert path_less.status is Status.SUCCESS and post.status is Status.SUCCESS
    assert patch.status is Status.ERROR
    assert patch.reason.endswith("of another User[EnterpriseUser] answered 204 instead of 409 (interop profile §6.9.1, MUST).")


def test_a_taken_user_name_created_again_is_an_error(serve):
    server = serve(PathRequired(DuplicatesAccepted(make_app())))
    _count, path_less, post, patch = run(server.url, "interop_operations")
    assert path_less.status is Status.SUCCESS and patch.status is Status.SUCCESS
    assert post.status is Status.ERROR
    assert re.fullmatch(
        r'POST /v2/Users with the userName "\S+" of another User\[EnterpriseUser\] answered 201 instead of 409 \(interop profile §6\.9\.1, MUST\)\.',
        post.reason,
    )
    assert stored(server.url) == []


def test_the_patches_are_not_sent_when_patch_is_not_claimed(serve):
    """A server saying PATCH is unsupported is not judged on PATCH requests it said it refuses."""
    count, path_less, post, patch = run(serve(patch_unsupported_and_said(make_app())).url, "interop_operations")
    assert count.status is post.status is Status.SUCCESS
    for result, label in ((path_less, "PATCH without a path"), (patch, "409 uniqueness on PATCH")):
        assert result.status is Status.SKIPPED
        assert result.reason == f"{label}: Skipped: the ServiceProviderConfig does not claim patch support (patch.supported is not true)."
    assert not any(e.method == "PATCH" for r in (count, path_less, post, patch) for e in r.exchanges)


def test_the_unknown_filter_is_not_sent_when_filter_is_not_claimed(serve):
    attribute, schema, filtered = run(serve(FilterRefused(make_app())).url, "interop_unknown_names")
    assert attribute.status is schema.status is Status.SUCCESS
    assert filtered.status is Status.SKIPPED
    assert filtered.reason == (
        "GET with a filter on an unknown attribute: Skipped: the ServiceProviderConfig does not claim filter support (filter.supported is not true)."
    )
    assert not any("filter=" in e.url for e in filtered.exchanges)


class NamesKept(Middleware):
    """Keeps the userName of a deleted User reserved: a new User with it gets 409."""

    def __init__(self, app):
        super().__init__(app)
        self.reserved = set()

    def intercept(self, environ):
        method, path = environ["REQUEST_METHOD"], environ.get("PATH_INFO", "")
        if method == "DELETE" and re.fullmatch(USER, path):
            read = self.call(environ, REQUEST_METHOD="GET", CONTENT_LENGTH="0", **{"wsgi.input": io.BytesIO(b"")})
            self.reserved.add(json.loads(read[2]).get("userName") if read[0] == 200 else None)
        elif method == "POST" and path == USERS and (_json_body(environ) or {}).get("userName") in self.reserved:
            return 409, SCIM_JSON, _error(409, "userName is taken", "uniqueness")
        return None


def test_an_identifier_kept_after_its_resource_is_deleted_is_an_error(serve):
    gone, reused = run(serve(NamesKept(make_app())).url, "interop_lifecycle")
    assert gone.status is Status.SUCCESS
    assert reused.status is Status.ERROR
    assert reused.reason.endswith(
        "just deleted answered 409: the unique identifiers of a deleted resource MUST be available for reassignment (interop profile §6.6)."
    )


def test_a_delete_that_keeps_the_resource_is_an_error(serve):
    kept = Broken(make_app()).rewrite("DELETE", USER, lambda answer: (204, [], b"") if answer[0] == 200 else answer, REQUEST_METHOD="GET")
    gone, reused = run(serve(kept).url, "interop_lifecycle")
    assert gone.status is Status.ERROR
    assert "answered 204, and a GET then answered 200: a successful DELETE request MUST result in the resource being deleted" in gone.reason
    assert reused.status is Status.SKIPPED


@pytest.mark.parametrize("tags", [{"crud"}, None])
def test_no_default_or_crud_run_counts_the_profile(tags):
    assert all(filtered_out(c.tags, CheckConfig(include_tags=tags)) for c in all_checkers() if "profile:interop" in c.tags)


def test_no_providers_readiness_counts_the_profile(serve):
    """The profile forbids the PATCH without a path that SailPoint (and Entra ID, Okta) send: run
    together, its failures leave the provider's verdict as it is without them."""
    assert not [c.name for c in all_checkers() if "profile:interop" in c.tags and any(tag.startswith("idp") for tag in c.tags)]
    server = serve(make_app())
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(include_tags={"idp:sailpoint", *INTEROP})))
    assert [r.title for r in results if "profile:interop" in r.tags and r.status is Status.ERROR], "the profile's rules scim2-server breaks"
    [verdict] = [r for r in results if r.title == "sailpoint_readiness"]
    assert verdict.status is Status.SUCCESS and verdict.reason == "READY for SailPoint: its one step passed."
    assert stored(server.url) == []
