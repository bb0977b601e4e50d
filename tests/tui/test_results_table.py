"""The results pane: only the lines on screen are drawn, whatever the number of results; the cursor,
its keys and clicks, its messages, and the widths of the columns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.segment import Segment
from textual.app import App
from textual.app import ComposeResult
from textual.geometry import Region
from textual.message import Message

from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.checker.exchanges import Exchange
from scim_tui.tui import app as tui_app
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.messages import ResultsBatch
from scim_tui.tui.messages import RunFinished
from scim_tui.tui.run_state import Filter
from scim_tui.tui.run_state import Mark
from scim_tui.tui.run_state import RunState
from scim_tui.tui.widgets import results_table
from scim_tui.tui.widgets.result_lines import Lines
from scim_tui.tui.widgets.results_table import MIN_REASON_WIDTH
from scim_tui.tui.widgets.results_table import ResultsTable
from scim_tui.tui.widgets.run_status import Phase
from tests.tui.conftest import SIZE
from tests.tui.conftest import run_screen
from tests.tui.conftest import settle
from tests.tui.conftest import table_of
from tests.tui.conftest import wait_until

pytestmark = pytest.mark.anyio


def many_results(count: int) -> list[CheckResult]:
    """Results of 3 groups; every 10th one an ERROR, the others SUCCESS."""
    return [
        CheckResult(
            Status.ERROR if i % 10 == 0 else Status.SUCCESS,
            title=f"check_{i // 3}",
            reason=f"reason {i}",
            resource_type=(None, "User", "Group")[3 * i // count],
        )
        for i in range(count)
    ]


async def test_ten_thousand_results_draw_only_the_lines_on_screen(local, monkeypatch):
    """Streaming, filtering and unfiltering 10,000 results prepares only the lines that show."""
    drawn: list[object] = []

    def counted(item):
        drawn.append(item)
        return cells(item)

    cells = results_table.cells
    monkeypatch.setattr(results_table, "cells", counted)
    results = many_results(10_000)
    app = ScimTuiApp(local)
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(pilot)
        await settle(pilot)
        table = table_of(pilot)
        height = table.scrollable_content_region.height
        screen.run_id = 7
        drawn.clear()
        for start in range(0, len(results), 1000):
            screen.post_message(ResultsBatch(7, results[start : start + 1000]))
            await pilot.pause()
        assert table.row_count == 10_000 + 3
        assert len(drawn) <= 10 * 2 * height, f"{len(drawn)} lines prepared for 10 updates of {height} lines"

        drawn.clear()
        await pilot.press("1")  # hide SUCCESS
        await pilot.pause()
        assert table.row_count == 1_000 + 3
        assert len(drawn) <= 2 * height, f"{len(drawn)} lines prepared for a filter of {height} lines"
        assert {line.split()[0] for line in lines(table)[1:]} == {"━━", "ERROR"}

        drawn.clear()
        await pilot.press("1")
        await pilot.pause()
        assert table.row_count == 10_000 + 3
        assert len(drawn) <= 2 * height, f"{len(drawn)} lines prepared for a filter of {height} lines"

        table.focus()
        await pilot.pause()
        drawn.clear()
        await pilot.press("end")
        await pilot.pause()
        assert len(drawn) <= 2 * height
        assert table.selected_key == screen.state.order[-1]
        assert "reason 9999" in lines(table)[-1]


def drawn(table: ResultsTable) -> list[list[Segment]]:
    """The table's lines as last drawn: each line is kept until a refresh asks for it again."""
    return [list(strip) for strip in table.render_lines(Region(0, 0, table.size.width, table.size.height))]


def drawn_whole(table: ResultsTable) -> list[list[Segment]]:
    """The table's lines drawn again, every one of them."""
    table.refresh()
    return drawn(table)


def shared_failure(i: int) -> CheckResult:
    """A failure of the same request as every other: from the second one on, they share one line."""
    return CheckResult(
        Status.ERROR, title=f"check_with_a_long_name_{i}", resource_type="User", exchanges=[Exchange("GET", "http://h/v2/Users", status_code=500)]
    )


async def taking_batches(pilot: Any) -> tuple[Any, ResultsTable]:
    """The run screen, taking the batches of run 7, and its results pane focused."""
    screen = run_screen(pilot)
    await settle(pilot)
    table = table_of(pilot)
    table.focus()
    screen.run_id = 7
    return screen, table


