"""The text filter of the results pane: ``enter`` keeps it, ``escape`` clears and hides it."""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.message import Message
from textual.widgets import Input


class FilterInput(Input):
    BINDINGS = [Binding("escape", "clear", "Clear filter", id="filter.clear")]

    class Cleared(Message):
        """The filter was cleared and hidden."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(placeholder="Filter by check name or reason (enter keeps it, escape clears it)", **kwargs)

    def action_clear(self) -> None:
        self.value = ""
        self.display = False
        self.post_message(self.Cleared())
