"""Snapshots of every modal: help, the command palette, export, accept, curl, changed-on-disk and
the settings, at 80x24 and at 120x40 (the settings at 80x24).

The paths a dialog shows (the exports folder, the curl file, the profile's file) are under a
folder named after the test, the same on every run; the runs are those of the run screen's
snapshots, pinned the same way (tests/tui/test_snapshots_run.py).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.command import CommandList

from scim_tui.checker import CheckResult
from scim_tui.checker import Exchange
from scim_tui.checker import Status
from scim_tui.selection import Selection
from scim_tui.store.profiles import Auth
from scim_tui.store.profiles import AuthKind
from scim_tui.store.profiles import Profile
from scim_tui.store.profiles import profiles_dir
from scim_tui.store.profiles import save_profile
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.run_state import Row
from scim_tui.tui.screens.accept import AcceptScreen
from scim_tui.tui.screens.changed_on_disk import ChangedOnDiskScreen
from scim_tui.tui.screens.curl import CurlScreen
from scim_tui.tui.screens.export import ExportScreen
from scim_tui.tui.screens.help import HelpScreen
from scim_tui.tui.screens.result import ResultScreen
from scim_tui.tui.screens.settings import SettingsScreen
from tests.support.profiles import still_cursor
from tests.support.profiles import type_into
from tests.tui.conftest import broken_random_url
from tests.tui.conftest import frozen_app
from tests.tui.conftest import settle
from tests.tui.conftest import wait_until

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
FIXED = Path("/tmp/scim-tui-snapshots")
"""Not pytest's tmp_path, whose name changes on each run: a dialog that names a path would."""


@pytest.fixture
def fixed_dirs(request, monkeypatch) -> Path:
    """The config and data dirs under a folder of the test's own name, emptied first."""
    root = FIXED / request.node.name
    shutil.rmtree(root, ignore_errors=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(root / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(root / "data"))
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def failing_profile(serve, deterministic, fixed_dirs) -> Profile:  # noqa: F811
    """A profile whose run gives one failure (random_url) among a few results."""
    server = serve(broken_random_url())
    return Profile(name="Broken server", url=server.url, headers={"Host": "scim.test"}, jobs=1, selection=Selection(include_tags=["misc"]))


async def opened(pilot, screen_type: type) -> None:
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, screen_type))
    still_cursor(pilot.app)
    await pilot.pause()


async def run_to_its_failure(pilot) -> None:
    await settle(pilot)
    await pilot.press("r")
    await settle(pilot)


@SIZES
def test_help(snap_compare, fixed_dirs, size):
    async def run_before(pilot) -> None:
        await pilot.press("f1")
        await opened(pilot, HelpScreen)

    assert snap_compare(ScimTuiApp(), run_before=run_before, terminal_size=size)


def palette_listed(app: ScimTuiApp) -> bool:
    """Whether the command palette listed every command: its search worker is done, and the list filled."""
    palette = app.screen
    searching = any(worker.node is palette and not worker.is_finished for worker in app.workers)
    return not searching and palette.query_one(CommandList).option_count > 0


@SIZES
def test_command_palette(snap_compare, fixed_dirs, size):
    async def run_before(pilot) -> None:
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: pilot.app.screen.id == "--command-palette")
        await wait_until(pilot, lambda: palette_listed(pilot.app))  # it lists its commands as they come, in a worker
        still_cursor(pilot.app)
        await pilot.pause()

    assert snap_compare(ScimTuiApp(), run_before=run_before, terminal_size=size)


@SIZES
def test_export(snap_compare, failing_profile, size):
    async def run_before(pilot) -> None:
        await run_to_its_failure(pilot)
        await pilot.press("e")
        await opened(pilot, ExportScreen)

    assert snap_compare(frozen_app(failing_profile), run_before=run_before, terminal_size=size)


@SIZES
def test_accept(snap_compare, failing_profile, size):
    async def run_before(pilot) -> None:
        await run_to_its_failure(pilot)
        await pilot.press("a")
        await opened(pilot, AcceptScreen)

    assert snap_compare(frozen_app(failing_profile), run_before=run_before, terminal_size=size)


@SIZES
def test_curl(snap_compare, failing_profile, size):
    """The request of a hand-made result, whose URL names no port."""
    exchange = Exchange(
        "POST",
        "https://scim.example.test/v2/Users",
        request_headers={"Authorization": "***", "Content-Type": "application/scim+json"},
        request_body='{"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "userName": "scim-tui-7f3e"}',
        status_code=201,
    )
    row = Row("object_creation#0", 0, CheckResult(Status.ERROR, title="object_creation", resource_type="User", reason="made up", exchanges=[exchange]))

    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.app.push_screen(ResultScreen(row))
        await pilot.press("y")
        await opened(pilot, CurlScreen)

    assert snap_compare(frozen_app(failing_profile), run_before=run_before, terminal_size=size)


@SIZES
def test_changed_on_disk(snap_compare, fixed_dirs, size):
    save_profile(Profile(name="Staging", url="https://scim.staging.example.test/v2", auth=Auth(kind=AuthKind.BEARER, token="env:STAGING_TOKEN")))
    path = profiles_dir() / "staging.toml"

    async def run_before(pilot) -> None:
        await pilot.press("down", "e")
        await pilot.pause()
        await type_into(pilot, "#url", "https://scim.example.test/v2")
        path.write_text(path.read_text().replace("scim.staging.example.test", "elsewhere.example.test"))
        await pilot.press("ctrl+s")
        await opened(pilot, ChangedOnDiskScreen)

    assert snap_compare(ScimTuiApp(), run_before=run_before, terminal_size=size)


def test_settings(snap_compare, fixed_dirs):
    async def run_before(pilot) -> None:
        await pilot.press("f2")
        await opened(pilot, SettingsScreen)

    assert snap_compare(ScimTuiApp(), run_before=run_before, terminal_size=(80, 24))
