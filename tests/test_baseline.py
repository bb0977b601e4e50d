"""Accepted failures: `scim-tui check --update-baseline FILE` writes a run's failures as a
TOML baseline; `--baseline FILE` fails the run only on the others, or on worse ones, marks the
accepted ones, and tells which entries are fixed and which expired."""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import replace
from datetime import UTC
from datetime import date
from datetime import datetime
from xml.etree import ElementTree as ET

import pytest

from scim_tui.checker import CheckId
from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.checker.results import ResultKey
from scim_tui.demo import make_app
from scim_tui.reports import RunReport
from scim_tui.store import baseline
from tests.support.command import one_line_error
from tests.support.command import scim_tui_here
from tests.support.servers import Broken
from tests.support.servers import scim_error

CHECKS = ("--include-tags", "service-provider-config", "--no-history")
CHECK = "service_provider_config_endpoint_methods"


@pytest.fixture
def broken(serve):
    """A server that accepts PUT on /ServiceProviderConfig: one ERROR result among CHECKS."""
    middleware = Broken(make_app()).answer("PUT", "/v2/ServiceProviderConfig", 200, {"schemas": []})
    return middleware, serve(middleware).url


@pytest.fixture
def written(broken, tmp_path):
    """The baseline of the broken server's run, with a note filled in by hand."""
    _, url = broken
    path = tmp_path / "baseline.toml"
    process = scim_tui_here("check", "--url", url, *CHECKS, "--update-baseline", str(path))
    assert process.returncode == 0, process.stdout + process.stderr
    path.write_text(path.read_text().replace('note = ""', 'note = "vendor ticket 42"'))
    return path


def check(url: str, *args: str):
    return scim_tui_here("check", "--url", url, *CHECKS, *args)


def test_the_baseline_holds_one_readable_entry_per_failing_result(written):
    text = written.read_text()
    assert text.startswith("# Failures accepted for now by `scim-tui check --baseline`")
    [entry] = tomllib.loads(text)["accepted"]
    assert entry == {"check": CHECK, "status": "ERROR", "reason": entry["reason"], "note": "vendor ticket 42"}
    assert entry["reason"].startswith("PUT /v2/ServiceProviderConfig answered 200")


def test_a_run_whose_failures_are_all_accepted_passes_and_marks_them(broken, written):
    _, url = broken
    process = check(url, "--baseline", str(written))
    assert process.returncode == 0, process.stdout
    assert re.search(rf"^ERROR +{CHECK} \(accepted: vendor ticket 42\) +PUT /v2/ServiceProviderConfig", process.stdout, re.MULTILINE)
    assert "Baseline: 1 failure(s) accepted, 0 fixed, 0 expired." in process.stdout


def test_an_accepted_failure_is_skipped_in_the_junit_report_and_marked_in_json(broken, written, tmp_path):
    _, url = broken
    junit = tmp_path / "report.xml"
    assert check(url, "--baseline", str(written), "--format", "junit", "-o", str(junit)).returncode == 0
    root = ET.parse(junit).getroot()
    assert root.get("failures") == "0"
    skipped = [case.find("skipped").get("message") for case in root.iter("testcase") if case.find("skipped") is not None]
    assert [message for message in skipped if "accepted" in message] == [
        next(message for message in skipped if message.startswith("ERROR accepted: vendor ticket 42 (baseline): PUT /v2/ServiceProviderConfig"))
    ]
    report = tmp_path / "report.json"
    check(url, "--baseline", str(written), "--format", "json", "-o", str(report))
    assert [r["accepted"] for r in json.loads(report.read_text())["results"] if "accepted" in r] == ["vendor ticket 42"]


def test_a_new_failure_fails_the_run(serve, written):
    url = serve(Broken(make_app()).answer("GET", "/v2/ServiceProviderConfig", 500, scim_error(500))).url
    process = check(url, "--baseline", str(written))
    assert process.returncode == 1
    assert re.search(r"^ERROR +service_provider_config(?! \(accepted)", process.stdout, re.MULTILINE)


def test_a_failure_worse_than_its_accepted_status_fails_the_run(broken, written):
    _, url = broken
    written.write_text(written.read_text().replace('status = "ERROR"', 'status = "DEVIATION"'))
    process = check(url, "--baseline", str(written))
    assert process.returncode == 1
    assert "(accepted" not in process.stdout


def test_a_fixed_entry_is_reported(broken, written):
    middleware, url = broken
    middleware.repaired = True
    process = check(url, "--baseline", str(written))
    assert process.returncode == 0
    assert f"  fixed    {CHECK}: remove it from the baseline" in process.stdout


def test_an_expired_entry_counts_again(broken, written):
    _, url = broken
    written.write_text(written.read_text() + "until = 2020-01-31\n")
    process = check(url, "--baseline", str(written))
    assert process.returncode == 1
    assert f"  expired  {CHECK} (until 2020-01-31): past its date, it counts again" in process.stdout
    assert "(accepted" not in process.stdout


