"""Lists that lag behind writes.

Many servers answer a query from an index kept apart from their store (a search engine refreshed
every second, a replica): a resource just created is served at its URL at once, but listed a moment
later, and one just deleted is listed a moment more. RFC 7644 sets no time within which a query
shows a write, so a list lacking what the run just created (or still holding what it just deleted)
is asked again, after growing pauses, before it is judged: the run never reads a server's lag as
a filter that does not match, a list without the resource, or a deletion kept.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING
from typing import TypeVar

from scim_tui.checker.pacing import pause

if TYPE_CHECKING:
    from scim_tui.checker.context import CheckContext

Answer = TypeVar("Answer")

PAUSES = (0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 2.0)
"""The pauses before each new asking of a list that does not show the run's write yet: about 5 s
in all. A server whose lists show nothing of a write after that is judged on its last answer; one
showing it at once is asked once."""


class Lists:
    """What a run learnt of the server's lists, shared by its checks: once a list was asked again
    for the whole of PAUSES and never showed the write, while none has yet caught up with one, the
    server's lists keep or miss what they keep or miss (a fault the checks judge), they do not lag:
    later lists are asked once, so that a server keeping deleted resources listed costs one wait,
    not one each. Once a list caught up, every list is waited for."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._caught_up = False
        self._waited_out = False

    @property
    def patient(self) -> bool:
        with self._lock:
            return self._caught_up or not self._waited_out

    def learn(self, caught_up: bool) -> None:
        with self._lock:
            if caught_up:
                self._caught_up = True
            else:
                self._waited_out = True


def settled(context: CheckContext, ask: Callable[[], Answer], shows: Callable[[Answer], bool], teaches: bool = True) -> Answer:
    """`ask()`'s answer, asked again after each of PAUSES while it does not `shows` the run's
    write: the first answer that does, else the last (also when the run stops meanwhile, or when
    the run learnt that the server's lists do not lag: Lists). A list that may rightly never show
    it (a disabled user a server hides from its lists) `teaches` the run nothing when it does not."""
    answer = ask()
    if shows(answer) or not context.lists.patient:
        return answer

    def stopped() -> bool:
        return context.stopping.is_set() or context.recorder.interrupted()

    for seconds in PAUSES:
        if not pause(seconds, stopped):  # cancelled: a check waits no longer
            return answer
        answer = ask()
        if shows(answer):
            context.lists.learn(caught_up=True)
            return answer
    if teaches:
        context.lists.learn(caught_up=False)
    return answer
