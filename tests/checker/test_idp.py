"""Entra ID and Okta provisioning replayed: each provider's steps on scim2-server, and
on servers broken the ways SCIM servers usually break a provider's dialect."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.checker.checks.idp_readiness import blocking
from scim_tui.checker.registry import all_checkers
from scim_tui.checker.registry import verdict_names
from scim_tui.choices import PROVIDERS
from scim_tui.demo import make_app
from tests.support.command import scim_tui_here
from tests.support.idp import GALLERY
from tests.support.idp import OIN
from tests.support.idp import run
from tests.support.servers import SCIM_JSON
from tests.support.servers import Broken
from tests.support.servers import make_client
from tests.support.servers import scim_error
from tests.support.servers import stored
from tests.support.unlike import PERSONALITIES
from tests.support.unlike import ExternalIdIgnored
from tests.support.unlike import Middleware
from tests.support.unlike import _json_body
from tests.support.unlike import entra_speaking

RESOURCES = r"/v2/(Users|Groups)/[^/]+"
USERS = "/v2/Users"
SCIM2_SERVER_REFUSES = {("entra_set_manager", "User"), ("entra_create_group", "Group"), ("entra_remove_member", "Group")}
"""The Entra ID shapes scim2-server 0.8.3 refuses while the RFC's spelling passes: DEVIATIONs that
make Entra NOT READY (docs/identity-providers.md)."""
ENTRA_BLOCKS = "entra_set_manager (User) refused, entra_create_group (Group) refused, entra_remove_member (Group) refused"
ENTRA_NOT_READY = f"NOT READY for Entra ID: 3 of 14 steps block: {ENTRA_BLOCKS}."
OKTA_READY = "READY for Okta: all 10 steps passed (7 left out by the run's selection)."
ENTRA_GROUP = "http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group"


def failing(results) -> set[tuple[str, str | None]]:
    return {(r.title, r.resource_type) for r in results if r.status.failed}


def blocked(results) -> set[tuple[str, str | None]]:
    return {(r.title, r.resource_type) for r in results if "idp" in r.tags and not r.title.endswith("_readiness") and not r.deselected and blocking(r)}


def verdict(results, provider: str):
    [result] = [r for r in results if r.title == f"{provider}_readiness"]
    return result


def reasons(results, title: str) -> list[str]:
    return [r.reason for r in results if r.title == title]


def operations(body: dict, change) -> dict:
    return {**body, "Operations": [change(op) for op in body["Operations"]]}


def assert_idp_run(server, results, errors: set, entra: str, okta: str = OKTA_READY, blocks: set | None = None) -> None:
    """Exactly `errors` fail by the RFCs among the provider steps; exactly `blocks` (`errors` unless
    told) block a provider besides what scim2-server refuses; no step is SKIPPED; the verdicts say
    so, NOT READY a DEVIATION (the run requires no provider); nothing is left on the server."""
    steps = [r for r in results if "idp" in r.tags and not r.title.endswith("_readiness") and not r.deselected]
    assert failing(steps) == errors, [(r.title, r.reason) for r in steps if r.status.failed]
    assert blocked(steps) == (errors if blocks is None else blocks) | SCIM2_SERVER_REFUSES
    assert all(r.status is not Status.SKIPPED for r in steps), [r for r in steps if r.status is Status.SKIPPED]
    assert verdict(results, "entra").reason == entra
    assert verdict(results, "okta").reason == okta
    for provider, said in (("entra", entra), ("okta", okta)):
        assert verdict(results, provider).status is (Status.SUCCESS if said.startswith("READY") else Status.DEVIATION)
    assert all(r.leftovers == [] for r in results)
    assert stored(server.url) == []


def test_scim2_server_runs_every_step_and_refuses_three_of_entras_shapes(serve):
    server = serve(make_app())
    results = run(server.url)
    assert_idp_run(server, results, set(), ENTRA_NOT_READY)
    assert {(r.title, r.resource_type) for r in results if r.status is Status.DEVIATION} == SCIM2_SERVER_REFUSES | {("entra_readiness", None)}
    [manager] = reasons(results, "entra_set_manager")
    assert (
        manager.startswith("Add manager: PATCH /v2/Users/")
        and "answered 400: 'manager' is not an attribute of the schema. The same change as the RFC spells it passes." in manager
    )
    assert (
        'Entra ID\'s request differs in op "Add" (RFC: "add"), path "manager" (RFC: '
        '"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager"), value [{"$ref": ' in manager
    )
    assert manager.endswith(
        'Entra sends the path "manager" without the enterprise extension\'s URN, and an array of one {"$ref": '
        '…, "value": …} though manager is single-valued (RFC 7643 §4.3); its tutorial shows this shape.'
    )
    [removal] = reasons(results, "entra_remove_member")
    assert "a remove operation carries no value" in removal and 'Entra removes a member with path "members" and the member in "value"' in removal
    # Only idp checks ran; the verdicts come last, after every step.
    verdicts = [r.title for r in results if r.title.endswith("_readiness")]
    assert results[-len(verdicts) :] == [r for r in results if r.title.endswith("_readiness")] and verdicts[:2] == ["entra_readiness", "okta_readiness"]
    assert all(r.status is Status.SKIPPED for r in results if "idp" not in r.tags)


def test_a_provider_the_run_requires_that_is_not_ready_is_an_error(serve):
    server = serve(make_app())
    results = run(server.url, require_ready=frozenset({"entra", "okta"}))
    assert (verdict(results, "entra").status, verdict(results, "entra").reason) == (Status.ERROR, ENTRA_NOT_READY)
    assert verdict(results, "okta").status is Status.SUCCESS
    assert stored(server.url) == []


def test_the_requests_are_those_of_each_provider(serve):
    server = serve(make_app())
    results = run(server.url)
    # Every request of an Okta step carries Okta's User-Agent; the run's clean-up (DELETE, which Okta never sends) and the
    # reads it sends for itself (their note says so: a resource proven its own before a write) are scim-tui's own.
    okta = [
        e for r in results if r.title.startswith("okta_") for e in r.exchanges if e.method != "DELETE" and not (e.note or "").startswith("sent by scim-tui")
    ]
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
    [group, *_] = [r for r in results if r.title == "entra_create_group"]
    sent = json.loads(group.exchanges[0].request_body)
    assert sent["schemas"] == ["urn:ietf:params:scim:schemas:core:2.0:Group", ENTRA_GROUP]
    assert sent["meta"] == {"resourceType": "Group"} and group.exchanges[0].request_headers["content-type"] == "application/scim+json"
    assert group.status is Status.DEVIATION and group.reason.startswith(f"create: POST /v2/Groups answered 400: Unknown extension schemas: {ENTRA_GROUP}. ")
    assert f'Entra ID\'s request differs in schemas[1] "{ENTRA_GROUP}" (RFC: absent).' in group.reason
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
    assert_idp_run(server, results, set(), ENTRA_NOT_READY)
    [creation, *_] = [r for r in results if r.title == "entra_create_user"]
    assert json.loads(creation.exchanges[0].request_body)["name"]["formatted"].startswith("scim-tui-")


def _lower_case_only(op: dict) -> dict:
    return op if op["op"] == op["op"].lower() else {**op, "op": f"unknown-{op['op']}"}


CAPITALISED = "Entra sends capitalised ops; RFC 7644 §3.5.2 names them in lower case, and Entra's documentation asks servers to accept both."


def test_ops_accepted_only_in_lower_case_make_entra_not_ready_by_deviations(serve):
    server = serve(Broken(make_app()).rewrite_request_json("PATCH", RESOURCES, lambda body: operations(body, _lower_case_only)))
    results = run(server.url)
    capitalised = {
        ("entra_capitalised_ops", "User"),
        ("entra_disable_user", "User"),
        ("entra_replace_work_email", "User"),
        ("entra_replace_employee_number", "User"),
        ("entra_add_members", "Group"),
    }
    entra = (
        "NOT READY for Entra ID: 8 of 14 steps block: entra_capitalised_ops (User) refused, entra_disable_user (User) refused, "
        "entra_replace_work_email (User) refused, entra_replace_employee_number (User) refused, entra_set_manager (User) refused, "
        "entra_create_group (Group) refused and 2 more."
    )
    assert_idp_run(server, results, set(), entra, blocks=capitalised)
    for title in ("entra_capitalised_ops", "entra_replace_work_email", "entra_replace_employee_number", "entra_add_members"):
        for result in [r for r in results if r.title == title]:
            assert result.status is Status.DEVIATION and "answered 400" in result.reason, result.reason
            assert re.search(
                r'The same change as the RFC spells it passes\. Entra ID\'s request differs in op "(Replace|Add|Remove)" \(RFC: "(replace|add|remove)"\)\. ',
                result.reason,
            )
            assert result.reason.endswith(CAPITALISED), result.reason
    # The RFC's spelling of the disabling differs in both: both are named.
    [disable] = reasons(results, "entra_disable_user")
    assert (
        'differs in op "Replace" (RFC: "replace"), value "False" (RFC: false). Entra sends active as the string "False" by default (and a capitalised op)'
        in disable
    )


def test_false_as_a_string_refused_is_a_deviation_of_entra_disable_user_only(serve):
    def refuse_strings(op: dict) -> dict:
        return {**op, "value": "not a boolean"} if op.get("value") == "False" else op

    server = serve(Broken(make_app()).rewrite_request_json("PATCH", RESOURCES, lambda body: operations(body, refuse_strings)))
    results = run(server.url)
    entra = f"NOT READY for Entra ID: 4 of 14 steps block: entra_disable_user (User) refused, {ENTRA_BLOCKS}."
    assert_idp_run(server, results, set(), entra, blocks={("entra_disable_user", "User")})
    [disable] = reasons(results, "entra_disable_user")
    assert 'The same change as the RFC spells it passes. Entra ID\'s request differs in op "Replace" (RFC: "replace"), value "False" (RFC: false).' in disable


def _no_match_is_404(response):
    status, headers, body = response
    return (404, SCIM_JSON, scim_error(404, "no such user")) if status == 200 and json.loads(body).get("totalResults") == 0 else response


def test_a_filter_without_match_answered_404_blocks_entra_okta_tolerates_it(serve):
    server = serve(Broken(make_app()).rewrite("GET", USERS, _no_match_is_404))
    results = run(server.url)
    entra = f"NOT READY for Entra ID: 4 of 14 steps block: entra_test_connection (User) refused, {ENTRA_BLOCKS}."
    okta = "READY for Okta: all 10 steps passed (7 left out by the run's selection); 1 with a deviation the provider tolerates."
    assert_idp_run(server, results, set(), entra, okta, blocks={("entra_test_connection", "User")})
    [connection] = [r for r in results if r.title == "entra_test_connection"]
    assert connection.status is Status.DEVIATION
    assert connection.reason.endswith(
        "answered 404: Entra ID reads any other answer as a failed test connection, but RFC 7644 §3.4.2 answers "
        "a query matching nothing with 200 and totalResults 0."
    )
    [lookup] = [r for r in results if r.title == "okta_lookup_missing_user"]
    assert lookup.status is Status.DEVIATION and "answered 404: Okta reads it as no match, but RFC 7644 §3.4.2" in lookup.reason


def _member_removal(change):
    def rewrite(op: dict) -> dict:
        return change(op) if op["op"] == "Remove" and op.get("path") == "members" and "value" in op else op

    return lambda body: operations(body, rewrite)


@pytest.mark.parametrize(
    ("change", "words", "status"),
    [
        # Ignored: read as adding members the group holds already; the RFC's removal passes.
        (lambda op: {**op, "op": "add"}, "still holds the member(s)", Status.DEVIATION),
        # Applied to every member: read as removing the whole attribute; the RFC's removal then fails too.
        (lambda op: {"op": "remove", "path": "members"}, "lacks the member(s)", Status.ERROR),
    ],
    ids=["ignored", "applied-to-all"],
)
def test_remove_members_with_a_value_ignored_or_applied_to_all_blocks_entra(serve, change, words, status):
    server = serve(Broken(make_app()).rewrite_request_json("PATCH", r"/v2/Groups/[^/]+", _member_removal(change)))
    results = run(server.url)
    removal = ("entra_remove_member", "Group")
    how = "refused" if status is Status.DEVIATION else "failed"
    entra = (
        f"NOT READY for Entra ID: 3 of 14 steps block: entra_set_manager (User) refused, entra_create_group (Group) refused, entra_remove_member (Group) {how}."
    )
    assert_idp_run(server, results, {removal} if status is Status.ERROR else set(), entra)
    [result] = [r for r in results if r.title == "entra_remove_member"]
    assert result.status is status and result.reason.startswith("Remove members with a value: a GET after the 204 answer") and words in result.reason
    assert ("The same change as the RFC spells it passes" in result.reason) is (status is Status.DEVIATION)


def _without_inactive(body: dict) -> dict:
    if "Resources" not in body:
        return body
    active = [resource for resource in body["Resources"] if resource.get("active") is not False]
    return {**body, "Resources": active, "totalResults": len(active), "itemsPerPage": len(active)}


def test_a_disabled_user_hidden_from_filters_blocks_entra(serve):
    server = serve(Broken(make_app()).rewrite_json("GET", USERS, _without_inactive))
    results = run(server.url)
    entra = (
        "NOT READY for Entra ID: 4 of 14 steps block: entra_set_manager (User) refused, entra_disabled_user_found (User) refused, "
        "entra_create_group (Group) refused, entra_remove_member (Group) refused."
    )
    assert_idp_run(server, results, set(), entra, blocks={("entra_disabled_user_found", "User")})
    read, found = [r for r in results if r.title == "entra_disabled_user_found"]
    assert read.status is Status.SUCCESS and found.status is Status.DEVIATION
    assert re.fullmatch(
        r'GET /v2/Users\?filter=userName eq "scim-tui-\w+@example.com" answered no resource: RFC 7643 §4\.1\.1 leaves what active means .*', found.reason
    )


def test_start_index_and_count_ignored_fail_okta_test_connection(serve):
    ignoring = Broken(make_app()).rewrite_query("GET", USERS, lambda query: {k: v for k, v in query.items() if k not in ("startIndex", "count")})
    server = serve(ignoring)
    results = run(server.url)
    assert_idp_run(
        server, results, {("okta_test_connection", "User")}, ENTRA_NOT_READY, "NOT READY for Okta: 1 of 10 steps block: okta_test_connection (User) failed."
    )
    [connection] = reasons(results, "okta_test_connection")
    assert re.fullmatch(r"GET /v2/Users\?startIndex=1&count=2 answered \d+ users: count is ignored \(RFC 7644 §3\.4\.2\.4\)\.", connection)


def test_patch_without_a_path_refused_is_the_servers_rfc_fault(serve):
    """A replace without a path is the RFC's own (§3.5.2.3, SHALL): refused, it fails Okta's steps and
    Entra's dotted keys by the RFCs too, even where a path-given replace passes."""

    def refuse(op: dict) -> dict:
        return op if "path" in op else {**op, "op": "unknown-without-path"}

    server = serve(Broken(make_app()).rewrite_request_json("PATCH", RESOURCES, lambda body: operations(body, refuse)))
    results = run(server.url)
    entra = (
        "NOT READY for Entra ID: 4 of 14 steps block: entra_replace_dotted_keys (User) failed, entra_set_manager (User) refused, "
        "entra_create_group (Group) refused, entra_remove_member (Group) refused."
    )
    okta = "NOT READY for Okta: 2 of 10 steps block: okta_deactivate_user (User) failed, okta_rename_group (Group) failed."
    assert_idp_run(server, results, {("entra_replace_dotted_keys", "User"), ("okta_deactivate_user", "User"), ("okta_rename_group", "Group")}, entra, okta)
    deactivated, read = [r for r in results if r.title == "okta_deactivate_user"]
    assert (
        deactivated.status is Status.ERROR
        and 'The same change as the RFC spells it passes. Okta\'s request differs in value {"active": false} (RFC: false), path absent (RFC: "active").'
        in deactivated.reason
    )
    assert deactivated.reason.endswith("so the refusal is the server's fault by the RFC too.")
    assert read.status is Status.SUCCESS, "the path-given deactivation tried to tell the cause did deactivate the user"


