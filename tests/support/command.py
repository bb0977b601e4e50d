"""Running the real `scim-tui` command as a user or a CI job does: in a new process, or, where
the new interpreter is not the point, in this one through the same entry point."""

from __future__ import annotations

import io
import logging
import os
import signal
import subprocess
import sys
import threading
import warnings
from collections.abc import Iterator
from collections.abc import Mapping
from contextlib import contextmanager
from contextlib import redirect_stderr
from contextlib import redirect_stdout
from typing import Any
from unittest import mock

from scim_tui.cli import main as cli

TIMEOUT = 120
COMMAND = [sys.executable, "-m", "scim_tui.cli"]


def scim_tui(*args: str, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run `scim-tui ARGS` in a new process with this environment (plus ``env``) and capture what it prints."""
    return subprocess.run(
        [*COMMAND, *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**os.environ, **(env or {})},
        check=False,
    )


def spawn(*args: str, **options: Any) -> subprocess.Popen[str]:
    """Start `scim-tui ARGS` in a new process, its output piped, that Ctrl-C (SIGINT) interrupts
    as in a terminal, even when the suite runs where SIGINT is ignored: a background job of a
    shell without job control ignores it, and its children inherit that."""
    return subprocess.Popen([*COMMAND, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=sigint_as_in_a_terminal, **options)


def sigint_as_in_a_terminal() -> None:
    """In a new process (subprocess's preexec_fn): SIGINT handled as by default, as a terminal
    leaves it, even when this suite runs where it is ignored (and children inherit that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Python then raises KeyboardInterrupt on it


def scim_tui_here(*args: str, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run `scim-tui ARGS` in this process as `scim_tui` runs it in a new one: the same entry
    point (scim_tui.cli.main.run) and exit status, and on standard output and standard error all a
    new process prints, without the second a new interpreter takes to start. For the tests
    whose point is what the command does, not the process it runs in."""
    stdout, stderr = io.StringIO(), io.StringIO()
    with mock.patch.dict(os.environ, env or {}), redirect_stdout(stdout), redirect_stderr(stderr), _stderr_as_in_a_new_process(stderr):
        try:
            status = cli.run(list(args))
        except SystemExit as exit:  # argparse's errors, --help and --version
            status = exit.code if isinstance(exit.code, int) else 0 if exit.code is None else 1
    return subprocess.CompletedProcess(["scim-tui", *args], status, stdout.getvalue(), stderr.getvalue())


@contextmanager
def _stderr_as_in_a_new_process(stderr: io.StringIO) -> Iterator[None]:
    """Send to ``stderr`` what a new process would print there besides what the command writes:
    the warnings of its logging (a root logger without handlers, as a new process has it, so
    the command's logging.basicConfig writes to the stderr captured), Python's warnings (each
    once, as `python -W default` shows them) and the traceback of an exception no thread
    caught. pytest's own hooks are restored afterwards."""
    root = logging.getLogger()
    handlers, level, thread_hook = root.handlers[:], root.level, threading.excepthook
    root.handlers.clear()
    threading.excepthook = threading.__excepthook__  # prints on sys.stderr: the one captured
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("default")
            yield
        stderr.writelines(warnings.formatwarning(w.message, w.category, w.filename, w.lineno, w.line) for w in caught)
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
        threading.excepthook = thread_hook


def one_line_error(process: subprocess.CompletedProcess[str]) -> str:
    """The error of a run that failed on usage: exit 2, one line on stderr, no traceback."""
    assert process.returncode == 2, (process.returncode, process.stdout, process.stderr)
    assert "Traceback" not in process.stderr
    lines = process.stderr.strip().splitlines()
    assert len(lines) == 1, process.stderr
    return lines[0]
