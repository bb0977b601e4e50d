"""The detail of one result: what was checked, why it got its status, and every HTTP exchange."""

from __future__ import annotations

import inspect
import os
import re
from typing import Protocol

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import events
from textual import on
from textual.app import ComposeResult
from textual.app import SuspendNotSupported
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets import Header
from textual.widgets import Input
from textual.widgets import Static
from textual.widgets.collapsible import CollapsibleTitle

from scim_tui.checker import CheckId
from scim_tui.reports.transcript import exchange_text
from scim_tui.tui.curl import curl_command
from scim_tui.tui.run_state import Row
from scim_tui.tui.screens.curl import CurlScreen
from scim_tui.tui.screens.curl import save_command
from scim_tui.tui.tools import TOOLS
from scim_tui.tui.tools import ToolError
from scim_tui.tui.tools import open_text
from scim_tui.tui.tools import tool_command
from scim_tui.tui.widgets.exchange_view import ExchangeView
from scim_tui.tui.widgets.exchange_view import data_view
from scim_tui.tui.widgets.facts import facts_table
from scim_tui.tui.widgets.find_bar import FindBar
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


LITERAL = re.compile(r"``(.+?)``")
"""A literal as a docstring writes it (reStructuredText): ``value``."""
LINK = re.compile(r"https?://[^\s<>\"')]*[^\s<>\"').,;:]")
"""A URL in a description, without the punctuation that follows it in a sentence."""


def description_text(text: str | None) -> Text:
    """A check's docstring for a person: its paragraphs unwrapped, its ``literals`` shown as
    code (without the backticks), and its source URLs whole and clickable where the terminal can."""
    plain = unwrapped(text)
    shown = Text()
    end = 0
    for literal in LITERAL.finditer(plain):
        shown.append(plain[end : literal.start()])
        shown.append(literal.group(1), style="bold")
        end = literal.end()
    shown.append(plain[end:])
    for link in LINK.finditer(shown.plain):
        shown.stylize(f"underline link {link.group()}", link.start(), link.end())
    return shown


def summary_of(row: Row) -> Table:
    result = row.result
    facts: list[tuple[str, str | Text]] = [
        ("Status", Text.assemble(status_text(result.status, row.accepted is not None), "  ", mark_text(row.mark))),
        ("Check", result.title or ""),
        ("Resource type", result.resource_type or "(server)"),
        ("Tags", ", ".join(sorted(result.tags)) or "(none)"),
        (f"RFC {result.rfc}", f"section {result.section}" if result.section else "(not given)"),
        ("Reason", result.reason or "(none)"),
        ("Description", description_text(result.description) or Text("(none)")),
    ]
    if row.accepted is not None:
        facts.append(("Accepted", f"{acceptance(row.accepted)} (a un-accepts)"))
    if row.cause is not None:
        facts.append(("Shared cause", f"{len(row.cause.results)} results share one cause: {row.cause.request}"))
    if result.leftovers:
        facts.append(("Left on server", ", ".join(result.leftovers)))
    return facts_table(facts)


