"""The key table of docs/keys.md and the app's bindings are the same keys: each key the table names is
bound where it says, and each key bound (shown in the footer or not) is in the table. Its table of
binding ids (for a keymap file) lists each id of the app's bindings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.binding import Binding
from textual.widgets import SelectionList

from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.binding_ids import binding_ids
from scim_tui.tui.screens.changed_on_disk import ChangedOnDiskScreen
from scim_tui.tui.screens.profile_form import ProfileFormScreen
from scim_tui.tui.screens.profiles import ProfilesScreen
from scim_tui.tui.screens.result import ResultScreen
from scim_tui.tui.screens.run import RunScreen
from scim_tui.tui.screens.settings import SettingsScreen
from scim_tui.tui.widgets.check_tree import CheckTree
from scim_tui.tui.widgets.find_bar import FindBar
from scim_tui.tui.widgets.message_view import MessageView
from scim_tui.tui.widgets.motion import MotionOptionList
from scim_tui.tui.widgets.motion import MotionSelectionList
from scim_tui.tui.widgets.results_table import ResultsTable

KEYS = Path(__file__).parents[2] / "docs" / "keys.md"
WHERE = {
    "profiles": [ProfilesScreen, MotionOptionList],
    "profile form": [ProfileFormScreen, ChangedOnDiskScreen],
    "run": [RunScreen, CheckTree, ResultsTable, MotionSelectionList],
    "result": [ResultScreen, FindBar, MessageView],
    "settings": [SettingsScreen, MotionSelectionList, SelectionList],
    "everywhere": [ScimTuiApp],
}
NAMES = {"/": "slash", "?": "question_mark"}


def documented_keys() -> dict[str, set[str]]:
    rows = re.findall(r"^\| (profiles|profile form|run|result|settings|everywhere) \| (.*) \|$", KEYS.read_text(encoding="utf-8"), re.MULTILINE)
    found: dict[str, set[str]] = {}
    for where, keys in rows:  # the first row of each (the screenshots' table has a "profiles" too)
        found.setdefault(where, {NAMES.get(key, key) for key in re.findall(r"`([^`]+)`", _ranges(keys))})
    return found


def _ranges(keys: str) -> str:
    """`1`…`7` as each key it stands for."""
    return re.sub(r"`(\d)`…`(\d)`", lambda m: " ".join(f"`{n}`" for n in range(int(m[1]), int(m[2]) + 1)), keys)


def bindings(where: str) -> list[Binding]:
    return [binding for owner in WHERE[where] for binding in owner.BINDINGS if isinstance(binding, Binding)]


@pytest.mark.parametrize("where", list(WHERE))
def test_the_docs_name_the_keys_the_app_has(where):
    written = documented_keys()[where]
    keys = {key for binding in bindings(where) for key in binding.key.split(",")}
    app_keys = {binding.key for binding in bindings("everywhere")}
    assert written <= keys | app_keys, f"docs/keys.md names keys {where} does not have: {written - keys - app_keys}"
    missing = keys - written - documented_keys()["everywhere"]
    assert not missing, f"{where}: keys bound there and missing from docs/keys.md: {sorted(missing)}"


def test_the_docs_list_every_binding_id_a_keymap_may_rebind():
    documented = set(re.findall(r"^\| `([a-z_.0-9-]+)` \| ", KEYS.read_text(encoding="utf-8"), re.MULTILINE))
    assert documented == binding_ids()
