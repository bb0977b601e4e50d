"""Reports of a run: text, JSON, JUnit XML, Markdown, HAR (its exchanges) and the outcome of
Microsoft's gallery validation replayed, all written from one RunReport."""

from __future__ import annotations

from collections.abc import Iterator

from scim_tui.choices import FORMATS
from scim_tui.reports.model import SCHEMA_VERSION
from scim_tui.reports.model import RunReport

EXTENSIONS = {"text": "txt", "json": "json", "junit": "xml", "markdown": "md", "har": "har", "entra-gallery": "json"}
"""The usual file extension of each format, for a default export file name."""


def write_report(report: RunReport, format: str, *, color: bool = False, every_exchange: bool = False) -> str:  # noqa: A002
    """The report in one of FORMATS; ``color`` adds ANSI colours to the text format only;
    ``every_exchange`` keeps a SUCCESS's exchanges in the JSON report too."""
    return "".join(report_pieces(report, format, color=color, every_exchange=every_exchange))


def report_pieces(report: RunReport, format: str, *, color: bool = False, every_exchange: bool = False) -> Iterator[str]:  # noqa: A002
    """The report in pieces, to be written as they come (the JSON report, the largest, is never whole in memory)."""
    # Each writer loads when a report of its format is written: the app's first screen needs the
    # model only (the JUnit writer alone loads xml.etree: tens of milliseconds).
    if format == "json":
        from scim_tui.reports import json_report

        yield from json_report.pieces(report, every_exchange=every_exchange)
    elif format == "text":
        from scim_tui.reports import text

        yield text.render(report, color=color)
    elif format == "junit":
        from scim_tui.reports import junit

        yield junit.render(report)
    elif format == "markdown":
        from scim_tui.reports import markdown

        yield markdown.render(report)
    elif format == "har":
        from scim_tui.reports import har

        yield har.render(report)
    elif format == "entra-gallery":
        from scim_tui.reports import entra_gallery

        yield entra_gallery.render(report)
    else:
        raise ValueError(f"Unknown report format {format!r}: choose one of {', '.join(FORMATS)}.")


__all__ = ["EXTENSIONS", "FORMATS", "SCHEMA_VERSION", "RunReport", "report_pieces", "write_report"]
