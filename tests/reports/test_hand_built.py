"""Every report writer on a report built by hand, whose every value is known: what each format
says of each result, of the leftovers, of an accepted failure and of the run's own requests,
without a run to make it."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from datetime import UTC
from datetime import datetime
from datetime import timedelta

import pytest

from scim_tui.checker import CheckResult
from scim_tui.checker import Exchange
from scim_tui.checker import Status
from scim_tui.reports import FORMATS
from scim_tui.reports import RunReport
from scim_tui.reports import write_report
from scim_tui.selection import Selection

STARTED = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
TARGET = "https://scim.example.test/v2"
PROBE = Exchange("GET", f"{TARGET}/ServiceProviderConfig", status_code=200, response_body="{}", elapsed=0.012, started=STARTED)
CREATED = Exchange(
    "POST",
    f"{TARGET}/Users",
    request_headers={"Content-Type": "application/scim+json"},
    request_body='{"userName": "scim-tui-a1"}',
    status_code=201,
    response_headers={"Content-Type": "application/scim+json"},
    response_body='{"id": "7f3e"}',
    elapsed=0.25,
    started=STARTED + timedelta(seconds=1),
)
REFUSED = Exchange("PUT", f"{TARGET}/ServiceProviderConfig", request_body="{}", status_code=200, elapsed=0.5, started=STARTED + timedelta(seconds=2))
GALLERY = {
    "overallResultFromTests": "Failed",
    "testResults": [
        {"testName": "Create_User_Test", "testCategory": "User", "testResult": "success", "check": "User/gallery_create_user"},
        {"testName": "Create_Group_Test", "testCategory": "Group", "testResult": "FAILED: 400", "check": "Group/gallery_create_group"},
    ],
}


def results() -> list[CheckResult]:
    return [
        CheckResult(Status.SUCCESS, title="object_creation", resource_type="User", reason="POST /v2/Users answered 201.", section="3.3", exchanges=[CREATED]),
        CheckResult(
            Status.ERROR,
            title="service_provider_config_endpoint_methods",
            reason="PUT /v2/ServiceProviderConfig answered 200 instead of 405.",
            section="4",
            exchanges=[REFUSED],
        ),
        CheckResult(Status.ERROR, title="dangling_member", resource_type="Group", reason="a member naming no resource was kept.", section="3.5.2"),
        CheckResult(Status.SKIPPED, title="sort_order", resource_type="User", reason="Skipped: the ServiceProviderConfig does not claim sort support."),
        CheckResult(
            Status.DEVIATION,
            title="entra_gallery_readiness",
            reason="NOT READY for Microsoft's gallery validation: 1 mandatory test fails: Create_Group_Test.",
            data=GALLERY,
            leftovers=["User/7f3e (still there: its DELETE answered 500)"],
        ),
    ]


@pytest.fixture
def report() -> RunReport:
    made = RunReport(
        target=TARGET,
        started_at=STARTED,
        duration=12.5,
        results=results(),
        profile="Staging",
        selection=Selection(include_tags=["crud"]),
        exchanges=[PROBE, CREATED, REFUSED],
    )
    made.accepted = {made.keyed()[2][0]: "the vendor fixes it in 4.2"}
    return made


def test_text(report):
    text = write_report(report, "text")
    assert f"Target {TARGET} · started 2026-03-01 09:30:00 UTC · 12.5 s" in text
    lines = text.splitlines()
    assert any(line.startswith("ERROR") and "service_provider_config_endpoint_methods" in line and "answered 200 instead of 405" in line for line in lines)
    assert any("Group/dangling_member" in line and "(accepted: the vendor fixes it in 4.2)" in line for line in lines)
    assert any(line.startswith("SKIPPED") and "User/sort_order" in line for line in lines)
    assert "User/7f3e (still there: its DELETE answered 500)" in text


def test_json(report):
    document = json.loads(write_report(report, "json"))
    assert (document["target"], document["profile"], document["duration"]) == (TARGET, "Staging", 12.5)
    assert document["selection"]["include_tags"] == ["crud"]
    assert [result["status"] for result in document["results"]] == ["SUCCESS", "ERROR", "ERROR", "SKIPPED", "DEVIATION"]
    assert document["counts"]["ERROR"] == 2 and document["counts"]["SKIPPED"] == 1
    assert document["results"][2]["accepted"] == "the vendor fixes it in 4.2"
    assert document["results"][0]["exchanges"] == [] and document["results"][0]["exchanges_left_out"] == 1, "a SUCCESS's are counted, not written"
    assert document["results"][1]["exchanges"][0]["url"] == REFUSED.url and document["results"][1]["exchanges_left_out"] == 0
    every = json.loads(write_report(report, "json", every_exchange=True))
    assert every["results"][0]["exchanges"][0]["request_body"] == '{"userName": "scim-tui-a1"}' and every["results"][0]["exchanges_left_out"] == 0
    assert [exchange["url"] for exchange in document["run_exchanges"]] == [PROBE.url], "the run's own requests, those no result carries"
    assert document["leftovers"] == ["User/7f3e (still there: its DELETE answered 500)"]
    assert RunReport.from_dict(document).results[1].reason == results()[1].reason, "it reads back"


def test_junit(report):
    root = ET.fromstring(write_report(report, "junit"))
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert cases["service_provider_config_endpoint_methods"].find("failure") is not None
    assert cases["object_creation"].find("failure") is None and cases["object_creation"].find("skipped") is None
    assert cases["sort_order"].find("skipped") is not None
    assert "the vendor fixes it in 4.2 (baseline)" in cases["dangling_member"].find("skipped").get("message"), "an accepted failure is skipped"
    assert sum(int(suite.get("failures")) for suite in root.iter("testsuite")) == 1


def test_markdown(report):
    document = write_report(report, "markdown")
    assert document.startswith("#")
    assert "| ERROR |" in document and "answered 200 instead of 405" in document
    assert "the vendor fixes it in 4.2" in document
    assert "User/7f3e (still there: its DELETE answered 500)" in document


def test_har(report):
    entries = json.loads(write_report(report, "har"))["log"]["entries"]
    assert [(entry["request"]["method"], entry["response"]["status"]) for entry in entries] == [("GET", 200), ("POST", 201), ("PUT", 200)]
    assert entries[0]["comment"].startswith("the run's own request")
    assert entries[1]["comment"] == "User/object_creation (SUCCESS) · the request judged" and entries[1]["time"] == 250
    assert entries[2]["startedDateTime"] == "2026-03-01T09:30:02.000+00:00"
    assert entries[1]["request"]["postData"]["text"] == '{"userName": "scim-tui-a1"}'


def test_entra_gallery(report):
    document = json.loads(write_report(report, "entra-gallery"))
    assert (document["validationResult"], document["overallResultFromTests"]) == ("FAILED", "Failed")
    assert document["testSummary"] == {"total": 2, "success": 1, "skipped": 0, "failed": 1, "warning": 0}
    assert [test["testName"] for test in document["testResults"]] == ["Create_User_Test", "Create_Group_Test"]
    assert document["runId"] == "scim-tui-20260301T093000Z" and document["target"] == TARGET


def test_every_format_is_tested_here():
    tested = {name.removeprefix("test_").replace("_", "-") for name in globals() if name.startswith("test_") and name != "test_every_format_is_tested_here"}
    assert set(FORMATS) <= tested
