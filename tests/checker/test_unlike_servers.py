"""Every check on servers built unlike scim2-server (tests/support/unlike.py): what the run finds is the
server's doing, never the run's own plumbing. On each server, the checks that fail beyond those
that fail on scim2-server itself are exactly the server's real faults; the same server gives
the same verdicts at --jobs 1 and --jobs 4; the run leaves nothing behind (or names, once
each, what the server would not delete); and no identity provider's step is an ERROR for a cause
another check reports: it is SKIPPED naming it, and the provider's readiness names it too. The
interoperability profile's checks (opt-in) run apart on each server, held to the same rule."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.checker.causes import cause_of
from scim_tui.checker.registry import verdict_names
from scim_tui.demo import make_app
from scim_tui.net.connect import open_client
from scim_tui.store.profiles import Profile
from tests.support.bystanders import run_leftovers
from tests.support.unlike import PERSONALITIES
from tests.support.unlike import Personality

pytestmark = pytest.mark.slow  # whole runs

JUDGED_ELSEWHERE = frozenset({"resource_type_tests"})
"""Summaries: they fail when a check they sum up fails."""

REAL_FAULTS: dict[str, set[str]] = {
    "sw unsupported": set(),
    "emails required": set(),
    "locations by userName": set(),
    "immutable displayName": set(),
    "full-path endpoints": {"resource_type_documents"},
    "RFC schema name": set(),
    "members ignored on create": set(),
    "filter ignored": {"filter_operators", "filter_invalid"},
    "replay body beyond the schema": set(),
    # A resource deleted, deleted again: "MUST return a 404 (Not Found) error code for all operations
    # associated with the previously deleted resource" (RFC 7644 §3.6).
    "soft delete": {"object_deletion", "not_found_writes"},
    "referenced resources kept": set(),
    "duplicates accepted": {"creation_errors"},
    "PATCH 501 though claimed": {"check_add_attribute"},
    "PATCH unsupported, said": set(),
    "filter unsupported, said": set(),
    "connection dropped after a 500": {"creation_errors"},
    # Two Groups with one displayName (nothing declares it unique) must be created, or refused as a
    # conflict: "the service provider MUST return HTTP status code 409 (Conflict)" (RFC 7644 §3.3).
    "same displayName crashes": {"creation_errors"},
    # "When the service provider successfully creates the new resource, an HTTP response SHALL be
    # returned with HTTP status code 201 (Created)" (RFC 7644 §3.3): one finding, every other check runs.
    "created with 200": {"object_creation"},
    "only eq filters": set(),
    # 308 Permanent Redirect from /v2/Users to /v2/Users/: the run repeats each request there.
    "collections redirected": set(),
    # A User refused without name, though /Schemas declares it optional: object_creation's DEVIATION,
    # and check_remove_attribute's for removing it (RFC 7644 §3.5.2.2); no ERROR.
    "name required": set(),
    # A store without an externalId: each creation answered without it. The checks that write it and
    # read it back say the server keeps none (creations.py) and judge the rest; Entra's lookup by the
    # externalId it sent and Microsoft's replace of it fail, which their readiness names.
    "externalId ignored": set(),
    # Filters on four attributes only: a value filter or meta.lastModified gt is "the specified attribute
    # and filter comparison combination is not supported" (RFC 7644 §3.12, Table 9): ACCEPTABLE.
    "filters on few attributes": set(),
    "phone numbers made canonical": set(),
    "users only": set(),
    # "The response body SHOULD contain the service provider's representation of the newly created
    # resource" (RFC 7644 §3.3): object_creation's DEVIATION; the run reads each resource at its Location.
    "created without a body": set(),
    "PATCH answers 204": set(),
    "sequential ids": set(),
    "word ids": set(),
    # "id ... Each representation of the resource MUST include a non-empty "id" value" of type string
    # (RFC 7643 §3.1, §2.3.1): one finding per resource type; the run reads an id number as its text.
    "ids as numbers": {"object_creation"},
    "message names in lower case": set(),
    "members returned on request": set(),
    "userNames are email addresses": set(),
    # "Implementers MUST support HTTP PUT" (RFC 7644 §3.5): one finding; the checks of what a PUT
    # carries (null, an empty body, another id, lastModified) are SKIPPED naming it.
    "PUT refused": {"object_replacement"},
    # "a successful PUT operation returns a 200 OK response code and the entire resource" (RFC 7644
    # §3.5.1): one finding; lastModified is read back after it, the providers' PUTs are SKIPPED naming it.
    "PUT answers 204": {"object_replacement"},
    # "Operations ... an array of one or more PATCH operations" (RFC 7644 §3.5.2): the one check that
    # needs several in one request fails; the others send theirs one at a time once several are refused.
    "one operation per PATCH": {"patch_operations_in_order"},
    # "A service provider MAY return fewer results than count" (RFC 7644 §3.4.2.4): a list read in
    # pages of five holds the run's resources all the same; Okta's imports, which step startIndex by
    # the 100 they ask for, lose users there: its readiness says so (tests/checker/test_idp_oin.py).
    "pages capped at 5": set(),
    "pages capped at 5, said": set(),
    # Pages of two, fewer than the three resources the filter, sort and pagination checks list: they
    # read on (narrowing.whole_list); Microsoft's pagination steps by five as its test does.
    "pages of two": set(),
    # Locations naming the proxy's public URL: under another path on another origin, no GET from
    # here can check them, and they are not judged; under the same path, they pass as the server's.
    "behind a proxy at another path": set(),
    "behind a proxy at the same path": set(),
    "relative locations": set(),
    # "the URI of the created resource ... SHALL be in both the "Location" header and the meta
    # attribute" (RFC 7644 §3.3), and meta's resourceType, created, lastModified and location are the
    # service provider's (RFC 7643 §3.1): one finding each; a $ref the run sends is the resource's URL.
    "no meta": {"http_headers", "resource_metadata"},
    # POST .search is a client's MAY (RFC 7644 §3.4.3): answered 404, its checks are SKIPPED, never failed.
    "no POST .search": set(),
    # A member is its "value"; $ref, type and display are "required": false (RFC 7643 §8.7.1).
    "members as ids only": set(),
    # RFC 7643 sets no length; a store's column does. Every value the run makes up fits in 40 (filling.LONGEST).
    "strings of 40 characters at most": set(),
    # Queries answered from an index that lags behind the store (RFC 7644 sets no time within which a
    # query shows a write): each list lacking the run's new resource, or holding its deleted one, is
    # asked again before it is judged (lag.py).
    "lists lag behind writes": set(),
}
"""The checks each server really fails, beyond those scim2-server fails (ERROR or CRITICAL).
The identity providers' steps are judged by their readiness (tests/checker/test_idp.py), not here."""