def test_updating_the_baseline_keeps_the_notes_and_dates_written(broken, written):
    _, url = broken
    written.write_text(written.read_text() + "until = 2999-12-31\n")
    assert check(url, "--update-baseline", str(written)).returncode == 0
    [entry] = tomllib.loads(written.read_text())["accepted"]
    assert entry["note"] == "vendor ticket 42" and str(entry["until"]) == "2999-12-31"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "does not exist: write it first with --update-baseline"),
        ("accepted = [", "is not valid TOML (Invalid"),
        ('[[accepted]]\ncheck = "x"\nstatus = "BAD"\n', "has a bad entry: accepted[0].status: Input should be 'DEVIATION', 'ERROR' or 'CRITICAL'"),
        ('[[accepted]]\ncheck = "x"\nstatus = "ERROR"\nwhy = 1\n', "has a bad entry: accepted[0].why: Extra inputs are not permitted"),
        ('[[accepted]]\ncheck = "x"\nstatus = "ERROR"\nuntil = "soon"\n', "has a bad entry: accepted[0].until: Input should be a valid date"),
        ("accepted = 3\n", "has a bad entry: accepted: Input should be a valid list"),
    ],
)
def test_a_bad_baseline_is_one_line_naming_the_problem_and_the_fix_before_any_request(tmp_path, content, message):
    path = tmp_path / "baseline.toml"
    if content is not None:
        path.write_text(content)
    error = one_line_error(scim_tui_here("check", "--url", "http://127.0.0.1:9/v2", "--baseline", str(path)))
    assert message in error
    assert error.endswith(("fix it, or write it again with --update-baseline.", f"--update-baseline {path}."))


def test_a_bad_baseline_is_never_written_over(tmp_path):
    path = tmp_path / "baseline.toml"
    path.write_text("accepted = [")
    assert "is not valid TOML" in one_line_error(scim_tui_here("check", "--url", "http://127.0.0.1:9/v2", "--update-baseline", str(path)))
    assert path.read_text() == "accepted = ["


def test_an_entry_is_fixed_only_when_its_check_ran_and_passed():
    entry = baseline.Entry(check="object_query", resource_type="User", status="ERROR")
    ran = {status: [CheckResult(status, title="object_query", resource_type="User")] for status in (Status.SUCCESS, Status.SKIPPED, Status.ERROR)}
    today = date(2026, 6, 1)
    assert baseline.judge([entry], ran[Status.SUCCESS], today).fixed == [entry]
    assert baseline.judge([entry], ran[Status.SKIPPED], today).fixed == []
    assert baseline.judge([entry], [], today).fixed == [], "a check left out by the selection is not fixed"
    assert baseline.judge([entry], ran[Status.ERROR], today).accepted == {ResultKey(CheckId("object_query", "User")): entry}


def test_an_accepted_failure_stays_accepted_when_the_results_reorder():
    """Accepted failures are named by their check (and their place among its results), never by
    their place in the run: the same run in another order keeps the same ones accepted."""
    results = [
        CheckResult(Status.SUCCESS, title="object_creation", resource_type="User"),
        CheckResult(Status.ERROR, title="object_query", resource_type="User", reason="first"),
        CheckResult(Status.ERROR, title="object_query", resource_type="User", reason="second"),
        CheckResult(Status.ERROR, title="object_query", resource_type="Group"),
    ]
    entry = baseline.Entry(check="object_query", resource_type="User", status="ERROR", note="known")
    judged = report_of(results)
    judged.accepted = {key: kept.note for key, kept in baseline.judge([entry], results, date(2026, 6, 1)).accepted.items()}
    reordered = replace(judged, results=[results[3], results[1], results[0], results[2]])
    for run in (judged, reordered):
        assert [result.resource_type for result in run.at_or_above(Status.ERROR)] == ["Group"]
        assert [result.reason for key, result in run.keyed() if run.acceptance(key) == "accepted: known"] == ["first", "second"]


def test_a_run_without_failures_writes_a_baseline_of_comments_that_reads_back_empty(scim_server, tmp_path):
    path = tmp_path / "baseline.toml"
    assert check(scim_server.url, "--update-baseline", str(path)).returncode == 0
    assert all(line.startswith("#") for line in path.read_text().splitlines())
    process = check(scim_server.url, "--baseline", str(path))
    assert process.returncode == 0 and "Baseline: 0 failure(s) accepted, 0 fixed, 0 expired." in process.stdout


def report_of(results: list[CheckResult]) -> RunReport:
    return RunReport.create(results, target="http://scim.example/v2", started_at=datetime(2026, 6, 1, tzinfo=UTC), duration=1.0)
