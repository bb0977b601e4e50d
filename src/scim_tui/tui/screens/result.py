"""The detail of one result: what was checked, why it got its status, and every HTTP exchange."""

from __future__ import annotations

import inspect
import os
import re
from typing import TYPE_CHECKING
from typing import cast

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.app import SuspendNotSupported
from textual.binding import Binding
from textual.containers import Horizontal
from textual.containers import VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets import Header
from textual.widgets import Input
from textual.widgets import OptionList
from textual.widgets import Static
from textual.widgets import Tab
from textual.widgets import Tabs

from scim_tui.checker import CheckResult
from scim_tui.checker import Exchange
from scim_tui.checker.exchanges import request_line
from scim_tui.reports.transcript import exchange_text
from scim_tui.tui.curl import curl_command
from scim_tui.tui.messages import AcceptAsked
from scim_tui.tui.messages import RerunAsked
from scim_tui.tui.messages import RowsChanged
from scim_tui.tui.run_state import Row
from scim_tui.tui.screens.curl import CurlScreen
from scim_tui.tui.screens.curl import save_command
from scim_tui.tui.tools import TOOLS
from scim_tui.tui.tools import ToolError
from scim_tui.tui.tools import open_text
from scim_tui.tui.tools import tool_command
from scim_tui.tui.widgets.exchange_document import EMPTY
from scim_tui.tui.widgets.exchange_document import request_document
from scim_tui.tui.widgets.exchange_document import response_document
from scim_tui.tui.widgets.exchange_list import ExchangeList
from scim_tui.tui.widgets.exchange_list import first_shown
from scim_tui.tui.widgets.exchange_view import data_view
from scim_tui.tui.widgets.facts import facts_table
from scim_tui.tui.widgets.find_bar import FindBar
from scim_tui.tui.widgets.message_view import MessageView
from scim_tui.tui.widgets.result_preview import acceptance
from scim_tui.tui.widgets.status import mark_text
from scim_tui.tui.widgets.status import status_text

if TYPE_CHECKING:
    from scim_tui.tui.app import ScimTuiApp


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


def head_of(row: Row) -> Text:
    """The result above its exchanges: its status and check, its reason, the cause it shares."""
    result = row.result
    status = Text.assemble(status_text(result.status, row.accepted is not None), "  ", mark_text(row.mark))
    head = Text.assemble(status, " ", (str(result.check_id), "bold"))
    if row.cause is not None:
        head.append(f" · {len(row.cause.results)} results share one cause: {row.cause.request}", style="italic")
    return head.append(f"\n{result.reason or '(no reason)'}")


TABS = ("request", "response", "check")


def no_exchanges(result: CheckResult) -> str:
    """What the inspector says of a result without exchanges: none sent, or none kept."""
    left_out = result.exchanges_left_out
    if left_out:
        return (
            f"Its {left_out} request{'s' if left_out > 1 else ''} and response{'s' if left_out > 1 else ''} were not kept: a saved run keeps "
            "those of the results that are not a SUCCESS. Press r to run the check again; its facts are in the Check tab."
        )
    return "This check sent no request: its facts are in the Check tab."


