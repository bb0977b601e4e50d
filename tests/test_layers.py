"""Layers only look down, and below the app nothing loads Textual: the contracts in pyproject.toml,
which `make test` checks with lint-imports; here, proof that they catch a breach, and what loads
before the first screen."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a new interpreter

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(package_root: Path) -> subprocess.CompletedProcess[str]:
    """lint-imports with the project's contracts, on the package found under `package_root`."""
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--config", str(ROOT / "pyproject.toml")],
        capture_output=True,
        text=True,
        cwd=package_root,
        env={"PYTHONPATH": str(package_root), "PATH": "/usr/bin:/bin"},
    )


@pytest.fixture
def package_copy(tmp_path):
    shutil.copytree(ROOT / "src" / "scim_tui", tmp_path / "scim_tui", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def test_the_contracts_hold_on_the_package_as_it_is(package_copy):
    result = lint_imports(package_copy)
    assert result.returncode == 0, result.stdout


@pytest.mark.parametrize(
    ("module", "line", "said"),
    [
        ("checker/checks/misc.py", "import textual.app\n", "scim_tui.checker.checks.misc -> textual"),
        ("store/history.py", "from scim_tui.net import connect\n", "scim_tui.store.history -> scim_tui.net.connect"),
        ("reports/__init__.py", "from scim_tui.tui import app\n", "scim_tui.reports -> scim_tui.tui.app"),
    ],
)
def test_a_module_that_looks_up_or_loads_textual_breaks_a_contract(package_copy, module, line, said):
    path = package_copy / "scim_tui" / module
    path.write_text(line + path.read_text())
    result = lint_imports(package_copy)
    assert result.returncode == 1
    assert said in result.stdout


def test_a_check_module_that_cannot_be_parsed_fails_the_contracts(package_copy):
    path = package_copy / "scim_tui" / "checker" / "checks" / "misc.py"
    path.write_text("def broken(:\n" + path.read_text())
    assert lint_imports(package_copy).returncode != 0


STARTUP = """
import json, sys
before = set(sys.modules)
import scim_tui.cli.main
cli = sorted(m for m in set(sys.modules) - before if m.split('.')[0] not in sys.stdlib_module_names and m.split('.')[0] != 'scim_tui')
import scim_tui.tui.app
heavy = ('scim2_client', 'scim2_models', 'scim2_server', 'httpx2', 'scim_tui.checker.engine', 'scim_tui.demo', 'scim_tui.net.connect')
app = sorted(m for m in heavy if m in sys.modules)
import scim_tui.tui.screens.run
run = sorted(m for m in (*heavy, 'scim_tui.checker.checks') if m in sys.modules)
print(json.dumps({'cli': cli, 'app': app, 'run': run}))
"""


def test_what_loads_before_the_first_screen():
    """Start fast: the command imports the standard library only (its --help and
    --version answer at once); the app's first screen waits for neither the engine, scim2-client
    nor the demo server (they load when a run or a connection test needs them); nor does the run
    screen's (`--demo`): its workers load them in their threads."""
    output = subprocess.run([sys.executable, "-c", STARTUP], capture_output=True, text=True, check=True).stdout
    assert json.loads(output) == {"cli": [], "app": [], "run": []}


def test_no_test_module_imports_another():
    """Helpers two test modules share live in tests/support/ or a conftest.py: a test module
    imported by another runs its import-time code twice and ties the two together."""
    tests = Path(__file__).parent
    importing = re.compile(r"^\s*(?:from|import)\s+tests(?:\.\w+)*\.test_\w+", re.MULTILINE)
    offenders = [str(path.relative_to(tests)) for path in sorted(tests.rglob("*.py")) if importing.search(path.read_text())]
    assert offenders == []