async def test_the_lines_drawn_again_after_a_batch_or_a_key_are_those_that_changed(local):
    """A batch draws again only its lines and those a cause joined, a key the lines the cursor left
    and reached: what shows then is what drawing every line gives, at each step, and the scrollbar
    follows the lines."""
    results = [CheckResult(Status.SUCCESS, title=f"check_with_a_long_name_{i}", reason=f"reason {i}", resource_type="User") for i in range(600)]
    results[3], results[250] = shared_failure(3), shared_failure(250)  # the second joins the first, on screen
    app = ScimTuiApp(local)
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await taking_batches(pilot)
        for start, size in [*((start, 5) for start in range(0, 40, 5)), *((start, 40) for start in range(40, len(results), 40))]:  # on screen, then below it
            screen.post_message(ResultsBatch(7, results[start : start + size]))
            await pilot.pause()
            assert drawn(table) == drawn_whole(table), f"after the batch at {start}"
            assert table.show_vertical_scrollbar == (table.row_count + 1 > table.size.height), "a scrollbar once the lines and the header outgrow the pane"
            assert not table.show_vertical_scrollbar or table.vertical_scrollbar.window_virtual_size == table.row_count + 1, "it follows the lines"
        assert table.entries[4].key == "cause:GET /v2/Users answered 500"
        for key in ["down", "down", "up", "pagedown", "down", "end", "up", "home", "down"]:
            await pilot.press(key)
            await pilot.pause()
            assert drawn(table) == drawn_whole(table), f"after {key}"


async def test_results_of_the_server_coming_after_the_resource_types_are_put_in_place_line_by_line(local, monkeypatch):
    """A run's last results (its summaries, the providers' verdicts) belong to the server's group, shown
    first: each goes in under the server's last line, and the lines below move down, without laying
    out every line again (10,000 of them took 50 to 80 ms, a stall at the end of every long run). What
    shows is what laying out whole gives, and the cursor stays on its result."""
    server = [CheckResult(Status.SUCCESS, title=f"discovery_{i}", resource_type=None) for i in range(3)]
    users = [CheckResult(Status.ERROR if i % 7 == 0 else Status.SUCCESS, title=f"user_check_{i}", resource_type="User") for i in range(60)]
    last = [CheckResult(Status.SUCCESS, title="entra_readiness"), CheckResult(Status.ERROR, title="okta_readiness", reason="NOT READY")]
    laid_out: list[int] = []
    lay_out = ResultsTable._lay_out
    monkeypatch.setattr(ResultsTable, "_lay_out", lambda table: laid_out.append(table.row_count) or lay_out(table))
    app = ScimTuiApp(local)
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await taking_batches(pilot)
        for batch in (server, users[:30], users[30:]):
            screen.post_message(ResultsBatch(7, batch))
            await pilot.pause()
        await pilot.press("down", "down", "down", "down", "down", "down")
        under_cursor, laid_out[:] = table.selected_key, []
        for result in last:
            screen.post_message(ResultsBatch(7, [result]))
            await pilot.pause()
        assert laid_out == [], "the lines were laid out whole"
        whole = Lines()
        whole.lay_out(screen.state.visible(screen.view))
        assert table.keys == [line.key for line in whole.entries]
        assert table.keys[4:6] == ["entra_readiness#0", "okta_readiness#0"], "under the server's last line"
        assert table.selected_key == under_cursor
        assert drawn(table) == drawn_whole(table)
        screen.post_message(RunFinished(7))
        await wait_until(pilot, lambda: screen.progress.phase is Phase.FINISHED)
        assert laid_out == [], "the run's end changed no row, yet laid every line out again"
        assert table.keys == [line.key for line in whole.entries]


def lines(table: ResultsTable) -> list[str]:
    """The text of the table's lines on screen, the header first."""
    return [table.render_line(y).text for y in range(table.scrollable_content_region.height)]


class Host(App[None]):
    """The results pane alone, with the app's styles, fed by a RunState."""

    CSS_PATH = Path(tui_app.__file__).with_name("app.tcss")

    def __init__(self, results: list[CheckResult]) -> None:
        super().__init__()
        self.state = RunState()
        self.state.start()
        self.state.add(results)
        self.messages: list[Message] = []

    def compose(self) -> ComposeResult:
        yield ResultsTable(id="results")

    def on_mount(self) -> None:
        table = self.query_one(ResultsTable)
        table.show(self.state.visible(Filter()))
        table.focus()

    def on_results_table_opened(self, message: ResultsTable.Opened) -> None:
        self.messages.append(message)

    def on_results_table_cursor_moved(self, message: ResultsTable.CursorMoved) -> None:
        self.messages.append(message)


def keys_of(messages: list[Message], kind: type[Message]) -> list[str | None]:
    return [message.key for message in messages if isinstance(message, kind)]


