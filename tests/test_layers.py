"""Layers only look down: the engine and the plain modules never import Textual."""

from __future__ import annotations

import subprocess
import sys

import pytest

PLAIN_MODULES = [
    "scim_tui.checker",
    "scim_tui.profiles",
    "scim_tui.toml_edits",
    "scim_tui.selections",
    "scim_tui.connect",
    "scim_tui.transport",
    "scim_tui.connections",
    "scim_tui.proxies",
    "scim_tui.oauth",
    "scim_tui.demo",
    "scim_tui.reports",
    "scim_tui.history",
    "scim_tui.headless",
    "scim_tui.cli",
]


@pytest.mark.parametrize("module", PLAIN_MODULES)
def test_module_does_not_import_textual(module):
    code = f"import sys, {module}; print(any(m == 'textual' or m.startswith(('textual.', 'scim_tui.tui')) for m in sys.modules))"
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert output.strip() == "False"
