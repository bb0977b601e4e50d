"""RunReport: counts, the --fail-on threshold and the summary line (the statuses no checker gives yet included)."""

from __future__ import annotations

from datetime import UTC
from datetime import datetime

import pytest

from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.reports import RunReport

STATUSES = [Status.SUCCESS, Status.COMPLIANT, Status.DEVIATION, Status.DEVIATION, Status.SKIPPED]


def report(*statuses: Status) -> RunReport:
    results = [CheckResult(status, title=f"check_{n}") for n, status in enumerate(statuses)]
    return RunReport.create(results, target="http://scim.example/v2", started_at=datetime(2025, 1, 1, tzinfo=UTC), duration=1.0)


@pytest.mark.parametrize(
    ("threshold", "failing"),
    [(Status.COMPLIANT, 3), (Status.ACCEPTABLE, 2), (Status.DEVIATION, 2), (Status.ERROR, 0), (Status.CRITICAL, 0)],
)
def test_results_at_or_above_a_threshold_never_count_skipped(threshold, failing):
    assert len(report(*STATUSES).at_or_above(threshold)) == failing


def test_the_summary_line_counts_the_statuses_present():
    assert report(*STATUSES).summary_line() == "5 checks · 5 results · 1 SUCCESS · 1 COMPLIANT · 2 DEVIATION · 1 SKIPPED"
    styled = report(Status.ERROR).summary_line(lambda text, status: f"<{status.name.lower()}>{text}")
    assert styled == "1 check · 1 result · <error>1 ERROR"


def test_credentials_in_the_target_are_hidden():
    secured = RunReport.create([], target="https://user:pa55word@scim.example/v2?access_token=abc123", started_at=datetime.now(UTC), duration=0)
    assert "pa55word" not in secured.target and "abc123" not in secured.target
    assert secured.target.startswith("https://***@scim.example/v2")
