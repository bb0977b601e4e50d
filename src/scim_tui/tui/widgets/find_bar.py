"""Find in an exchange: the text to find, and which match of how many is shown."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input
from textual.widgets import Static


def count_label(term: str, current: int, total: int) -> str:
    if not term:
        return ""
    return f"{current + 1} of {total}" if total else "no match"


class FindBar(Horizontal):
    """The text to find, typed; ``enter``/``down`` the next match, ``up`` the previous one, ``escape`` closes."""

    BINDINGS = [
        Binding("escape", "close", "Close find", id="find.close"),
        Binding("down", "move(1)", "Next match", show=False, id="find.next"),
        Binding("up", "move(-1)", "Previous match", show=False, id="find.previous"),
    ]

    class Moved(Message):
        """Go ``step`` matches on (1) or back (-1)."""

        def __init__(self, step: int) -> None:
            super().__init__()
            self.step = step

    class Closed(Message):
        """The bar was closed: the matches are no longer shown."""

    def compose(self) -> ComposeResult:
        yield Input(placeholder="Find in this exchange (enter or down: next, up: previous, escape: close)", id="find-input")
        yield Static("", id="find-count")

    @property
    def term(self) -> str:
        return self.query_one(Input).value if self.display else ""

    def open(self) -> None:
        self.display = True
        self.query_one(Input).focus()

    def show_count(self, current: int, total: int) -> None:
        self.show_note(count_label(self.term, current, total))

    def show_note(self, note: str) -> None:
        self.query_one("#find-count", Static).update(note)

    @on(Input.Submitted)
    def next_match(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Moved(1))

    def action_move(self, step: int) -> None:
        self.post_message(self.Moved(step))

    def action_close(self) -> None:
        self.display = False
        self.post_message(self.Closed())
