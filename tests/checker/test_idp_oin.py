"""Okta's OIN suites replayed (idp:okta:oin): the SPEC suite, the CRUD lifecycle, the AIW PUT
variants and the Entitlements suite, on scim2-server and on servers that break one of their asserts."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.demo import make_app
from tests.support.command import scim_tui_here
from tests.support.servers import SCIM_JSON
from tests.support.servers import Broken
from tests.support.servers import make_client
from tests.support.servers import scim_error
from tests.support.servers import stored
from tests.support.unlike import PERSONALITIES

OIN = CheckConfig(include_tags={"idp:okta"})
ENTITLEMENT = "urn:okta:scim:schemas:core:1.0:Entitlement"


def run(url: str, **client) -> list:
    with make_client(url, **client) as scim:
        return list(iter_checks(scim, OIN))


def of(results, title: str) -> list:
    return [r for r in results if r.title == title]


def verdict(results):
    [result] = of(results, "okta_readiness")
    return result


def test_scim2_server_passes_every_oin_assert_but_the_401_it_cannot_give_without_credentials(serve):
    server = serve(make_app())
    results = run(server.url)
    oin = [r for r in results if "idp:okta:oin" in r.tags]
    assert not [r for r in oin if r.status.failed], [(r.title, r.reason) for r in oin if r.status.failed]
    [unauthenticated] = [r for r in oin if r.status is Status.SKIPPED and r.blocks]
    assert unauthenticated.reason.startswith("Not judged: GET /v2/Users?filter=… with Authorization: non-token answered 200: the server asks for no credential")
    assert verdict(results).reason == "NOT READY for Okta: 1 of 17 steps block: okta_spec_test (User) unsupported."
    spec = of(results, "okta_spec_test")
    [creation] = [e for r in spec for e in r.exchanges if e.method == "POST"][:1]
    assert creation.request_headers["content-type"] == "application/json" and creation.request_headers.get("user-agent") != "OKTA SCIM Integration"
    reads = [e for r in spec for e in r.exchanges if e.method == "GET" and not (e.note or "").startswith("sent by scim-tui")]  # the run's own: its note says so
    assert all(e.request_headers.get("user-agent") == "OKTA SCIM Integration" for e in reads)
    assert [r.status for r in of(results, "okta_entitlements_test")] == [Status.SKIPPED]
    assert stored(server.url) == []


def test_a_server_that_authenticates_is_ready_for_okta(serve):
    server = serve(make_app(bearer_tokens=["okta-t0ken"]))
    results = run(server.url, headers={"Authorization": "Bearer okta-t0ken"})
    [refused] = [r for r in of(results, "okta_spec_test") if "non-token" in (r.reason or "")]
    assert refused.status is Status.SUCCESS and refused.reason.endswith("answered 401 with a SCIM Error and its detail.")
    assert "okta-t0ken" not in json.dumps([e.to_dict() for e in refused.exchanges]), "the run's own token never leaves with the wrong one"
    assert verdict(results).reason == "READY for Okta: 16 of 17 steps passed, okta_entitlements_test skipped."  # it has no roles to read


def test_a_duplicate_user_accepted_fails_the_spec_suite(serve):
    server = serve(PERSONALITIES["duplicates accepted"].app())
    results = run(server.url)
    [duplicate] = [r for r in of(results, "okta_spec_test") if "same user again" in (r.reason or "")]
    assert duplicate.status is Status.ERROR and "answered 201 instead of 409 (RFC 7644 §3.3" in duplicate.reason


def _without_active(body: dict) -> dict:
    return {k: v for k, v in body.items() if k != "active"}


def test_active_ignored_in_a_put_fails_the_aiw_variant(serve):
    server = serve(Broken(make_app()).rewrite_request_json("PUT", r"/v2/Users/[^/]+", _without_active))
    results = run(server.url)
    deactivated, reactivated = of(results, "okta_user_put_variants")
    assert deactivated.status is Status.ERROR and "holds active = null instead of false" in deactivated.reason
    assert reactivated.status is Status.SKIPPED and reactivated.reason.endswith("Skipped: a phase before it did not pass.")
    assert stored(server.url) == []


def _refusing_an_empty_member_list(body: dict) -> dict:
    empty = any(op.get("path") == "members" and op.get("value") == [] for op in body.get("Operations", []))
    return {**body, "Operations": [{"op": "no-such-op"}]} if empty else body


def test_an_empty_member_list_refused_fails_the_group_push(serve):
    server = serve(Broken(make_app()).rewrite_request_json("PATCH", r"/v2/Groups/[^/]+", _refusing_an_empty_member_list))
    results = run(server.url)
    phases = of(results, "okta_group_lifecycle")
    assert [r.status for r in phases] == [Status.SUCCESS, Status.SUCCESS, Status.SUCCESS, Status.ERROR, Status.SKIPPED, Status.SKIPPED]
    assert phases[3].reason.startswith("empty the member list: PATCH /v2/Groups/") and "answered 400" in phases[3].reason
    assert "okta_group_lifecycle (Group) failed" in verdict(results).reason
    assert stored(server.url) == []


def _entitlements(items_per_page: int):
    resource_type = {
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:ResourceType"],
        "id": "Entitlement",
        "name": "Entitlement",
        "endpoint": "/Entitlements",
        "schema": ENTITLEMENT,
    }
    listing = {
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
        "totalResults": 2,
        "startIndex": 1,
        "itemsPerPage": items_per_page,
        "Resources": [{"id": "admin", "displayName": "Administrator", "type": "role"}],
    }
    add = lambda body: {**body, "Resources": [*body["Resources"], resource_type], "totalResults": body["totalResults"] + 1}  # noqa: E731
    return lambda app: Broken(app).rewrite_json("GET", "/v2/ResourceTypes", add, QUERY_STRING="").answer("GET", "/v2/Entitlements", 200, listing, SCIM_JSON)


def test_the_entitlements_suite_reads_each_endpoint_of_oktas_types(serve):
    good, bad = (serve(_entitlements(count)(make_app())) for count in (1, 2))
    [listed] = of(run(good.url), "okta_entitlements_test")
    assert listed.status is Status.SUCCESS and listed.reason == "GET /v2/Entitlements?count=1&startIndex=1 answered its first entry."
    [wrong] = of(run(bad.url), "okta_entitlements_test")
    assert (
        wrong.status is Status.ERROR and wrong.reason == "GET /v2/Entitlements?count=1&startIndex=1 answered itemsPerPage 2 instead of 1 (RFC 7644 §3.4.2.4)."
    )


def test_a_broken_not_found_answer_fails_the_spec_suite(serve):
    server = serve(Broken(make_app()).answer("GET", "/v2/Users/00919288221112222", 404, b'{"status": "404"}'))
    [missing] = [r for r in of(run(server.url), "okta_spec_test") if "00919288221112222" in (r.reason or "")]
    assert missing.status is Status.ERROR and missing.reason.startswith("GET /v2/Users/00919288221112222 "), missing.reason


def test_scim_errors_without_their_optional_detail_make_okta_not_ready_but_break_no_rfc(serve, tmp_path):
    """RFC 7644 §3.12 leaves "detail" OPTIONAL; Okta's suite reads it: a DEVIATION that blocks Okta, and
    a plain run exits 0 (1 only when it requires Okta)."""
    unknown = r"/v2/Users/(scim-tui-missing-\w+|00919288221112222)"
    server = serve(Broken(make_app(bearer_tokens=["okta-t0ken"])).answer("GET", unknown, 404, scim_error(404, "")))
    results = run(server.url, headers={"Authorization": "Bearer okta-t0ken"})
    detail = [r for r in of(results, "okta_spec_test") if '"detail"' in (r.reason or "")]
    assert [r.status for r in detail] == [Status.DEVIATION, Status.DEVIATION] and all(r.blocks for r in detail), [r.reason for r in detail]
    assert detail[1].reason == (
        'GET /v2/Users/00919288221112222 answered 404 with a SCIM Error without "detail", which RFC 7644 §3.12 leaves optional but Okta\'s suite reads.'
    )
    assert not [r for r in results if "idp:okta:oin" in r.tags and r.status.failed], [(r.title, r.reason) for r in results if r.status.failed]
    assert verdict(results).status is Status.DEVIATION and verdict(results).reason.startswith(
        "NOT READY for Okta: 1 of 17 steps block: okta_spec_test (User) refused"
    )
    with make_client(server.url, headers={"Authorization": "Bearer okta-t0ken"}) as scim:
        required = list(iter_checks(scim, CheckConfig(include_tags={"idp:okta"}, require_ready=frozenset({"okta"}))))
    assert verdict(required).status is Status.ERROR
    env = {"OKTA_TOKEN": "okta-t0ken"}
    command = ("check", "--url", server.url, "--bearer-token-env", "OKTA_TOKEN", "--include-tags", "idp:okta")
    assert scim_tui_here(*command, env=env).returncode == 0
    assert scim_tui_here(*command, "--require-ready", "okta", env=env).returncode == 1
    assert stored(server.url) == []


def test_a_read_user_without_the_optional_values_the_suite_reads_blocks_okta_only(serve):
    """RFC 7643 §4.1: emails are OPTIONAL; Okta's suite reads them on the user it created."""
    server = serve(Broken(make_app()).rewrite_json("GET", r"/v2/Users/[^/]+", _without_emails))
    [read] = [r for r in of(run(server.url), "okta_spec_test") if "has no emails" in (r.reason or "")]
    assert read.status is Status.DEVIATION and read.blocks, read.reason
    assert re.fullmatch(r"GET /v2/Users/\S+ has no emails, which the RFC leaves optional \(RFC 7643 §4\.1\) but Okta's suite reads\.", read.reason)
    assert stored(server.url) == []


