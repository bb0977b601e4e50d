"""Helpers for the tests of the profiles screen, the profile form and the confirm modal."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from textual.app import App
from textual.widgets import Input

from scim_tui.store.profiles import profiles_dir


def screen_text(app: App) -> str:
    """The text of the screen as drawn, modal and background screens included."""
    console = Console(width=app.size.width, height=app.size.height, file=io.StringIO(), record=True, force_terminal=True)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text()


async def type_into(pilot, selector: str, text: str) -> None:
    """Replace an input's text: focus it, paste all but the last character, type that one.

    Typing every character costs a screen update each; the last keystroke is what matters.
    """
    field = pilot.app.screen.query_one(selector, Input)
    field.focus()
    await pilot.pause()  # focusing selects the text: let it, before replacing it
    field.value = text[:-1]
    field.cursor_position = len(field.value)
    await pilot.press(text[-1])
    await pilot.pause()


def still_cursor(app: App) -> None:
    """Stop every input's cursor from blinking, so snapshots are stable."""
    for field in app.screen.query(Input):
        field.cursor_blink = False


def widget_text(app: App, selector: str) -> str:
    """The text drawn in a widget's region of the screen, its lines joined by spaces."""
    region = app.screen.query_one(selector).region
    lines = screen_text(app).splitlines()[region.y : region.bottom]
    return " ".join(" ".join(line[region.x : region.right].split()) for line in lines).strip()


HAND_WRITTEN = """\
# Staging, written by hand: the app must keep every byte it does not change.
url = "https://scim.staging.example.com/v2"   # the SCIM base
name = "Staging"
timeout = 30            # seconds; the default, written on purpose
jobs = 2

[tls]
verify = true
# ca_bundle = "/etc/ssl/staging.pem"

[auth]
kind = "bearer"
token = "env:STAGING_TOKEN"  # from the CI secrets
"""


def hand_written(mode: int = 0o640) -> Path:
    profiles_dir().mkdir(parents=True)
    path = profiles_dir() / "staging.toml"
    path.write_text(HAND_WRITTEN)
    path.chmod(mode)
    return path
