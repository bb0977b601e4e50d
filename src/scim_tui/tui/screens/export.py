"""Choosing the format of an exported report."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList
from textual.widgets import Static
from textual.widgets.option_list import Option

from scim_tui.reports import EXTENSIONS
from scim_tui.reports import FORMATS


class ExportScreen(ModalScreen[str | None]):
    """A list of the report formats; dismissed with the chosen one, or None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="export.cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(id="export-dialog"):
            yield Static("Export the run as", classes="pane-title")
            yield OptionList(*(Option(f"{name} (.{EXTENSIONS[name]})", id=name) for name in FORMATS), id="export-formats")

    @on(OptionList.OptionSelected)
    def choose(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
