"""The JUnit XML report: one testsuite per resource type (and discovery, misc), one testcase per result.

ERROR and CRITICAL results are failures carrying the reason and the failing exchange;
SKIPPED results are skipped. The shape is the Jenkins/Ant one most CI viewers load.
"""

from __future__ import annotations

import re
import socket
from collections import Counter
from datetime import datetime
from xml.etree import ElementTree as ET

from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.checker.registry import any_tag_matches
from scim_tui.reports.model import RunReport
from scim_tui.reports.transcript import exchange_text
from scim_tui.reports.transcript import failing_exchange

NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""Characters XML 1.0 cannot hold, which a broken server may well send."""
BODY_LIMIT = 2000
"""Characters of each body kept in a failure: enough to see the problem, not a whole listing."""


def suite_name(result: CheckResult) -> str:
    if result.resource_type:
        return result.resource_type
    return "discovery" if any_tag_matches(["discovery"], result.tags) else "misc"


def render(report: RunReport) -> str:
    suites: dict[str, list[CheckResult]] = {}
    selected = [result for result in report.results if not result.deselected]  # a check left out by the selection is no test case
    for result in selected:
        suites.setdefault(suite_name(result), []).append(result)
    root = ET.Element("testsuites", name="scim-tui")
    _set_totals(root, selected)
    timestamp = _timestamp(report.started_at)
    for number, (name, results) in enumerate(suites.items()):
        suite = ET.SubElement(root, "testsuite", name=name, id=str(number), package="scim-tui", timestamp=timestamp, hostname=socket.gethostname())
        _set_totals(suite, results)
        ET.SubElement(ET.SubElement(suite, "properties"), "property", name="target", value=report.target)
        for result, case_name in zip(results, _case_names(results), strict=True):
            _testcase(suite, name, case_name, result)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _set_totals(element: ET.Element, results: list[CheckResult]) -> None:
    element.set("tests", str(len(results)))
    element.set("failures", str(sum(r.status.failed for r in results)))
    element.set("errors", "0")
    element.set("skipped", str(sum(r.status is Status.SKIPPED for r in results)))
    element.set("time", _seconds(sum(_elapsed(r) for r in results)))


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


def _testcase(suite: ET.Element, suite_name: str, name: str, result: CheckResult) -> None:
    case = ET.SubElement(suite, "testcase", name=name, classname=f"scim-tui.{suite_name}", time=_seconds(_elapsed(result)))
    reason = _xml_text(result.reason or "")
    if result.status.failed:
        failure = ET.SubElement(case, "failure", message=reason, type=result.status.name)
        exchange = failing_exchange(result)
        failure.text = _xml_text(f"{reason}\n\n{exchange_text(exchange, BODY_LIMIT)}") if exchange else reason
    elif result.status is Status.SKIPPED:
        ET.SubElement(case, "skipped", message=reason)
    else:
        ET.SubElement(case, "system-out").text = f"{result.status.name}: {reason}"


def _xml_text(text: str) -> str:
    return NOT_XML.sub("\ufffd", text)


def _elapsed(result: CheckResult) -> float:
    return sum(exchange.elapsed for exchange in result.exchanges)


def _seconds(value: float) -> str:
    return f"{value:.3f}"


def _timestamp(moment: datetime) -> str:
    """JUnit timestamps carry no time zone; the report's are UTC."""
    return moment.replace(tzinfo=None).isoformat(timespec="seconds")
