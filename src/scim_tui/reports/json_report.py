"""The JSON report: RunReport.to_dict as indented JSON (documented in report.schema.json).

It is written in pieces as it is encoded: a run of thousands of results makes a report of tens
of megabytes, which is never held whole in memory (twice over, as text and as bytes).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from scim_tui.reports.model import RunReport

PIECE = 1 << 16
"""About how many characters each piece of the report holds."""


def render(report: RunReport) -> str:
    return "".join(pieces(report))


def pieces(report: RunReport, compact: bool = False, every_exchange: bool = False) -> Iterator[str]:
    """The report's text, in pieces of about PIECE characters; `compact` leaves out every
    space and line break (the run history's form); `every_exchange` keeps a SUCCESS's exchanges too."""
    buffer: list[str] = []
    size = 0
    encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")) if compact else json.JSONEncoder(indent=2, ensure_ascii=False)
    for chunk in encoder.iterencode(report.to_dict(every_exchange)):
        buffer.append(chunk)
        size += len(chunk)
        if size >= PIECE:
            yield "".join(buffer)
            buffer, size = [], 0
    if not compact:
        buffer.append("\n")
    yield "".join(buffer)
