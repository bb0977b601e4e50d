"""Politeness to the server: requests spaced to a maximum rate, and a "too busy" answer waited out.

A 429 Too Many Requests or a 503 Service Unavailable is waited out as its Retry-After asks
(or, without one, after an exponential back-off) and the request sent again, a few times and
never waiting more than ``max_wait`` seconds in all for one request, nor ``max_run_wait`` for
all the requests of the run together: past that the run ends early, saying why. Every method is resent,
POST and PATCH included: a server answers 429 or 503 to a request it did not process
(RFC 6585 §4, RFC 9110 §15.6.4), so sending it again cannot apply it twice.

A wait is cut short when the run stops (a cancel, a Ctrl-C, the server gone silent): the
request is then not sent again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC
from datetime import datetime
from email.utils import parsedate_to_datetime
from typing import Any

from scim_tui.checker.limits import MAX_REQUEST_WAIT
from scim_tui.checker.limits import MAX_RUN_WAIT

BUSY = frozenset({429, 503})
"""The statuses by which a server says it did not process the request, and when to try again."""
POLL = 0.1
"""Seconds between two looks at whether the run stopped, while waiting."""


@dataclass(frozen=True)
class Pacing:
    """How a run spares the server."""

    max_rate: float | None = None
    """Requests per second at most, for all the checks of the run together; None for no limit."""
    max_wait: float = MAX_REQUEST_WAIT
    """Seconds one request may wait in all for a busy server before its answer stands."""
    max_run_wait: float = MAX_RUN_WAIT
    """Seconds the requests of the run may wait in all for a busy server (their waits added up,
    whether they waited one after the other or at once): past that the run ends early."""
    retries: int = 4
    """How many times a request answered 429 or 503 is sent again."""
    backoff: float = 1.0
    """Seconds waited the first time a busy answer gives no Retry-After; doubled each time."""


def retry_after(value: str, now: datetime | None = None) -> float | None:
    """The seconds a Retry-After header asks to wait (a number of seconds or an HTTP date); None
    when it says nothing readable."""
    value = value.strip()
    if value.isascii() and value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


STATUS_RULES = {429: "RFC 6585 §4", 503: "RFC 7231 §6.6.4"}
"""Where each busy status is defined, told with the request sent again after it."""


@dataclass(frozen=True)
class Wait:
    """A wait before sending a request again, after a busy answer (`status`), as its Retry-After
    asked (`asked`) or, without one, a back-off."""

    seconds: float
    status: int
    asked: bool

    @property
    def why(self) -> str:
        """The busy answer, in words: "429 (Retry-After: 5 s)"."""
        said = f"Retry-After: {self.seconds:g} s" if self.asked else "no Retry-After: backing off"
        return f"{self.status} ({said})"


class Pacer:
    """The pacing of one run's requests, shared by its checks (thread-safe).

    ``on_wait`` hears, from the waiting thread, of each wait as it starts (a line for a
    progress display) and with None once it is over.
    """

    def __init__(self, pacing: Pacing | None = None, on_wait: Callable[[str | None], object] | None = None):
        self.pacing = pacing or Pacing()
        self.on_wait = on_wait
        self._lock = threading.Lock()
        self._next_turn = 0.0
        self._waited = 0.0
        self.exhausted: str | None = None
        """Why the run ends early, once its requests waited all the run may wait for a busy server."""

    def take_turn(self, stopped: Callable[[], bool]) -> bool:
        """Wait for the next request's turn under the maximum rate; False when the run stopped meanwhile."""
        if not self.pacing.max_rate:
            return True
        with self._lock:
            now = time.monotonic()
            turn = max(now, self._next_turn)
            self._next_turn = turn + 1 / self.pacing.max_rate
        return pause(turn - now, stopped)

    def wait_for(self, response: Any, attempt: int, waited: float, cleaning: bool = False) -> Wait | None:
        """How long to wait before sending again a request that got `response` on its `attempt`
        (0 for the first) after waiting `waited` seconds already; None when its answer stands.
        A clean-up request (`cleaning`) may wait past what the run may wait: it deletes what
        the run created."""
        if response.status_code not in BUSY or attempt >= self.pacing.retries:
            return None
        asked = retry_after(response.headers.get("Retry-After", ""))
        seconds = asked if asked is not None else self.pacing.backoff * 2**attempt
        if waited + seconds > self.pacing.max_wait or not (cleaning or self._within_run_wait(seconds, response.status_code)):
            return None
        return Wait(seconds, response.status_code, asked is not None)

    def _within_run_wait(self, seconds: float, status: int) -> bool:
        """Count a wait against what the run may wait in all; False (and the run's reason to end
        early set) when it is past that."""
        with self._lock:
            if self._waited + seconds <= self.pacing.max_run_wait:
                self._waited += seconds
                return True
            self.exhausted = self.exhausted or (
                f"the server kept answering {status} (too busy): the run's requests waited {self._waited:g} s in all for it, "
                f"and a run waits {self.pacing.max_run_wait:g} s at most, so it ended early"
            )
            return False

    def wait(self, wait: Wait, request: str, stopped: Callable[[], bool]) -> bool:
        """Wait as told, shown to ``on_wait``; False when the run stopped meanwhile."""
        if self.on_wait is not None:
            self.on_wait(f"waiting {wait.seconds:g} s: the server answered {request} with {wait.why}")
        try:
            return pause(wait.seconds, stopped)
        finally:
            if self.on_wait is not None:
                self.on_wait(None)


def pause(seconds: float, stopped: Callable[[], bool]) -> bool:
    """Sleep for `seconds`, looking every POLL seconds whether the run stopped; False when it did."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        if stopped():
            return False
        time.sleep(min(left, POLL))
    return not stopped()


def busy_note(wait: Wait) -> str:
    """What the exchange of a busy answer tells: the request was sent again (its answer is another exchange's)."""
    return f"answered {wait.why}: the server was too busy, so the request was sent again after {wait.seconds:g} s"


def resent_note(wait: Wait) -> str:
    """What the exchange of a request sent again tells of the wait before it."""
    if wait.asked:
        return f"sent again after the {wait.seconds:g} s wait the {wait.status} answer before it asked for ({STATUS_RULES[wait.status]}, RFC 7231 §7.1.3)"
    return f"sent again after a {wait.seconds:g} s back-off, as the {wait.status} answer before it gave no Retry-After ({STATUS_RULES[wait.status]})"
