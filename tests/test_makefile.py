"""The Makefile's recipes, as `make -n` prints them (nothing runs)."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def recipe(target: str) -> list[str]:
    """The commands `make TARGET` would run from scratch (-B: as if nothing were built yet)."""
    done = subprocess.run(["make", "-n", "-B", target], cwd=ROOT, capture_output=True, text=True, check=True, timeout=60)
    return done.stdout.splitlines()


def installs(lines: list[str]) -> list[str]:
    return [line for line in lines if "pip install" in line]


def test_the_demo_shows_pips_own_progress_while_it_installs():
    lines = installs(recipe("demo"))
    assert lines, "make demo installs the project"
    assert not [line for line in lines if "--quiet" in line or " -q" in line], lines


def test_the_tests_install_quietly():
    assert all("--quiet" in line for line in installs(recipe("test")))