def test_the_compliant_dialect_is_a_tag_of_its_own(serve):
    server = serve(make_app())
    results = run(server.url, exclude_tags={"idp:entra:compliant", GALLERY, OIN})
    assert {r.title for r in results if "idp:entra:compliant" in r.tags and r.status is Status.SKIPPED} == {
        "entra_disable_user_boolean",
        "entra_replace_dotted_keys",
        "entra_remove_member_filter",
    }
    assert verdict(results, "entra").reason == f"NOT READY for Entra ID: 3 of 11 steps block: {ENTRA_BLOCKS}."
    assert stored(server.url) == []


def test_a_server_without_groups_skips_the_group_steps_and_is_not_ready(serve):
    from scim2_server.utils import load_default_resource_types

    users_only = [rt for rt in load_default_resource_types().values() if rt.name == "User"]
    server = serve(make_app(resource_types=users_only))
    results = run(server.url)
    groups = [r for r in results if "idp" in r.tags and r.resource_type == "Group" and not r.deselected]
    assert groups and all(r.status is Status.SKIPPED for r in groups)
    assert all(
        r.reason == "Skipped: the server has no resource type of the schema urn:ietf:params:scim:schemas:core:2.0:Group that can be checked." for r in groups
    )
    assert verdict(results, "okta").reason == (
        "NOT READY for Okta: 4 of 10 steps block: okta_create_group (Group) did not run, okta_rename_group (Group) did not run, "
        "okta_update_members (Group) did not run, okta_replace_members (Group) did not run."
    )
    # Left out by the run's own selection, the group steps do not block.
    only_users = run(server.url, resource_types=["User"])
    assert verdict(only_users, "okta").reason == "READY for Okta: all 6 steps passed (11 left out by the run's selection)."
    assert stored(server.url, "/Users") == []


