"""One side of an exchange as lines to show: its first line, its headers, its body (JSON indented).

Built once per exchange, cheaply: a body is only indented here; its lines are highlighted when
they are drawn (message_view.py), so a body of a megabyte opens at once. Where a JSON body
opens an object or an array, a fold runs to where it closes. The attributes a reason names are
located in the body by their path (``meta.location``), case ignored as SCIM names are
(RFC 7643 §2.1).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from dataclasses import field
from functools import cached_property

from rich.text import Text

from scim_tui.checker import Exchange
from scim_tui.checker.exchanges import request_line
from scim_tui.checker.exchanges import status_line
from scim_tui.checker.json_shape import json_depth_problem
from scim_tui.checker.limits import MIB

JSON_VIEW_LIMIT = 2 * MIB
"""A body longer than this is shown as the text it is: not parsed, indented, highlighted or folded."""

_KEY = re.compile(r'^(\s*)"((?:[^"\\]|\\.)*)":')
_NAME = re.compile(r"[A-Za-z_$][\w$-]*(?:\.[A-Za-z_$][\w$-]*)*")


@dataclass
class Document:
    """Lines to show: the head (styled), then the body (plain, highlighted when drawn)."""

    head: list[Text]
    body: list[str]
    json: bool = False
    folds: dict[int, int] = field(default_factory=dict)
    """Where a fold starts (a line of the document opening an object or array) and the line closing it."""
    marked: set[int] = field(default_factory=set)
    """The lines holding an attribute the result's reason names."""

    def __post_init__(self) -> None:
        if self.json:
            self.folds = {start + len(self.head): end + len(self.head) for start, end in folds_of(self.body).items()}

    @cached_property
    def lines(self) -> list[str]:
        """Every line as plain text: what find searches and a copy takes."""
        return [line.plain for line in self.head] + self.body

    def __len__(self) -> int:
        return len(self.head) + len(self.body)


EMPTY = Document([], [])
"""What a result that sent no request shows."""


def elapsed_label(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def headers_lines(headers: dict[str, str]) -> list[Text]:
    return [Text.assemble((f"{name}: ", "bold"), value) for name, value in headers.items()]


def body_lines(body: str | None) -> tuple[list[str], bool]:
    """A body's lines, and whether they are JSON (indented); a body that is no JSON, too deep or
    too long to indent, as it came."""
    if not body:
        return [], False
    if len(body) <= JSON_VIEW_LIMIT and json_depth_problem(body.encode()) is None:
        try:
            return json.dumps(json.loads(body), indent=2, ensure_ascii=False).splitlines(), True
        except ValueError:
            pass
    return body.splitlines(), False


def request_document(exchange: Exchange) -> Document:
    head = [Text(f"{request_line(exchange)} HTTP/1.1", style="bold"), *_noted(exchange), *headers_lines(exchange.request_headers)]
    return _with_body(head, *body_lines(exchange.request_body))


def response_document(exchange: Exchange, reason: str | None = None) -> Document:
    """The response; the attributes the reason names are marked where the body has them."""
    if exchange.error is not None:
        return Document([Text(f"No response: {exchange.error}", style="bold red"), *_noted(exchange)], [])
    status = Text(f"{status_line(exchange.status_code)} · {elapsed_label(exchange.elapsed)}", style=f"bold {_status_style(exchange.status_code)}")
    head = [status, *_noted(exchange), *headers_lines(exchange.response_headers)]
    lines, is_json = body_lines(exchange.response_body)
    named = named_attributes(reason, lines) if is_json else {}
    if named:
        head.append(Text(f"Highlighted below: {', '.join(named)}, as the reason names it", style="italic"))
    document = _with_body(head, lines, is_json)
    document.marked = {number + len(document.head) for lines_of in named.values() for number in lines_of}
    return document


def _status_style(code: int | None) -> str:
    return "green" if code is not None and code < 400 else "red"


def _noted(exchange: Exchange) -> list[Text]:
    return [Text(f"Note: {exchange.note}", style="italic")] if exchange.note else []


def _with_body(head: list[Text], lines: list[str], is_json: bool) -> Document:
    if not lines:
        return Document([*head, Text(""), Text("(no body)", style="dim")], [])
    return Document([*head, Text("")], lines, is_json)


def folds_of(lines: list[str]) -> dict[int, int]:
    """In indented JSON, each line opening an object or an array, and the line closing it."""
    folds: dict[int, int] = {}
    opened: list[int] = []
    for number, line in enumerate(lines):
        stripped = line.strip()
        if stripped[:1] in ("}", "]") and opened:
            folds[opened.pop()] = number
        if stripped.endswith(("{", "[")):
            opened.append(number)
    return folds


def key_paths(lines: list[str]) -> list[tuple[int, str]]:
    """Each line of indented JSON that holds a key, with the key's path from the top (``meta.location``,
    ``Resources.userName``: array items add nothing), lowercase."""
    found: list[tuple[int, str]] = []
    path: list[tuple[int, str]] = []
    for number, line in enumerate(lines):
        key = _KEY.match(line)
        if key is None:
            continue
        indent = len(key.group(1))
        while path and path[-1][0] >= indent:
            path.pop()
        found.append((number, ".".join([*(part for _, part in path), key.group(2)]).lower()))
        if line.rstrip().endswith(("{", "[")):
            path.append((indent, key.group(2)))
    return found


def named_attributes(reason: str | None, lines: list[str]) -> dict[str, list[int]]:
    """The attributes a reason names that are in the JSON lines, each with the lines where it is.

    A path (``meta.location``) or a name no sentence has (``userName``) is found wherever it is
    nested (in each resource of a list); a plain word (``created``) only as a top-level attribute.
    """
    paths = key_paths(lines)
    located: dict[str, list[int]] = {}
    for name in dict.fromkeys(_NAME.findall(reason or "")):
        wanted = name.lower()
        anywhere = "." in name or name != wanted
        where = [number for number, path in paths if path == wanted or (anywhere and path.endswith(f".{wanted}"))]
        if where:
            located[name] = where
    return located
