"""The profiles home screen: listing, details, create/edit/duplicate/delete, test connection."""

from __future__ import annotations

import tomllib
from datetime import UTC
from datetime import datetime

import pytest
from textual.widgets import Static

from scim_tui.store import history
from scim_tui.store.profiles import Auth
from scim_tui.store.profiles import AuthKind
from scim_tui.store.profiles import Profile
from scim_tui.store.profiles import profiles_dir
from scim_tui.store.profiles import save_profile
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.screens.confirm import ConfirmScreen
from scim_tui.tui.screens.profile_form import ProfileFormScreen
from scim_tui.tui.screens.profiles import ProfilesScreen
from scim_tui.tui.screens.run import RunScreen
from tests.support.history import real_report
from tests.support.network import closed_port
from tests.support.profiles import screen_text
from tests.support.profiles import type_into
from tests.tui.conftest import highlight
from tests.tui.conftest import plain
from tests.tui.conftest import profile_prompts
from tests.tui.conftest import run_from_palette

pytestmark = pytest.mark.anyio
SECRET = "pa55-w0rd-never-on-screen"
URL = "https://scim.example.test/v2"
BROKEN = b"name = 'Legacy'\nurl = 'https://legacy.example.test/v2'\ntimeout = 'soon'\n"


def status(app: ScimTuiApp) -> str:
    return str(app.screen.query_one("#profiles-status", Static).render())


def read(stem: str) -> dict:
    return tomllib.loads((profiles_dir() / f"{stem}.toml").read_text())


async def test_demo_first_then_saved_profiles_then_broken_files_with_masked_details():
    save_profile(Profile(name="Staging", url=URL, auth=Auth(kind=AuthKind.BASIC, username="alice", password=SECRET), timeout=12))
    save_profile(Profile(name="Shared", url=URL, auth=Auth(kind=AuthKind.BEARER, token="env:SHARED_TOKEN")))
    broken = profiles_dir() / "legacy.toml"
    broken.write_bytes(BROKEN)
    app = ScimTuiApp()
    async with app.run_test(size=(110, 30)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ProfilesScreen)
        assert profile_prompts(app) == ["Demo  built in", "Shared", "Staging", "legacy.toml  broken line 3"]
        assert "Built in: it cannot be edited or deleted" in screen_text(app)
        await highlight(pilot, "Staging")
        text = " ".join(screen_text(app).split())
        assert "HTTP basic (user and password): user alice, password ***" in text
        assert "Timeout 12 s" in text and "Last run never run" in text
        assert SECRET not in text
        await highlight(pilot, "Shared")
        assert "Bearer token: token env:SHARED_TOKEN" in screen_text(app)
        await highlight(pilot, "legacy.toml")
        details = plain(app.screen.query_one("#details", Static).content)
        assert 'line 3: timeout = "soon" is not a number of seconds from 1 to 600: write e.g. timeout = 30' in details
        await pilot.press("enter", "e", "d")
        assert isinstance(app.screen, ProfilesScreen)
        assert status(app) == "Cannot delete legacy.toml: the file is broken; fix it in an editor first."
    assert broken.read_bytes() == BROKEN


async def test_create_edit_duplicate_and_delete_through_the_screens():
    broken = profiles_dir() / "legacy.toml"
    profiles_dir().mkdir(parents=True)
    broken.write_bytes(BROKEN)
    app = ScimTuiApp()
    async with app.run_test(size=(110, 50)) as pilot:
        await pilot.press("n")
        assert isinstance(app.screen, ProfileFormScreen)
        await type_into(pilot, "#name", "Staging")
        await type_into(pilot, "#url", URL)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ProfilesScreen) and status(app) == "Saved Staging."
        assert read("staging") == {"name": "Staging", "url": URL}
        assert "Staging" in profile_prompts(app)

        await pilot.press("e")
        await type_into(pilot, "#timeout", "5")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert read("staging") == {"name": "Staging", "url": URL, "timeout": 5.0}

        await pilot.press("c")
        assert app.screen.query_one("#name").value == "Staging copy"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert read("staging-copy") == {"name": "Staging copy", "url": URL, "timeout": 5.0}
        assert read("staging")["name"] == "Staging"

        await highlight(pilot, "Staging copy")
        await pilot.press("d")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        assert status(app) == "Kept Staging copy."
        assert (profiles_dir() / "staging-copy.toml").exists()
        await pilot.press("d", "y")
        await pilot.pause()
        assert status(app) == "Deleted Staging copy."
        assert not (profiles_dir() / "staging-copy.toml").exists()
        assert profile_prompts(app)[:2] == ["Demo  built in", "Staging"]
    assert broken.read_bytes() == BROKEN


async def test_a_duplicate_keeps_the_secret_it_does_not_show():
    save_profile(Profile(name="Prod", url=URL, auth=Auth(kind=AuthKind.BEARER, token=SECRET)))
    app = ScimTuiApp()
    async with app.run_test(size=(110, 50)) as pilot:
        await highlight(pilot, "Prod")
        await pilot.press("c")
        assert SECRET not in screen_text(app)
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert read("prod-copy")["auth"] == {"kind": "bearer", "token": SECRET}