def test_a_verdict_run_again_runs_again_every_step_it_judges(serve):
    """Rerunning what failed names the verdict and the failed steps: the verdict is given on all its steps again."""
    server = serve(make_app())
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(), only={CheckId("okta_readiness"), CheckId("okta_test_connection", "User")}))
    assert {r.title for r in results} == {r.name for r in all_checkers() if "idp:okta" in r.tags}
    # Okta's OIN suites run with it: the server, asking for no credential, fails the SPEC suite's 401.
    assert verdict(results, "okta").reason == "NOT READY for Okta: 1 of 17 steps block: okta_spec_test (User) unsupported."
    assert stored(server.url) == []


def test_counts_answered_as_strings_fail_the_steps_reading_lists(serve):
    def strings(body: dict) -> dict:
        return {**body, "totalResults": str(body["totalResults"])} if "totalResults" in body else body

    server = serve(Broken(make_app()).rewrite_json("GET", USERS, strings))
    results = run(server.url)
    lists = [r for r in results if r.status.failed and not r.title.endswith("_readiness")]
    assert {r.title for r in lists} == {
        "entra_test_connection",
        "entra_create_user",
        "entra_disabled_user_found",
        "okta_test_connection",
        "okta_lookup_missing_user",
        "okta_create_user",
        "okta_import_users",
    }
    assert all(re.search(r'answered "totalResults": "\d+", a JSON string instead of a JSON integer \(RFC 7644 §3\.4\.2\)', r.reason) for r in lists), [
        r.reason for r in lists
    ]
    assert stored(server.url) == []


