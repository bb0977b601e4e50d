"""The question asked when a profile's file changed on disk while the form edited it."""

from __future__ import annotations

from enum import StrEnum

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Button
from textual.widgets import Label


class Resolution(StrEnum):
    OVERWRITE = "overwrite"
    """Write the form over the file: what the form shows wins, the file's other keys stay."""
    RELOAD = "reload"
    """Read the file again into the form, dropping the edits."""
    KEEP_EDITING = "keep-editing"


class ChangedOnDiskScreen(ModalScreen[Resolution]):
    """Say what changed and let the user choose: overwrite (o), reload (r), keep editing (k, escape)."""

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    """Below 100 columns the answers stack (profiles.tcss)."""
    BINDINGS = [
        Binding("o", "choose('overwrite')", "Overwrite", id="changed.overwrite"),
        Binding("r", "choose('reload')", "Reload", id="changed.reload"),
        Binding("k", "choose('keep-editing')", "Keep editing", id="changed.keep"),
        Binding("escape", "choose('keep-editing')", "Keep editing", show=False, id="changed.cancel"),
    ]

    def __init__(self, problem: str) -> None:
        super().__init__()
        self.problem = problem

    def compose(self) -> ComposeResult:
        with Vertical(id="changed-dialog"):
            yield Label(self.problem, markup=False, id="changed-problem")
            with Horizontal(id="changed-buttons"):
                yield Button("Overwrite with my edits (o)", variant="error", id=Resolution.OVERWRITE.value)
                yield Button("Reload, drop my edits (r)", variant="warning", id=Resolution.RELOAD.value)
                yield Button("Keep editing (k)", variant="primary", id=Resolution.KEEP_EDITING.value)

    def on_mount(self) -> None:
        self.query_one(f"#{Resolution.KEEP_EDITING.value}", Button).focus()

    def action_choose(self, choice: str) -> None:
        self.dismiss(Resolution(choice))

    @on(Button.Pressed)
    def chosen(self, event: Button.Pressed) -> None:
        self.dismiss(Resolution(event.button.id or Resolution.KEEP_EDITING.value))
