"""The bugs a new user met in an hour's trial of the app, each shown as the user met it."""

from __future__ import annotations

import asyncio
import threading
import time
from urllib.parse import urlsplit

import pytest
from textual.widgets import Input
from textual.widgets import ProgressBar
from textual.widgets import SelectionList
from textual.widgets import Static

from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker.results import SUMMARY_CHECKER
from scim_tui.demo import make_app
from scim_tui.selection import Selection
from scim_tui.store.profiles import Auth
from scim_tui.store.profiles import AuthKind
from scim_tui.store.profiles import Profile
from scim_tui.store.profiles import profiles_dir
from scim_tui.store.profiles import save_profile
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.runner import BATCH_INTERVAL
from scim_tui.tui.screens.confirm import ConfirmScreen
from scim_tui.tui.screens.help import HelpScreen
from scim_tui.tui.screens.profile_form import ProfileFormScreen
from scim_tui.tui.screens.result import ResultScreen
from scim_tui.tui.widgets.check_tree import CheckTree
from scim_tui.tui.widgets.run_status import Phase
from scim_tui.tui.widgets.run_status import RunStatus
from tests.support.network import closed_port_url
from tests.support.profiles import widget_text
from tests.support.servers import Broken
from tests.support.servers import Hanging
from tests.support.servers import RawServer
from tests.tui.conftest import CEILING
from tests.tui.conftest import FEW
from tests.tui.conftest import SIZE
from tests.tui.conftest import broken_random_url
from tests.tui.conftest import failing_list
from tests.tui.conftest import highlight
from tests.tui.conftest import listed
from tests.tui.conftest import open_row
from tests.tui.conftest import plain
from tests.tui.conftest import run_checks
from tests.tui.conftest import run_screen
from tests.tui.conftest import settle
from tests.tui.conftest import table_of
from tests.tui.conftest import wait_until

pytestmark = pytest.mark.anyio
ENTRA_GUIDE = "https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups"
HTML_PAGE = (
    b"<html>\n<head><title>502 Bad Gateway</title></head>\n<body><h1>Bad Gateway</h1><p>The upstream SCIM service did not"
    b" answer the gateway in time; try again later, or call the operations team.</p></body>\n</html>\n"
)
STAGING = Profile(name="Staging", url="https://scim.example.test/v2", auth=Auth(kind=AuthKind.BEARER, token="env:STAGING_TOKEN"))


async def open_form(pilot, profile: Profile | None) -> list[Profile | None]:
    dismissed: list[Profile | None] = []
    await pilot.app.push_screen(ProfileFormScreen(profile), dismissed.append)
    await pilot.pause()
    return dismissed


@pytest.mark.parametrize("profile", [None, STAGING], ids=["new", "edited"])
async def test_leaving_a_form_nothing_was_changed_in_asks_nothing(profile):
    app = ScimTuiApp()
    async with app.run_test(size=SIZE) as pilot:
        dismissed = await open_form(pilot, profile)
        await pilot.press("tab", "tab", "escape")  # looked around, changed nothing
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen), "nothing was changed: nothing to discard"
        assert dismissed == [None]


async def test_ctrl_q_in_a_form_with_edits_asks_before_it_drops_them():
    save_profile(STAGING)
    written = (profiles_dir() / "staging.toml").read_text()
    app = ScimTuiApp()
    async with app.run_test(size=SIZE) as pilot:
        await open_form(pilot, STAGING)
        app.screen.query_one("#url", Input).value = "https://elsewhere.example.test/v2"
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert app.is_running and isinstance(app.screen, ConfirmScreen), "the edits are not dropped without asking"
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, ProfileFormScreen) and app.screen.query_one("#url", Input).value == "https://elsewhere.example.test/v2"
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert not app.is_running
    assert (profiles_dir() / "staging.toml").read_text() == written


async def test_ctrl_q_in_a_form_without_edits_quits_at_once():
    app = ScimTuiApp()
    async with app.run_test(size=SIZE) as pilot:
        await open_form(pilot, STAGING)
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert not app.is_running


def visible(app, widget) -> bool:
    """Whether the widget is what the screen shows at its place, not something drawn over it."""
    region = widget.region
    return bool(region) and app.screen.get_widget_at(region.x + 1, region.y)[0] is widget


@pytest.mark.parametrize("size", [(80, 24), SIZE, (200, 60)], ids=["80x24", "130x40", "200x60"])
async def test_the_find_bar_shows_above_the_footer(serve, size):
    profile = Profile(name="Broken", url=serve(broken_random_url()).url, selection=FEW)
    app = ScimTuiApp(profile)
    async with app.run_test(size=size) as pilot:
        await run_checks(pilot)
        await open_row(pilot, "random_url")
        await pilot.press("slash")
        await pilot.pause()
        field = app.screen.query_one("#find-input", Input)
        assert field.has_focus and visible(app, field), "the find bar is covered by the footer"
        await pilot.press(*"scim")
        assert "1 of" in widget_text(app, "FindBar")