class RefusesShape(Middleware):
    """Answers 400 to a request carrying one shape only a provider sends (`refused(method, path,
    body)`), as servers built for the RFC alone do; everything else goes to the application."""

    def __init__(self, app, refused):
        super().__init__(app)
        self.refused = refused

    def intercept(self, environ):
        body = _json_body(environ)
        if self.refused(environ["REQUEST_METHOD"], environ.get("PATH_INFO", ""), body if isinstance(body, dict) else {}):
            return 400, SCIM_JSON, scim_error(400, "this server does not take that shape")
        return None


def _ops(method: str, body: dict) -> list[dict]:
    return [op for op in body.get("Operations", []) if isinstance(op, dict)] if method == "PATCH" else []


SHAPES = {
    "capitalised op": (
        "entra",
        lambda m, p, b: any(op.get("op") != str(op.get("op")).lower() for op in _ops(m, b)),
        {
            "entra_capitalised_ops",
            "entra_disable_user",
            "entra_replace_work_email",
            "entra_replace_employee_number",
            "entra_set_manager",
            "entra_add_members",
            "entra_remove_member",
        },
    ),
    'active "False"': ("entra", lambda m, p, b: any(op.get("value") == "False" for op in _ops(m, b)), {"entra_disable_user"}),
    'path "manager"': ("entra", lambda m, p, b: any(op.get("path") == "manager" for op in _ops(m, b)), {"entra_set_manager"}),
    "group's second URN": ("entra", lambda m, p, b: m == "POST" and ENTRA_GROUP in b.get("schemas", []), {"entra_create_group"}),
    "member removed by value": (
        "entra",
        lambda m, p, b: any(str(op.get("op")).lower() == "remove" and op.get("path") == "members" and "value" in op for op in _ops(m, b)),
        {"entra_remove_member"},
    ),
    "dotted keys": (
        "entra",
        lambda m, p, b: any("path" not in op and any("." in key and not key.startswith("urn:") for key in op.get("value", {})) for op in _ops(m, b)),
        {"entra_replace_dotted_keys"},
    ),
    "id in a replace": ("okta", lambda m, p, b: any("path" not in op and "id" in (op.get("value") or {}) for op in _ops(m, b)), {"okta_rename_group"}),
}
"""Each shape only a provider sends: the provider, how a request carrying it is told, the steps it blocks."""


