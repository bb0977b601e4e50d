"""The secrets of a run: known at the start, or learnt during it (a refreshed token).

Every redactor of the run reads the same Secrets, so a token fetched halfway through is
redacted from then on wherever it appears. A secret is also redacted in the forms it takes
on the wire: percent-encoded (a query, a form), JSON-escaped (a body that echoes it), and
HTTP Basic's base64 of ``user:password``.
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterable
from collections.abc import Iterator
from urllib.parse import quote
from urllib.parse import quote_plus

MIN_LENGTH = 4
"""Shorter values are not redacted: "***" in place of every "ab" would make text unreadable."""


class Secrets:
    """A growing set of secret strings, safe to share between threads; iterates longest first."""

    def __init__(self, values: Iterable[str] = ()):
        self._lock = threading.Lock()
        self._known: set[str] = set()
        self._ordered: tuple[str, ...] = ()
        self.add(*values)

    def add(self, *values: str | None) -> None:
        """Learn secrets (and the forms they take); None, empty and very short values are ignored."""
        forms = {form for value in values if value and len(value) >= MIN_LENGTH for form in _forms(value)}
        with self._lock:
            if forms <= self._known:
                return
            self._known |= forms
            # Longest first, so a secret containing another is replaced whole.
            self._ordered = tuple(sorted(self._known, key=len, reverse=True))

    def add_basic(self, username: str, password: str) -> None:
        """Learn HTTP Basic credentials: the password, and the header value built from them."""
        pair = f"{username}:{password}"
        self.add(password, pair, base64.b64encode(pair.encode()).decode("ascii"))

    def __iter__(self) -> Iterator[str]:
        return iter(self._ordered)

    def __len__(self) -> int:
        return len(self._ordered)

    def __bool__(self) -> bool:
        return bool(self._ordered)


def _forms(value: str) -> set[str]:
    forms = {value, quote(value, safe=""), quote_plus(value), json.dumps(value)[1:-1]}
    return {form for form in forms if len(form) >= MIN_LENGTH}
