"""One HTTP exchange of a check, expandable: the request and the response in full."""

from __future__ import annotations

import json
import re
from typing import Any

from rich.console import RenderableType
from rich.json import JSON
from rich.text import Text
from textual.markup import escape
from textual.widgets import Collapsible
from textual.widgets import Static

from scim_tui.checker import Exchange
from scim_tui.checker.exchanges import request_line
from scim_tui.checker.exchanges import status_line
from scim_tui.reports.model import jsonable


def body_view(body: str | None) -> Text:
    """A body as highlighted JSON when it is JSON, else as plain text."""
    if not body:
        return Text("(no body)", style="dim")
    try:
        json.loads(body)
    except ValueError:
        return Text(body)
    return JSON(body, indent=2).text


def data_view(data: Any) -> RenderableType:
    """A result's data as highlighted JSON (models as the SCIM JSON a server would send); a
    body that is not JSON (an HTML page) as the text it is, line by line."""
    if data is None:
        return Text("(none)", style="dim")
    if isinstance(data, str):
        return body_view(data)
    return JSON.from_data(jsonable(data), indent=2)


def headers_view(headers: dict[str, str]) -> Text:
    text = Text()
    for name, value in headers.items():
        text.append(f"{name}: ", style="bold")
        text.append(f"{value}\n")
    text.rstrip()
    return text or Text("(no headers)", style="dim")


def elapsed_label(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def exchange_title(number: int, exchange: Exchange) -> str:
    outcome = status_line(exchange.status_code) if exchange.error is None else "failed"
    return f"{number}. {request_line(exchange)} → {outcome} · {elapsed_label(exchange.elapsed)}"


def exchange_body(exchange: Exchange) -> Text:
    section = "bold underline"
    parts = [
        Text("Request", style=section),
        Text(request_line(exchange), style="bold"),
        headers_view(exchange.request_headers),
        body_view(exchange.request_body),
        Text(""),
        Text("Response", style=section),
    ]
    if exchange.note:
        parts.append(Text(f"Note: {exchange.note}", style="italic"))
    if exchange.error is not None:
        parts.append(Text(f"No response: {exchange.error}", style="bold red"))
    else:
        parts += [
            Text(f"{status_line(exchange.status_code)} · {elapsed_label(exchange.elapsed)}", style="bold"),
            headers_view(exchange.response_headers),
            body_view(exchange.response_body),
        ]
    return Text("\n").join(parts)


def matches_of(text: str, term: str) -> list[tuple[int, int]]:
    """Where the term is in the text, case ignored: (start, end) of each match."""
    if not term:
        return []
    return [match.span() for match in re.finditer(re.escape(term), text, re.IGNORECASE)]


class ExchangeView(Collapsible):
    """An exchange, collapsed to its request line and response status until expanded.

    ``find`` highlights the matches of a text in it, ``move`` goes from one match to another.
    """

    COMPONENT_CLASSES = {"exchange-view--match", "exchange-view--current-match"}
    DEFAULT_CSS = """
    ExchangeView > .exchange-view--match {
        background: $warning-muted;
    }
    ExchangeView > .exchange-view--current-match {
        background: $warning;
        color: $background;
        text-style: bold;
    }
    """

    def __init__(self, number: int, exchange: Exchange, collapsed: bool = True) -> None:
        self.text = exchange_body(exchange)
        self.matches: list[tuple[int, int]] = []
        self.current = 0
        """The index in ``matches`` of the match shown."""
        super().__init__(Static(self.text, classes="exchange-body"), title=escape(exchange_title(number, exchange)), collapsed=collapsed)

    def find(self, term: str) -> None:
        """Highlight the term's matches, the first one as the current one."""
        self.matches = matches_of(self.text.plain, term)
        self.current = 0
        self._paint()

    def move(self, step: int) -> None:
        """Make the match ``step`` matches on (or back) the current one, around the ends."""
        if self.matches:
            self.current = (self.current + step) % len(self.matches)
            self._paint()

    def match_row(self) -> int:
        """The line of the body, as wrapped on screen, that the current match starts on."""
        body = self.query_one(".exchange-body", Static)
        start = self.matches[self.current][0] if self.matches else 0
        return len(self.text[:start].wrap(self.app.console, max(1, body.content_region.width))) - 1

    def _paint(self) -> None:
        text = self.text.copy()
        match, current = (self.get_component_rich_style(f"exchange-view--{name}", partial=True) for name in ("match", "current-match"))
        for index, (start, end) in enumerate(self.matches):
            text.stylize(current if index == self.current else match, start, end)
        self.query_one(".exchange-body", Static).update(text)
