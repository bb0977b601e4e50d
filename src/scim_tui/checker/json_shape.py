"""The shape of a JSON text, read without parsing it: how deep it nests, how many objects and
arrays it holds. A parser would fail on the first (its recursion) or take gigabytes on the
second before anyone could refuse the text; these read bytes and count.
"""

from __future__ import annotations

import re

from scim_tui.checker.limits import MAX_JSON_DEPTH

_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"')
_NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))
_PAIRS = re.compile(rb"\[\]|\{\}")


def json_depth_problem(body: bytes, limit: int = MAX_JSON_DEPTH) -> str | None:
    """Why a body that looks like JSON nests too deep to be parsed safely; None when it does not."""
    start = body[:64].lstrip()
    if not start.startswith((b"{", b"[")) or body.count(b"[") + body.count(b"{") <= limit:
        return None
    brackets = _brackets(body)
    for _ in range(limit):  # each pass takes away the innermost level
        brackets, removed = _PAIRS.subn(b"", brackets)
        if not brackets or (not removed and len(brackets) <= limit):
            return None  # shallow enough (what is left, unbalanced, the parser refuses)
        if not removed:
            break
    return f"nests JSON more than {limit} levels deep, so it was not parsed"


def json_values(body: bytes) -> int:
    """How many objects and arrays a JSON text holds (the brackets in its strings not counted)."""
    if body.count(b"[") + body.count(b"{") == 0:
        return 0
    brackets = _brackets(body)
    return brackets.count(b"[") + brackets.count(b"{")


def _brackets(body: bytes) -> bytes:
    """The brackets of a JSON text alone, its strings taken out."""
    return _STRINGS.sub(b"", body).translate(None, _NOT_BRACKETS)
