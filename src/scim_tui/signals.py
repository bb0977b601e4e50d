"""Ending on a signal as on Ctrl-C: SIGTERM (`timeout`, `docker stop`, a cancelled CI job) and
SIGHUP (a closed terminal) stop a run the way Ctrl-C does, so that the running checks delete
what they created before the process exits, with the exit status a shell expects (128 + N).
"""

from __future__ import annotations

import signal
from types import FrameType

STOPPING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Stopped(KeyboardInterrupt):
    """Raised in the main thread by SIGTERM or SIGHUP, as SIGINT raises KeyboardInterrupt."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def exit_status(interrupt: BaseException) -> int:
    """The exit status of a process ended by this interruption: 128 + the signal's number."""
    return 128 + (interrupt.signum if isinstance(interrupt, Stopped) else signal.SIGINT)


def signal_name(interrupt: BaseException) -> str:
    return signal.Signals(interrupt.signum).name if isinstance(interrupt, Stopped) else "SIGINT"


def raise_on_signals() -> None:
    """From now on SIGTERM and SIGHUP raise Stopped in the main thread. Once one came, the next
    ones are ignored: the clean-up they interrupt would leave resources behind."""
    for signum in STOPPING_SIGNALS:
        signal.signal(signum, _stop)


def _stop(signum: int, frame: FrameType | None) -> None:
    for other in STOPPING_SIGNALS:
        signal.signal(other, signal.SIG_IGN)
    raise Stopped(signum)


def stopped_line(interrupt: BaseException) -> str:
    """How an interruption is told: "interrupted" for Ctrl-C, "terminated (SIGTERM)" for a signal."""
    return f"terminated ({signal_name(interrupt)})" if isinstance(interrupt, Stopped) else "interrupted"


class RunInterrupted(Exception):
    """A run stopped by Ctrl-C, SIGTERM or SIGHUP, once the running checks deleted what they created."""

    def __init__(self, done: int, leftovers: list[str], interrupt: BaseException):
        super().__init__(stopped_line(interrupt))
        self.done = done
        self.leftovers = leftovers
        self.interrupt = interrupt

    def message(self) -> str:
        left = f"; left on the server: {', '.join(self.leftovers)}" if self.leftovers else ""
        line = stopped_line(self.interrupt)
        return f"{line[0].upper()}{line[1:]} after {self.done} results: the checks deleted what they had created{left}."
