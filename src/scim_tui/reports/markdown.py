"""The Markdown report: counts per status, then every result that is not a plain success, ready to paste."""

from __future__ import annotations

import re

from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.checker.causes import shared_causes
from scim_tui.reports.model import RunReport
from scim_tui.reports.text import left_on_server
from scim_tui.reports.text import told
from scim_tui.reports.transcript import failing_exchange
from scim_tui.reports.transcript import request_text
from scim_tui.reports.transcript import response_text

BODY_LIMIT = 4000
LOOK_AT = (Status.DEVIATION, Status.ERROR, Status.CRITICAL)
"""The results a reader must look at: a broken SHOULD or MUST; COMPLIANT and ACCEPTABLE pass."""


def render(report: RunReport) -> str:
    attention = [(r, report.acceptance(key)) for key, r in report.keyed() if r.status in LOOK_AT]
    skipped = [r for r in report.results if r.status is Status.SKIPPED]
    lines = [f"# SCIM compliance report: {report.target}", "", _context(report), "", *_counts_table(report)]
    if report.readiness:
        lines += ["", "## Identity provider readiness", ""]
        lines += [f"- **{r.status.name}** `{r.check_id}`: {_inline(r.reason)}" for r in report.readiness]
    if report.leftovers:
        lines += ["", f"**Left on the server**: {left_on_server(report.leftovers, '`')}"]
    causes = shared_causes(report.results)
    if causes:
        lines += ["", f"## Causes shared by several results ({len(causes)})", ""]
        lines += [f"- `{_inline(cause.request)}`: {len(cause.results)} results of {_inline(', '.join(cause.checks))}" for cause in causes]
    if attention:
        lines += ["", f"## Results to look at ({len(attention)})"]
        for result, acceptance in attention:
            lines += ["", *_result_section(result, acceptance)]
    if skipped:
        lines += ["", f"## Skipped ({len(skipped)})", ""]
        lines += [f"- `{r.check_id}`: {_inline(told(r))}" for r in skipped]
    return "\n".join(lines) + "\n"


def _context(report: RunReport) -> str:
    parts = [f"Profile {_inline(report.profile)}"] if report.profile else []
    parts += [
        f"started {report.started_at:%Y-%m-%d %H:%M:%S} UTC",
        f"{report.duration:.1f} s",
        f"scim-tui {report.tool_version}",
    ]
    return " · ".join(parts)


def _counts_table(report: RunReport) -> list[str]:
    counts = report.counts()
    rows = [f"| {status.name} | {count} |" for status, count in counts.items() if count]
    return ["| Status | Results |", "|---|---:|", *rows, f"| **Total** | **{sum(counts.values())}** |"]


def _result_section(result: CheckResult, acceptance: str | None = None) -> list[str]:
    accepted = f" · {_inline(acceptance)}" if acceptance else ""
    lines = [f"### {result.status.name} · `{result.check_id}`{accepted}", "", f"**Reason:** {_inline(told(result))}"]
    if result.section:
        lines += ["", f"RFC {result.rfc} §{result.section}"]
    exchange = failing_exchange(result)
    if exchange is None:
        return lines
    if len(result.exchanges) > 1:
        number = result.exchanges.index(exchange) + 1
        lines += ["", f"Exchange {number} of {len(result.exchanges)}:"]
    return [*lines, "", _fenced(request_text(exchange, BODY_LIMIT)), "", _fenced(response_text(exchange, BODY_LIMIT))]


def _inline(text: str | None) -> str:
    """Text on one line, with the characters Markdown would interpret escaped."""
    return re.sub(r"([\\`*_\[\]<>|#])", r"\\\1", " ".join((text or "").split()))


def _fenced(text: str) -> str:
    """A code block whose fence is longer than any run of backticks in the text."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}http\n{text}\n{fence}"
