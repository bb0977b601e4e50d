"""Accepted failures in the app, and failures grouped by cause.

One broken server serves every test here: it answers 200 to an unknown URL (random_url fails)
and 500 to every GET of one User, a cause that several checks share. A few checks run on it.
"""

from __future__ import annotations

from datetime import date

import pytest

from scim_tui.checker import CheckId
from scim_tui.demo import make_app
from scim_tui.selection import Selection
from scim_tui.store import baseline
from scim_tui.store.paths import config_dir
from scim_tui.store.paths import data_dir
from scim_tui.store.profile_baseline import baseline_file
from scim_tui.store.profiles import Profile
from scim_tui.store.profiles import ProfileSource
from scim_tui.store.profiles import parse_source
from scim_tui.store.profiles import profiles_dir
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.run_state import row_key
from scim_tui.tui.screens.accept import AcceptScreen
from scim_tui.tui.screens.accept import until_problem
from scim_tui.tui.screens.confirm import ConfirmScreen
from scim_tui.tui.screens.result import ResultScreen
from scim_tui.tui.widgets.results_table import ResultsTable
from tests.support.profiles import type_into
from tests.support.profiles import widget_text
from tests.support.servers import Broken
from tests.support.servers import scim_error
from tests.tui.conftest import open_key
from tests.tui.conftest import run_checks
from tests.tui.conftest import table_of
from tests.tui.conftest import wait_until

pytestmark = pytest.mark.anyio
SIZE = (130, 40)
CAUSE = "GET /v2/Users/{id} answered 500"
READ = row_key(CheckId("object_query", "User"), 0)
"""A failure of the shared cause: the one accepted."""
SHARING = [row_key(CheckId("object_query_with_attributes", "User"), index) for index in (0, 1)]
"""The two other results of the shared cause."""
RANDOM_URL = row_key(CheckId("random_url"), 0)


@pytest.fixture
def broken_url(serve) -> str:
    app = Broken(make_app()).answer("GET", r"/v2/Users/[^/?]+", 500, scim_error(500)).answer("GET", r"/v2/scim-tui-missing-.*", 200, {"schemas": []})
    return serve(app).url


def profile(url: str) -> Profile:
    """Four failures (random_url, and three results of one cause), among a few passing results."""
    return Profile(name="Local", url=url, baseline="accepted.toml", selection=Selection(include_tags=["misc", "crud:read"], resource_types=["User"]))


def test_a_profile_names_its_baseline_relative_to_the_config_directory_else_the_app_keeps_it():
    assert baseline_file(Profile(name="Local", baseline="accepted.toml")) == config_dir() / "accepted.toml"
    assert baseline_file(Profile(name="Local", baseline="/srv/ci/scim-baseline.toml")).as_posix() == "/srv/ci/scim-baseline.toml"
    assert baseline_file(Profile(name="local")) == data_dir() / "baselines" / "local.toml"
    read = parse_source(ProfileSource(profiles_dir() / "local.toml", b'url = "https://scim.example.com/v2"\nbaseline = "ci/baseline.toml"\n'))
    assert isinstance(read, Profile) and read.baseline == "ci/baseline.toml"


def test_an_until_date_must_be_a_later_day():
    today = date(2026, 11, 24)
    assert until_problem("", today) is None and until_problem("2026-11-25", today) is None
    assert until_problem("31/12/2026", today) == "'31/12/2026' is not a date: write it as YYYY-MM-DD, e.g. 2027-01-31, or leave it empty."
    assert until_problem("2026-11-24", today).startswith("2026-11-24 is not after today")


async def test_accepting_a_failure_asks_a_note_writes_the_baseline_and_marks_the_row(broken_url):
    chosen = profile(broken_url)
    path = baseline_file(chosen)
    path.parent.mkdir(parents=True)
    earlier = baseline.Entry(check="random_url", status="CRITICAL", note="written by hand")
    baseline.write(path, [earlier])
    app = ScimTuiApp(chosen)
    async with app.run_test(size=SIZE) as pilot:
        screen = await run_checks(pilot)
        table = table_of(pilot)
        table.select_key(READ)
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, AcceptScreen))
        await type_into(pilot, "#accept-note", "vendor ticket 42")
        await type_into(pilot, "#accept-until", "31/12/2099")
        assert app.screen is not screen and "is not a date: write it as YYYY-MM-DD" in widget_text(app, "#accept-problem")
        await pilot.press("enter")
        assert app.screen is not screen, "not accepted with a bad date"
        await type_into(pilot, "#accept-until", "2099-12-31")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.screen is screen)

        entries = baseline.load(path)
        assert path.read_text().startswith("# Failures accepted for now by `scim-tui check --baseline`")
        assert entries[0] == earlier, "an entry written before is kept"
        assert (entries[1].check_id, entries[1].status, entries[1].note, entries[1].until) == (
            CheckId("object_query", "User"),
            "ERROR",
            "vendor ticket 42",
            date(2099, 12, 31),
        )
        assert table.row_cells(READ)[0].plain == "ERROR ✓accepted"
        assert "2 failures, 2 accepted" in widget_text(app, "#run-counts")
        assert "Accepted by the baseline: vendor ticket 42 until 2099-12-31" in widget_text(app, "#preview")


