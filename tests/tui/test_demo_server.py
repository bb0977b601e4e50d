"""The demo profile in the app: the app starts the embedded server when the profile is opened,
hands its URL down to the run screen, and stops it at exit."""

from __future__ import annotations

import httpx2
import pytest

from scim_tui.checker import Status
from scim_tui.selection import Selection
from scim_tui.store.profiles import Profile
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.widgets.check_tree import CheckTree
from tests.tui.conftest import SIZE
from tests.tui.conftest import run_checks
from tests.tui.conftest import run_screen

pytestmark = pytest.mark.anyio

DISCOVERY = Selection(include_tags=["service-provider-config"])


async def test_the_demo_profile_runs_on_the_server_the_app_started_and_stopped_at_exit():
    app = ScimTuiApp(Profile.demo_profile())
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(pilot)
        server = app.demo_server
        assert server is not None and screen.profile.url == server.url, "the app started the server and handed its URL down"
        url = server.url
        screen.query_one(CheckTree).set_checked(set(DISCOVERY.include_tags))
        await run_checks(pilot)
        report = screen.state.report()
        assert report is not None and report.target == url
        assert any(result.status is Status.SUCCESS for result in report.results)
    with pytest.raises(httpx2.TransportError):
        httpx2.get(f"{url}/ServiceProviderConfig", timeout=5)
