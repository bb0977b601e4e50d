"""One cause, one line (causes.py): a feature the ServiceProviderConfig claims that answers 501 on
its first use is one finding of the check that judges it (check_add_attribute for PATCH), every
other check meeting that answer is SKIPPED naming it, whatever the order the checks ran in, and
the reports show the cause once with how many results it explains. A server that says it does
not support a feature gets no ERROR from it."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC
from datetime import datetime
from urllib.parse import unquote

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.demo import make_app
from scim_tui.reports import write_report
from scim_tui.reports.model import RunReport
from tests.support.servers import Broken
from tests.support.servers import Response
from tests.support.servers import make_client
from tests.support.servers import scim_error
from tests.support.servers import stored
from tests.support.unlike import FilterRefused
from tests.support.unlike import Middleware
from tests.support.unlike import SoftDelete
from tests.support.unlike import filter_ignored
from tests.support.unlike import patch_not_implemented
from tests.support.unlike import patch_unsupported_and_said

FAILING_ON_SCIM2_SERVER = {"service_provider_config_document", "attribute_projection", "resource_type_tests"}
"""What scim2-server itself fails (docs/checks.md), and the suites' summaries."""
USERS_PATCH = "PATCH /v2/Users/{id} answered 501"


def checks(url: str, jobs: int) -> list:
    with make_client(url) as scim:
        return list(iter_checks(scim, CheckConfig(jobs=jobs, exclude_tags={"idp"})))


def failed(results: list) -> Counter:
    return Counter((r.resource_type, r.title) for r in results if r.status.failed and r.title not in FAILING_ON_SCIM2_SERVER)


@pytest.fixture(scope="module")
def patch_501_runs() -> dict[int, list]:
    """Every check but the identity providers' on a server claiming PATCH and answering it 501, at one and four jobs."""
    from scim_tui.demo import DemoServer

    runs = {}
    for jobs in (1, 4):
        with DemoServer(patch_not_implemented(make_app())) as server:
            runs[jobs] = checks(server.url, jobs)
            assert stored(server.url) == []
    return runs


@pytest.mark.slow
@pytest.mark.parametrize("jobs", [1, 4])
def test_patch_501_though_claimed_is_one_error_per_resource_type(patch_501_runs, jobs):
    results = patch_501_runs[jobs]
    assert failed(results) == Counter({("User", "check_add_attribute"): 1, ("Group", "check_add_attribute"): 1})
    [judge] = [r for r in results if r.status.failed and r.title == "check_add_attribute" and r.resource_type == "User"]
    assert judge.reason.endswith("answered 501: PATCH is not implemented, though the ServiceProviderConfig claims patch.")
    assert judge.cause == USERS_PATCH
    dependents = [
        r
        for r in results
        if r.resource_type == "User" and r.title in ("patch_errors", "resource_metadata", "patch_without_path", "dangling_member", "resource_versions")
    ]
    skipped = [r for r in dependents if r.cause == USERS_PATCH]
    assert skipped and all(r.status is Status.SKIPPED for r in skipped)
    assert all(
        r.reason == f"Skipped: {USERS_PATCH} (though the ServiceProviderConfig claims patch; check_add_attribute reports it)."
        for r in skipped
        if "earlier step" not in r.reason
    )
    assert all(r.leftovers == [] for r in results)


@pytest.mark.slow
def test_patch_501_gives_the_same_verdicts_at_one_and_four_jobs(patch_501_runs):
    one, four = (Counter((r.resource_type, r.title, r.status, r.cause) for r in patch_501_runs[jobs]) for jobs in (1, 4))
    assert one == four, {key: (one[key], four[key]) for key in one.keys() | four.keys() if one[key] != four[key]}


@pytest.mark.slow
def test_the_reports_show_one_line_per_cause_with_the_results_it_explains(patch_501_runs):
    results = patch_501_runs[1]
    explained = sum(r.cause == USERS_PATCH for r in results)
    report = RunReport.create(results, target="http://127.0.0.1", started_at=datetime.now(UTC), duration=1.0)
    lines = [line for line in write_report(report, "text").splitlines() if line.startswith("Shared cause:")]
    assert [line.split(": ", 2)[1] for line in lines] == [USERS_PATCH, "PATCH /v2/Groups/{id} answered 501"]
    assert lines[0].startswith(f"Shared cause: {USERS_PATCH}: {explained} results of check_add_attribute (User), ")
    assert explained > 50
    markdown = write_report(report, "markdown")
    assert f"## Causes shared by several results (2)\n\n- `{USERS_PATCH}`: {explained} results of check\\_add\\_attribute (User)" in markdown
    saved = RunReport.from_json(write_report(report, "json").encode())
    assert [r.cause for r in saved.results] == [r.cause for r in results]


