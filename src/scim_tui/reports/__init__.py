"""Reports of a run: text, JSON, JUnit XML and Markdown, all written from one RunReport."""

from __future__ import annotations

from scim_tui.choices import FORMATS
from scim_tui.reports import json_report
from scim_tui.reports import junit
from scim_tui.reports import markdown
from scim_tui.reports import text
from scim_tui.reports.model import SCHEMA_VERSION
from scim_tui.reports.model import RunReport

EXTENSIONS = {"text": "txt", "json": "json", "junit": "xml", "markdown": "md"}
"""The usual file extension of each format, for a default export file name."""


def write_report(report: RunReport, format: str, *, color: bool = False) -> str:  # noqa: A002
    """The report in one of FORMATS; ``color`` adds ANSI colours to the text format only."""
    if format == "text":
        return text.render(report, color=color)
    if format == "json":
        return json_report.render(report)
    if format == "junit":
        return junit.render(report)
    if format == "markdown":
        return markdown.render(report)
    raise ValueError(f"Unknown report format {format!r}: choose one of {', '.join(FORMATS)}.")


__all__ = ["EXTENSIONS", "FORMATS", "SCHEMA_VERSION", "RunReport", "write_report"]
