"""Triage at scale: results that share one cause (a request failing as a whole) show as one line
with their count, which space expands; c shows one line per result. What is counted and what is
listed agree."""

from __future__ import annotations

import pytest

from scim_tui.checker import Status
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.widgets.result_lines import CAUSE_PREFIX
from tests.support.profiles import screen_text
from tests.support.profiles import widget_text
from tests.tui.conftest import SIZE
from tests.tui.conftest import failing_list
from tests.tui.conftest import listed
from tests.tui.conftest import run_checks
from tests.tui.conftest import table_of

pytestmark = pytest.mark.anyio
CAUSE = f"{CAUSE_PREFIX}GET /v2/Users answered 500"


async def test_results_sharing_a_cause_show_as_one_line_that_space_expands(serve):
    app = ScimTuiApp(failing_list(serve))
    async with app.run_test(size=SIZE) as pilot:
        screen = await run_checks(pilot)
        table = table_of(pilot)
        members = [row for key in screen.state.order if (row := screen.state.rows[key]).cause is not None]
        assert len(members) > 1 and {row.cause.request for row in members} == {"GET /v2/Users answered 500"}
        assert [key for key in table.keys if key.startswith(CAUSE_PREFIX)] == [CAUSE]
        assert not {row.key for row in members} & set(table.keys), "its results have no line of their own"
        _, check, _, reason = table.row_cells(CAUSE)
        assert check.plain == f"▸ {len(members)} results" and reason.plain.endswith("one cause: GET /v2/Users answered 500")
        assert listed(table) == +screen.progress.counts, "the counts are those of the lines listed"
        assert screen.progress.open_failures == sum(listed(table)[status] for status in Status if status.failed)

        table.focus()
        table.move_cursor(0)
        stops = set()
        for _ in range(table.row_count):
            await pilot.press("n")
            stops.add(table.entries[table.cursor_row].key)
        assert CAUSE in stops, "n stops at a cause's line: it holds open failures"
        assert "Expand" in screen_text(app).splitlines()[-1], "the footer shows the key that expands it"

        table.select_key(CAUSE)
        await pilot.pause()
        assert f"{len(members)} results share one cause: GET /v2/Users answered 500" in widget_text(app, "#preview")
        await pilot.press("space")
        place = table.keys.index(CAUSE)
        assert table.keys[place + 1 : place + 1 + len(members)] == [row.key for row in members], "listed under it, in the run's order"
        assert table.row_cells(CAUSE)[1].plain.startswith("▾")
        await pilot.press("down", "space")  # on one of its results, space folds them again
        assert table.keys[place] == CAUSE and not {row.key for row in members} & set(table.keys)
        assert table.selected_cause is not None and table.entries[table.cursor_row].key == CAUSE

        await pilot.press("c")
        assert CAUSE not in table.keys and [key for key in table.keys if key in {row.key for row in members}] == [row.key for row in members]
        assert table.entries[table.cursor_row].key == members[0].key, "the cursor stays on the cause's first result"
        await pilot.press("c")
        assert CAUSE in table.keys
