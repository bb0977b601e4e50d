"""A run's results kept out of the garbage collector's full passes.

CPython's full pass (its oldest generation) goes over every object the collector tracks, and holds
every thread while it does: 0.1 to 0.2 s at 5,600 results (about 24 objects each, 137,000 objects),
and it comes each time what survives grew by a quarter, so a dozen times in a run. Objects that
`gc.freeze()` moved out of the generations are never gone over again: the app freezes what its
start-up built (app.py), and the run screen freezes what lives, results included, as a run goes.

What freezing costs: an object alive at a freeze and caught in a reference cycle once it is dropped
(the screen's drawn lines, a check's context) is not collected until the heap is unfrozen:
43,000 to 53,000 objects (about 9 MB) in a run of 5,600 results frozen once a second, about what
the full passes would have collected during the run. `forget`, when the results of a run
are dropped (a new run starts, the screen closes), unfreezes and makes one full pass over what is
left (the app without a run's results, and what the run left), so that what a run leaves is
collected before the next one: what this holds never exceeds one run's.
"""

from __future__ import annotations

import gc
from collections.abc import Callable

FREEZE_EVERY = 1.0
"""Seconds between two freezes while results come: each freeze keeps what lived at its moment,
the dead of the drawn lines included, until the next `forget`."""


class RunHeap:
    """When to freeze what a run's results added to the heap, and when to let it go."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.frozen_at: float | None = None

    def settle(self, now: bool = False) -> None:
        """After a batch of results, and on the run's tick (at most once every FREEZE_EVERY seconds,
        or `now`): collect what is not frozen yet (what the run added since the last freeze: a pass
        of a few ms), so that only what lives is frozen, then freeze it. On the tick too, as a run
        builds much before its first result and may wait long between two: discovery at 24
        resource types of 100 attributes makes 175,000 objects in its first 15 s, which the first
        batch's pass went over at once (80 ms), as did the collector's own passes meanwhile."""
        moment = self.clock()
        if not now and self.frozen_at is not None and moment - self.frozen_at < FREEZE_EVERY:
            return
        self.frozen_at = moment
        gc.collect()
        gc.freeze()

    def forget(self) -> None:
        """Once a run's results are dropped: unfreeze, collect what died frozen, freeze the rest
        again; nothing when nothing was frozen since the last time."""
        if self.frozen_at is None:
            return
        self.frozen_at = None
        gc.unfreeze()
        gc.collect()
        gc.freeze()