@pytest.mark.slow
@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_server_refusing_one_provider_only_shape_deviates_and_makes_that_provider_not_ready(serve, tmp_path, shape):
    """On a server speaking every provider's dialect but one shape: the steps sending it are DEVIATIONs
    (the RFC's spelling passes), the provider is NOT READY naming them, a plain run exits 0, and a run
    requiring that provider exits 1."""
    provider, refused, steps = SHAPES[shape]
    server = serve(RefusesShape(entra_speaking(make_app()), refused))
    report = tmp_path / "report.json"
    plain = scim_tui_here("check", "--url", server.url, "--include-tags", f"idp:{provider}", "--format", "json", "--output", str(report))
    assert plain.returncode == 0, plain.stdout[-2000:]
    results = [r for r in json.loads(report.read_text())["results"] if f"idp:{provider}" in r["tags"] and not {GALLERY, OIN} & set(r["tags"])]
    blocked_steps = {r["title"] for r in results if r["status"] not in ("SUCCESS", "SKIPPED") and not r["title"].endswith("_readiness")}
    assert blocked_steps == steps and all(r["status"] in ("SUCCESS", "DEVIATION") for r in results), [(r["title"], r["status"], r["reason"]) for r in results]
    [verdict] = [r for r in results if r["title"] == f"{provider}_readiness"]
    assert verdict["status"] == "DEVIATION" and verdict["reason"].startswith("NOT READY for ")
    apart = {checker.name for checker in all_checkers() if {GALLERY, OIN} & checker.tags}
    named = set(re.findall(r"(\w+) \(\w+\) refused", verdict["reason"])) - apart
    assert named == steps or (len(named) == 6 and named < steps and verdict["reason"].endswith(f"and {len(steps) - 6} more.")), verdict["reason"]
    required = scim_tui_here("check", "--url", server.url, "--include-tags", f"idp:{provider}", "--require-ready", provider)
    assert required.returncode == 1, required.stdout[-2000:]
    assert stored(server.url) == []


