"""The demo profile in the app: the run screen is drawn first, the embedded server starts in a
worker's thread once it is, the runs go to it, and it stops at exit."""

from __future__ import annotations

import errno
import threading
from collections.abc import Iterator

import httpx2
import pytest
from textual.widgets import Static

from scim_tui import demo
from scim_tui.checker import Status
from scim_tui.demo import DemoServer
from scim_tui.selection import Selection
from scim_tui.store.profiles import Profile
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.widgets.check_tree import CheckTree
from scim_tui.tui.widgets.run_status import Phase
from tests.tui.conftest import CEILING
from tests.tui.conftest import SIZE
from tests.tui.conftest import run_checks
from tests.tui.conftest import run_screen
from tests.tui.conftest import settle
from tests.tui.conftest import wait_until

pytestmark = pytest.mark.anyio

DISCOVERY = Selection(include_tags=["service-provider-config"])


@pytest.fixture
def held_start(monkeypatch) -> Iterator[threading.Event]:
    """The demo server's start waits until the test sets this event: a server slow to come up."""
    release, start = threading.Event(), DemoServer.start

    def held(server: DemoServer) -> str:
        release.wait(CEILING)
        return start(server)

    monkeypatch.setattr(DemoServer, "start", held)
    yield release
    release.set()


@pytest.fixture
def unbindable(monkeypatch) -> None:
    """The loopback address cannot be bound (a sandbox without one, say): the demo server cannot start."""

    def refuse(server: object) -> None:
        raise OSError(errno.EADDRNOTAVAIL, "Cannot assign requested address")

    monkeypatch.setattr(demo._ThreadingServer, "server_bind", refuse)


async def test_the_demo_profile_runs_on_the_server_the_app_started_and_stopped_at_exit():
    app = ScimTuiApp(Profile.demo_profile())
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(pilot)
        screen.query_one(CheckTree).set_checked(set(DISCOVERY.include_tags))
        await run_checks(pilot)
        server = app.demo_server
        assert server is not None, "the app started the server"
        url = server.url
        report = screen.state.report()
        assert report is not None and report.target == url, "the run went to the app's server"
        assert any(result.status is Status.SUCCESS for result in report.results)
    with pytest.raises(httpx2.TransportError):
        httpx2.get(f"{url}/ServiceProviderConfig", timeout=5)


async def test_r_pressed_while_the_demo_server_starts_runs_once_it_is_up(held_start):
    app = ScimTuiApp(Profile.demo_profile())
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(pilot)
        assert app.demo_server is None, "the run screen is drawn before the server is up"
        screen.query_one(CheckTree).set_checked(set(DISCOVERY.include_tags))
        await pilot.press("r")
        assert screen.running and screen.run_id == 1, "the run waits for the server"
        held_start.set()
        await settle(pilot)
        report = screen.state.report()
        assert app.demo_server is not None and report is not None and report.target == app.demo_server.url
        assert screen.progress.phase is Phase.FINISHED and screen.run_id == 1, "one run, which ran once the server was up"
        assert [result.status for result in report.results] and all(result.status is Status.SUCCESS for result in report.results)
        await wait_until(pilot, lambda: screen.query_one("#resource-types").option_count == 2)  # User and Group, read once it was up


async def test_a_demo_server_that_cannot_start_is_one_line_and_the_app_goes_on(unbindable):
    app = ScimTuiApp(Profile.demo_profile())
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(pilot)
        note = screen.query_one("#resource-types-note", Static)
        await wait_until(pilot, lambda: "did not start" in str(note.content))
        said = (
            "The demo server did not start: it cannot listen on 127.0.0.1 (Cannot assign requested address); "
            "check the loopback interface, or open a profile of your own server."
        )
        assert str(note.content) == f"Could not read the resource types: {said}"
        await pilot.press("r")
        await settle(pilot)
        assert screen.progress.phase is Phase.FAILED and screen.progress.error == said, "the run stops with that one line"
        assert screen.state.rows == {}
        assert [notification.message for notification in app._notifications] == [said], "one line, no traceback"
        assert app.demo_server is None and app.is_running
