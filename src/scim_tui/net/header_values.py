"""What an HTTP header value can carry: visible ASCII characters, spaces and tabs (RFC 9110 §5.5).

A token or header value read from a file or a variable often keeps a line break, or holds a
character beyond ASCII: HTTP cannot send either, and the value is a secret, so the problem is
told by where the value comes from and where in it the character is, never with the value.
"""

from __future__ import annotations


def unsendable(value: str, where: str, fix: str = "write it without that character") -> str | None:
    """One sentence naming where a value comes from, what in it HTTP cannot carry, and the fix;
    None when all of it can be sent."""
    problem = header_problem(value)
    return None if problem is None else f"{where} {problem}, which an HTTP header cannot carry (RFC 9110 §5.5): {fix}."


def header_problem(value: str) -> str | None:
    """What in a header value HTTP cannot carry ("ends with a line break" ...); None when it can all be sent."""
    if value.endswith(("\n", "\r")):
        return "ends with a line break"
    position = next((index for index, character in enumerate(value) if not (" " <= character <= "~" or character == "\t")), None)
    if position is None:
        return None
    character = value[position]
    if character in "\r\n":
        return "holds a line break"
    kind = "a character that is not ASCII" if not character.isascii() else "a control character"
    return f"holds {kind} (its character {position + 1})"
