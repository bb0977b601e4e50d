"""The exchanges of a check, a line each: what it was for, the request, and what came back."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from scim_tui.checker import Exchange
from scim_tui.checker.exchanges import Role
from scim_tui.checker.exchanges import request_line
from scim_tui.checker.exchanges import status_line


def outcome_of(exchange: Exchange) -> Text:
    if exchange.error is not None:
        return Text("no response", style="bold red")
    return Text(status_line(exchange.status_code), style="green" if (exchange.status_code or 0) < 400 else "bold red")


def exchange_label(number: int, exchange: Exchange) -> Text:
    """``3. the request judged · 200 OK · PUT /v2/Users/…``, the judged requests in bold; the
    request last, as the part a narrow terminal cuts."""
    purpose = Text(exchange.purpose, style="bold" if exchange.role is Role.JUDGED else "italic")
    return Text.assemble(f"{number}. ", purpose, " · ", outcome_of(exchange), " · ", request_line(exchange))


def first_shown(exchanges: list[Exchange]) -> int:
    """The exchange a result opens on: the last judged one that failed, else the last judged one,
    else the first (an attempt answered busy and sent again is never the one judged)."""
    judged = [index for index, exchange in enumerate(exchanges) if exchange.role is Role.JUDGED and not exchange.resent]
    failed = [index for index in judged if exchanges[index].error or (exchanges[index].status_code or 0) >= 400]
    return (failed or judged or [0])[-1]


class ExchangeList(OptionList):
    """A check's exchanges in the order they were sent; the highlighted one is shown below."""

    def __init__(self, exchanges: list[Exchange], *, id: str | None = None) -> None:
        super().__init__(*(Option(exchange_label(number, exchange)) for number, exchange in enumerate(exchanges, start=1)), id=id)
        if exchanges:
            self.highlighted = first_shown(exchanges)
