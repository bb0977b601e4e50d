"""A run's results are kept out of the garbage collector's full passes while they show (frozen as
they come), and let go with them: what died frozen is collected when the next run starts or the
screen closes."""

from __future__ import annotations

import gc
import weakref

import pytest

from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.store.profiles import Profile
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.messages import ResultsBatch
from scim_tui.tui.messages import RunFinished
from scim_tui.tui.screens.profiles import ProfilesScreen
from scim_tui.tui.widgets.run_status import Phase
from tests.tui.conftest import SIZE
from tests.tui.conftest import run_checks
from tests.tui.conftest import run_screen
from tests.tui.conftest import settle
from tests.tui.conftest import wait_until

pytestmark = pytest.mark.anyio


class Knot:
    """An object in a reference cycle: once dropped, only a pass of the collector frees it."""

    def __init__(self) -> None:
        self.me = self


def results(start: int, count: int) -> list[CheckResult]:
    return [CheckResult(Status.SUCCESS, title=f"check_{i}", reason=f"reason {i}", resource_type="User") for i in range(start, start + count)]


def gone_over() -> set[int]:
    """The ids of the objects the collector's passes go over: the frozen ones are not among them."""
    return {id(item) for item in gc.get_objects()}


async def test_the_results_are_frozen_as_they_come_at_most_once_a_second_and_all_at_the_end(local):
    now = [100.0]
    app = ScimTuiApp(local, clock=lambda: now[0])
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(pilot)
        await settle(pilot)
        screen.run_id = 7
        first = results(0, 50)  # each batch made as it comes: what lives at a freeze is frozen
        screen.post_message(ResultsBatch(7, first))
        await pilot.pause()
        second = results(50, 50)  # within the same second
        screen.post_message(ResultsBatch(7, second))
        await pilot.pause()
        seen = gone_over()
        assert not any(id(result) in seen for result in first), "the first batch of a run is frozen at once"
        assert all(id(result) in seen for result in second), "the next one waits for the second to pass"
        now[0] += 1
        third = results(100, 50)
        screen.post_message(ResultsBatch(7, third))
        await pilot.pause()
        seen = gone_over()
        assert not any(id(result) in seen for result in [*second, *third])
        screen.post_message(ResultsBatch(7, results(150, 50)))
        screen.post_message(RunFinished(7))
        await wait_until(pilot, lambda: screen.progress.phase is Phase.FINISHED)
        seen = gone_over()
        assert len(screen.state.rows) == 200
        assert not any(id(row.result) in seen for row in screen.state.rows.values()), "the end freezes every result"


async def test_what_a_run_builds_between_two_results_is_frozen_on_its_tick(hanging_patch):
    """A run builds much before its first result (discovery makes models of the server's schemas)
    and may wait long between two: what lives is frozen on the run's tick too, at most once a
    second, so that no pass of the collector goes over all of it at once when the next batch comes."""
    hanging, url = hanging_patch
    now = [100.0]
    app = ScimTuiApp(Profile(name="Slow", url=url, jobs=1), clock=lambda: now[0])
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(pilot)
        await settle(pilot)
        await pilot.press("r")
        await wait_until(pilot, lambda: hanging.arrived > 0)  # a PATCH held: with one job, no result comes meanwhile
        built = [Knot() for _ in range(100)]
        await pilot.pause(0.6)  # a tick, within the second of the last freeze
        assert all(id(item) in gone_over() for item in built)
        now[0] += 1
        shown = len(screen.state.rows)
        await wait_until(pilot, lambda: not any(id(item) in gone_over() for item in built) or len(screen.state.rows) != shown)
        assert len(screen.state.rows) == shown, "frozen by the next batch, not by the tick"
        hanging.release()
        await settle(pilot)


async def test_what_died_frozen_during_a_run_is_collected_when_the_next_run_starts(local):
    app = ScimTuiApp(local)
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(pilot)
        await settle(pilot)
        screen.run_id = 7
        knot, shown = Knot(), results(0, 50)
        knot_ref, result_ref = weakref.ref(knot), weakref.ref(shown[0])
        screen.post_message(ResultsBatch(7, shown))
        await pilot.pause()
        del knot, shown
        gc.collect()
        assert knot_ref() is not None, "frozen with the results: no pass goes over it"
        await run_checks(pilot)
        assert knot_ref() is None, "collected once the run's results were dropped"
        assert result_ref() is None


async def test_what_died_frozen_is_collected_when_the_run_screen_closes(local):
    app = ScimTuiApp(local)
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(pilot)
        await settle(pilot)
        screen.run_id = 7
        knot = Knot()
        knot_ref = weakref.ref(knot)
        screen.post_message(ResultsBatch(7, results(0, 50)))
        await pilot.pause()
        del knot
        gc.collect()
        assert knot_ref() is not None, "frozen with the results"
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ProfilesScreen))
        await wait_until(pilot, lambda: knot_ref() is None)