class ResultScreen(Screen[None]):
    """One result, as an inspector: its exchanges listed by what each was for, the one
    highlighted shown below, its request and its response in tabs (side by side on a wide
    terminal), the check's facts in a third tab.

    ``j``/``k`` move in the list (``g``/``G`` to its first and last), ``t`` goes to the next tab. The keys act on the exchange
    highlighted: ``y`` copies it as curl, ``u`` its URL; ``h`` and ``b`` copy the headers and
    the body of the side shown (the request or the response); ``p`` and ``v`` open it whole
    (request, then response, JSON bodies indented) in the pager or the editor, ``/`` finds text
    in it.

    It holds no reference to the run screen that opened it: ``r`` and ``a`` ask that screen by a
    message, and the run screen's rows reach it on the App's ``rows_signal`` (messages.py).
    """

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (160, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (36, "-tall")]
    BINDINGS = [
        Binding("escape", "back", "Back", id="result.back"),
        Binding("j", "move_exchange(1)", "Next exchange", show=False, id="result.next-exchange"),
        Binding("k", "move_exchange(-1)", "Previous exchange", show=False, id="result.previous-exchange"),
        Binding("g", "end_exchange(False)", "First exchange", show=False, id="result.first-exchange"),
        Binding("G", "end_exchange(True)", "Last exchange", show=False, id="result.last-exchange"),
        Binding("t", "next_tab", "Tab", tooltip="Show the next tab: the request, the response, the check", id="result.next-tab"),
        Binding("slash,ctrl+f", "find", "Find", tooltip="Find text in the exchange (case ignored)", id="result.find"),
        Binding("y", "copy_curl", "Curl", tooltip="Copy the request as curl (also shown, and saved to a file)", id="result.copy-curl"),
        Binding("u", "copy_url", "URL", tooltip="Copy the request's URL", id="result.copy-url"),
        Binding("h", "copy_headers", "Headers", tooltip="Copy the headers of the side shown (request or response)", id="result.copy-headers"),
        Binding("b", "copy_body", "Body", tooltip="Copy the body of the side shown (request or response), as it was sent", id="result.copy-body"),
        Binding("p", "open_in('pager')", "Pager", tooltip="Open the exchange in $PAGER (else less)", id="result.pager"),
        Binding("v", "open_in('editor')", "Editor", tooltip="Open the exchange in $VISUAL or $EDITOR, read-only", show=False, id="result.editor"),
        Binding("n", "move_match(1)", "Next match", show=False, id="result.next-match"),
        Binding("N", "move_match(-1)", "Previous match", show=False, id="result.previous-match"),
        Binding("r", "rerun", "Rerun", tooltip="Run this check again", id="result.rerun"),
        Binding("a", "accept", "Accept", tooltip="Accept the failure in the profile's baseline (or un-accept it)", id="result.accept"),
    ]

    tab: reactive[str] = reactive("request", init=False)
    """The tab shown: the request, the response, or the check."""

    def __init__(self, row: Row, running: bool = False) -> None:
        super().__init__()
        self.row = row
        self.running = running
        """Whether a run goes on the run screen (``r`` waits for its end)."""
        self.selected = first_shown(row.result.exchanges)
        """The index of the exchange shown, the one the keys act on."""
        self.side = "request"
        """The side the copy keys take the headers and the body of: the last one shown."""
        self.found: list[tuple[MessageView, int]] = []
        """The matches of the find in the exchange shown: the view, and the match's index in it."""
        self.match = 0

    def compose(self) -> ComposeResult:
        result = self.row.result
        exchange = result.exchanges[self.selected] if result.exchanges else None
        yield Header()
        yield Static(head_of(self.row), id="result-head")
        if exchange is None:
            yield Static(no_exchanges(result), id="no-exchanges")
        else:
            yield ExchangeList(result.exchanges, id="exchange-list")
        yield Tabs(Tab("Request", id="request-tab"), Tab("Response", id="response-tab"), Tab("Check", id="check-tab"), id="inspector-tabs")
        with Horizontal(id="panes", classes="-request"):
            yield MessageView(request_document(exchange) if exchange else EMPTY, id="request-view")
            yield MessageView(response_document(exchange, result.reason) if exchange else EMPTY, id="response-view")
            with VerticalScroll(id="check-view"):
                yield Static(summary_of(self.row), id="result-summary")
                yield Static(Group(Text("Data", style="bold underline"), data_view(result.data)), id="result-data")
        yield FindBar()
        yield Footer(compact=True, show_command_palette=False)  # its keys need the width; ctrl+p still opens it

    def on_mount(self) -> None:
        self.sub_title = f"{self.row.result.title}"
        if not self.row.result.exchanges:
            self.tab = "check"
        self.watch_tab(self.tab)
        cast("ScimTuiApp", self.app).rows_signal.subscribe(self, self.follow)

    async def follow(self, change: RowsChanged) -> None:
        """Follow the run screen: its run began or ended (``r`` waits for the end), or the row
        shown changed (a rerun, an acceptance): show it as it is now."""
        if change.running != self.running:
            self.running = change.running
            self.refresh_bindings()
        if self.row.key in change.changed and (row := change.rows.get(self.row.key)) is not None:
            await self.show(row)

    async def show(self, row: Row) -> None:
        """Show another version of the result (after a rerun)."""
        self.row = row
        self.selected = first_shown(row.result.exchanges)
        await self.recompose()
        self.watch_tab(self.tab)

    # The exchange shown

    @on(OptionList.OptionHighlighted, "#exchange-list")
    def _exchange_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_index == self.selected:
            return  # the exchange shown already (the list's first highlight)
        self.selected = event.option_index
        exchange = self.row.result.exchanges[self.selected]
        self.query_one("#request-view", MessageView).show(request_document(exchange))
        self.query_one("#response-view", MessageView).show(response_document(exchange, self.row.result.reason))
        self.find()

    def action_move_exchange(self, step: int) -> None:
        exchanges = self.query(ExchangeList)
        if exchanges:
            exchanges.first().action_cursor_down() if step > 0 else exchanges.first().action_cursor_up()

    def action_end_exchange(self, last: bool) -> None:
        exchanges = self.query(ExchangeList)
        if exchanges:
            exchanges.first().action_last() if last else exchanges.first().action_first()

    # Tabs

    def watch_tab(self, tab: str) -> None:
        self.query_one("#panes").set_classes(f"-{tab}")
        self.query_one(Tabs).active = f"{tab}-tab"
        if tab != "check":
            self.side = tab

    @on(Tabs.TabActivated, "#inspector-tabs")
    def _tab_activated(self, event: Tabs.TabActivated) -> None:
        # Only the tab active now: a stale event (the tab set again since it was sent) would set
        # the old tab back, whose own event would then set the new one, and so on forever.
        if event.tab.id and event.tab.id == event.tabs.active:
            self.tab = event.tab.id.removesuffix("-tab")

    def action_next_tab(self) -> None:
        self.tab = TABS[(TABS.index(self.tab) + 1) % len(TABS)]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "rerun":
            return None if self.running else True
        if action in ("copy_curl", "open_in", "copy_url", "copy_headers", "copy_body", "move_exchange", "end_exchange"):
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
        self.ask(RerunAsked(frozenset({self.row.result.check_id})))
        self.notify(f"Running {self.row.result.check_id} again…", markup=False)

    def action_accept(self) -> None:
        self.ask(AcceptAsked(self.row.key))

    def ask(self, request: Message) -> None:
        """Post a request to the screen that opened this one, below it in the stack (the run
        screen): a message posted here would bubble to the App, never to that screen."""
        stack = self.app.screen_stack
        stack[stack.index(self) - 1].post_message(request)

    # Copies (the exchanges were redacted when recorded: no secret reaches the clipboard)

    @property
    def exchange(self) -> Exchange:
        return self.row.result.exchanges[self.selected]

    def _copied(self, text: str, what: str) -> None:
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied {what}.", markup=False)

    def action_copy_url(self) -> None:
        self._copied(self.exchange.url, f"the URL of {request_line(self.exchange)}")

    def action_copy_headers(self) -> None:
        headers = self.exchange.request_headers if self.side == "request" else self.exchange.response_headers
        self._copied("\n".join(f"{name}: {value}" for name, value in headers.items()), f"the {self.side} headers ({len(headers)})")

    def action_copy_body(self) -> None:
        body = self.exchange.request_body if self.side == "request" else self.exchange.response_body
        if not body:
            self.notify(f"The {self.side} has no body to copy.", severity="warning", markup=False)
            return
        self._copied(body, f"the {self.side} body ({len(body):,} characters)")

    def action_copy_curl(self) -> None:
        command = curl_command(self.exchange)
        self._copied(command, "the request as curl")
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
        return open_text(command, exchange_text(self.exchange), "exchange")

    # Find, in the request and the response of the exchange shown

    def action_find(self) -> None:
        """Open the find bar; it takes what is typed, even on a result that made no exchange to search."""
        bar = self.query_one(FindBar)
        bar.open()
        if not self.row.result.exchanges:
            bar.show_note("no exchange to search")
            return
        self.find()

    @on(Input.Changed, "#find-input")
    def find(self) -> None:
        """Highlight what the find bar holds in the exchange shown, and show the first match."""
        term = self.query_one(FindBar).term
        views = [self.query_one(f"#{side}-view", MessageView) for side in ("request", "response")]
        self.found = [(view, index) for view in views for index in range(view.find(term))]
        self.match = 0
        self._show_match()

    @on(FindBar.Moved)
    def _moved(self, event: FindBar.Moved) -> None:
        self.action_move_match(event.step)

    def action_move_match(self, step: int) -> None:
        if self.found:
            self.match = (self.match + step) % len(self.found)
            self._show_match()

    @on(FindBar.Closed)
    def _find_closed(self) -> None:
        self.find()
        self.query_one(f"#{self.side}-view", MessageView).focus()

    def _show_match(self) -> None:
        if self.row.result.exchanges:
            self.query_one(FindBar).show_count(self.match, len(self.found))
        for view in self.query(MessageView):
            view.show_match(None)
        if self.found:
            view, index = self.found[self.match]
            view.show_match(index)
            self.tab = "request" if view.id == "request-view" else "response"