def _idp_verdicts(results) -> Counter:
    return Counter((r.title, r.resource_type, r.status, bool(blocking(r))) for r in results if "idp" in r.tags)


@pytest.mark.parametrize("name", ["PATCH unsupported, said", "filter unsupported, said"])
def test_a_feature_the_server_says_it_lacks_makes_providers_not_ready_without_rfc_errors(serve, name):
    """The ServiceProviderConfig says PATCH (or filter) is not supported: the steps needing it give
    no RFC ERROR, and each provider is NOT READY, naming them as unsupported."""
    server = serve(PERSONALITIES[name].app())
    results = run(server.url)
    assert failing(results) == set(), [(r.title, r.reason) for r in results if r.status.failed]
    unsupported = [r for r in results if blocking(r) == "unsupported"]
    assert unsupported and all(r.status is Status.SKIPPED for r in unsupported)
    feature = "patch" if name.startswith("PATCH") else "filter"
    judged = [r for r in unsupported if r.reason.startswith("Not judged")]
    assert judged and all(r.reason.startswith(f"Not judged: the ServiceProviderConfig says {feature} is not supported") for r in judged), judged
    for provider in ("entra", "okta"):
        said = verdict(results, provider)
        assert said.status is Status.DEVIATION and said.reason.startswith("NOT READY for") and " unsupported" in said.reason, said.reason
    assert stored(server.url) == []