def _failing(results: list[CheckResult]) -> set[str]:
    return {r.title or "" for r in results if r.status.failed and r.title not in JUDGED_ELSEWHERE and "idp" not in r.tags}


def _verdicts(results: list[CheckResult]) -> Counter[tuple[Any, ...]]:
    return Counter((r.title, r.resource_type, r.status) for r in results)


def _run(personality: Personality, config: CheckConfig) -> tuple[list[CheckResult], list[dict]]:
    """A run on a server of that personality, and what was left on it."""
    server = personality.start()
    try:
        with open_client(Profile(name="unlike", url=server.url, timeout=10)) as connection:
            results = list(iter_checks(connection.client, config))
        return results, run_leftovers(server.url)
    finally:
        server.stop()


@pytest.fixture(scope="module")
def runs() -> dict[tuple[str, int], tuple[list[CheckResult], list[dict]]]:
    """Each server's results at one and at four jobs, with what was left on it; made once."""
    return {(name, jobs): _run(personality, CheckConfig(jobs=jobs)) for name, personality in PERSONALITIES.items() for jobs in (1, 4)}


@pytest.fixture(scope="module")
def baseline(full_run) -> set[str]:
    return _failing(full_run)


@pytest.mark.parametrize("name", list(PERSONALITIES))
def test_only_the_servers_real_faults_fail(runs, baseline, name):
    results, _left = runs[name, 1]
    failing = _failing(results)
    beyond = failing - baseline
    assert beyond == REAL_FAULTS[name], [(r.resource_type, r.title, r.reason) for r in results if r.title in beyond ^ REAL_FAULTS[name] and r.status.failed]


BLINDING_NOTHING: dict[str, frozenset[str]] = {
    "emails required": frozenset(),
    "userNames are email addresses": frozenset(),
    "created with 200": frozenset(),
    # The projection of a creation's answer: there is none to judge.
    "created without a body": frozenset({"attribute_projection"}),
    "sequential ids": frozenset(),
    "word ids": frozenset(),
    "ids as numbers": frozenset(),
    "message names in lower case": frozenset(),
    "members returned on request": frozenset(),
    "PATCH answers 204": frozenset(),
    # The projection of a PUT's answer: there is none to judge.
    "PUT answers 204": frozenset({"attribute_projection"}),
    "immutable displayName": frozenset(),
    "one operation per PATCH": frozenset(),
    "filters on few attributes": frozenset(),
    # Sorting needs its three resources listed alone, and pr needs them to tell one with an externalId
    # from two without: a filter of sw, or, and (refused); pagination judges startIndex and
    # totalResults on the one an eq lists.
    "only eq filters": frozenset({"sort_order", "filter_operators"}),
    "phone numbers made canonical": frozenset(),
    "collections redirected": frozenset(),
    "name required": frozenset(),
    # No meta.lastModified to compare after a write, or to filter on with gt, ge, lt and le.
    "no meta": frozenset({"resource_metadata", "filter_operators"}),
    # The searches are what the server does not offer: nothing to judge there.
    "no POST .search": frozenset({"search_with_attributes", "attribute_projection"}),
    "members as ids only": frozenset(),
    "strings of 40 characters at most": frozenset(),
    "lists lag behind writes": frozenset(),
}
"""Servers whose policy or fault leaves every check able to run: the run adapts to the policy,
and the fault is one finding. What each skips, scim2-server skips too, but the checks named here,
one of whose requests the fault leaves nothing to judge."""


