"""A SKIPPED result's cause is a field: what the reports count and list follows it, never the
reason's words."""

from __future__ import annotations

from datetime import UTC
from datetime import datetime
from xml.etree import ElementTree as ET

from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.checker.results import SkipCause
from scim_tui.reports import RunReport
from scim_tui.reports import write_report

OLD_WORDS = "Skipped: none of its tags matches include_tags ['crud']."
"""What the engine once said of a check the selection left out, and how a report once told it."""


def report(*results: CheckResult) -> RunReport:
    return RunReport.create(list(results), target="http://scim.example/v2", started_at=datetime(2025, 1, 1, tzinfo=UTC), duration=1.0)


def results(deselected_reason: str, prerequisite_reason: str) -> list[CheckResult]:
    return [
        CheckResult(Status.SUCCESS, title="kept", tags={"crud"}),
        CheckResult(Status.SKIPPED, title="left_out", reason=deselected_reason, tags={"crud"}, skip_cause=SkipCause.DESELECTED),
        CheckResult(Status.SKIPPED, title="waiting", reason=prerequisite_reason, tags={"crud"}, skip_cause=SkipCause.PREREQUISITE),
    ]


def junit_cases(run: RunReport) -> list[str]:
    return [case.get("name") or "" for case in ET.fromstring(write_report(run, "junit")).iter("testcase")]


def test_junit_and_the_counts_follow_the_field_whatever_the_reasons_say():
    as_said = report(*results(OLD_WORDS, "Skipped: the User it needs could not be created."))
    reworded = report(*results("You unticked this check.", OLD_WORDS))
    for run in (as_said, reworded):
        assert run.counts()[Status.SKIPPED] == 1
        assert run.summary_line() == "2 checks · 2 results · 1 SUCCESS · 1 SKIPPED"
        assert [name.split(" ")[0] for name in junit_cases(run)] == ["kept", "waiting"]
        assert "left_out" not in write_report(run, "text")


def test_the_cause_is_kept_in_the_json_report_and_read_back():
    run = report(*results("You unticked this check.", "Skipped: the User it needs could not be created."))
    document = run.to_dict()
    assert [result["skip_cause"] for result in document["results"]] == [None, "deselected", "prerequisite"]
    assert [result.skip_cause for result in RunReport.from_dict(document).results] == [None, SkipCause.DESELECTED, SkipCause.PREREQUISITE]
