"""A curl command in full, to select and copy by hand, with where it was saved and what its variables hold.

Copying goes through the terminal (OSC 52), which many terminals ignore (tmux by default)
without a word: the app cannot know whether it worked, so it says what it did and always
offers the command on screen and in a file.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label
from textual.widgets import TextArea

from scim_tui.store.paths import data_dir
from scim_tui.tui.curl import variables_of

CLIPBOARD_NOTE = (
    "Sent to the clipboard through the terminal (OSC 52). Terminals that do not accept it leave the "
    "clipboard as it was, silently (tmux does unless `set -g set-clipboard on`): then select the command below."
)


def curl_file() -> Path:
    """Where the last command copied is saved, for terminals where no copy works."""
    return data_dir() / "last-curl.sh"


def save_command(command: str) -> str:
    """Save the command in the app's file; a line saying where, or why it could not be saved."""
    path = curl_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(command + "\n", encoding="utf-8")
    except OSError as exc:
        return f"Could not save it to {path}: {exc.strerror or exc}."
    return f"Also saved to {path}."


class CurlScreen(ModalScreen[None]):
    """The command, selectable, and what to do with it; ``escape`` closes it."""

    BINDINGS = [Binding("escape", "close", "Close", id="curl.close")]

    def __init__(self, command: str, saved: str) -> None:
        super().__init__()
        self.command = command
        self.saved = saved

    def compose(self) -> ComposeResult:
        with Vertical(id="curl-dialog"):
            yield Label("The request as a curl command", classes="pane-title")
            yield Label(f"{CLIPBOARD_NOTE} {self.saved}", markup=False, classes="curl-note")
            yield TextArea(self.command, read_only=True, soft_wrap=True, show_line_numbers=False, id="curl-command")
            for line in variables_of(self.command):
                yield Label(line, markup=False, classes="curl-note")

    def on_mount(self) -> None:
        area = self.query_one(TextArea)
        area.focus()
        area.select_all()

    def action_close(self) -> None:
        self.dismiss(None)
