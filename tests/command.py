"""Running the real `scim-tui` command in a subprocess, as a user or a CI job does."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping

TIMEOUT = 120


def scim_tui(*args: str, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run `scim-tui ARGS` with this environment (plus ``env``) and capture what it prints."""
    return subprocess.run(
        [sys.executable, "-m", "scim_tui.cli", *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**os.environ, **(env or {})},
        check=False,
    )


def one_line_error(process: subprocess.CompletedProcess[str]) -> str:
    """The error of a run that failed on usage: exit 2, one line on stderr, no traceback."""
    assert process.returncode == 2, (process.returncode, process.stdout, process.stderr)
    assert "Traceback" not in process.stderr
    lines = process.stderr.strip().splitlines()
    assert len(lines) == 1, process.stderr
    return lines[0]
