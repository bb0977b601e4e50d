"""Entra ID and Okta provisioning replayed (issue 18): each provider's steps on scim2-server, and
on servers broken the ways SCIM servers usually break a provider's dialect."""

from __future__ import annotations

import json
import re

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.checker.registry import all_checkers
from scim_tui.demo import make_app
from tests.servers import SCIM_JSON
from tests.servers import Broken
from tests.servers import make_client
from tests.servers import scim_error
from tests.servers import stored
from tests.unlike import PERSONALITIES

RESOURCES = r"/v2/(Users|Groups)/[^/]+"
USERS = "/v2/Users"
SCIM2_SERVER_FAILS = {("entra_set_manager", "User"), ("entra_create_group", "Group"), ("entra_remove_member", "Group")}
"""The Entra ID shapes scim2-server 0.8.3 really refuses (README, "Identity provider readiness")."""
ENTRA_BLOCKS = "entra_set_manager (User) failed, entra_create_group (Group) failed, entra_remove_member (Group) failed"
OKTA_READY = "READY for Okta: all 10 steps passed."


def run(url: str, **options) -> list:
    with make_client(url) as scim:
        return list(iter_checks(scim, CheckConfig(include_tags={"idp"}, **options)))


def failing(results) -> set[tuple[str, str | None]]:
    return {(r.title, r.resource_type) for r in results if r.status.failed}


def verdict(results, provider: str):
    [result] = [r for r in results if r.title == f"{provider}_readiness"]
    return result


def reasons(results, title: str) -> list[str]:
    return [r.reason for r in results if r.title == title]


def operations(body: dict, change) -> dict:
    return {**body, "Operations": [change(op) for op in body["Operations"]]}


def assert_idp_run(server, results, fails: set, entra: str, okta: str = OKTA_READY) -> None:
    """Exactly `fails` fail among the provider steps, besides scim2-server's own; every other step
    passes; the verdicts say so; nothing is left on the server."""
    steps = [r for r in results if "idp" in r.tags and not r.title.endswith("_readiness")]
    assert failing(steps) == fails | SCIM2_SERVER_FAILS
    assert all(r.status is not Status.SKIPPED for r in steps), [r for r in steps if r.status is Status.SKIPPED]
    assert verdict(results, "entra").reason == entra
    assert verdict(results, "okta").reason == okta
    assert (verdict(results, "okta").status is Status.SUCCESS) == okta.startswith("READY")
    assert all(r.leftovers == [] for r in results)
    assert stored(server.url) == []


def test_scim2_server_runs_every_step_and_fails_two_of_entra(serve):
    server = serve(make_app())
    results = run(server.url)
    entra = f"NOT READY for Entra ID: 3 of 14 steps block: {ENTRA_BLOCKS}."
    assert_idp_run(server, results, set(), entra)
    assert verdict(results, "entra").status is Status.ERROR
    [manager] = reasons(results, "entra_set_manager")
    assert manager.startswith("Add manager: PATCH /v2/Users/")
    assert "'manager' is not an attribute of the schema. The same change as the RFC spells it passes: Entra sends the path \"manager\"" in manager
    [removal] = reasons(results, "entra_remove_member")
    assert "a remove operation carries no value" in removal and 'Entra removes a member with path "members" and the member in "value"' in removal
    # Only idp checks ran; the verdicts come last, after every step.
    assert [r.title for r in results[-2:]] == ["entra_readiness", "okta_readiness"]
    assert all(r.status is Status.SKIPPED for r in results if "idp" not in r.tags)


def test_the_requests_are_those_of_each_provider(serve):
    server = serve(make_app())
    results = run(server.url)
    # Every request of an Okta step carries Okta's User-Agent; the run's clean-up (DELETE, which Okta never sends) is scim-tui's own.
    okta = [e for r in results if r.title.startswith("okta_") for e in r.exchanges if e.method != "DELETE"]
    assert {"GET", "POST", "PUT", "PATCH"} <= {e.method for e in okta} and all(e.request_headers.get("user-agent") == "Okta SCIM Client 1.0.0" for e in okta)
    entra = [e for r in results if r.title.startswith("entra_") for e in r.exchanges]
    assert not any(e.request_headers.get("user-agent") == "Okta SCIM Client 1.0.0" for e in entra)
    [connection] = [r for r in results if r.title == "entra_test_connection"]
    assert re.fullmatch(r'GET /v2/Users\?filter=userName eq "[0-9a-f-]{36}" answered 200 with an empty ListResponse\.', connection.reason)
    [creation, *_] = [r for r in results if r.title == "entra_create_user"]
    body = json.loads(creation.exchanges[0].request_body)
    assert body["meta"] == {"resourceType": "User"} and body["roles"] == []
    assert body["urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"]["employeeNumber"].startswith("scim-tui-")
    [okta_creation, _] = [r for r in results if r.title == "okta_create_user"]
    body = json.loads(okta_creation.exchanges[0].request_body)
    assert body["groups"] == [] and body["password"]
    patches = [json.loads(e.request_body)["Operations"] for r in results if r.title == "entra_capitalised_ops" for e in r.exchanges if e.method == "PATCH"]
    assert [ops[0]["op"] for ops in patches] == ["Replace", "Add", "Remove"]


