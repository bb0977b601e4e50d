"""The JUnit XML report: valid against a Jenkins/Ant-shaped JUnit schema, one suite per resource type."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
import xmlschema

from tests.reports.conftest import AWKWARD_SHOWN

JUNIT_XSD = xmlschema.XMLSchema(Path(__file__).with_name("junit.xsd"))


@pytest.mark.slow
def test_the_report_validates_against_the_junit_schema(report_of):
    document = report_of("junit")
    JUNIT_XSD.validate(document)
    root = ET.fromstring(document)
    suites = {suite.get("name"): suite for suite in root.iter("testsuite")}
    assert set(suites) == {"discovery", "misc", "User", "Group", "idp"}
    verdicts = {case.get("name"): case for case in suites["idp"].iter("testcase")}
    assert "okta_readiness" in verdicts and not {"entra_readiness", "onelogin_readiness"} & set(verdicts), (
        "those left out with the checks scim2-server fails are no test case"
    )
    assert "READY for Okta: all 10 steps passed" in verdicts["okta_readiness"].find("system-out").text
    cases = list(root.iter("testcase"))
    assert int(root.get("tests")) == len(cases) == sum(int(s.get("tests")) for s in suites.values())
    assert int(root.get("failures")) == len(list(root.iter("failure")))


@pytest.mark.slow
def test_an_error_is_a_failure_with_its_reason_and_exchange(report_of):
    root = ET.fromstring(report_of("junit"))
    [failure] = [f for f in root.iter("failure") if "ServiceProviderConfig" in f.get("message")]
    assert failure.get("type") == "ERROR"
    assert failure.get("message") == "PUT /v2/ServiceProviderConfig answered 200 instead of 405 Method Not Allowed."
    assert "PUT /v2/ServiceProviderConfig HTTP/1.1" in failure.text and "HTTP/1.1 200" in failure.text
    assert AWKWARD_SHOWN in failure.text, "a character XML cannot hold never reaches the report"


@pytest.mark.slow
def test_cases_are_named_by_check_and_filtered_checks_are_not_cases(report_of):
    root = ET.fromstring(report_of("junit", "--exclude-tags", "schemas"))
    discovery = next(s for s in root.iter("testsuite") if s.get("name") == "discovery")
    names = [case.get("name") for case in discovery.iter("testcase")]
    assert "service_provider_config_endpoint_methods [2/4]" in names and len(names) == len(set(names))
    assert not {"query_all_schemas", "schemas_endpoint_methods"} & set(names), "a check the selection left out is no test case"
    skipped = [case for case in discovery.iter("testcase") if case.find("skipped") is not None]
    assert int(discovery.get("skipped")) == len(skipped)
    assert all(case.get("classname") == "scim-tui.discovery" for case in discovery.iter("testcase"))
