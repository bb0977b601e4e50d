"""F1 or ?: the keys of the screen the help was opened from, and what each status means."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.screen import Screen
from textual.widgets import Static

from scim_tui.checker import Status
from scim_tui.tui.widgets.facts import facts_table
from scim_tui.tui.widgets.motion import MOTION_IDS
from scim_tui.tui.widgets.status import STATUS_MEANINGS
from scim_tui.tui.widgets.status import status_text


def keys_of(screen: Screen[Any]) -> list[tuple[str, str]]:
    """Each key of the screen and the app (the footer's and the hidden ones), and those the focused
    widget shows in the footer or moves in a list with (j, k, g, G), with what it does (its
    tooltip, else its description), once each. A screen leaves some out by id with ``HELP_HIDDEN``
    (keys another line of the help sums up). Only the app's own keys, which all have an id:
    Textual's (its copy key, focus next) are not this app's to explain."""
    hidden: frozenset[str] = getattr(screen, "HELP_HIDDEN", frozenset())
    found: dict[str, str] = {}
    for active in screen.active_bindings.values():
        binding = active.binding
        own = active.node is screen or active.node is screen.app
        if not binding.id or not binding.description or binding.system or binding.id in hidden or not (own or binding.show or binding.id in MOTION_IDS):
            continue
        meaning = binding.tooltip or binding.description
        if meaning not in found.values():
            found[screen.app.get_key_display(binding)] = meaning
    return list(found.items())


def statuses_table() -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(no_wrap=True)
    table.add_column(ratio=1)
    for status in Status:
        table.add_row(status_text(status), STATUS_MEANINGS[status])
    return table


class HelpScreen(ModalScreen[None]):
    """What the keys of a screen do and what the statuses mean; escape, F1 or ? closes it."""

    BINDINGS = [
        Binding("escape", "close", "Close", id="help.close"),
        Binding("f1", "close", "Close", show=False, id="help.close-f1"),
        Binding("question_mark", "close", "Close", show=False, id="help.close-key"),
    ]

    def __init__(self, keys: list[tuple[str, str]]) -> None:
        super().__init__()
        self.keys = keys

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-dialog"):
            yield Static(Text("Keys of this screen", style="bold underline"), classes="help-title")
            yield Static(facts_table(self.keys), id="help-keys")
            yield Static(Text("What each status means", style="bold underline"), classes="help-title")
            yield Static(statuses_table(), id="help-statuses")
            yield Static(Text("ctrl+p opens the command palette: these keys, and more commands.", style="dim"), classes="help-title")

    def action_close(self) -> None:
        self.dismiss(None)
