"""One look per status, used everywhere a status is shown (table, summary, detail)."""

from __future__ import annotations

from rich.text import Text

from scim_tui.checker import Status
from scim_tui.tui.run_state import Mark

STATUS_STYLES: dict[Status, str] = {
    Status.SUCCESS: "bold green",
    Status.COMPLIANT: "green",
    Status.ACCEPTABLE: "cyan",
    Status.DEVIATION: "yellow",
    Status.ERROR: "bold dark_orange",
    Status.CRITICAL: "bold red",
    Status.SKIPPED: "dim",
}

STATUS_MEANINGS: dict[Status, str] = {
    Status.SUCCESS: "The server did what the RFC says.",
    Status.COMPLIANT: "A SHOULD of the RFC, kept.",
    Status.ACCEPTABLE: "An optional feature, used in a way the RFC allows.",
    Status.DEVIATION: "A SHOULD of the RFC, broken: worth fixing, not a failure.",
    Status.ERROR: "A MUST of the RFC, broken: a failure.",
    Status.CRITICAL: "A security hole (such as resources served without credentials): a failure.",
    Status.SKIPPED: "The check could not apply: a feature the server does not claim, or a step before it failed (the reason says which).",
}
"""What each status means, as the help screen says it."""

MARK_STYLES: dict[Mark, str] = {
    Mark.FIXED: "bold green",
    Mark.STILL_FAILING: "bold red",
    Mark.NEW_FAILURE: "bold red",
}


ACCEPTED = "✓accepted"
"""Beside the status of a failure the profile's baseline accepts."""


def status_text(status: Status, accepted: bool = False) -> Text:
    return Text(f"{status.name} {ACCEPTED}" if accepted else status.name, style=STATUS_STYLES[status])


def suite_text(status: Status) -> Text:
    """A suite summary's status where results are counted by status: in its colour, but not
    as one more result of that status (no count counts it)."""
    sign = "✘" if status.failed else "–" if status is Status.SKIPPED else "✔"
    return Text(f"suite {sign}", style=STATUS_STYLES[status])


SHORT_MARKS: dict[Mark, str] = {Mark.FIXED: "fixed", Mark.STILL_FAILING: "failing", Mark.NEW_FAILURE: "new"}
"""For the narrow column of the results table."""


def mark_text(mark: Mark | None, short: bool = False) -> Text:
    if mark is None:
        return Text("")
    label = SHORT_MARKS[mark] if short else mark.value
    return Text(f"{'✔' if mark is Mark.FIXED else '✘'} {label}", style=MARK_STYLES[mark])