def _skipped(results: list[CheckResult]) -> set[tuple[str | None, str | None]]:
    return {(r.title, r.resource_type) for r in results if r.status is Status.SKIPPED and "idp" not in r.tags}


@pytest.mark.parametrize("name", BLINDING_NOTHING)
def test_a_servers_policy_blinds_no_check(runs, full_run, name):
    results, _left = runs[name, 1]
    beyond = {(title, kind) for title, kind in _skipped(results) - _skipped(full_run) if title not in BLINDING_NOTHING[name]}
    assert not beyond, sorted((r.resource_type, r.title, r.reason) for r in results if (r.title, r.resource_type) in beyond)


@pytest.mark.parametrize("name", list(PERSONALITIES))
def test_the_same_server_gives_the_same_verdicts_at_one_and_four_jobs(runs, name):
    one, four = (_verdicts(runs[name, jobs][0]) for jobs in (1, 4))
    assert one == four, {key: (one[key], four[key]) for key in one.keys() | four.keys() if one[key] != four[key]}


@pytest.mark.parametrize("name", list(PERSONALITIES))
def test_nothing_is_left_but_what_the_server_keeps_and_that_is_named_once(runs, name):
    for jobs in (1, 4):
        results, left = runs[name, jobs]
        reported = [item for result in results for item in result.leftovers]
        assert len(reported) == len(set(reported)), f"each leftover is named once: {Counter(reported).most_common(3)}"
        still_there = {f"{resource['id']}" for resource in left}
        assert {item.rsplit("/", 1)[-1].split(" ")[0] for item in reported} >= still_there, (jobs, still_there, reported[:5])


@pytest.mark.parametrize("name", list(PERSONALITIES))
def test_no_provider_step_is_an_error_for_a_cause_another_check_reports(runs, name):
    results, _left = runs[name, 1]
    reported = {r.cause for r in results if r.status.failed and r.cause and "idp" not in r.tags}
    again = [(r.title, r.reason) for r in results if "idp" in r.tags and r.status.failed and cause_of(r) in reported]
    assert again == []
    met = {r.cause for r in results if "idp" in r.tags and r.cause in reported}
    not_ready = [r.reason or "" for r in results if r.title in verdict_names() and (r.reason or "").startswith("NOT READY")]
    assert all(any(f"Cause: {cause}" in reason or f"; {cause}" in reason for reason in not_ready) for cause in met), (met, not_ready)


INTEROP = CheckConfig(include_tags={"profile:interop"})
INTEROP_FAULTS: dict[str, set[str]] = {
    "filter ignored": {"interop_unknown_names"},  # a filter on an unknown attribute answered with a list
    "soft delete": {"interop_lifecycle"},  # "a successful DELETE request MUST result in the resource being deleted"
    "duplicates accepted": {"interop_operations"},  # a taken userName created again, not 409 uniqueness
    "PATCH 501 though claimed": {"interop_operations"},  # a PATCH with a taken userName answered 501, not 409
    "pages of two": {"interop_operations"},  # count=100 answered with two of four: the profile makes count a MUST
}
"""The interoperability profile's checks each server fails more often than scim2-server (which claims
no conformance, declares no canonicalValues and takes a PATCH without a path); none for the others."""


@pytest.fixture(scope="module")
def interop_runs() -> dict[str, tuple[list[CheckResult], list[dict]]]:
    """The profile's checks (opt-in) on scim2-server (None) and on each server, made once."""
    return {None: _run(Personality(make_app), INTEROP)} | {name: _run(personality, INTEROP) for name, personality in PERSONALITIES.items()}


def _failures(results: list[CheckResult]) -> Counter[str]:
    return Counter(r.title or "" for r in results if r.status.failed)


@pytest.mark.parametrize("name", list(PERSONALITIES))
def test_the_interop_profile_fails_only_the_servers_real_faults_and_leaves_nothing(interop_runs, name):
    results, left = interop_runs[name]
    baseline = _failures(interop_runs[None][0])
    beyond = {title for title, count in _failures(results).items() if count > baseline[title]}
    assert beyond == INTEROP_FAULTS.get(name, set()), [(r.resource_type, r.reason) for r in results if r.status.failed and r.title in beyond]
    reported = {item.rsplit("/", 1)[-1].split(" ")[0] for result in results for item in result.leftovers}
    assert {resource["id"] for resource in left} <= reported


def test_a_put_answered_without_the_resource_is_one_finding_the_providers_name(runs):
    """object_replacement reports a PUT answered 204; each provider's step sending a PUT is SKIPPED
    naming that cause (blocking its provider), never an ERROR of its own."""
    results, _left = runs["PUT answers 204", 1]
    cause = "PUT /v2/Users/{id} answered 204 without the resource"
    putting = [r for r in results if "idp" in r.tags and any(e.method == "PUT" for e in r.exchanges)]
    assert putting and not [r for r in putting if r.status.failed], [(r.title, r.reason) for r in putting if r.status.failed]
    [pingfederate] = [r for r in results if r.title == "pingfederate_readiness"]
    assert pingfederate.reason.startswith("NOT READY") and cause in pingfederate.reason, pingfederate.reason
