"""Snapshots of the run screen (idle, finished with failures) and of a result's detail.

What would change between two runs is pinned: uuid4 (scim2-server ids, probe ids) and
random (filled values) are seeded, exchange timings and the run clock are frozen, the
server's Date header is fixed, and the random port never shows: headers name the
profile, exchanges show paths from the server's root (no host), and the requests carry
a fixed Host header (which scim2-server also uses for its locations).
"""

from __future__ import annotations

import pytest

from scim_tui.selection import Selection
from scim_tui.store.profiles import Profile
from tests.tui.conftest import SIZE
from tests.tui.conftest import broken_random_url
from tests.tui.conftest import frozen_app
from tests.tui.conftest import settle
from tests.tui.conftest import table_of
from tests.tui.conftest import wait_until

SHOWN = Selection(include_tags=["misc", "discovery", "crud"])
"""What the snapshots run: the failing random_url among a screenful of passing checks."""


@pytest.fixture
def broken_profile(serve, deterministic) -> Profile:
    server = serve(broken_random_url())
    # one check at a time: the ids come in one order; a few areas, not every check: a screenful of results
    return Profile(name="Broken server", url=server.url, headers={"Host": "scim.test"}, jobs=1, selection=SHOWN)


async def run_and_select_failure(pilot) -> None:
    await settle(pilot)
    await pilot.press("r")
    await settle(pilot)
    table = table_of(pilot)
    table.focus()
    table.select_key(next(key for key in table.keys if key.startswith("random_url#")))
    await pilot.pause()


def test_run_screen_idle(snap_compare, broken_profile):
    assert snap_compare(frozen_app(broken_profile), run_before=settle, terminal_size=SIZE)


def test_run_screen_finished_with_failures(snap_compare, broken_profile):
    assert snap_compare(frozen_app(broken_profile), run_before=run_and_select_failure, terminal_size=SIZE)


def test_result_detail(snap_compare, broken_profile):
    async def open_failure(pilot) -> None:
        await run_and_select_failure(pilot)
        await pilot.press("enter")
        await pilot.pause()

    assert snap_compare(frozen_app(broken_profile), run_before=open_failure, terminal_size=SIZE)


SIZES = pytest.mark.parametrize("size", [(80, 24), (200, 60)], ids=["80x24", "200x60"])
"""A small terminal and a large one."""


@SIZES
def test_run_screen_ends_on_its_first_failure(snap_compare, broken_profile, size):
    async def run(pilot) -> None:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)

    assert snap_compare(frozen_app(broken_profile), run_before=run, terminal_size=size)


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (200, 60)], ids=["80x24", "120x40", "200x60"])
def test_result_inspector(snap_compare, broken_profile, size):
    """A result whose check proved a User the run's, judged a PUT and cleaned up (object_replacement,
    in a run without object_deletion, which would delete the User it replaced): the list of its
    exchanges, and the request judged (side by side with its response at 200 columns)."""
    broken_profile.selection = SHOWN.model_copy(update={"exclude_tags": ["crud:delete"]})

    async def open_replacement(pilot) -> None:
        await run_and_select_failure(pilot)
        table = table_of(pilot)
        table.select_key(next(key for key in table.keys if key.startswith("User/object_replacement#")))
        await pilot.press("enter")
        await pilot.pause()
        await wait_until(pilot, lambda: pilot.app.screen.has_class("-wide" if size[0] >= 160 else "-narrow"))  # laid out for its width
        if size[0] >= 160:  # the answer beside the request: the DELETE's, as the PUT's holds scim2-server's clock (meta.created)
            await pilot.press("j")

    assert snap_compare(frozen_app(broken_profile), run_before=open_replacement, terminal_size=size)
