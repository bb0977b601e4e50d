"""The JUnit XML report: one testsuite per resource type (and discovery, misc), one testcase per result.

ERROR and CRITICAL results are failures carrying the reason and the failing exchange, unless a
baseline accepts them; SKIPPED results and accepted failures are skipped. The shape is the Jenkins/Ant one most CI viewers load.
"""

from __future__ import annotations

import re
import socket
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from xml.etree import ElementTree as ET

from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.checker.registry import any_tag_matches
from scim_tui.reports.model import RunReport
from scim_tui.reports.text import told
from scim_tui.reports.transcript import exchange_text
from scim_tui.reports.transcript import failing_exchange

NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""Characters XML 1.0 cannot hold, which a broken server may well send."""
BODY_LIMIT = 2000
"""Characters of each body kept in a failure: enough to see the problem, not a whole listing."""


def suite_name(result: CheckResult) -> str:
    if result.resource_type:
        return result.resource_type
    if any_tag_matches(["idp"], result.tags):
        return "idp"
    return "discovery" if any_tag_matches(["discovery"], result.tags) else "misc"


def render(report: RunReport) -> str:
    suites: dict[str, list[Case]] = {}
    for key, result in report.keyed():
        if not result.deselected:  # a check left out by the selection is no test case
            suites.setdefault(suite_name(result), []).append(Case(result, report.acceptance(key)))
    root = ET.Element("testsuites", name="scim-tui")
    _set_totals(root, [case for cases in suites.values() for case in cases])
    timestamp = _timestamp(report.started_at)
    for number, (name, results) in enumerate(suites.items()):
        suite = ET.SubElement(root, "testsuite", name=name, id=str(number), package="scim-tui", timestamp=timestamp, hostname=socket.gethostname())
        _set_totals(suite, results)
        ET.SubElement(ET.SubElement(suite, "properties"), "property", name="target", value=report.target)
        for case, case_name in zip(results, _case_names([case.result for case in results]), strict=True):
            _testcase(suite, name, case_name, case)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


@dataclass(frozen=True)
class Case:
    """A result, and how a baseline accepts it (None when it does not)."""

    result: CheckResult
    acceptance: str | None

    @property
    def failed(self) -> bool:
        return self.result.status.failed and self.acceptance is None

    @property
    def skipped(self) -> bool:
        return self.result.status is Status.SKIPPED or (self.result.status.failed and self.acceptance is not None)


def _set_totals(element: ET.Element, cases: list[Case]) -> None:
    element.set("tests", str(len(cases)))
    element.set("failures", str(sum(case.failed for case in cases)))
    element.set("errors", "0")
    element.set("skipped", str(sum(case.skipped for case in cases)))
    element.set("time", _seconds(sum(_elapsed(case.result) for case in cases)))


def _case_names(results: list[CheckResult]) -> list[str]:
    """The check's name, numbered when one check gave several results, so every case is distinct."""
    totals = Counter(r.title for r in results)
    seen: Counter[str | None] = Counter()
    names = []
    for result in results:
        seen[result.title] += 1
        total = totals[result.title]
        names.append(f"{result.title} [{seen[result.title]}/{total}]" if total > 1 else str(result.title))
    return names


def _testcase(suite: ET.Element, suite_name: str, name: str, case: Case) -> None:
    result = case.result
    element = ET.SubElement(suite, "testcase", name=name, classname=f"scim-tui.{suite_name}", time=_seconds(_elapsed(result)))
    reason = _xml_text(told(result))
    if case.failed:
        failure = ET.SubElement(element, "failure", message=reason, type=result.status.name)
        exchange = failing_exchange(result)
        failure.text = _xml_text(f"{reason}\n\n{exchange_text(exchange, BODY_LIMIT)}") if exchange else reason
    elif case.skipped:
        accepted = f"{result.status.name} {_xml_text(case.acceptance)} (baseline): " if case.acceptance else ""
        ET.SubElement(element, "skipped", message=f"{accepted}{reason}")
    else:
        accepted = f" ({_xml_text(case.acceptance)})" if case.acceptance else ""
        ET.SubElement(element, "system-out").text = f"{result.status.name}{accepted}: {reason}"


def _xml_text(text: str) -> str:
    return NOT_XML.sub("\ufffd", text)


def _elapsed(result: CheckResult) -> float:
    return sum(exchange.elapsed for exchange in result.exchanges)


def _seconds(value: float) -> str:
    return f"{value:.3f}"


def _timestamp(moment: datetime) -> str:
    """JUnit timestamps carry no time zone; the report's are UTC."""
    return moment.replace(tzinfo=None).isoformat(timespec="seconds")
