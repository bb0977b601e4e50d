"""SIGTERM and SIGHUP end a run as Ctrl-C does: the running checks delete what they
created, the process exits 128 + the signal's number, with one line and no traceback; even while
the command is still loading."""

from __future__ import annotations

import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable

import pytest

from scim_tui.demo import make_app
from scim_tui.selection import Selection
from scim_tui.store.profiles import Profile
from scim_tui.store.profiles import save_profile
from scim_tui.tui.app import ScimTuiApp
from tests.support.bystanders import Bystanders
from tests.support.bystanders import run_leftovers
from tests.support.command import sigint_as_in_a_terminal
from tests.support.servers import Broken
from tests.tui.conftest import SIZE
from tests.tui.conftest import run_screen
from tests.tui.conftest import settle

SIGNALS = {"SIGTERM": (signal.SIGTERM, 143), "SIGHUP": (signal.SIGHUP, 129)}
CEILING = 60
"""Seconds any wait of these tests lasts at most: past it, the test fails naming what never came."""


async def until(pilot, condition: Callable[[], bool], what: str, ceiling: float = CEILING) -> None:
    """Let the app run until `condition` holds; fail when it does not within `ceiling` seconds."""
    deadline = time.monotonic() + ceiling
    while not condition():
        assert time.monotonic() < deadline, f"not within {ceiling} s: {what}"
        await pilot.pause(0.05)


def reading_server(serve) -> tuple[str, threading.Event]:
    """A server that answers reads of a resource slowly, and tells when the run reads its first one
    (the run is then among the resource checks, with resources of its own on the server)."""
    reading = threading.Event()

    def slow(response):
        reading.set()
        time.sleep(0.2)
        return response

    return serve(Broken(make_app()).rewrite("GET", "/v2/(Users|Groups)/[^/]+", slow)).url, reading


def wait_for_no_leftovers(url: str, ceiling: float = 30) -> list[dict]:
    """What the run left, once its clean-up had time to end (the app's thread may still be at it)."""
    deadline = time.monotonic() + ceiling
    while (left := run_leftovers(url)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


@pytest.mark.parametrize("name", SIGNALS)
def test_a_signal_ends_scim_tui_check_after_its_clean_up(serve, name):
    signum, status = SIGNALS[name]
    url, reading = reading_server(serve)
    bystanders = Bystanders.seed(url)
    run = subprocess.Popen(
        [sys.executable, "-m", "scim_tui.cli", "check", "--url", url, "--jobs", "4"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert reading.wait(timeout=CEILING), "the run never read a resource it created"
        run.send_signal(signum)
        out, err = run.communicate(timeout=CEILING)
    finally:
        run.kill()
    assert run.returncode == status, (out, err)
    assert re.fullmatch(rf"scim-tui: Terminated \({name}\) after \d+ results: the checks deleted what they had created\.\n", err), err
    assert run_leftovers(url) == []
    assert bystanders.untouched()


LOADING = """
import os, signal, sys
class Interrupting:
    def find_spec(self, name, path=None, target=None):
        if name == "scim_tui.cli.check":
            os.kill(os.getpid(), signal.{signal})
        return None
sys.meta_path.insert(0, Interrupting())
from scim_tui.cli.main import main
sys.argv = ["scim-tui", "check", "--demo"]
main()
"""


@pytest.mark.parametrize(("name", "line", "status"), [("SIGINT", "interrupted", 130), ("SIGTERM", "terminated (SIGTERM)", 143)])
def test_a_signal_while_the_command_loads_is_one_line(name, line, status):
    """The signal comes exactly while the engine's modules are being imported."""
    process = subprocess.run(
        [sys.executable, "-c", LOADING.format(signal=name)], capture_output=True, text=True, timeout=60, preexec_fn=sigint_as_in_a_terminal
    )
    assert process.returncode == status, process.stderr
    assert process.stderr == f"scim-tui: {line}.\n"


@pytest.mark.anyio
@pytest.mark.parametrize("name", SIGNALS)
async def test_a_signal_ends_the_app_like_quitting(serve, name):
    signum, status = SIGNALS[name]
    url, reading = reading_server(serve)
    bystanders = Bystanders.seed(url)
    app = ScimTuiApp(Profile(name="Slow", url=url))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await until(pilot, reading.is_set, "the run reads a resource it created")
        assert run_screen(pilot).running
        assert signal.getsignal(signum) not in (signal.SIG_DFL, signal.SIG_IGN), "the app listens for the signal"
        os.kill(os.getpid(), signum)
        await until(pilot, lambda: not app.is_running, "the app ends")
    assert app.return_code == status
    assert app.stopped_by == signum
    assert signal.getsignal(signum) is signal.SIG_DFL, "the app gave the signal back when it ended"
    assert wait_for_no_leftovers(url) == []
    assert bystanders.untouched()


class Terminal:
    """A pseudo-terminal the app runs in, as a terminal window's: `close` hangs it up, as closing
    the window does (the kernel sends the app SIGHUP and SIGCONT)."""

    def __init__(self, *args: str) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", SIZE[1], SIZE[0], 0, 0))
        environment = {**os.environ, "TERM": "xterm-256color"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "scim_tui.cli", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=environment,
            start_new_session=True,
            preexec_fn=_controlling_terminal,
        )
        os.close(slave)
        self.shown = b""

    def wait_for(self, text: str, ceiling: float = 120) -> None:
        deadline = time.monotonic() + ceiling
        while text.encode() not in self.shown:
            assert time.monotonic() < deadline, f"never shown: {text}"
            readable, _, _ = select.select([self.master], [], [], 0.05)
            if readable:
                self.shown += os.read(self.master, 65536)

    def press(self, key: str) -> None:
        os.write(self.master, key.encode())

    def close(self) -> None:
        os.close(self.master)


def _controlling_terminal() -> None:
    """In the new process (a session of its own): its terminal is the controlling one, as a shell's."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def test_the_app_ends_when_its_terminal_is_closed_as_a_run_goes(serve, tmp_path):
    """The window closed while the screen is being drawn (a run going, or ending): the hangup's
    SIGCONT came too, a few times here as a busy kernel may deliver it late, to make the race sure."""
    url, reading = reading_server(serve)
    bystanders = Bystanders.seed(url)
    save_profile(Profile(name="Closing", url=url, selection=Selection(include_tags=["crud"])))
    terminal = Terminal("--profile", "Closing")
    try:
        terminal.wait_for("Press r to run")
        terminal.press("r")
        assert reading.wait(timeout=60), "the run never read a resource it created"
        terminal.wait_for("Running")
        terminal.close()
        for _ in range(10):
            terminal.process.send_signal(signal.SIGCONT)
            time.sleep(0.02)
        status = terminal.process.wait(timeout=60)
    finally:
        if terminal.process.poll() is None:
            terminal.process.kill()
    assert status == 129
    assert wait_for_no_leftovers(url) == []
    assert bystanders.untouched()