def test_a_server_ignoring_filter_gives_the_same_readiness_at_one_and_four_jobs(serve):
    """Each step that filters makes a resource of its own the filter must leave out: what the run's
    other checks hold at the time changes nothing."""
    one, four = (run(serve(PERSONALITIES["filter ignored"].app()).url, jobs=jobs) for jobs in (1, 4))
    assert _idp_verdicts(one) == _idp_verdicts(four)
    assert verdict(one, "entra").reason == verdict(four, "entra").reason and verdict(one, "okta").reason == verdict(four, "okta").reason
    assert "entra_test_connection (User) failed" in verdict(one, "entra").reason


def test_a_group_created_without_its_members_is_not_blamed_on_the_member_removal(serve):
    """Providers create a group, then add its members by PATCH: a server that drops members sent at
    creation is as ready as scim2-server."""
    server = serve(PERSONALITIES["members ignored on create"].app())
    results = run(server.url)
    assert_idp_run(server, results, set(), ENTRA_NOT_READY)
    [removal] = reasons(results, "entra_remove_member")
    assert "lacks" not in removal


def test_creations_answered_200_are_one_finding_each_that_blocks_no_provider_and_hides_no_refusal(serve):
    """RFC 7644 §3.3: a creation SHALL be answered 201; identity providers read a 200 with the
    resource as created all the same. Each creation step says so (an ERROR that blocks nothing);
    a provider's shape the server refuses is still the DEVIATION it is on scim2-server (its RFC
    spelling answered 200 is taken), and every readiness verdict and every gallery phase after a
    creation stay as on scim2-server."""
    selection = {"include_tags": {"idp"}, "exclude_tags": set()}
    plain, answered_200 = (run(serve(app).url, **selection) for app in (make_app(), PERSONALITIES["created with 200"].app()))
    assert {(r.title, r.resource_type) for r in answered_200 if r.status is Status.DEVIATION} == {
        (r.title, r.resource_type) for r in plain if r.status is Status.DEVIATION
    }
    assert [(r.title, r.reason) for r in answered_200 if r.title.endswith("_readiness")] == [
        (r.title, r.reason) for r in plain if r.title.endswith("_readiness")
    ]
    [scim11] = [r for r in answered_200 if r.title == "onelogin_scim11_schema"]
    assert "The same change as the RFC spells it is taken (POST /v2/Users with OneLogin's body answered 200 instead of 201 Created" in scim11.reason, (
        scim11.reason
    )
    new_errors = [r for r in answered_200 if r.status.failed]
    assert new_errors and all("answered 200 instead of 201 Created" in r.reason and blocking(r) is None for r in new_errors), [
        (r.title, r.reason) for r in new_errors
    ]
    skipped = Counter(r.title for r in answered_200 if r.status is Status.SKIPPED)
    assert skipped == Counter(r.title for r in plain if r.status is Status.SKIPPED)


