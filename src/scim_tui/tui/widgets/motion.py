"""j, k, g and G in every list and table of the app: down, up, first, last, as in the terminal
programs people know (less, vim, lazygit, k9s). One binding id each, whatever the list, so that
a keymap file rebinds them everywhere at once."""

from __future__ import annotations

from textual.binding import Binding
from textual.binding import BindingType
from textual.widgets import OptionList
from textual.widgets import SelectionList

MOTION_IDS = frozenset({"list.down", "list.up", "list.first", "list.last"})
"""The motion bindings' ids: the help lists them wherever a list has the keys."""


def motion_bindings(first: str = "first", last: str = "last") -> list[BindingType]:
    """j, k, g, G on a widget's own actions: ``cursor_down``, ``cursor_up``, and those given for
    the first and the last line."""
    return [
        Binding("j", "cursor_down", "Down", show=False, tooltip="Down in the list", id="list.down"),
        Binding("k", "cursor_up", "Up", show=False, tooltip="Up in the list", id="list.up"),
        Binding("g", first, "First", show=False, tooltip="First in the list", id="list.first"),
        Binding("G", last, "Last", show=False, tooltip="Last in the list", id="list.last"),
    ]


class MotionOptionList(OptionList):
    """An option list that j, k, g and G move in."""

    BINDINGS = motion_bindings()


class MotionSelectionList(SelectionList[str]):
    """A list of ticks that j, k, g and G move in."""

    BINDINGS = motion_bindings()