class ResultScreen(Screen[None]):
    """One result in full. ``escape`` goes back to the results, ``r`` reruns its check.

    The selected exchange (the last one focused) is the one ``y`` copies as curl, ``p`` and ``v``
    open whole (request, then response, JSON bodies indented) in the pager or the editor, and
    ``/`` finds text in.
    """

    BINDINGS = [
        Binding("escape", "back", "Back", id="result.back"),
        Binding("r", "rerun", "Rerun check", id="result.rerun"),
        Binding("y", "copy_curl", "Curl", tooltip="Copy the request as curl (also shown, and saved to a file)", id="result.copy-curl"),
        Binding("p", "open_in('pager')", "Pager", tooltip="Open the exchange in $PAGER (else less)", id="result.pager"),
        Binding("v", "open_in('editor')", "Editor", tooltip="Open the exchange in $VISUAL or $EDITOR, read-only", show=False, id="result.editor"),
        Binding("slash,ctrl+f", "find", "Find", tooltip="Find text in the exchange (case ignored)", id="result.find"),
        Binding("n", "move_match(1)", "Next match", show=False, id="result.next-match"),
        Binding("N", "move_match(-1)", "Previous match", show=False, id="result.previous-match"),
        Binding("a", "accept", "Accept", tooltip="Accept the failure in the profile's baseline (or un-accept it)", id="result.accept"),
    ]

    def __init__(self, row: Row, runner: Rerunner) -> None:
        super().__init__()
        self.row = row
        self.runner = runner
        self.selected = 0
        """The index of the exchange the keys act on: the last one focused."""

    def compose(self) -> ComposeResult:
        result = self.row.result
        yield Header()
        with VerticalScroll(id="detail"):
            yield Static(summary_of(self.row), id="result-summary")
            yield Static(Group(Text("Data", style="bold underline"), data_view(result.data)), id="result-data")
            yield Static(Text(f"Exchanges ({len(result.exchanges)})", style="bold underline"), id="exchanges-title")
            for number, exchange in enumerate(result.exchanges, start=1):
                yield ExchangeView(number, exchange, collapsed=number > 1)
        yield FindBar()
        yield Footer(compact=True)

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
        views = list(self.query(ExchangeView))
        for index, view in enumerate(views):
            if view in event.widget.ancestors_with_self and index != self.selected:
                views[self.selected].find("")
                self.selected = index
                self._highlight()
                self.find()

    def _highlight(self) -> None:
        for index, view in enumerate(self.query(ExchangeView)):
            view.set_class(index == self.selected, "-selected")

    def _selected_view(self) -> ExchangeView | None:
        """The exchange the keys act on; None when the result made none."""
        views = list(self.query(ExchangeView))
        return views[self.selected] if views else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "rerun":
            return None if self.runner.running else True
        if action in ("copy_curl", "open_in"):
            return bool(self.row.result.exchanges)
        if action == "move_match":
            bars = self.query(FindBar)  # none yet while the screen composes
            return True if bars and bars.first().term else None
        return True

    def action_back(self) -> None:
        bar = self.query_one(FindBar)
        if bar.display:
            bar.action_close()
        else:
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

    def action_open_in(self, kind: str) -> None:
        """The selected exchange, whole and redacted as recorded, in the user's pager or editor."""
        tool = TOOLS[kind]
        try:
            command = tool_command(tool, os.environ)
            with self.app.suspend():
                status = self.open_selected(command)
        except ToolError as error:
            self.notify(str(error), severity="error", markup=False)
        except SuspendNotSupported:
            self.notify(f"No {tool.kind} here: this terminal cannot be handed over to another program.", severity="warning", markup=False)
        except OSError as error:
            self.notify(f"The {tool.kind} {command[0]} could not start ({error.strerror or error}).", severity="error", markup=False)
        else:
            if status:
                self.notify(f"The {tool.kind} {command[0]} ended with status {status}.", severity="warning", markup=False)

    def open_selected(self, command: list[str]) -> int:
        """Run the command on a file holding the selected exchange; its exit status."""
        return open_text(command, exchange_text(self.row.result.exchanges[self.selected]), "exchange")

    def action_find(self) -> None:
        """Open the find bar; it takes what is typed, even on a result that made no exchange to search."""
        bar = self.query_one(FindBar)
        bar.open()
        view = self._selected_view()
        if view is None:
            bar.show_note("no exchange to search")
            return
        view.collapsed = False
        self.find()

    @on(Input.Changed, "#find-input")
    def find(self) -> None:
        """Highlight what the find bar holds in the selected exchange, and show the first match."""
        if (view := self._selected_view()) is not None:
            view.find(self.query_one(FindBar).term)
            self._show_match(view)

    @on(FindBar.Moved)
    def _moved(self, event: FindBar.Moved) -> None:
        self.action_move_match(event.step)

    def action_move_match(self, step: int) -> None:
        if (view := self._selected_view()) is not None:
            view.move(step)
            self._show_match(view)

    @on(FindBar.Closed)
    def _find_closed(self) -> None:
        if (view := self._selected_view()) is not None:
            view.find("")
            view.query_one(CollapsibleTitle).focus()

    def _show_match(self, view: ExchangeView) -> None:
        self.query_one(FindBar).show_count(view.current, len(view.matches))
        if view.matches:
            self.call_after_refresh(self._scroll_to_match, view)

    def _scroll_to_match(self, view: ExchangeView) -> None:
        detail = self.query_one("#detail", VerticalScroll)
        body = view.query_one(".exchange-body", Static)
        row = body.content_region.y - detail.content_region.y + round(detail.scroll_y) + view.match_row()
        detail.scroll_to_region(Region(0, row, 1, 1), center=True, animate=False)