async def test_keys_move_the_cursor_and_keep_it_on_screen():
    app = Host(many_results(300))
    async with app.run_test(size=(80, 20)) as pilot:
        table = app.query_one(ResultsTable)
        page = table.scrollable_content_region.height - 1
        await pilot.press("down", "down")
        assert table.cursor_row == 2 and table.selected_key == app.state.order[1]
        await pilot.press("pagedown")
        assert table.cursor_row == 2 + page
        await pilot.press("end")
        assert table.cursor_row == table.row_count - 1
        assert "reason 299" in lines(table)[-1]
        assert lines(table)[0].split() == ["Status", "Check", "Reason"], "the header stays on top"
        await pilot.press("pageup")
        assert table.cursor_row == table.row_count - 1 - page
        assert round(table.scroll_y) <= table.cursor_row < round(table.scroll_y) + page
        await pilot.press("home", "up")
        assert table.cursor_row == 0 and table.scroll_y == 0 and table.selected_key is None
        await pilot.pause()
        moved = keys_of(app.messages, ResultsTable.CursorMoved)
        assert moved[:3] == [None, app.state.order[0], app.state.order[1]]
        assert moved[-1] is None, "back on the group heading"


async def test_enter_and_a_second_click_open_a_result_a_heading_opens_nothing():
    app = Host(many_results(30))
    async with app.run_test(size=(80, 20)) as pilot:
        table = app.query_one(ResultsTable)
        await pilot.press("enter")  # the Server heading
        await pilot.click(ResultsTable, offset=(5, 3))  # line 3: the second result
        await pilot.pause()
        assert table.cursor_row == 2 and not keys_of(app.messages, ResultsTable.Opened)
        await pilot.click(ResultsTable, offset=(5, 3))
        await pilot.press("down", "enter")
        await pilot.pause()
        assert keys_of(app.messages, ResultsTable.Opened) == [app.state.order[1], app.state.order[2]]
        await pilot.click(ResultsTable, offset=(5, 0))  # the header
        assert table.cursor_row == 3


async def test_new_rows_and_filters_keep_the_cursor_on_its_result():
    results = many_results(300)
    app = Host(results[:150])
    async with app.run_test(size=(80, 20)) as pilot:
        table = app.query_one(ResultsTable)
        table.select_key(app.state.order[12])
        app.state.add(results[150:])
        table.show(app.state.visible(Filter()))
        assert table.selected_key == app.state.order[12]
        table.show(app.state.visible(Filter(statuses={Status.ERROR})))
        assert table.selected_key != app.state.order[12] and table.cursor_row == 13, "its line is hidden: the cursor stays in place"
        table.show([])
        assert table.row_count == 0 and table.selected_key is None
        await pilot.press("down", "end", "enter")
        assert not keys_of(app.messages, ResultsTable.Opened)


async def test_the_check_column_fits_the_longest_name_and_the_reason_takes_the_rest():
    long_reason = "the server answered " * 20
    results = [
        CheckResult(Status.SUCCESS, title="short", reason="fine"),
        CheckResult(Status.DEVIATION, title="a_rather_longer_check_name", reason=long_reason),
    ]
    app = Host(results)
    async with app.run_test(size=(100, 10)) as pilot:
        table = app.query_one(ResultsTable)
        width = table.scrollable_content_region.width
        header, _, first, second = lines(table)[:4]
        assert header.index("Reason") - header.index("Check") == len("a_rather_longer_check_name") + 2
        assert "Change" not in header, "no mark: no change column"
        assert len(second) == width and second.endswith("…") and second[header.index("Reason") :].startswith("the server answered")
        assert first.rstrip().endswith("fine")

        rows = app.state.visible(Filter())
        rows[0].mark = Mark.STILL_FAILING
        table.show(rows)
        await pilot.pause()
        header = lines(table)[0]
        assert header.index("Change") - header.index("Check") == len("a_rather_longer_check_name") + 2
        assert header.index("Reason") - header.index("Change") == len("✘ failing") + 2
        assert "✘ failing" in lines(table)[2]

        await pilot.resize_terminal(60, 10)
        # the table lays its columns out again once its own resize arrives, after the screen's
        await wait_until(pilot, lambda: "…" in lines(table)[3].split()[1])
        header, _, _, second = lines(table)[:4]
        assert len(header) - header.index("Reason") >= MIN_REASON_WIDTH, "a narrow pane cuts the check names first"
        assert "…" in second.split()[1]


async def test_short_names_leave_the_headings_whole():
    app = Host([CheckResult(Status.SUCCESS, title="ab", reason="fine", resource_type="User")])
    async with app.run_test(size=(80, 10)):
        header, heading, line = lines(app.query_one(ResultsTable))[:3]
        assert header.split() == ["Status", "Check", "Reason"]
        assert heading.split() == ["━━", "User"] and line.split() == ["SUCCESS", "ab", "fine"]