def test_every_provider_a_run_can_require_has_a_verdict():
    assert {name.removesuffix("_readiness") for name in verdict_names()} == set(PROVIDERS)


@pytest.mark.parametrize("jobs", [1, 4])
def test_the_users_made_to_be_members_are_shared_by_the_checks_of_a_provider(serve, jobs):
    """Entra's three membership steps each need two users in a group: the run makes two, once, as
    Entra creates them (a membership is the group's, so no step writes to them), and the last step
    deletes them (references.py); each step keeps its verdict (RFC 7644 §3.5.2)."""
    app = make_app()
    users: list[str] = []

    def counting(environ, start_response):
        if environ["REQUEST_METHOD"] == "POST" and environ.get("PATH_INFO") == "/v2/Users":
            users.append("POST /v2/Users")
        return app(environ, start_response)

    server = serve(counting)
    only = {CheckId(name, "Group") for name in ("entra_add_members", "entra_remove_member", "entra_remove_member_filter")}
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(jobs=jobs), only=only))
    assert len(users) == 2, users
    assert {(r.title, r.status) for r in results if r.title in {c.checker for c in only}} == {
        ("entra_add_members", Status.SUCCESS),
        ("entra_remove_member", Status.DEVIATION),  # scim2-server takes only the RFC's filtered removal
        ("entra_remove_member_filter", Status.SUCCESS),
    }
    assert stored(server.url) == []


def test_entra_looks_a_user_up_by_the_values_it_sent(serve):
    """A server keeping no externalId answers the creation without one: Entra still looks the user
    up by the externalId it sent (not by the empty text the answer gave, `externalId eq ""`), and
    the step failing says why."""
    server = serve(ExternalIdIgnored(make_app()))
    with make_client(server.url) as scim:
        [creation, by_name, by_external_id] = list(iter_checks(scim, CheckConfig(), only={CheckId("entra_create_user", "User")}))
    sent = json.loads(creation.exchanges[0].request_body)
    assert creation.status is Status.SUCCESS and by_name.status is Status.SUCCESS, (creation.reason, by_name.reason)
    assert by_external_id.status is Status.ERROR
    assert f'GET /v2/Users?filter=externalId eq "{sent["externalId"]}" answered []' in by_external_id.reason, by_external_id.reason
    assert by_external_id.reason.endswith(
        "alone: the server answered the User[EnterpriseUser] without externalId (it keeps none), and Entra ID looks it up by that attribute."
    ), "the readiness's failing step says why"
    assert stored(server.url) == []
