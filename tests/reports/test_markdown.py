"""The Markdown report: counts per status, then each result to look at with its exchange."""

from __future__ import annotations

import re

import pytest

from tests.reports.conftest import AWKWARD_SHOWN


@pytest.mark.slow
def test_the_summary_table_counts_every_status(report_of):
    document = report_of("markdown")
    assert document.startswith("# SCIM compliance report: http://127.0.0.1:")
    rows = dict(re.findall(r"^\| (\w+) \| (\d+) \|$", document, re.MULTILINE))
    total = int(re.search(r"^\| \*\*Total\*\* \| \*\*(\d+)\*\* \|$", document, re.MULTILINE).group(1))
    assert rows["ERROR"] == "1" and sum(map(int, rows.values())) == total


@pytest.mark.slow
def test_a_failure_is_ready_to_paste_with_its_request_and_response(report_of):
    document = report_of("markdown")
    section = document.split("### ERROR · `service_provider_config_endpoint_methods`", 1)[1]
    assert section.lstrip().startswith("**Reason:** PUT /v2/ServiceProviderConfig answered 200 instead of 405")
    request, response = re.findall(r"^(`{3,})http\n(.*?)\n\1$", section, re.MULTILINE | re.DOTALL)[:2]
    assert request[1].startswith("PUT /v2/ServiceProviderConfig HTTP/1.1")
    assert response[1].startswith("HTTP/1.1 200") and AWKWARD_SHOWN in response[1]
    assert len(response[0]) > 4, "the fence is longer than the body's run of backticks"


def test_skipped_checks_are_listed_with_their_reason(report_of):
    document = report_of("markdown", "--include-tags", "service-provider-config")
    skipped = document.split("## Skipped", 1)[1]
    assert "- `random_url`: Skipped: none of its tags matches include\\_tags" in skipped
    assert "### " not in skipped


@pytest.mark.slow
def test_only_broken_rules_are_results_to_look_at(report_of):
    """Once, the section listed COMPLIANT results, which pass (a SHOULD kept)."""
    document = report_of("markdown")
    assert "| COMPLIANT |" in document, "the run has COMPLIANT results"
    to_look_at = document.split("## Results to look at", 1)[1].split("\n## ", 1)[0]
    statuses = re.findall(r"^### (\w+) · ", to_look_at, re.MULTILINE)
    assert statuses and set(statuses) <= {"DEVIATION", "ERROR", "CRITICAL"}
