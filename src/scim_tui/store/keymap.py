"""The user's keymap: ``<config dir>/keymap.toml`` binds the app's actions to other keys, by binding id.

Each line names a binding id and its keys, several keys apart with commas: ``"run.run" = "R"``.
The ids' dots may also be TOML's tables (``[run]`` then ``run = "R"``). A file that does not
read is one line naming it and the problem, and the app's own keys are used. The app never writes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from scim_tui.checker.limits import MAX_STATE_BYTES
from scim_tui.store.paths import config_dir
from scim_tui.store.paths import read_bounded
from scim_tui.store.toml_edits import TomlProblem
from scim_tui.store.toml_edits import read_toml


class KeymapError(Exception):
    """The keymap file does not read: one line naming it and the problem."""


def keymap_file() -> Path:
    return config_dir() / "keymap.toml"


def load_keymap() -> dict[str, str]:
    """Each binding id the file names, and its keys (``"ctrl+r,R"``); empty without a file; KeymapError."""
    path = keymap_file()
    try:
        values = read_toml(read_bounded(path, MAX_STATE_BYTES).decode("utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, TomlProblem) as exc:
        reason = f"not TOML: {exc}" if isinstance(exc, TomlProblem) else "not UTF-8 text" if isinstance(exc, UnicodeDecodeError) else exc.strerror or str(exc)
        raise KeymapError(_ignored(path, reason)) from None
    keymap: dict[str, str] = {}
    for binding_id, keys in _flattened(values):
        if not isinstance(keys, str) or not keys.strip():
            raise KeymapError(_ignored(path, f'{binding_id} is given {keys!r}: write its keys as a string, such as "ctrl+r" or "R,ctrl+r"'))
        keymap[binding_id] = keys
    return keymap


def _flattened(values: Mapping[str, Any], prefix: str = "") -> list[tuple[str, object]]:
    """Each value of the document with its dotted id: a table's keys after the table's name."""
    found: list[tuple[str, object]] = []
    for key, value in values.items():
        if isinstance(value, Mapping):
            found += _flattened(value, f"{prefix}{key}.")
        else:
            found.append((f"{prefix}{key}", value))
    return found


def _ignored(path: Path, reason: str) -> str:
    return f"Ignored the keymap file {path} ({reason}): the app's own keys are used."
