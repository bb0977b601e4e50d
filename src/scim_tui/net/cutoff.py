"""Abandoning work that has created nothing yet, at once, even while its request hangs.

A thread waiting on a server that never answers cannot be stopped, only left to its request's
timeout (30 s by default). Until the work could create something on the server (a connection
test, reading the resource types, a run before its first check), nothing needs cleaning up:
cutting it off ends its requests at once (their sockets shut), and nobody waits for it.
"""

from __future__ import annotations

import threading
from typing import Protocol


class Abortable(Protocol):
    def abort(self) -> None:
        """End every request at once, from any thread."""


class Cutoff:
    """The transports of one piece of work, and whether it may still be cut off.

    The work's thread opens its clients with the cutoff (connect.open_client) and calls
    `commit` before it first creates anything; any thread may call `cut` until then.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._transports: list[Abortable] = []
        self._cut = False
        self._committed = False

    def watch(self, transport: Abortable) -> None:
        """Count a transport of the work in; one opened after the cut is ended at once."""
        with self._lock:
            self._transports.append(transport)
            cut = self._cut
        if cut:
            transport.abort()

    def cut(self) -> bool:
        """End the work's requests at once, unless it committed; whether it was cut off."""
        with self._lock:
            if self._committed:
                return False
            self._cut = True
            transports = list(self._transports)
        for transport in transports:
            transport.abort()
        return True

    def commit(self) -> bool:
        """The work may create things from now on, and then ends as it must (it cleans up):
        `cut` no longer applies. False when it was cut off already: it must stop there."""
        with self._lock:
            self._committed = not self._cut
            return self._committed
