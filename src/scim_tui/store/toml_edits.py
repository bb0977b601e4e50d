"""TOML files as people write them: read safely, and changed so that everything else stays as written.

Read (``read_toml``): tomllib, its every failure one TomlProblem, a recursion or an integer
thousands of digits long included.

A person's file keeps its comments, its order, its spacing and the keys nobody changed, byte
for byte: only the keys whose value differs between ``before`` and ``after`` are rewritten.
tomlkit keeps the whole document (comments and whitespace included) and writes it back as it
read it, which is why it is used here rather than a writer that knows only values.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from collections.abc import MutableMapping
from typing import Any

import tomlkit


class TomlProblem(ValueError):
    """Why a text cannot be read as TOML: ``kind`` is "syntax", "integer" or "nesting"; ``line``
    where, when known."""

    def __init__(self, kind: str, message: str, line: int | None = None):
        super().__init__(message)
        self.kind = kind
        self.line = line


def read_toml(text: str) -> dict[str, Any]:
    """The values of a TOML text; TomlProblem saying why it cannot be read."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = re.search(r"at line (\d+)", str(exc))
        raise TomlProblem("syntax", str(exc), int(line.group(1)) if line else None) from None
    except ValueError:  # tomllib's own int() refuses integers of thousands of digits
        raise TomlProblem("integer", "holds an integer thousands of digits long") from None
    except RecursionError:
        raise TomlProblem("nesting", "nests arrays or tables too deeply to be read") from None


def new_document(values: Mapping[str, Any]) -> str:
    """A TOML document holding these values, as a new file written for the user."""
    return tomlkit.dumps(_plain(values))


def edited_document(text: str, before: Mapping[str, Any], after: Mapping[str, Any]) -> str:
    """The document ``text`` with the values that differ from ``before`` to ``after`` changed.

    ``before`` holds what the document's values meant (defaults included), ``after`` what they
    must now be. A key whose value did not change is left as it is written, even if it is
    written differently (``timeout = 30`` for 30.0). Raises tomlkit's ParseError when ``text``
    is not TOML.
    """
    document = tomlkit.parse(text)
    _apply(document, before, after)
    return tomlkit.dumps(document)


def _apply(table: MutableMapping[str, Any], before: Mapping[str, Any], after: Mapping[str, Any]) -> None:
    for key in [key for key in before if key not in after and key in table]:
        del table[key]
    for key, value in after.items():
        old = before.get(key)
        if old == value:
            continue
        if isinstance(value, Mapping) and isinstance(old, Mapping):
            if key in table:
                _apply(table[key], old, value)
            else:
                table[key] = _plain(_changed(old, value))
        else:
            table[key] = _plain(value)


def _changed(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """What a table absent from the document must hold: only the keys that differ from ``before``."""
    changed = {}
    for key, value in after.items():
        old = before.get(key)
        if old != value:
            changed[key] = _changed(old, value) if isinstance(value, Mapping) and isinstance(old, Mapping) else value
    return changed


def _plain(value: Any) -> Any:
    """A value as a person would write it: 45 rather than 45.0."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value
