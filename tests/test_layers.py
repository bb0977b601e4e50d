"""Layers only look down: the engine and the plain modules never import Textual."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # a new interpreter

PLAIN_MODULES = [
    "scim_tui.checker",
    "scim_tui.profiles",
    "scim_tui.toml_edits",
    "scim_tui.selections",
    "scim_tui.connect",
    "scim_tui.transport",
    "scim_tui.connections",
    "scim_tui.cutoff",
    "scim_tui.proxies",
    "scim_tui.oauth",
    "scim_tui.demo",
    "scim_tui.reports",
    "scim_tui.history",
    "scim_tui.baseline",
    "scim_tui.headless",
    "scim_tui.tag_guide",
    "scim_tui.cli",
]
IMPORT_EACH = """
import importlib, json, sys
seen = {}
for module in sys.argv[1:]:
    importlib.import_module(module)
    seen[module] = any(m == 'textual' or m.startswith(('textual.', 'scim_tui.tui')) for m in sys.modules)
print(json.dumps(seen))
"""
"""Imports the modules one after the other in a new interpreter, telling after each whether
Textual or the app is loaded. Once one of them loaded it, it stays: so the first module seen
with it is the one that imported it, and none imports it if the last is seen without it."""


@pytest.fixture(scope="module")
def textual_loaded() -> dict[str, bool]:
    """Whether Textual was loaded once each plain module was imported (one interpreter, not one per module)."""
    output = subprocess.run([sys.executable, "-c", IMPORT_EACH, *PLAIN_MODULES], capture_output=True, text=True, check=True).stdout
    return json.loads(output)


@pytest.mark.parametrize("module", PLAIN_MODULES)
def test_module_does_not_import_textual(module, textual_loaded):
    assert textual_loaded[module] is False


STARTUP = """
import json, sys
before = set(sys.modules)
import scim_tui.cli
cli = sorted(m for m in set(sys.modules) - before if m.split('.')[0] not in sys.stdlib_module_names and m.split('.')[0] != 'scim_tui')
import scim_tui.tui.app
heavy = ('scim2_client', 'scim2_models', 'scim2_server', 'httpx2', 'scim_tui.checker.engine', 'scim_tui.demo', 'scim_tui.connect')
app = sorted(m for m in heavy if m in sys.modules)
print(json.dumps({'cli': cli, 'app': app}))
"""


def test_what_loads_before_the_first_screen():
    """Issue 19, start fast: the command imports the standard library only (its --help and
    --version answer at once); the app's first screen waits for neither the engine, scim2-client
    nor the demo server (they load when a run or a connection test needs them)."""
    output = subprocess.run([sys.executable, "-c", STARTUP], capture_output=True, text=True, check=True).stdout
    assert json.loads(output) == {"cli": [], "app": []}
