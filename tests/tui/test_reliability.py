"""The app under faults (issue 7): responsive while a request hangs, cancellable within the
timeout, never a traceback on screen, running on a broken config directory, clean on quit."""

from __future__ import annotations

import socket
import threading
import time

import pytest
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
from scim_tui.tui.widgets.check_tree import CheckTree
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
INTERNALS = ("Traceback", 'File "', "Exception", "NoneType")
"""What the screen must never show: a traceback or the names of Python internals."""
MARKUP = "broken [/] [bold]on purpose[/bold] [link=https://example.com]here"
"""Server text that Rich would read as markup: shown as sent, it never breaks the screen."""


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


@pytest.fixture
def hanging_patch(serve):
    """A server whose PATCH requests hang (until the test ends), and the profile of a run against it."""
    hanging = Hanging()
    server = serve(Broken(make_app()).rewrite("PATCH", r"/v2/(Users|Groups)/[^/]+", hanging))
    yield hanging, Profile(name="Hanging", url=server.url, timeout=TIMEOUT)
    hanging.released.set()


async def run_until_patches_hang(pilot, hanging: Hanging, count: int) -> None:
    await settle(pilot)
    await pilot.press("r")
    await wait_until(pilot, lambda: hanging.arrived >= count, timeout=60)


async def test_cancelling_a_check_whose_every_request_hangs_ends_within_the_timeout_and_cleans_up(hanging_patch):
    """A PATCH check sends one request per attribute: once cancelled, it sends no more but its clean-up."""
    hanging, profile = hanging_patch
    app = ScimTuiApp(profile)
    async with app.run_test(size=SIZE) as pilot:
        await run_until_patches_hang(pilot, hanging, 2)  # into a PATCH check's attributes
        arrived = hanging.arrived
        screen = run_screen(pilot)
        await assert_cancelled_in_time(pilot, screen)
        assert hanging.arrived <= arrived + 4, "the running checks sent no further PATCH once cancelled"
        assert any(row.result.status is Status.SKIPPED and "cancelled" in row.result.reason for row in screen.state.rows.values()), "\n".join(f"{r.result.status} {r.result.reason}" for r in screen.state.rows.values() if r.result.status.failed or r.result.status.name == "SKIPPED")
    assert_nothing_left(profile.url)


async def test_quitting_while_a_request_hangs_leaves_nothing_on_the_server(hanging_patch):
    hanging, profile = hanging_patch
    app = ScimTuiApp(profile)
    async with app.run_test(size=SIZE) as pilot:
        await run_until_patches_hang(pilot, hanging, 1)
        await pilot.press("q")
    assert app.return_code == 0
    assert_nothing_left(profile.url, wait=TIMEOUT + MARGIN)


def assert_nothing_left(url: str, wait: float = 0.0) -> None:
    """No User or Group on the server, once the run's clean-up had ``wait`` seconds to finish."""
    deadline = time.monotonic() + wait
    with make_client(url) as client:
        client.discover()
        while (left := [client.query(model).total_results for model in (User, Group)]) != [0, 0] and time.monotonic() < deadline:
            time.sleep(0.1)
    assert left == [0, 0]


def closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}/v2"


def faulty_profile(fault: str, serve) -> Profile:
    if fault == "server error":
        return Profile(name="Failing", url=serve(Broken(make_app()).answer(None, "/v2/.*", 500, scim_error(500, MARKUP))).url)
    if fault == "HTML error page":
        page = b"<html><body><h1>502 Bad Gateway [/]</h1></body></html>"
        return Profile(name="Proxy", url=serve(Broken(make_app()).answer(None, "/v2/.*", 502, page, [("Content-Type", "text/html")])).url)
    if fault == "missing env var":
        return Profile(name="Env", url=closed_port_url(), auth=Auth(kind=AuthKind.BEARER, token="env:SCIM_TUI_UNSET_SECRET"))
    return Profile(name="Nowhere", url=closed_port_url(), timeout=TIMEOUT)


@pytest.mark.parametrize("fault", ["server error", "HTML error page", "missing env var", "unreachable"])
async def test_no_fault_shows_a_traceback(serve, monkeypatch, fault):
    monkeypatch.delenv("SCIM_TUI_UNSET_SECRET", raising=False)
    app = ScimTuiApp(faulty_profile(fault, serve))
    async with app.run_test(size=SIZE) as pilot:
        screen = await run_checks(pilot)
        texts = [screen_text(app)]
        failed = [row.result.title for row in screen.state.rows.values() if row.result.status.failed]
        if failed:
            detail = await open_row(pilot, failed[0])
            texts.append(screen_text(app))
            assert isinstance(app.screen, ResultScreen) and detail.row.result.reason
    for text in texts:
        assert not [word for word in INTERNALS if word in text], text
    if fault == "server error":
        assert MARKUP in texts[-1].replace("\n", ""), texts[-1]
    if fault == "missing env var":
        assert screen.progress.phase is Phase.FAILED and "SCIM_TUI_UNSET_SECRET" in texts[0]


async def test_a_config_directory_that_is_a_file_is_told_and_the_demo_still_runs():
    in_the_way = config_dir()
    in_the_way.parent.mkdir(parents=True, exist_ok=True)
    in_the_way.write_text("not a directory\n")
    app = ScimTuiApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ProfilesScreen)
        text = " ".join(screen_text(app).split())
        assert f"{in_the_way} is a file, not a directory: move it away" in text.replace("│ ", "").replace(" │", ""), text
        assert not [word for word in INTERNALS if word in text]
        await pilot.press("enter")  # the demo profile, first in the list
        await pilot.pause()
        screen = run_screen(pilot)
        screen.query_one(CheckTree).set_checked({"discovery"})
        await run_checks(pilot)
        assert screen.progress.phase is Phase.FINISHED
        assert screen.state.rows and all(
            row.result.status is Status.SUCCESS for row in screen.state.rows.values() if "discovery" in row.result.tags and "discovery:strict" not in row.result.tags
        )
    assert in_the_way.read_text() == "not a directory\n", "the file in the way is left as it is"


async def test_the_summary_names_what_could_not_be_deleted(serve):
    broken = Broken(make_app()).answer("DELETE", r"/v2/Users/[^/]+", 500, scim_error(500, "deletion refused"))
    server = serve(broken)
    app = ScimTuiApp(Profile(name="Sticky", url=server.url))
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(pilot)
        await settle(pilot)
        screen.query_one(CheckTree).set_checked({"crud:create"})
        await run_checks(pilot)
        left = [item for row in screen.state.rows.values() for item in row.result.leftovers]
        assert left and all(item.startswith("User/") for item in left)
        line = outcome_text(screen.progress).plain
        assert line.endswith(f"left on the server (delete them by hand): {', '.join(dict.fromkeys(left))}")
    broken.repaired = True
    with make_client(server.url) as client:
        client.discover()
        for user in client.query(User).resources or []:
            client.delete(User, user.id)
