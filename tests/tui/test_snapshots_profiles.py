"""Snapshots of the profiles screen, the profile form and the confirm modal.

Profiles use fixed fake URLs, so nothing on screen depends on a port or a temporary path.
"""

from __future__ import annotations

import pytest

from scim_tui.store.profiles import Auth
from scim_tui.store.profiles import AuthKind
from scim_tui.store.profiles import Profile
from scim_tui.store.profiles import profiles_dir
from scim_tui.store.profiles import save_profile
from scim_tui.tui.app import ScimTuiApp
from tests.support.profiles import still_cursor
from tests.support.profiles import type_into

SECRET = "sn4psh0t-s3cret-value"
SIZE = (110, 30)


@pytest.fixture
def saved_profiles() -> None:
    save_profile(Profile(name="Staging", url="https://staging.example.test/scim/v2", auth=Auth(kind=AuthKind.BEARER, token=SECRET), timeout=15))
    save_profile(
        Profile(
            name="Vendor sandbox",
            url="https://scim.example.test/v2",
            auth=Auth(kind=AuthKind.OAUTH2, token_url="https://auth.example.test/token", client_id="scim-tui", client_secret="env:VENDOR_SECRET"),
        )
    )
    (profiles_dir() / "legacy.toml").write_text("name = 'Legacy'\nurl = [\n")


def test_profiles_screen(snap_compare, saved_profiles):
    async def run_before(pilot) -> None:
        await pilot.press("down")
        await pilot.pause()
        assert SECRET not in pilot.app.export_screenshot()

    assert snap_compare(ScimTuiApp(), run_before=run_before, terminal_size=SIZE)


def test_delete_confirmation(snap_compare, saved_profiles):
    assert snap_compare(ScimTuiApp(), press=["down", "d"], terminal_size=SIZE)


def test_new_profile_form(snap_compare):
    async def run_before(pilot) -> None:
        await pilot.press("n")
        still_cursor(pilot.app)
        await pilot.pause()

    assert snap_compare(ScimTuiApp(), run_before=run_before, terminal_size=(100, 40))


def test_profile_form_with_problems(snap_compare, saved_profiles):
    async def run_before(pilot) -> None:
        await pilot.press("down", "e")
        still_cursor(pilot.app)
        await type_into(pilot, "#url", "ftp://staging.example.test")
        await type_into(pilot, "#timeout", "0")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert SECRET not in pilot.app.export_screenshot()

    assert snap_compare(ScimTuiApp(), run_before=run_before, terminal_size=(100, 40))


@pytest.mark.parametrize("size", [(80, 24), (200, 60)], ids=["80x24", "200x60"])
def test_profile_form_with_credential_headers(snap_compare, size):
    """The headers kind packs its rows; small and large terminals."""
    profile = Profile(
        name="API key", url="https://scim.example.test/v2", auth=Auth(kind=AuthKind.HEADERS, headers={"X-Api-Key": SECRET, "X-Tenant": "env:TENANT"})
    )
    save_profile(profile)

    async def run_before(pilot) -> None:
        await pilot.press("down", "e")
        still_cursor(pilot.app)
        await pilot.pause()
        assert SECRET not in pilot.app.export_screenshot()

    assert snap_compare(ScimTuiApp(), run_before=run_before, terminal_size=size)