def test_each_replay_is_the_providers_own_request_on_the_wire(serve):
    """Entra's group creation carries its second schema URN, its manager a $ref holding the manager's
    URL; scim2-server refuses both shapes (the RFC spelling passes), and the group steps after the
    creation still run, on a group made as the RFC spells it."""
    server = serve(make_app())
    results = run(server.url)
    [group] = [r for r in results if r.title == "entra_create_group"]
    sent = json.loads(group.exchanges[0].request_body)
    assert sent["schemas"] == ["urn:ietf:params:scim:schemas:core:2.0:Group", "http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group"]
    assert sent["meta"] == {"resourceType": "Group"} and group.exchanges[0].request_headers["content-type"] == "application/scim+json"
    assert group.reason == "POST /v2/Groups answered 400: Unknown extension schemas: http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group"
    [manager] = [r for r in results if r.title == "entra_set_manager"]
    [operation] = json.loads(next(e for e in manager.exchanges if e.method == "PATCH").request_body)["Operations"]
    [value] = operation["value"]
    assert operation["op"] == "Add" and operation["path"] == "manager" and value["$ref"] == f"{server.url}/Users/{value['value']}"
    added = [r for r in results if r.title == "entra_add_members"]
    assert [r.status for r in added] == [Status.SUCCESS]


def test_a_replay_body_the_servers_schemas_do_not_describe_still_goes_on_the_wire(serve):
    """A provider does not read /Schemas before it sends: neither does the replay (name.formatted,
    absent from the User schema served, is sent, and the server takes it)."""
    server = serve(PERSONALITIES["replay body beyond the schema"].app())
    results = run(server.url)
    assert_idp_run(server, results, set(), f"NOT READY for Entra ID: 3 of 14 steps block: {ENTRA_BLOCKS}.")
    [creation, *_] = [r for r in results if r.title == "entra_create_user"]
    assert json.loads(creation.exchanges[0].request_body)["name"]["formatted"].startswith("scim-tui-")


def _lower_case_only(op: dict) -> dict:
    return op if op["op"] == op["op"].lower() else {**op, "op": f"unknown-{op['op']}"}


def test_ops_accepted_only_in_lower_case_fail_entra_not_okta(serve):
    server = serve(Broken(make_app()).rewrite_request_json("PATCH", RESOURCES, lambda body: operations(body, _lower_case_only)))
    results = run(server.url)
    capitalised = {
        ("entra_capitalised_ops", "User"), ("entra_disable_user", "User"), ("entra_replace_work_email", "User"),
        ("entra_replace_employee_number", "User"), ("entra_add_members", "Group"),
    }
    entra = (
        "NOT READY for Entra ID: 8 of 14 steps block: entra_capitalised_ops (User) failed, entra_disable_user (User) failed, "
        "entra_replace_work_email (User) failed, entra_replace_employee_number (User) failed, entra_set_manager (User) failed, "
        "entra_create_group (Group) failed and 2 more."
    )
    assert_idp_run(server, results, capitalised, entra)
    for title in ("entra_capitalised_ops", "entra_replace_work_email", "entra_replace_employee_number", "entra_add_members"):
        for reason in reasons(results, title):
            assert "answered 400" in reason and reason.endswith(
                "The same change as the RFC spells it passes: Entra sends capitalised ops; RFC 7644 §3.5.2 names them in lower case, "
                "and Entra's documentation asks servers to accept both."
            ), reason
    # "Replace" with the boolean is refused too: the string is not the cause, and the reason does not blame it.
    [disable] = reasons(results, "entra_disable_user")
    assert disable.startswith('Replace active with "False": PATCH /v2/Users/') and "answered 400" in disable and "Entra sends" not in disable


