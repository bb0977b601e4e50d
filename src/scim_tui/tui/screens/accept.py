"""Accepting a failure: a note saying why, and a day after which it counts again (optional)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input
from textual.widgets import Label
from textual.widgets import Static


@dataclass(frozen=True)
class Acceptance:
    note: str
    until: date | None


def until_problem(text: str, today: date) -> str | None:
    """What is wrong with the date typed, in one line; None when it is empty or a day after today."""
    if not text:
        return None
    try:
        day = date.fromisoformat(text)
    except ValueError:
        return f"'{text}' is not a date: write it as YYYY-MM-DD, e.g. {today.year + 1}-01-31, or leave it empty."
    if day <= today:
        return f"{day} is not after today: the failure would count again at once; choose a later day, or leave it empty."
    return None


class AcceptScreen(ModalScreen[Acceptance | None]):
    """Ask for the note and the date of an accepted failure; dismissed with them, or None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="accept.cancel")]

    def __init__(self, what: str, today: date) -> None:
        super().__init__()
        self.what = what
        self.today = today

    def compose(self) -> ComposeResult:
        with Vertical(id="accept-dialog"):
            yield Static(Text(f"Accept {self.what} for now"), classes="pane-title")
            yield Label("Why (a note for the baseline file)")
            yield Input(placeholder="e.g. vendor ticket 42", id="accept-note")
            yield Label("Until (optional, YYYY-MM-DD: it counts again after that day)")
            yield Input(id="accept-until")
            yield Static("", id="accept-problem")
            yield Static(Text("tab to the date · enter accepts · escape cancels", style="dim"))

    def on_mount(self) -> None:
        self.query_one("#accept-note", Input).focus()

    @on(Input.Changed, "#accept-until")
    def check_date(self) -> str | None:
        """Say what is wrong with the date as it is typed; returns the problem."""
        problem = until_problem(self.query_one("#accept-until", Input).value.strip(), self.today)
        self.query_one("#accept-problem", Static).update(Text(problem or "", style="red"))
        return problem

    @on(Input.Submitted)
    def accept(self) -> None:
        until = self.query_one("#accept-until", Input).value.strip()
        if self.check_date() is None:
            note = " ".join(self.query_one("#accept-note", Input).value.split())
            self.dismiss(Acceptance(note, date.fromisoformat(until) if until else None))

    def action_cancel(self) -> None:
        self.dismiss(None)
