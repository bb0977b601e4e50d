"""The text report: one line per result with its status, then a summary."""

from __future__ import annotations

from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.checker.causes import shared_causes
from scim_tui.checker.results import STATUS_WIDTH
from scim_tui.reports.model import RunReport
from scim_tui.reports.summary import plural

STATUS_COLORS = {
    Status.SUCCESS: "32",
    Status.COMPLIANT: "32",
    Status.ACCEPTABLE: "36",
    Status.DEVIATION: "33",
    Status.ERROR: "31",
    Status.CRITICAL: "1;31",
    Status.SKIPPED: "2",
}
"""ANSI SGR codes: green for conforming, yellow for deviations, red for failures, dim for skipped."""


def paint(text: str, status: Status, color: bool) -> str:
    return f"\x1b[{STATUS_COLORS[status]}m{text}\x1b[0m" if color else text


CHECK_WIDTH = 48
"""The widest check column of a text report: longer check names push their reason along."""


LEFTOVERS_NAMED = 5
"""How many leftovers the run's "Left on the server" line names: the JSON report holds them all."""


def told(result: CheckResult) -> str:
    """A result's reason on one line (what its check left is told once, for the run: `left_on_server`)."""
    return " ".join((result.reason or "").split())


def left_on_server(leftovers: list[str], quote: str = "") -> str:
    """What a run left on the server, in one line: how many, and the first few by name."""
    if not leftovers:
        return "nothing"
    named = ", ".join(f"{quote}{item}{quote}" for item in leftovers[:LEFTOVERS_NAMED])
    more = f" and {len(leftovers) - LEFTOVERS_NAMED} more (the JSON report names them all)" if len(leftovers) > LEFTOVERS_NAMED else ""
    return f"{plural(len(leftovers), 'resource')} (delete them by hand): {named}{more}"


def result_line(result: CheckResult, color: bool = False, acceptance: str | None = None, width: int = 0) -> str:
    """`STATUS  check  reason`, with how a baseline accepts it when it does; the check padded to `width`."""
    status = paint(result.status.name.ljust(STATUS_WIDTH), result.status, color)
    reason = told(result)
    accepted = f" ({acceptance})" if acceptance else ""
    return f"{status}  {f'{result.check_id}{accepted}'.ljust(width)}  {reason}".rstrip()


def summary_lines(report: RunReport, color: bool = False) -> list[str]:
    causes = [f"Shared cause: {cause.request}: {len(cause.results)} results of {', '.join(cause.checks)}" for cause in shared_causes(report.results)]
    return [
        *causes,
        report.summary_line(lambda text, status: paint(text, status, color)),
        f"Target {report.target} · started {report.started_at:%Y-%m-%d %H:%M:%S} UTC · {report.duration:.1f} s",
        f"Left on the server: {left_on_server(report.leftovers)}",
        *(f"Readiness: {paint(result.reason or '', result.status, color)}" for result in report.readiness),
    ]


def render(report: RunReport, color: bool = False) -> str:
    """A line per result, then the summary. The checks the selection left out get no line of
    their own (they would outnumber the results of a run of a few tags): one line counts them."""
    shown = [(key, result) for key, result in report.keyed() if not result.deselected]
    width = min(CHECK_WIDTH, max((len(str(result.check_id)) for _, result in shown), default=0))  # the reasons in one column
    lines = [result_line(result, color, report.acceptance(key), width) for key, result in shown]
    left_out = len(report.results) - len(shown)
    if left_out:
        lines.append(f"({plural(left_out, 'check')} left out by the selection, not run)")
    return "\n".join([*lines, "", *summary_lines(report, color)]) + "\n"