async def test_find_on_a_result_without_exchanges_takes_the_typed_text(serve):
    app = ScimTuiApp(failing_list(serve))
    async with app.run_test(size=SIZE) as pilot:
        screen = await run_checks(pilot)
        detail = await open_row(pilot, f"User/{SUMMARY_CHECKER}")
        assert detail.row.result.status is Status.ERROR and not detail.row.result.exchanges
        await pilot.press("slash", *"meta", "enter")
        await pilot.pause()
        assert not screen.baseline.path.exists(), "the typed letters fired no command (a: accept)"
        assert app.screen is detail and detail.query_one("#find-input", Input).value == "meta"
        assert "no exchange to search" in widget_text(app, "FindBar")


async def test_a_description_shows_its_literals_as_code_and_its_sources_whole(scim_server):
    app = ScimTuiApp(Profile(name="Local", url=scim_server.url))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = run_screen(pilot)
        await settle(pilot)
        screen.rerun(frozenset({CheckId("entra_test_connection", "User")}))
        await settle(pilot)
        detail = await open_row(pilot, "User/entra_test_connection")
        text = plain(detail.query_one("#result-summary", Static).content, width=78)
        assert "``" not in text
        assert "userName eq" in text
        assert ENTRA_GUIDE in "".join(text.split()), "the source's URL is shown whole (folded, not cut)"


async def test_an_html_answer_shows_as_the_page_it_is(serve):
    broken = Broken(make_app()).answer("GET", "/v2/ServiceProviderConfig", 502, HTML_PAGE, [("Content-Type", "text/html")])
    app = ScimTuiApp(Profile(name="Gateway", url=serve(broken).url, selection=FEW))
    async with app.run_test(size=(80, 24)) as pilot:
        await run_checks(pilot)
        detail = await open_row(pilot, "service_provider_config_endpoint")
        assert detail.row.result.data == HTML_PAGE.decode()
        data = plain(detail.query_one("#result-data", Static).content, width=78)
        assert "<title>502 Bad Gateway</title>" in data and "\\n" not in data, "one page, line by line, not one escaped string"
        assert "call the operations team." in data, "wrapped, not cut at the edge"


async def test_enter_after_a_run_started_from_the_tag_tree_opens_the_highlighted_failure(serve):
    app = ScimTuiApp(Profile(name="Broken", url=serve(broken_random_url()).url, selection=FEW))
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(pilot)
        assert isinstance(app.focused, CheckTree)
        await run_checks(pilot)
        await pilot.pause()
        key = table_of(pilot).selected_key
        assert key is not None and key.startswith("random_url#")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ResultScreen) and app.screen.row.key == key
        assert screen.query_one(CheckTree).root.is_expanded


async def test_the_counts_agree_with_the_rows_shown(serve):
    app = ScimTuiApp(failing_list(serve))
    async with app.run_test(size=SIZE) as pilot:
        screen = await run_checks(pilot)
        table = table_of(pilot)
        shown = listed(table)
        counts = screen.progress.counts
        assert counts[Status.ERROR] >= 1 and any(row.summary and row.result.status is Status.ERROR for row in screen.state.rows.values())
        assert {status: shown[status] for status in Status} == {status: counts[status] for status in Status}
        assert f"ERROR {counts[Status.ERROR]} " in widget_text(app, "#run-counts") + " "
        assert screen.progress.open_failures == counts[Status.ERROR] + counts[Status.CRITICAL]


async def test_the_progress_bar_never_goes_back(serve, monkeypatch):
    """The server checks end before discovery tells how many checks the resource types add:
    the bar has no total until then, rather than a total it would outgrow."""
    hanging = Hanging()
    server = serve(Broken(make_app()).rewrite("GET", r"/v2/scim-tui-missing-.*", hanging))
    shown: list[float] = []
    record = RunStatus.show

    def show(status: RunStatus, progress) -> None:
        record(status, progress)
        bar = status.query_one(ProgressBar)
        if progress.phase is Phase.RUNNING and bar.percentage is not None:
            shown.append(bar.percentage)

    monkeypatch.setattr(RunStatus, "show", show)
    profile = Profile(name="Hanging", url=server.url, jobs=1, selection=Selection(include_tags=["misc", "crud:create"]))
    app = ScimTuiApp(profile)
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(pilot)
        await settle(pilot)
        await pilot.press("r")
        await wait_until(pilot, hanging.reached.is_set)
        held = time.monotonic()
        # Held past the batching interval, random_url's result goes to the screen on its own,
        # before discovery: the moment the bar once showed 100 %, then a third.
        await wait_until(pilot, lambda: time.monotonic() - held > BATCH_INTERVAL)
        hanging.release()
        await settle(pilot)
        assert screen.progress.phase is Phase.FINISHED and screen.state.checks_done() == 3
    assert shown and shown == sorted(shown), shown


