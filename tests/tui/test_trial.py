"""The bugs a new user met in an hour's trial of the app, each shown as the user met it."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from scim_tui.profiles import Auth
from scim_tui.profiles import AuthKind
from scim_tui.profiles import Profile
from scim_tui.profiles import profiles_dir
from scim_tui.profiles import save_profile
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.screens.confirm import ConfirmScreen
from scim_tui.tui.screens.profile_form import ProfileFormScreen
from tests.tui.conftest import SIZE

pytestmark = pytest.mark.anyio
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
