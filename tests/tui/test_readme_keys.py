"""The README's key table names only keys the app has, and every key a screen shows in its footer."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.binding import Binding

from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.screens.changed_on_disk import ChangedOnDiskScreen
from scim_tui.tui.screens.profile_form import ProfileFormScreen
from scim_tui.tui.screens.profiles import ProfilesScreen
from scim_tui.tui.screens.result import ResultScreen
from scim_tui.tui.screens.run import RunScreen
from scim_tui.tui.widgets.check_tree import CheckTree
from scim_tui.tui.widgets.find_bar import FindBar
from scim_tui.tui.widgets.message_view import MessageView
from scim_tui.tui.widgets.results_table import ResultsTable

README = Path(__file__).parents[2] / "README.md"
WHERE = {
    "profiles": [ProfilesScreen],
    "profile form": [ProfileFormScreen, ChangedOnDiskScreen],
    "run": [RunScreen, CheckTree, ResultsTable],
    "result": [ResultScreen, FindBar, MessageView],
    "everywhere": [ScimTuiApp],
}
NAMES = {"/": "slash", "?": "question_mark"}


def readme_keys() -> dict[str, set[str]]:
    rows = re.findall(r"^\| (profiles|profile form|run|result|everywhere) \| (.*) \|$", README.read_text(encoding="utf-8"), re.MULTILINE)
    found: dict[str, set[str]] = {}
    for where, keys in rows:  # the first row of each (the screenshots' table has a "profiles" too)
        found.setdefault(where, {NAMES.get(key, key) for key in re.findall(r"`([^`]+)`", keys)})
    return found


def bindings(where: str) -> list[Binding]:
    return [binding for owner in WHERE[where] for binding in owner.BINDINGS if isinstance(binding, Binding)]


@pytest.mark.parametrize("where", list(WHERE))
def test_the_readme_names_only_keys_the_app_has_and_every_footer_key(where):
    written = readme_keys()[where]
    keys = {key for binding in bindings(where) for key in binding.key.split(",")}
    app_keys = {binding.key for binding in bindings("everywhere")}
    assert written <= keys | app_keys, f"the README names keys {where} does not have: {written - keys - app_keys}"
    shown = {key for binding in bindings(where) if binding.show for key in binding.key.split(",")}
    missing = shown - written - readme_keys()["everywhere"]
    assert not missing, f"{where}: footer keys missing from the README"
