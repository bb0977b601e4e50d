"""The detail of one result: what was checked, why it got its status, and every HTTP exchange."""

from __future__ import annotations

import inspect
from typing import Protocol

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets import Header
from textual.widgets import Static

from scim_tui.checker import CheckId
from scim_tui.tui.curl import curl_command
from scim_tui.tui.run_state import Row
from scim_tui.tui.screens.curl import CurlScreen
from scim_tui.tui.screens.curl import save_command
from scim_tui.tui.widgets.exchange_view import ExchangeView
from scim_tui.tui.widgets.exchange_view import data_view
from scim_tui.tui.widgets.facts import facts_table
from scim_tui.tui.widgets.result_preview import acceptance
from scim_tui.tui.widgets.status import mark_text
from scim_tui.tui.widgets.status import status_text


class Rerunner(Protocol):
    """What the detail needs from the run screen below it."""

    @property
    def running(self) -> bool: ...

    def rerun(self, checks: frozenset[CheckId]) -> None: ...

    def accept(self, key: str | None) -> None: ...


def unwrapped(text: str | None) -> str:
    """A docstring's paragraphs, each on one line, so that they wrap to the screen's width, not to the source's."""
    paragraphs = inspect.cleandoc(text or "").split("\n\n")
    return "\n\n".join(" ".join(paragraph.split()) for paragraph in paragraphs if paragraph.strip())


def summary_of(row: Row) -> Table:
    result = row.result
    facts: list[tuple[str, str | Text]] = [
        ("Status", Text.assemble(status_text(result.status, row.accepted is not None), "  ", mark_text(row.mark))),
        ("Check", result.title or ""),
        ("Resource type", result.resource_type or "(server)"),
        ("Tags", ", ".join(sorted(result.tags)) or "(none)"),
        (f"RFC {result.rfc}", f"section {result.section}" if result.section else "(not given)"),
        ("Reason", result.reason or "(none)"),
        ("Description", unwrapped(result.description) or "(none)"),
    ]
    if row.accepted is not None:
        facts.append(("Accepted", f"{acceptance(row.accepted)} (a un-accepts)"))
    if row.cause is not None:
        facts.append(("Shared cause", f"{len(row.cause.results)} results share one cause: {row.cause.request}"))
    if result.leftovers:
        facts.append(("Left on server", ", ".join(result.leftovers)))
    return facts_table(facts)


class ResultScreen(Screen[None]):
    """One result in full. ``escape`` goes back to the results, ``r`` reruns its check."""

    BINDINGS = [
        Binding("escape", "back", "Back", id="result.back"),
        Binding("r", "rerun", "Rerun check", id="result.rerun"),
        Binding("y", "copy_curl", "Copy as curl", id="result.copy-curl"),
        Binding("a", "accept", "Accept failure", show=False, id="result.accept"),
    ]

    def __init__(self, row: Row, base_url: str, runner: Rerunner) -> None:
        super().__init__()
        self.row = row
        self.base_url = base_url
        self.runner = runner
        self.selected = 0
        """The index of the exchange that ``y`` copies: the last one focused."""

    def compose(self) -> ComposeResult:
        result = self.row.result
        yield Header()
        with VerticalScroll(id="detail"):
            yield Static(summary_of(self.row), id="result-summary")
            yield Static(Group(Text("Data", style="bold underline"), data_view(result.data)), id="result-data")
            yield Static(Text(f"Exchanges ({len(result.exchanges)})", style="bold underline"), id="exchanges-title")
            for number, exchange in enumerate(result.exchanges, start=1):
                yield ExchangeView(number, exchange, self.base_url, collapsed=number > 1)
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"{self.row.result.title}"
        self._highlight()

    async def show(self, row: Row) -> None:
        """Show another version of the result (after a rerun)."""
        self.row = row
        self.selected = min(self.selected, max(0, len(row.result.exchanges) - 1))
        await self.recompose()
        self._highlight()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        for index, view in enumerate(self.query(ExchangeView)):
            if view in event.widget.ancestors_with_self:
                self.selected = index
                self._highlight()

    def _highlight(self) -> None:
        for index, view in enumerate(self.query(ExchangeView)):
            view.set_class(index == self.selected, "-selected")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "rerun":
            return None if self.runner.running else True
        if action == "copy_curl":
            return bool(self.row.result.exchanges)
        return True

    def action_back(self) -> None:
        self.dismiss()

    def action_rerun(self) -> None:
        self.runner.rerun(frozenset({self.row.result.check_id}))
        self.notify(f"Running {self.row.result.check_id} again…", markup=False)

    def action_accept(self) -> None:
        self.runner.accept(self.row.key)

    def action_copy_curl(self) -> None:
        exchanges = self.row.result.exchanges
        if not exchanges:
            return
        command = curl_command(exchanges[self.selected])
        self.app.copy_to_clipboard(command)
        self.app.push_screen(CurlScreen(command, save_command(command)))
