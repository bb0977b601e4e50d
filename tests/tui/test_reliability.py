"""The app under faults (issue 7): responsive while a request hangs, cancellable within the
timeout, never a traceback on screen, running on a broken config directory, clean on quit."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import pytest
from textual.widgets import Input

from scim2_models import Group
from scim2_models import User
from scim_tui.checker import Status
from scim_tui.demo import make_app
from scim_tui.profiles import Auth
from scim_tui.profiles import AuthKind
from scim_tui.profiles import Profile
from scim_tui.profiles import config_dir
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.screens.profiles import ProfilesScreen
from scim_tui.tui.screens.result import ResultScreen
from scim_tui.tui.widgets.filter_input import FilterInput
from scim_tui.tui.widgets.run_status import Phase
from scim_tui.tui.widgets.run_status import outcome_text
from tests.servers import Broken
from tests.servers import RawServer
from tests.servers import make_client
from tests.servers import scim_error
from tests.tui.conftest import SIZE
from tests.tui.conftest import run_checks
from tests.tui.conftest import run_screen
from tests.tui.conftest import settle
from tests.tui.profiles_support import screen_text
from tests.tui.test_result import open_row

pytestmark = pytest.mark.anyio
TIMEOUT = 2.0
MARGIN = 2.0
"""What ending a cancelled run may take beyond the request timeout (a busy machine)."""
KEY_LATENCY = 1.0
"""A key press is handled in well under this, however long a request hangs."""
INTERNALS = ("Traceback", 'File "', "Error:", "Exception")


async def wait_until(pilot, condition, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        await pilot.pause(0.02)


async def start_hanging_run(pilot, server: RawServer):
    """Press r and wait until the first check's request hangs on the silent server."""
    screen = run_screen(pilot)
    before = len(server.connections)
    await pilot.press("r")
    await wait_until(pilot, lambda: len(server.connections) > before and screen.running)
    return screen


async def test_the_app_answers_keys_while_a_request_hangs():
    with RawServer() as server:
        app = ScimTuiApp(Profile(name="Silent", url=server.url, timeout=TIMEOUT))
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_hanging_run(pilot, server)
            started = time.monotonic()
            await pilot.press("1")
            assert Status.SUCCESS not in screen.view.statuses, "the status toggle was handled"
            await pilot.press("slash")
            box = screen.query_one(FilterInput)
            assert box.display and box.has_focus, "the filter opened"
            await pilot.press("x")
            assert screen.view.text == "x"
            assert time.monotonic() - started < KEY_LATENCY
            assert screen.running and screen.state.checks_done() == 0, "all this while the first request still hangs"
            await pilot.press("escape", "escape")  # close the filter, then cancel
            await settle(pilot)


async def test_cancelling_during_a_hanging_request_ends_the_run_within_the_timeout():
    with RawServer() as server:
        app = ScimTuiApp(Profile(name="Silent", url=server.url, timeout=TIMEOUT))
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_hanging_run(pilot, server)
            await pilot.pause(0.3)
            await assert_cancelled_in_time(pilot, screen)


async def assert_cancelled_in_time(pilot, screen) -> None:
    cancelled_at = time.monotonic()
    await pilot.press("escape")
    assert screen.progress.phase is Phase.CANCELLING
    await wait_until(pilot, lambda: not screen.running, timeout=120)
    assert time.monotonic() - cancelled_at < TIMEOUT + MARGIN
    assert screen.progress.phase is Phase.CANCELLED
    assert "cancelled" in outcome_text(screen.progress).plain
    assert "cancelled" in screen_text(pilot.app)


class Hanging:
    """Makes matching requests hang until released, and counts them."""

    def __init__(self) -> None:
        self.arrived = 0
        self.released = threading.Event()

    def __call__(self, answer):
        self.arrived += 1
        self.released.wait(60)
        return answer


async def test_cancelling_a_check_whose_every_request_hangs_ends_within_the_timeout_and_cleans_up(serve):
    """A PATCH check sends one request per attribute: once cancelled, it sends no more but its clean-up."""
    hanging = Hanging()
    server = serve(Broken(make_app()).rewrite("PATCH", r"/v2/(Users|Groups)/[^/]+", hanging))
    try:
        app = ScimTuiApp(Profile(name="Hanging", url=server.url, timeout=TIMEOUT))
        async with app.run_test(size=SIZE) as pilot:
            screen = run_screen(pilot)
            await settle(pilot)
            await pilot.press("r")
            await wait_until(pilot, lambda: hanging.arrived >= 2, timeout=60)  # into a PATCH check's attributes
            arrived = hanging.arrived
            await assert_cancelled_in_time(pilot, screen)
            assert hanging.arrived <= arrived + 4, "the running checks sent no further PATCH once cancelled"
            assert any(row.result.status is Status.SKIPPED and "cancelled" in row.result.reason for row in screen.state.rows.values())
    finally:
        hanging.released.set()
    assert_nothing_left(server.url)


def assert_nothing_left(url: str) -> None:
    with make_client(url) as client:
        client.discover()
        assert [client.query(model).total_results for model in (User, Group)] == [0, 0]
