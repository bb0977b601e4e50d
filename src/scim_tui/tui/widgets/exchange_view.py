"""One HTTP exchange of a check, expandable: the request and the response in full."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Group
from rich.console import RenderableType
from rich.json import JSON
from rich.text import Text
from textual.markup import escape
from textual.widgets import Collapsible
from textual.widgets import Static

from scim_tui.checker import Exchange
from scim_tui.checker.exchanges import status_line
from scim_tui.reports.model import jsonable


def relative_url(url: str, base_url: str) -> str:
    """The URL without the profile's base, as the RFC examples write it (``/Users?…``)."""
    base = base_url.rstrip("/")
    if base and url.startswith(base):
        return url[len(base) :] or "/"
    return url


def body_view(body: str | None) -> RenderableType:
    """A body as highlighted JSON when it is JSON, else as plain text."""
    if not body:
        return Text("(no body)", style="dim")
    try:
        json.loads(body)
    except ValueError:
        return Text(body)
    return JSON(body, indent=2)


def data_view(data: Any) -> RenderableType:
    """A result's data as highlighted JSON (models as the SCIM JSON a server would send)."""
    if data is None:
        return Text("(none)", style="dim")
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


def exchange_title(number: int, exchange: Exchange, base_url: str) -> str:
    outcome = status_line(exchange.status_code) if exchange.error is None else "failed"
    return f"{number}. {exchange.method} {relative_url(exchange.url, base_url)} → {outcome} · {elapsed_label(exchange.elapsed)}"


def exchange_body(exchange: Exchange, base_url: str) -> Group:
    section = "bold underline"
    parts: list[RenderableType] = [
        Text("Request", style=section),
        Text(f"{exchange.method} {relative_url(exchange.url, base_url)}", style="bold"),
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
    return Group(*parts)


class ExchangeView(Collapsible):
    """An exchange, collapsed to its request line and response status until expanded."""

    def __init__(self, number: int, exchange: Exchange, base_url: str, collapsed: bool = True) -> None:
        super().__init__(
            Static(exchange_body(exchange, base_url), classes="exchange-body"),
            title=escape(exchange_title(number, exchange, base_url)),
            collapsed=collapsed,
        )
