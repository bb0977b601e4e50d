"""A result's data kept packed (pickled, then compressed) and read back as an equal copy.

A run keeps every result until it ends (the verdicts judge them all), and the answers results
examined weigh, parsed, ten to twenty times their bytes: on 20 resource types of 100 attributes,
the 40 lists `/.search` answered hold 25 MiB of scim2-models objects, the `/Schemas` 8 MiB, for
well under a tenth of that packed (bench/README.md, "The scale run's memory").

The bytes are made and read in this process only, never written or read from a file. The classes
of what is packed are kept aside, as themselves: the models built from a server's schemas
(scim2-client's discovery) cannot be found again by their names.
"""

from __future__ import annotations

import io
import pickle
import zlib
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

LEVEL = 1
"""zlib's fastest level: data packed is mostly JSON-like text, which it already shrinks to a third."""


@dataclass(frozen=True, slots=True)
class Packed:
    """A value pickled and compressed, with the classes its pickle names."""

    blob: bytes
    classes: tuple[type, ...]


class _Pickler(pickle.Pickler):
    """Keeps each class aside, named in the pickle by its place in `classes`."""

    def __init__(self, file: io.BytesIO) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.places: dict[type, int] = {}

    def persistent_id(self, obj: Any) -> int | None:
        if isinstance(obj, type):
            return self.places.setdefault(obj, len(self.places))
        return None


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: io.BytesIO, classes: tuple[type, ...]) -> None:
        super().__init__(file)
        self.classes = classes

    def persistent_load(self, pid: Any) -> type:
        return self.classes[pid]


def packed(value: Any) -> Any:
    """A model, or JSON values (a dict, a list), packed; anything else as it is: nothing to gain
    on a string or a number, and no promise that any other object unpickles as it was. What
    cannot be pickled (a model holding a lock) is kept as it is too."""
    if not isinstance(value, (BaseModel, dict, list, tuple)):
        return value
    file = io.BytesIO()
    pickler = _Pickler(file)
    try:
        pickler.dump(value)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return value
    return Packed(zlib.compress(file.getbuffer(), LEVEL), tuple(pickler.places))


def unpacked(value: Any) -> Any:
    """What `packed` was given: a new, equal copy of it when it was packed."""
    if not isinstance(value, Packed):
        return value
    return _Unpickler(io.BytesIO(zlib.decompress(value.blob)), value.classes).load()


class PackedField:
    """A dataclass field whose value is kept packed: set, it is packed; read, a copy is unpacked.
    Changing the copy read does not change the field: set it again."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = f"_{name}_packed"

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return None  # the field's default (dataclasses ask the class for it)
        return unpacked(obj.__dict__.get(self.slot))

    def __set__(self, obj: Any, value: Any) -> None:
        obj.__dict__[self.slot] = packed(value)