def test_false_as_a_string_refused_fails_entra_disable_user_only(serve):
    def refuse_strings(op: dict) -> dict:
        return {**op, "value": "not a boolean"} if op.get("value") == "False" else op

    server = serve(Broken(make_app()).rewrite_request_json("PATCH", RESOURCES, lambda body: operations(body, refuse_strings)))
    results = run(server.url)
    entra = f"NOT READY for Entra ID: 4 of 14 steps block: entra_disable_user (User) failed, {ENTRA_BLOCKS}."
    assert_idp_run(server, results, {("entra_disable_user", "User")}, entra)
    [disable] = reasons(results, "entra_disable_user")
    assert 'The same change as the RFC spells it passes: Entra sends active as the string "False" by default' in disable


def _no_match_is_404(response):
    status, headers, body = response
    return (404, SCIM_JSON, scim_error(404, "no such user")) if status == 200 and json.loads(body).get("totalResults") == 0 else response


def test_a_filter_without_match_answered_404_fails_entra_test_connection_okta_tolerates_it(serve):
    server = serve(Broken(make_app()).rewrite("GET", USERS, _no_match_is_404))
    results = run(server.url)
    entra = (
        f"NOT READY for Entra ID: 4 of 14 steps block: entra_test_connection (User) failed, {ENTRA_BLOCKS}."
    )
    assert_idp_run(server, results, {("entra_test_connection", "User")}, entra, "READY for Okta: all 10 steps passed; 1 with a deviation the provider tolerates.")
    [connection] = reasons(results, "entra_test_connection")
    assert connection.endswith("answered 404 instead of 200 with a ListResponse: Entra ID reads any other answer as a failed test connection (RFC 7644 §3.4.2: no match is a 200 with totalResults 0).")
    [lookup] = [r for r in results if r.title == "okta_lookup_missing_user"]
    assert lookup.status is Status.DEVIATION and "answered 404: Okta reads it as no match, but RFC 7644 §3.4.2" in lookup.reason


def _member_removal(change):
    def rewrite(op: dict) -> dict:
        return change(op) if op["op"] == "Remove" and op.get("path") == "members" and "value" in op else op

    return lambda body: operations(body, rewrite)


@pytest.mark.parametrize(
    ("change", "words", "blamed"),
    [
        # Ignored: read as adding members the group holds already.
        (lambda op: {**op, "op": "add"}, "still holds the member(s)", True),
        # Applied to every member: read as removing the whole attribute.
        (lambda op: {"op": "remove", "path": "members"}, "lacks the member(s)", False),
    ],
    ids=["ignored", "applied-to-all"],
)
def test_remove_members_with_a_value_ignored_or_applied_to_all_fails_entra(serve, change, words, blamed):
    server = serve(Broken(make_app()).rewrite_request_json("PATCH", r"/v2/Groups/[^/]+", _member_removal(change)))
    results = run(server.url)
    entra = f"NOT READY for Entra ID: 3 of 14 steps block: {ENTRA_BLOCKS}."
    assert_idp_run(server, results, set(), entra)
    [removal] = reasons(results, "entra_remove_member")
    assert removal.startswith("Remove members with a value: a GET after the 204 answer") and words in removal
    assert ("The same change as the RFC spells it passes" in removal) is blamed


def _without_inactive(body: dict) -> dict:
    if "Resources" not in body:
        return body
    active = [resource for resource in body["Resources"] if resource.get("active") is not False]
    return {**body, "Resources": active, "totalResults": len(active), "itemsPerPage": len(active)}


def test_a_disabled_user_hidden_from_filters_fails_entra(serve):
    server = serve(Broken(make_app()).rewrite_json("GET", USERS, _without_inactive))
    results = run(server.url)
    entra = (
        "NOT READY for Entra ID: 4 of 14 steps block: entra_set_manager (User) failed, entra_disabled_user_found (User) failed, "
        "entra_create_group (Group) failed, entra_remove_member (Group) failed."
    )
    assert_idp_run(server, results, {("entra_disabled_user_found", "User")}, entra)
    read, found = [r for r in results if r.title == "entra_disabled_user_found"]
    assert read.status is Status.SUCCESS
    assert re.fullmatch(r'GET /v2/Users\?filter=userName eq "scim-tui-\w+@example.com" answered \[\] instead of the User\[EnterpriseUser\] \w+ alone\.', found.reason)


def test_start_index_and_count_ignored_fail_okta_test_connection(serve):
    ignoring = Broken(make_app()).rewrite_query("GET", USERS, lambda query: {k: v for k, v in query.items() if k not in ("startIndex", "count")})
    server = serve(ignoring)
    results = run(server.url)
    entra = f"NOT READY for Entra ID: 3 of 14 steps block: {ENTRA_BLOCKS}."
    assert_idp_run(server, results, {("okta_test_connection", "User")}, entra, "NOT READY for Okta: 1 of 10 steps block: okta_test_connection (User) failed.")
    [connection] = reasons(results, "okta_test_connection")
    assert re.fullmatch(r"GET /v2/Users\?startIndex=1&count=2 answered \d+ users: count is ignored \(RFC 7644 §3\.4\.2\.4\)\.", connection)


