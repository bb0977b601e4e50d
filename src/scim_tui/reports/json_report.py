"""The JSON report: RunReport.to_dict as indented JSON (documented in report.schema.json)."""

from __future__ import annotations

import json

from scim_tui.reports.model import RunReport


def render(report: RunReport) -> str:
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"
