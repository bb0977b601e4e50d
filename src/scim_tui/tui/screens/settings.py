"""F2: the app's settings, each applied and saved as it changes (store/settings.py)."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label
from textual.widgets import Select
from textual.widgets import SelectionList
from textual.widgets import Static
from textual.widgets.selection_list import Selection

from scim_tui.checker import Status
from scim_tui.store.settings import Settings
from scim_tui.store.settings import Sort
from scim_tui.tui.widgets.motion import MotionSelectionList

SIDEBAR = "sidebar"
BY_CAUSE = "by_cause"
STATUS = "status:"
"""Before a status's name, in the values of the list of what the run screen shows."""


def shown_options(settings: Settings) -> list[Selection[str]]:
    """What the run screen shows, ticked when it does: the sidebar, a line per cause, each status's results."""
    return [
        Selection("The sidebar: tags, resource types (from 100 columns)", SIDEBAR, settings.sidebar),
        Selection("One line per cause shared by several results", BY_CAUSE, settings.by_cause),
        *(Selection(f"{status.name} results", f"{STATUS}{status.name}", status.name not in settings.hidden_statuses) for status in Status),
    ]


def shown_changes(ticked: list[str]) -> dict[str, object]:
    """The settings the ticked values of the list stand for."""
    hidden = [status.name for status in Status if f"{STATUS}{status.name}" not in ticked]
    return {"sidebar": SIDEBAR in ticked, "by_cause": BY_CAUSE in ticked, "hidden_statuses": hidden}


class SettingsScreen(ModalScreen[None]):
    """The theme, the order of the results, and what the run screen shows; escape closes it."""

    BINDINGS = [Binding("escape", "close", "Close", id="settings.close")]

    def __init__(self, settings: Settings, themes: list[str], change: Callable[..., object], unsaved: str | None = None) -> None:
        super().__init__()
        self.settings = settings
        self.themes = themes
        self.change = change
        """Applies and saves changed settings (ScimTuiApp.change_settings)."""
        self.unsaved = unsaved
        """Why changes are not saved, when they are not (the file does not read)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="settings-dialog"):
            yield Static(Text("Settings", style="bold underline"), classes="settings-title")
            with Horizontal(classes="settings-row"):
                yield Label("Theme", classes="settings-label")
                yield Select([(theme, theme) for theme in self.themes], value=self.settings.theme, allow_blank=False, compact=True, id="settings-theme")
            with Horizontal(classes="settings-row"):
                yield Label("Results", classes="settings-label")
                yield Select(
                    [(f"in {sort.value}", sort.value) for sort in Sort], value=self.settings.sort.value, allow_blank=False, compact=True, id="settings-sort"
                )
            yield Static("The run screen shows (space ticks):", classes="settings-title")
            yield MotionSelectionList(*shown_options(self.settings), id="settings-shown")
            yield Static(Text(self.unsaved or "Each change applies and is saved at once. escape closes.", style="dim"), id="settings-note")

    def on_mount(self) -> None:
        self.query_one("#settings-theme", Select).focus()

    @on(Select.Changed, "#settings-theme")
    def theme_chosen(self, event: Select.Changed) -> None:
        self.change(theme=str(event.value))

    @on(Select.Changed, "#settings-sort")
    def sort_chosen(self, event: Select.Changed) -> None:
        self.change(sort=Sort(str(event.value)))

    @on(SelectionList.SelectedChanged, "#settings-shown")
    def shown_ticked(self, event: SelectionList.SelectedChanged[str]) -> None:
        self.change(**shown_changes(list(event.selection_list.selected)))

    def action_close(self) -> None:
        self.dismiss(None)
