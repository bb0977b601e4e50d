"""The outcome of Microsoft's gallery validation as the run replayed it, shaped like the result file
of Microsoft's own run (``validation-result-<RunId>.json``: ``testResults`` with a ``testResult``
per test, the overall result), so that a builder can compare before submitting. Documented in
entra_gallery.schema.json beside this module.

It is the data of the ``entra_gallery_readiness`` verdict (checker/checks/idp_gallery.py), which
applies Microsoft's pass rule; a run that did not replay the validation writes "NOT RUN".
"""

from __future__ import annotations

import json
from typing import Any

from scim_tui.reports.model import RunReport

VERDICT = "entra_gallery_readiness"
NOTE = (
    "Replayed by scim-tui from Microsoft's test overview: the requests of Microsoft's tests that have a meaning on the wire, "
    "judged by its pass rule. Not Microsoft's validation, whose own result is what the gallery submission needs."
)


def render(report: RunReport) -> str:
    return json.dumps(document(report), indent=2, ensure_ascii=False) + "\n"


def document(report: RunReport) -> dict[str, Any]:
    """The result file of the run."""
    verdict = next((r for r in report.results if r.title == VERDICT and isinstance(r.data, dict)), None)
    outcome: dict[str, Any] = (
        verdict.data if verdict is not None and isinstance(verdict.data, dict) else {"overallResultFromTests": "NotRun", "testResults": []}
    )
    tests = [{key: test[key] for key in ("testName", "testCategory", "testResult", "check")} for test in outcome["testResults"]]
    overall = outcome["overallResultFromTests"]
    return {
        "validationResult": {"Succeeded": "PASSED", "Failed": "FAILED"}.get(overall, "NOT RUN"),
        "overallResultFromTests": overall,
        "message": verdict.reason if verdict is not None else "The run did not replay Microsoft's gallery validation: select the tag idp:entra:gallery.",
        "runId": f"scim-tui-{report.started_at:%Y%m%dT%H%M%SZ}",
        "timestamp": report.started_at.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
        "target": report.target,
        "tool": {"name": "scim-tui", "version": report.tool_version},
        "note": NOTE,
        "testSummary": _summary(tests),
        "testResults": tests,
    }


def _summary(tests: list[dict[str, Any]]) -> dict[str, int]:
    """The counts of Microsoft's file: success, skipped, and failed (FAILED and WARNING alike)."""
    success = sum(test["testResult"].startswith("success") for test in tests)
    skipped = sum(test["testResult"].startswith("SKIPPED") for test in tests)
    warning = sum(test["testResult"].startswith("WARNING") for test in tests)
    return {"total": len(tests), "success": success, "skipped": skipped, "failed": len(tests) - success - skipped, "warning": warning}
