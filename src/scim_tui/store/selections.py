"""The app's memory of the checks last chosen for each profile, kept in its own state, not in the profile.

A profile file is the user's: the app never writes it when a run starts. The selection of the
last run lives in ``<data dir>/selections/<profile>.json``, written atomically. A profile's
``[selection]`` table, when its file has one, is where the first run starts from. A state file
that cannot be read is ignored with one warning line: a run never depends on it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from pydantic import ValidationError

from scim_tui.checker.limits import MAX_STATE_BYTES
from scim_tui.selection import Selection
from scim_tui.store.paths import data_dir
from scim_tui.store.paths import read_bounded
from scim_tui.store.paths import storage_name
from scim_tui.store.paths import write_atomically
from scim_tui.store.profiles import Profile

log = logging.getLogger(__name__)
Warn = Callable[[str], object]


def selection_file(profile_name: str) -> Path:
    return data_dir() / "selections" / f"{storage_name(profile_name)}.json"


def remembered(profile: Profile, warn: Warn = log.warning) -> Selection:
    """The selection the run screen starts from: the last one run, else the profile's own."""
    path = selection_file(profile.name)
    try:
        return Selection.model_validate_json(read_bounded(path, MAX_STATE_BYTES))
    except FileNotFoundError:
        return profile.selection
    except (OSError, ValueError) as exc:
        reason = _reason(exc)
        warn(f"Ignored the app's remembered selection in {path} ({reason}): the run screen starts from the profile's; delete the file if this repeats.")
        return profile.selection


def remember(profile_name: str, selection: Selection) -> None:
    """Keep a profile's selection for the next time its run screen opens; raises OSError."""
    path = selection_file(profile_name)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, selection.model_dump_json(indent=1).encode())


def _reason(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return f"{where}: {first['msg']}" if where else first["msg"]
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc)