async def test_the_demo_profile_cannot_be_edited_or_deleted():
    app = ScimTuiApp()
    async with app.run_test(size=(110, 30)) as pilot:
        await pilot.press("e")
        assert isinstance(app.screen, ProfilesScreen)
        assert status(app) == "The demo profile is built in: it cannot be edited or deleted; press c to make an editable copy."
        await pilot.press("d")
        assert isinstance(app.screen, ProfilesScreen)


async def test_enter_opens_the_run_screen_of_the_profile():
    save_profile(Profile(name="Staging", url=URL))
    app = ScimTuiApp()
    async with app.run_test(size=(110, 30)) as pilot:
        await highlight(pilot, "Staging")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, RunScreen) and app.screen.profile.name == "Staging"


async def test_test_connection_shows_the_status_and_time_of_a_real_server(scim_server):
    save_profile(Profile(name="Local", url=scim_server.url))
    app = ScimTuiApp()
    async with app.run_test(size=(110, 30)) as pilot:
        await highlight(pilot, "Local")
        await pilot.press("t")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert status(app).startswith("Local: 200 OK in ")
        assert status(app).endswith(" ms")


async def test_test_connection_to_a_closed_port_is_a_one_line_error():
    port = closed_port()
    save_profile(Profile(name="Down", url=f"http://127.0.0.1:{port}/v2", timeout=5))
    app = ScimTuiApp()
    async with app.run_test(size=(110, 30)) as pilot:
        await highlight(pilot, "Down")
        await pilot.press("t")
        await app.workers.wait_for_complete()
        await pilot.pause()
        line = status(app)
        assert line.startswith(f"Down: nothing listens on 127.0.0.1:{port}")
        assert "\n" not in line and "Traceback" not in line


async def test_test_connection_names_a_missing_environment_variable(monkeypatch):
    monkeypatch.delenv("SCIM_TUI_TEST_MISSING", raising=False)
    save_profile(Profile(name="Env", url=URL, auth=Auth(kind=AuthKind.BEARER, token="env:SCIM_TUI_TEST_MISSING")))
    app = ScimTuiApp()
    async with app.run_test(size=(110, 30)) as pilot:
        await highlight(pilot, "Env")
        await pilot.press("t")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert status(app) == "Env: The environment variable SCIM_TUI_TEST_MISSING is not set: export it, or write the secret in the profile."


async def test_the_details_show_the_last_run_summary(scim_server):
    save_profile(Profile(name="Staging", url=scim_server.url))
    report = real_report(scim_server.url, datetime.now(UTC), profile="Staging")
    history.record(report)
    app = ScimTuiApp()
    async with app.run_test(size=(130, 30)) as pilot:
        await highlight(pilot, "Staging")
        expected = f"Last run {report.started_at.astimezone():%Y-%m-%d %H:%M} · {report.summary_line()}"
        assert expected in " ".join(screen_text(app).split())


async def test_escape_in_the_confirmation_keeps_the_profile():
    save_profile(Profile(name="Staging", url=URL))
    app = ScimTuiApp()
    async with app.run_test(size=(110, 30)) as pilot:
        await highlight(pilot, "Staging")
        await pilot.press("d", "escape")
        assert isinstance(app.screen, ProfilesScreen) and status(app) == "Kept Staging."
    assert (profiles_dir() / "staging.toml").exists()


async def test_the_keys_are_commands_in_the_palette():
    save_profile(Profile(name="Staging", url=URL))
    app = ScimTuiApp()
    async with app.run_test(size=(110, 30)) as pilot:
        await highlight(pilot, "Staging")
        await run_from_palette(pilot, "duplicate", "Duplicate")
        assert isinstance(app.screen, ProfileFormScreen)
        assert app.screen.query_one("#name").value == "Staging copy"


async def test_brackets_in_names_and_paths_are_shown_as_typed():
    save_profile(Profile(name="Ops [b]eu", url=URL))
    app = ScimTuiApp()
    async with app.run_test(size=(110, 50)) as pilot:
        await highlight(pilot, "Ops [b]eu")
        await pilot.press("d")
        assert "Delete the profile Ops [b]eu?" in screen_text(app)
        await pilot.press("y")
        assert status(app) == "Deleted Ops [b]eu."
        await pilot.press("n")
        await type_into(pilot, "#ca-bundle", "/nowhere/[b]ca.pem")
        assert "No file at /nowhere/[b]ca.pem: check the path." in screen_text(app)
    assert not (profiles_dir() / "ops-b-eu.toml").exists()


async def test_after_a_delete_the_highlight_is_on_the_next_profile():
    """Once, the cursor jumped back to Demo."""
    for name in ("Alpha", "Beta", "Gamma"):
        save_profile(Profile(name=name, url=URL))
    app = ScimTuiApp()
    async with app.run_test(size=(110, 30)) as pilot:
        await highlight(pilot, "Beta")
        await pilot.press("d", "y")
        await pilot.pause()
        assert status(app) == "Deleted Beta."
        assert app.screen.selected_name() == "Gamma"