def test_a_discovery_endpoint_answering_501_to_patch_is_acceptable(serve):
    server = serve(patch_not_implemented(make_app()))
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(jobs=1), only={CheckId("service_provider_config_endpoint_methods")}))
    assert [r.status for r in results] == [Status.SUCCESS, Status.SUCCESS, Status.ACCEPTABLE, Status.SUCCESS]
    assert results[2].reason == (
        "PATCH /v2/ServiceProviderConfig answered 501 Not Implemented, which a server that does not implement PATCH at all may answer: "
        '"Service provider does not support the request operation, e.g., PATCH" (RFC 7644 §3.12, Table 8).'
    )


def test_a_500_on_the_first_use_skips_the_checks_meeting_it_after_its_judge(serve):
    server = serve(Broken(make_app()).answer("PATCH", "/v2/Groups/.*", 500, scim_error(500, "no patching today")))
    with make_client(server.url) as scim:
        results = [r for r in iter_checks(scim, CheckConfig(jobs=4, resource_types=["Group"], include_tags={"crud:update", "patch"})) if not r.deselected]
    judge = [r for r in results if r.title == "check_add_attribute"]
    assert judge and all(r.status is Status.ERROR and r.cause == "PATCH /v2/Groups/{id} answered 500" for r in judge)
    others = [r for r in results if r.title in ("check_remove_attribute", "check_replace_attribute", "patch_filtered_remove", "patch_without_path")]
    assert others and all(r.status is Status.SKIPPED and r.cause == "PATCH /v2/Groups/{id} answered 500" for r in others)
    assert stored(server.url) == []


def test_without_its_judge_a_check_meeting_a_failed_feature_keeps_its_verdict(serve):
    server = serve(patch_not_implemented(make_app()))
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(jobs=1), only={CheckId("patch_errors", "User")}))
    assert all(r.status is Status.ERROR and "answered 501" in r.reason for r in results)
    assert stored(server.url) == []


@pytest.mark.parametrize("app", [patch_unsupported_and_said, FilterRefused], ids=["PATCH", "filter"])
def test_a_feature_said_unsupported_gives_no_error(serve, app):
    server = serve(app(make_app()))
    results = checks(server.url, jobs=4)
    assert failed(results) == Counter()
    assert stored(server.url) == []


class FilterNotImplemented(FilterRefused):
    """Answers a filtered list 501, though its ServiceProviderConfig claims filter."""

    def __init__(self, app):
        Middleware.__init__(self, app)


@pytest.mark.slow
def test_filter_501_though_claimed_is_one_error_per_resource_type_at_one_and_four_jobs():
    from scim_tui.demo import DemoServer

    verdicts = []
    for jobs in (1, 4):
        with DemoServer(FilterNotImplemented(make_app())) as server:
            results = checks(server.url, jobs)
            assert stored(server.url) == []
        assert failed(results) == Counter({("User", "filter_operators"): 1, ("Group", "filter_operators"): 1})
        [eq] = [r for r in results if r.status.failed and r.resource_type == "User" and r.title == "filter_operators"]
        assert eq.reason.endswith("instead of 200 with a ListResponse, though the ServiceProviderConfig claims filter.")
        after = [r for r in results if r.title == "filter_operators" and r.resource_type == "User" and r is not eq]
        assert all(r.status is Status.SKIPPED and "Skipped: the eq rule was answered 501 Not Implemented" in r.reason for r in after)
        verdicts.append(Counter((r.resource_type, r.title, r.status) for r in results))
    assert verdicts[0] == verdicts[1]