def _without_emails(body: dict) -> dict:
    return {key: value for key, value in body.items() if key != "emails"}


SKIPPING = (
    r"GET /v2/(Users|Groups)\?startIndex=1&count=100 answered 5 of the \d+ (users|groups) \(totalResults\){said}: RFC 7644 §3\.4\.2\.4 lets a "
    r"server answer fewer resources than count, but Okta asks for startIndex=101 next whatever a page held \(its SCIM 2\.0 reference: "
    r'"the startIndex becomes startIndex\+100", https://developer\.okta\.com/docs/api/openapi/okta-scim/guides/scim-20\), so its import '
    r"would skip (users|groups) 6 to \d+\."
)


@pytest.mark.parametrize("name", ["pages capped at 5", "pages capped at 5, said"])
def test_pages_smaller_than_count_make_okta_not_ready_without_rfc_errors(serve, name):
    """A server answering 5 resources a page whatever count asks, totalResults honest: RFC 7644
    §3.4.2.4 lets it, but Okta's imports step startIndex by the 100 they ask for (its SCIM 2.0
    reference), so they would skip users and groups. The two imports are a DEVIATION that blocks
    Okta, never an ERROR, alike at one and four jobs: each reads a list of eleven of the run's own."""
    said = r" \(its ServiceProviderConfig says filter\.maxResults 5\)" if name.endswith("said") else ""
    verdicts = []
    for jobs in (1, 4):
        server = serve(PERSONALITIES[name].app())
        with make_client(server.url) as scim:
            results = list(iter_checks(scim, CheckConfig(include_tags={"idp:okta"}, jobs=jobs)))
        assert not [r for r in results if r.status.failed], [(r.title, r.reason) for r in results if r.status.failed]
        imports = [r for r in results if r.status is Status.DEVIATION and r.title in ("okta_import_users", "okta_group_lifecycle")]
        assert [(r.title, r.blocks) for r in imports] == [("okta_import_users", True), ("okta_group_lifecycle", True)]
        assert all(re.fullmatch(SKIPPING.format(said=said), r.reason) for r in imports), [r.reason for r in imports]
        assert "okta_import_users (User) refused, okta_spec_test (User) unsupported, okta_group_lifecycle (Group) refused" in verdict(results).reason
        verdicts.append(Counter((r.title, r.resource_type, r.status) for r in results))
        assert stored(server.url) == []
    assert verdicts[0] == verdicts[1]


def test_a_total_that_overstates_is_not_a_page_okta_skips(serve):
    """totalResults a billion, every user in the first page: the page after the last user holds
    none, so Okta's import loses nothing (what the total says is not the import's to judge)."""
    overstated = Broken(make_app()).rewrite_json("GET", "/v2/Users", lambda body: body | {"totalResults": 10**9} if "Resources" in body else body)
    server = serve(overstated)
    [imported] = of(run(server.url), "okta_import_users")
    assert imported.status is Status.SUCCESS and imported.reason.endswith("each once, the run's 11 among them."), imported.reason
    assert stored(server.url) == []
