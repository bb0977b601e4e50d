"""The binding ids of the app, which a keymap file may rebind: every id a binding of this app's
screens and widgets has, read from their classes (the modules must be loaded)."""

from __future__ import annotations

from collections.abc import Mapping

from textual.binding import Binding
from textual.dom import DOMNode


def binding_ids() -> set[str]:
    """The id of each binding the app's own classes (loaded by now) declare."""
    return {binding.id for node in _app_classes(DOMNode) for binding in node.__dict__.get("BINDINGS", []) if isinstance(binding, Binding) and binding.id}


def _app_classes(base: type[DOMNode]) -> list[type[DOMNode]]:
    found = []
    for subclass in base.__subclasses__():
        if subclass.__module__.startswith("scim_tui."):
            found.append(subclass)
        found += _app_classes(subclass)
    return found


def unknown_ids(keymap: Mapping[str, str]) -> list[str]:
    """The ids a keymap names that no binding of the app has."""
    known = binding_ids()
    return [binding_id for binding_id in keymap if binding_id not in known]
