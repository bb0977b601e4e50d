"""The app under faults: responsive while a request hangs, cancellable within the
timeout, never a traceback on screen, running on a broken config directory, clean on quit."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from scim2_models import User

from scim_tui.checker import CheckConfig
from scim_tui.checker import Status
from scim_tui.demo import make_app
from scim_tui.reports.text import left_on_server
from scim_tui.store.paths import config_dir
from scim_tui.store.profiles import Auth
from scim_tui.store.profiles import AuthKind
from scim_tui.store.profiles import Profile
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.screens.profiles import ProfilesScreen
from scim_tui.tui.screens.result import ResultScreen
from scim_tui.tui.widgets.check_tree import CheckTree
from scim_tui.tui.widgets.filter_input import FilterInput
from scim_tui.tui.widgets.run_status import Phase
from scim_tui.tui.widgets.run_status import outcome_text
from tests.support.network import closed_port_url
from tests.support.profiles import screen_text
from tests.support.profiles import widget_text
from tests.support.servers import Broken
from tests.support.servers import Hanging
from tests.support.servers import RawServer
from tests.support.servers import make_client
from tests.support.servers import scim_error
from tests.tui.conftest import CEILING
from tests.tui.conftest import SIZE
from tests.tui.conftest import assert_nothing_left
from tests.tui.conftest import open_row
from tests.tui.conftest import run_checks
from tests.tui.conftest import run_screen
from tests.tui.conftest import settle
from tests.tui.conftest import start_hanging_run
from tests.tui.conftest import wait_until

pytestmark = pytest.mark.anyio
TIMEOUT = 1.0
"""The request timeout of a run that must end by itself while its requests hang: the smallest a
profile allows, so it soon elapses. No test races it: they wait for what it causes, with CEILING."""
HANG = 30.0
"""The request timeout of a run whose requests must hang until the test ends them, however
busy the machine: they end when the test lets them go, long before this."""
INTERNALS = ("Traceback", 'File "', "Exception", "NoneType")
"""What the screen must never show: a traceback or the names of Python internals."""
MARKUP = "broken [/] [bold]on purpose[/bold] [link=https://example.com]here"
"""Server text that Rich would read as markup: shown as sent, it never breaks the screen."""


async def test_the_app_answers_keys_while_a_request_hangs():
    with RawServer() as server:
        app = ScimTuiApp(Profile(name="Silent", url=server.url, timeout=HANG))
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_hanging_run(pilot, server)
            await pilot.press("1")
            assert Status.SUCCESS not in screen.view.statuses, "the status toggle was handled"
            await pilot.press("slash")
            box = screen.query_one(FilterInput)
            assert box.display and box.has_focus, "the filter opened"
            await pilot.press("x")
            assert screen.view.text == "x"
            # Had the keys waited for the request, its timeout would have ended the first check.
            assert screen.running and screen.state.checks_done() == 0, "all this while the first request still hangs"
            await pilot.press("escape", "escape")  # close the filter, then cancel
            server.close()  # the hanging requests fail at once
            await settle(pilot)


async def assert_cancelled_promptly(pilot, screen, end_hanging: Callable[[], None], sent: Callable[[], int]) -> None:
    """Escape while requests hang: the run says it is cancelling until they end, then ends at
    once, cancelled. The running checks send no further request (``sent`` counts those the
    server got) but the one each may have been sending, so a cancelled run never waits more
    than one request's timeout. The test ends the hanging requests itself, as their timeout
    would: nothing races a clock."""
    await pilot.press("escape")
    assert screen.running and screen.progress.phase is Phase.CANCELLING
    before = sent()
    end_hanging()
    await wait_until(pilot, lambda: not screen.running)
    assert sent() - before <= CheckConfig().jobs, "the running checks sent no further request once cancelled"
    assert screen.progress.phase is Phase.CANCELLED
    assert "cancelled" in outcome_text(screen.progress).plain
    assert "cancelled" in screen_text(pilot.app)


async def run_until_patches_hang(pilot, hanging: Hanging, count: int) -> None:
    await settle(pilot)
    await pilot.press("r")
    await wait_until(pilot, lambda: hanging.arrived >= count)


async def test_cancelling_a_check_whose_every_request_hangs_ends_within_the_timeout_and_cleans_up(hanging_patch):
    """A PATCH check sends one request per attribute: once cancelled, it sends no more but its
    clean-up, and says it was cancelled. One check at a time, so that the check cancelled is the
    next one the run reports (with several, another one running may end first and be the last
    result the cancelled run shows)."""
    hanging, url = hanging_patch
    app = ScimTuiApp(Profile(name="Hanging", url=url, timeout=HANG, jobs=1))
    async with app.run_test(size=SIZE) as pilot:
        await run_until_patches_hang(pilot, hanging, 1)  # into a PATCH check's attributes
        screen = run_screen(pilot)
        await assert_cancelled_promptly(pilot, screen, end_hanging=hanging.release, sent=lambda: hanging.arrived)
        rows = [row.result for row in screen.state.rows.values()]
        assert any(r.status is Status.SKIPPED and "cancelled" in r.reason for r in rows), [
            r.reason for r in rows if r.status.failed or r.status is Status.SKIPPED
        ]
    assert_nothing_left(url)


async def test_quitting_while_a_request_hangs_leaves_nothing_on_the_server(hanging_patch):
    hanging, url = hanging_patch
    app = ScimTuiApp(Profile(name="Hanging", url=url, timeout=TIMEOUT))
    async with app.run_test(size=SIZE) as pilot:
        await run_until_patches_hang(pilot, hanging, 1)
        await pilot.press("q")
    assert app.return_code == 0
    assert_nothing_left(url, wait=CEILING)  # the run's thread cleans up once its PATCH timed out


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
            row.result.status is Status.SUCCESS
            for row in screen.state.rows.values()
            if "discovery" in row.result.tags and "discovery:strict" not in row.result.tags
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
        assert line.endswith(f"left on the server: {left_on_server(list(dict.fromkeys(left)))}")
        assert widget_text(app, "#run-outcome").endswith(line.partition(" · ")[2]), "the whole line is on screen"
    broken.repaired = True
    with make_client(server.url) as client:
        client.discover()
        for user in client.query(User).resources or []:
            client.delete(User, user.id)


async def test_a_dead_server_ends_the_run_with_the_line_the_headless_mode_prints():
    """No row of ERRORs and SKIPs, the one line `scim-tui check` prints."""
    url = closed_port_url()
    app = ScimTuiApp(Profile(name="Nowhere", url=url))
    async with app.run_test(size=SIZE) as pilot:
        screen = await run_checks(pilot)
        assert screen.state.rows == {}
        assert screen.progress.phase is Phase.FAILED
        assert screen.progress.error.startswith(f"Cannot reach {url}: ")
        assert screen.progress.error in widget_text(app, "#run-outcome"), "the whole line is on screen"
