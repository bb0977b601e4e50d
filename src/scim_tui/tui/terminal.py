"""The terminal the app draws on, which may go away under it: a closed window hangs it up.

A hangup sends SIGHUP and SIGCONT. Textual's driver took the SIGCONT for a return from Ctrl-Z
and started its terminal mode again: a second thread reading the keys, which nothing stops
(the app never ended: its process waits for that thread), and a second thread writing the
screen, which died at its first write (EIO), so the app blocked on its queue of a few dozen
writes once full. Either way the app outlived its closed terminal, 2 times in 4 as a run ended.

Here, SIGCONT resumes the terminal only after the driver suspended it (Ctrl-Z); what is written
once the terminal is gone is dropped (the thread writing never dies); and a terminal found gone
(by a write, or by the thread reading the keys) ends the app as SIGHUP does: its running checks
delete what they created.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from typing import TextIO

from textual.driver import Driver


class TerminalOutput:
    """The stream the driver writes to: once a write fails (the terminal went away), `lost` is
    called, and what is written is dropped."""

    def __init__(self, stream: TextIO, lost: Callable[[], object]):
        self._stream = stream
        self._lost = lost
        self.gone = False

    def write(self, text: str) -> None:
        self._attempt(self._stream.write, text)

    def flush(self) -> None:
        self._attempt(self._stream.flush)

    def _attempt(self, action: Callable[..., object], *args: Any) -> None:
        if self.gone:
            return
        try:
            action(*args)
        except (OSError, ValueError):  # EIO once hung up; a stream closed meanwhile
            self.gone = True
            self._lost()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def hangup_safe(driver_class: type[Driver], lost: Callable[[], object]) -> type[Driver]:
    """The driver class, made to outlive its terminal and tell `lost` (from its threads) when the
    terminal went away. Its output is kept in `_file`, as Textual's LinuxDriver has it (pinned)."""

    class HangupSafeDriver(driver_class):  # type: ignore[valid-type, misc]
        _file: Any  # the stream the driver writes to (Textual's own attribute)

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            self._suspended = False
            super().__init__(*args, **kwargs)
            if hasattr(self, "_file"):
                self._file = TerminalOutput(self._file, lost)

        def _sigtstp_application(self, *args: Any) -> None:
            self._suspended = True
            super()._sigtstp_application(*args)

        def _sigcont_application(self, *args: Any) -> None:
            if self._suspended:  # back from Ctrl-Z; any other SIGCONT (a hangup's) resumes nothing
                self._suspended = False
                super()._sigcont_application(*args)

        def run_input_thread(self) -> None:
            try:
                super().run_input_thread()
            except OSError:  # the keys cannot be read any more (EIO): the terminal is gone
                lost()

    return HangupSafeDriver