def test_a_provider_step_meeting_a_claimed_feature_failing_is_skipped_naming_it_and_blocks(serve):
    server = serve(patch_not_implemented(make_app()))
    with make_client(server.url) as scim:
        results = [r for r in iter_checks(scim, CheckConfig(jobs=4, resource_types=["User"], include_tags={"idp:entra", "crud:update"})) if not r.deselected]
    steps = [r for r in results if "idp" in r.tags and r.reason.startswith(f"Skipped: {USERS_PATCH}")]
    assert steps and all(r.status is Status.SKIPPED and r.blocks and r.cause == USERS_PATCH for r in steps)
    assert all(r.reason == f"Skipped: {USERS_PATCH} (though the ServiceProviderConfig claims patch; check_add_attribute reports it)." for r in steps)
    assert [r.title for r in results if r.status.failed] == ["check_add_attribute"]
    verdicts = [r.reason for r in results if r.title in ("entra_readiness", "entra_gallery_readiness")]
    assert len(verdicts) == 2 and all(reason.startswith("NOT READY for ") and reason.endswith(f" Cause: {USERS_PATCH}.") for reason in verdicts)
    assert stored(server.url) == []


class SortNotImplemented(Middleware):
    """Answers a sorted list 501, though its ServiceProviderConfig claims sort (as scim2-server's does)."""

    def intercept(self, environ):
        if "sortBy" in environ.get("QUERY_STRING", ""):
            return 501, [("Content-Type", "application/scim+json")], scim_error(501, "sorting is not implemented")
        return None


def test_a_sort_failing_as_a_whole_names_its_parameter(serve):
    server = serve(SortNotImplemented(make_app()))
    with make_client(server.url) as scim:
        results = [r for r in iter_checks(scim, CheckConfig(jobs=1, resource_types=["User"], include_tags={"sort"})) if not r.deselected]
    assert {r.cause for r in results if r.title == "sort_order" and r.status.failed} == {"GET /v2/Users?sortBy=… answered 501"}


class DeletedStillListed(Middleware):
    """Answers 404 for a user it deleted, but its lists still show it (an index never told of the
    deletion): RFC 7644 §3.6, a deleted resource MUST be omitted from query results."""

    def __init__(self, app):
        super().__init__(app)
        self.deleted: list[dict] = []

    def intercept(self, environ: dict) -> Response | None:
        method, path = environ["REQUEST_METHOD"], environ.get("PATH_INFO", "")
        if method == "DELETE" and path.startswith("/v2/Users/"):
            status, _, body = self.call(environ, REQUEST_METHOD="GET")
            if status == 200:
                self.deleted.append(json.loads(body))
            return None
        if method != "GET" or path != "/v2/Users":
            return None
        status, headers, body = self.call(environ)
        if status != 200:
            return status, headers, body
        listed = json.loads(body)
        query = unquote(environ.get("QUERY_STRING", ""))
        stale = [user for user in self.deleted if f'"{user["userName"]}"' in query]
        listed["Resources"] = [*listed.get("Resources", []), *stale]
        listed["totalResults"] = listed.get("totalResults", 0) + len(stale)
        return status, [(k, v) for k, v in headers if k.lower() != "content-length"], json.dumps(listed).encode()


@pytest.mark.parametrize(
    ("app", "tag", "cause"),
    [
        (filter_ignored, "filter:operators", "GET /v2/Users?filter=… lists resources its filter does not match"),
        (SoftDelete, "crud:delete", "DELETE /v2/Users/{id} answered 204 but the resource is still served"),
        (DeletedStillListed, "crud:delete", "DELETE /v2/Users/{id} answered 204 but queries still list the resource"),
    ],
    ids=["filter ignored", "soft delete", "deleted, still listed"],
)
def test_a_provider_step_meeting_a_broken_rule_is_skipped_naming_it_and_blocks(serve, app, tag, cause):
    server = serve(app(make_app()))
    with make_client(server.url) as scim:
        results = [r for r in iter_checks(scim, CheckConfig(jobs=4, resource_types=["User"], include_tags={"idp:entra", "idp:okta", tag})) if not r.deselected]
    judged = [r for r in results if "idp" not in r.tags and r.cause == cause]
    assert len(judged) == 1 and judged[0].status is Status.ERROR
    steps = [r for r in results if "idp" in r.tags and r.cause == cause]
    assert steps and all(r.status is Status.SKIPPED and r.blocks and r.reason == f"Skipped: {cause} ({judged[0].title} reports it)." for r in steps)
    assert [r for r in results if "idp" in r.tags and r.status.failed and r.cause is None] == []
    named = [r.reason for r in results if r.title.endswith("_readiness") and r.reason.endswith(f" Cause: {cause}.")]
    assert named and all(reason.startswith("NOT READY for ") for reason in named)
