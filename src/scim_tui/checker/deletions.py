"""What the run's clean-up learns of how a server deletes, endpoint by endpoint (RFC 7644 §3.6).

A deleted resource answers 404 at once. The clean-up reads each DELETE back (a GET) until
`LEARNT` of them in a row answered 404 on an endpoint; from then on it reads one DELETE in
`SAMPLED`, and takes the others at their word until the run's last query asks whether they are
still listed. Once a read-back finds a resource still served, or cannot tell (an error, an answer
without the resource), the endpoint is unsure for the rest of the run: every DELETE there is read
back, and each taken at its word before is read again last, listed or not. A server that stops
deleting for good, or hides what it keeps from its lists, or reads a filter in part, is so caught
by the next sample.
"""

from __future__ import annotations

import threading
from collections import Counter

LEARNT = 3
"""How many read-backs in a row must answer 404 on an endpoint before a DELETE there is taken at its word."""
SAMPLED = 5
"""Once learnt, one DELETE in this many is still read back."""


class Deletions:
    """How each endpoint deletes, as the clean-up's read-backs showed it (shared by the checks' threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._gone: Counter[str] = Counter()
        self._taken: Counter[str] = Counter()
        self._unsure: set[str] = set()

    def read_back(self, endpoint: str) -> bool:
        """Whether to read back a DELETE on this endpoint answered 2xx (else it is taken at its word)."""
        with self._lock:
            if endpoint in self._unsure or self._gone[endpoint] < LEARNT:
                return True
            self._taken[endpoint] += 1
            return self._taken[endpoint] % SAMPLED == 0

    def seen(self, endpoint: str, gone: bool) -> None:
        """A read-back's outcome: 404 (`gone`), or a resource still served or an answer that cannot tell."""
        with self._lock:
            if gone:
                self._gone[endpoint] += 1
            else:
                self._unsure.add(endpoint)

    def unsure(self, endpoint: str) -> bool:
        """Whether a read-back on this endpoint did not answer 404: what was taken at its word there is read again, listed or not."""
        with self._lock:
            return endpoint in self._unsure