async def test_an_accepted_failure_sorts_after_the_open_ones_n_skips_it_and_a_un_accepts_it(broken_url):
    chosen = profile(broken_url)
    path = baseline_file(chosen)
    path.parent.mkdir(parents=True)
    passing = baseline.Entry(check="object_query_without_id", resource_type="User", status="ERROR", note="was broken")
    accepted = baseline.Entry(check="object_query", resource_type="User", status="ERROR", note="vendor ticket 42")
    baseline.write(path, [passing, accepted])
    app = ScimTuiApp(chosen)
    async with app.run_test(size=SIZE) as pilot:
        screen = await run_checks(pilot)
        assert "Baseline: fixed, remove from the baseline (a on its row): User/object_query_without_id." in widget_text(app, "#run-baseline")
        table = table_of(pilot)
        await pilot.press("c")  # one line per result
        assert table.row_cells(READ)[0].plain == "ERROR ✓accepted"
        await pilot.press("s")
        users = [key for key in table.keys if key.startswith("User/")]
        assert users[:3] == [*SHARING, READ], "the accepted failure after the open ones"
        table.select_key(RANDOM_URL)
        await pilot.press("n", "n", "n")
        assert table.selected_key == RANDOM_URL, "n went round the open failures only"

        table.select_key(READ)
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_until(pilot, lambda: app.screen is screen)
        assert baseline.load(path) == [passing]
        assert table.row_cells(READ)[0].plain == "ERROR"


async def test_a_baseline_that_does_not_read_is_one_line_and_never_written_over(broken_url):
    chosen = profile(broken_url)
    path = baseline_file(chosen)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"[[accepted]]\ncheck = 'random_url'\nstatus = 'WORSE'\n")
    app = ScimTuiApp(chosen)
    async with app.run_test(size=SIZE) as pilot:
        await run_checks(pilot)
        line = app.screen.query_one("#run-baseline").render().plain
        assert "\n" not in line and line.startswith(f"The baseline {path} has a bad entry: accepted[0].status")
        table = table_of(pilot)
        table.select_key(RANDOM_URL)
        await pilot.press("a")
        await pilot.pause()
        assert not isinstance(app.screen, AcceptScreen)
        assert table.row_cells(RANDOM_URL)[0].plain == "ERROR"
    assert path.read_bytes() == b"[[accepted]]\ncheck = 'random_url'\nstatus = 'WORSE'\n"


async def test_failures_of_one_cause_sit_together_and_the_preview_names_the_cause(broken_url):
    app = ScimTuiApp(profile(broken_url))
    async with app.run_test(size=SIZE) as pilot:
        await run_checks(pilot)
        await pilot.press("c", "s")  # one line per result, failures first
        table = table_of(pilot)
        users = [key for key in table.keys if key.startswith("User/")]
        assert users[:3] in ([READ, *SHARING], [*SHARING, READ]), "the three results of one cause together, first"
        table.select_key(SHARING[1])
        table.focus()
        await pilot.pause()
        assert f"3 results share one cause: {CAUSE}" in widget_text(app, "#preview")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ResultScreen))
        assert f"3 results share one cause: {CAUSE}" in widget_text(app, "#result-head")
        await pilot.press("a")  # a failure is accepted from its own screen too
        await wait_until(pilot, lambda: isinstance(app.screen, AcceptScreen))
        await pilot.press("escape", "escape")
        await pilot.pause()
        table.select_key(RANDOM_URL)
        await pilot.pause()
        assert "share one cause" not in widget_text(app, "#preview")


async def test_accepting_from_the_result_screen_marks_the_row_on_the_run_screen_and_the_detail(broken_url):
    """The result screen asks the run screen (a message); the run screen tells it the row changed (a signal)."""
    chosen = profile(broken_url)
    app = ScimTuiApp(chosen)
    async with app.run_test(size=SIZE) as pilot:
        screen = await run_checks(pilot)
        detail = await open_key(pilot, RANDOM_URL)
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, AcceptScreen))
        await type_into(pilot, "#accept-note", "the vendor says soon")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "ERROR ✓accepted" in widget_text(app, "#result-head"))
        assert app.screen is detail and detail.row is screen.state.rows[RANDOM_URL]
        assert screen.state.rows[RANDOM_URL].accepted is not None and screen.state.rows[RANDOM_URL].accepted.note == "the vendor says soon"
        assert screen.query_one(ResultsTable).row_cells(RANDOM_URL)[0].plain == "ERROR ✓accepted"
        assert [entry.note for entry in baseline.load(baseline_file(chosen))] == ["the vendor says soon"]

        await pilot.press("a")  # and un-accepted from there
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_until(pilot, lambda: "accepted" not in widget_text(app, "#result-head").split("\n")[0])
        assert screen.state.rows[RANDOM_URL].accepted is None and baseline.load(baseline_file(chosen)) == []
