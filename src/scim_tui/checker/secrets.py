"""The secrets of a run: known at the start, or learnt during it (a refreshed token).

Every redactor of the run reads the same Secrets, so a token fetched halfway through is
redacted from then on wherever it appears. A secret is also redacted in the forms it takes
on the wire: percent-encoded (a query, a form), JSON-escaped (a body that echoes it), and
HTTP Basic's base64 of ``user:password``.

A secret of MIN_LENGTH characters or more is taken out wherever it appears. A shorter one (a
three-letter password is a secret too) is taken out only where it stands alone, not inside a
longer word or number: taking out every "ab" would turn "table" into "t***le" and make every
text unreadable, while an echo of the secret itself (``password ab is wrong``, ``"ab"``) is
never inside a word. HTTP Basic's base64 of a short password is long, and redacted anywhere.
"""

from __future__ import annotations

import base64
import json
import re
import threading
from collections.abc import Iterable
from collections.abc import Iterator
from urllib.parse import quote
from urllib.parse import quote_plus

MIN_LENGTH = 4
"""Secrets (and forms of them) this long or longer are taken out wherever they appear."""
REDACTED = "***"


class Secrets:
    """A growing set of secret strings, safe to share between threads; iterates longest first."""

    def __init__(self, values: Iterable[str] = ()):
        self._lock = threading.Lock()
        self._known: set[str] = set()
        self._ordered: tuple[str, ...] = ()
        self._standing_alone: re.Pattern[str] | None = None
        """Matches a short secret where it stands alone."""
        self.add(*values)

    def add(self, *values: str | None) -> None:
        """Learn secrets (and the forms they take); None and empty values are ignored."""
        forms = {form for value in values if value for form in _forms(value)}
        with self._lock:
            if forms <= self._known:
                return
            self._known |= forms
            # Longest first, so a secret containing another is replaced whole.
            self._ordered = tuple(sorted(self._known, key=len, reverse=True))
            short = [form for form in self._ordered if len(form) < MIN_LENGTH]
            self._standing_alone = _alone(short) if short else None

    def add_basic(self, username: str, password: str) -> None:
        """Learn HTTP Basic credentials: the password, and the header value built from them."""
        pair = f"{username}:{password}"
        self.add(password, pair, base64.b64encode(pair.encode()).decode("ascii"))

    def redact(self, text: str) -> str:
        """The text with every secret in it replaced by ***."""
        for secret in self._ordered:
            if len(secret) >= MIN_LENGTH and secret in text:
                text = text.replace(secret, REDACTED)
        standing_alone = self._standing_alone
        return standing_alone.sub(REDACTED, text) if standing_alone is not None else text

    @property
    def known(self) -> tuple[str, ...]:
        """The secrets known now, longest first: a new tuple each time one is learnt."""
        return self._ordered

    def found_in(self, text: str) -> bool:
        """Whether a secret is in the text (where redact would take it out)."""
        return self.redact(text) != text

    def __iter__(self) -> Iterator[str]:
        return iter(self._ordered)

    def __len__(self) -> int:
        return len(self._ordered)

    def __bool__(self) -> bool:
        return bool(self._ordered)


def _forms(value: str) -> set[str]:
    return {value, quote(value, safe=""), quote_plus(value), json.dumps(value)[1:-1]}


def _alone(short: list[str]) -> re.Pattern[str]:
    """A pattern matching any of these strings where no letter or digit touches it."""
    return re.compile(rf"(?<![0-9A-Za-z])(?:{'|'.join(re.escape(secret) for secret in short)})(?![0-9A-Za-z])")