def test_patch_without_a_path_refused_fails_okta_and_entras_compliant_replace(serve):
    def refuse(op: dict) -> dict:
        return op if "path" in op else {**op, "op": "unknown-without-path"}

    server = serve(Broken(make_app()).rewrite_request_json("PATCH", RESOURCES, lambda body: operations(body, refuse)))
    results = run(server.url)
    entra = (
        "NOT READY for Entra ID: 4 of 14 steps block: entra_replace_dotted_keys (User) failed, entra_set_manager (User) failed, "
        "entra_create_group (Group) failed, entra_remove_member (Group) failed."
    )
    okta = "NOT READY for Okta: 2 of 10 steps block: okta_deactivate_user (User) failed, okta_rename_group (Group) failed."
    assert_idp_run(server, results, {("entra_replace_dotted_keys", "User"), ("okta_deactivate_user", "User"), ("okta_rename_group", "Group")}, entra, okta)
    deactivated, read = [r for r in results if r.title == "okta_deactivate_user"]
    assert deactivated.status is Status.ERROR and "The same change as the RFC spells it passes: Okta deactivates with a replace without a path" in deactivated.reason
    assert read.status is Status.SUCCESS, "the path-given deactivation tried to tell the cause did deactivate the user"


def test_the_compliant_dialect_is_a_tag_of_its_own(serve):
    server = serve(make_app())
    results = run(server.url, exclude_tags={"idp:entra:compliant"})
    assert {r.title for r in results if "idp:entra:compliant" in r.tags and r.status is Status.SKIPPED} == {
        "entra_disable_user_boolean", "entra_replace_dotted_keys", "entra_remove_member_filter",
    }
    assert verdict(results, "entra").reason == f"NOT READY for Entra ID: 3 of 11 steps block: {ENTRA_BLOCKS}."
    assert stored(server.url) == []


def test_a_server_without_groups_skips_the_group_steps_and_is_not_ready(serve):
    from scim2_server.utils import load_default_resource_types

    users_only = [rt for rt in load_default_resource_types().values() if rt.name == "User"]
    server = serve(make_app(resource_types=users_only))
    results = run(server.url)
    groups = [r for r in results if "idp" in r.tags and r.resource_type == "Group"]
    assert groups and all(r.status is Status.SKIPPED for r in groups)
    assert all(r.reason == "Skipped: the server has no resource type of the schema urn:ietf:params:scim:schemas:core:2.0:Group that can be checked." for r in groups)
    assert verdict(results, "okta").reason == (
        "NOT READY for Okta: 4 of 10 steps block: okta_create_group (Group) did not run, okta_rename_group (Group) did not run, "
        "okta_update_members (Group) did not run, okta_replace_members (Group) did not run."
    )
    # Left out by the run's own selection, the group steps do not block.
    only_users = run(server.url, resource_types=["User"])
    assert verdict(only_users, "okta").reason == "READY for Okta: all 6 steps passed (4 left out by the run's selection)."
    assert stored(server.url, "/Users") == []


def test_a_verdict_run_again_runs_again_every_step_it_judges(serve):
    """Rerunning what failed names the verdict and the failed steps: the verdict is given on all its steps again."""
    server = serve(make_app())
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(), only={CheckId("okta_readiness"), CheckId("okta_test_connection", "User")}))
    assert {r.title for r in results} == {r.name for r in all_checkers() if "idp:okta" in r.tags}
    assert verdict(results, "okta").reason == OKTA_READY
    assert stored(server.url) == []


def test_counts_answered_as_strings_fail_the_steps_reading_lists(serve):
    def strings(body: dict) -> dict:
        return {**body, "totalResults": str(body["totalResults"])} if "totalResults" in body else body

    server = serve(Broken(make_app()).rewrite_json("GET", USERS, strings))
    results = run(server.url)
    lists = [r for r in results if r.status.failed and (r.title, r.resource_type) not in SCIM2_SERVER_FAILS and not r.title.endswith("_readiness")]
    assert {r.title for r in lists} == {
        "entra_test_connection", "entra_create_user", "entra_disabled_user_found",
        "okta_test_connection", "okta_lookup_missing_user", "okta_create_user", "okta_import_users",
    }
    assert all(re.search(r'answered "totalResults": \'\d+\', a JSON string instead of a JSON integer \(RFC 7644 §3\.4\.2\)', r.reason) for r in lists), [r.reason for r in lists]
    assert stored(server.url) == []
