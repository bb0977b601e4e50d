"""Calls made side by side on a few threads, each in a copy of its caller's context (the
exchanges it records, the ledger it writes to): the clean-up deleting several resources."""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import wait
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def side_by_side(call: Callable[[T], R], items: Sequence[T], jobs: int, stopping: threading.Event) -> tuple[list[R], KeyboardInterrupt | None]:
    """`call` on each item, `jobs` at a time: the outcomes in the order of `items`, and the last
    Ctrl-C met while waiting for them. A Ctrl-C sets `stopping`, and every call still goes on to
    its end (each ends within one request's time): the clean-up deletes all it can, however the
    run ends."""
    if jobs < 2 or len(items) < 2:
        return [call(item) for item in items], None
    interrupted: KeyboardInterrupt | None = None
    with ThreadPoolExecutor(max_workers=min(jobs, len(items)), thread_name_prefix="scim-tui-clean-up") as pool:
        futures = [pool.submit(contextvars.copy_context().run, call, item) for item in items]
        while True:
            try:
                wait(futures)
                break
            except KeyboardInterrupt as exc:
                interrupted = exc
                stopping.set()
    return [future.result() for future in futures], interrupted