async def test_space_ticks_the_first_resource_type_at_once(scim_server):
    app = ScimTuiApp(Profile(name="Local", url=scim_server.url))
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(pilot)
        options = screen.query_one("#resource-types", SelectionList)
        await wait_until(pilot, lambda: options.option_count > 0)
        options.focus()
        before = set(options.selected)
        await pilot.press("space")
        assert set(options.selected) == before - {options.get_option_at_index(0).value}


async def test_help_names_only_the_apps_own_keys(local):
    app = ScimTuiApp(local)
    async with app.run_test(size=SIZE) as pilot:
        run_screen(pilot)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        keys = dict(app.screen.keys)
        assert "super+c" not in keys and "Copy selected text" not in keys.values()
        assert keys["r"] == "Run" and keys["?"] == "Help"


@pytest.mark.parametrize("fault", ["refused", "silent"])
async def test_a_network_failure_is_said_once_in_words(fault):
    with RawServer() as server:
        url = closed_port_url() if fault == "refused" else server.url
        app = ScimTuiApp(Profile(name="Nowhere", url=url, timeout=1))
        async with app.run_test(size=SIZE) as pilot:
            note = run_screen(pilot).query_one("#resource-types-note", Static)
            await wait_until(pilot, lambda: "Could not read" in str(note.content))
            said = str(note.content)
    where = urlsplit(url).netloc
    told = (
        f"nothing listens on {where}: is the server running and the URL right?"
        if fault == "refused"
        else f"no answer from {where} within 1 s (the profile's timeout)"
    )
    assert said == f"Could not read the resource types: {told}"
    assert "Errno" not in said and "timed out" not in said


class Unanswered:
    """A RawServer handler that reads each request and never answers, counting the connections
    the client ended (its requests abandoned) while the server still listened."""

    def __init__(self) -> None:
        self.ended = 0
        self.lock = threading.Lock()

    def __call__(self, connection) -> None:
        while connection.recv(65536):
            pass
        with self.lock:
            self.ended += 1


LONG = 600.0
"""The longest timeout a profile allows: a request left to it would outlast any test's ceiling."""


@pytest.mark.parametrize("waiting", ["connection test", "resource types' read"])
async def test_quitting_while_work_that_created_nothing_waits_on_a_silent_server_ends_its_request_at_once(waiting):
    server_side = Unanswered()
    with RawServer(server_side) as server:
        profile = Profile(name="Silent", url=server.url, timeout=LONG)
        save_profile(profile)
        app = ScimTuiApp(profile if waiting == "resource types' read" else None)
        async with app.run_test(size=SIZE) as pilot:
            if waiting == "connection test":
                await highlight(pilot, "Silent")
                await pilot.press("t")
            await wait_until(pilot, lambda: len(server.connections) == 1)
            await pilot.press("q")
        assert await ended(server_side, 1), f"the {waiting} still waits for its timeout"


async def test_cancelling_a_run_before_its_checks_began_says_so_at_once_and_ends_its_request():
    server_side = Unanswered()
    with RawServer(server_side) as server:
        app = ScimTuiApp(Profile(name="Silent", url=server.url, timeout=LONG))
        async with app.run_test(size=SIZE) as pilot:
            screen = run_screen(pilot)
            await wait_until(pilot, lambda: len(server.connections) == 1)  # the resource types' read
            await pilot.press("r")
            await wait_until(pilot, lambda: len(server.connections) == 2)  # the run's first request
            await pilot.press("escape")
            assert not screen.running and screen.progress.phase is Phase.CANCELLED
            assert "Run cancelled before any check ran: nothing was created on the server" in widget_text(app, "#run-outcome")
            assert await ended(server_side, 1), "the run's request still waits for its timeout"
            await wait_until(pilot, lambda: app.last_run_end is not None)  # the run's thread ended
            await pilot.pause()
            assert screen.state.rows == {} and screen.progress.phase is Phase.CANCELLED
            assert "nothing was created" in widget_text(app, "#run-outcome")


async def ended(server_side: Unanswered, count: int) -> bool:
    """Whether the client ended `count` connections (within the tests' ceiling)."""
    deadline = time.monotonic() + CEILING
    while server_side.ended < count and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    return server_side.ended >= count
