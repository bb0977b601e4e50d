"""Choosing where, and in which format, a run's report is exported."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input
from textual.widgets import Label
from textual.widgets import OptionList
from textual.widgets import Static
from textual.widgets.option_list import Option

from scim_tui.reports import EXTENSIONS
from scim_tui.reports import FORMATS


@dataclass(frozen=True)
class ExportChoice:
    format: str
    folder: Path


class ExportScreen(ModalScreen[ExportChoice | None]):
    """A folder (the app's exports folder unless told another) and the report formats;
    dismissed with the choice, or None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="export.cancel")]

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.folder = folder

    def compose(self) -> ComposeResult:
        with Vertical(id="export-dialog"):
            yield Static("Export the run", classes="pane-title")
            yield Label("Into the folder (created if missing)")
            yield Input(str(self.folder), id="export-folder")
            yield Label("As")
            yield OptionList(*(Option(f"{name} (.{EXTENSIONS[name]})", id=name) for name in FORMATS), id="export-formats")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(Input.Submitted, "#export-folder")
    def to_formats(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def choose(self, event: OptionList.OptionSelected) -> None:
        folder = self.query_one("#export-folder", Input).value.strip() or str(self.folder)
        self.dismiss(ExportChoice(str(event.option.id), Path(folder).expanduser()))

    def action_cancel(self) -> None:
        self.dismiss(None)
