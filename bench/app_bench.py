"""App benchmark: the run screen with 10,000 results, and the first result of a demo run.

Headless Textual (App.run_test). A watchdog task on the app's event loop sleeps 5 ms at a
time and records how late it wakes: the longest lateness is the longest frame the loop
could not draw. Run with `make bench` (or alone); figures go to bench/results/app.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from collections.abc import Awaitable
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.checker.exchanges import Exchange
from scim_tui.store.profiles import Profile
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.messages import ResultsBatch
from scim_tui.tui.runner import BATCH_INTERVAL
from scim_tui.tui.screens.result import ResultScreen
from scim_tui.tui.screens.run import RunScreen
from scim_tui.tui.widgets.results_table import ResultsTable

RESULTS = Path(__file__).resolve().parent / "results"
SIZE = (130, 40)
RESULT_COUNT = 10_000
BATCH = 1_000
"""Results per message, one message every BATCH_INTERVAL like the runner: as if the engine
gave 10,000 results a second (a real run gives about a hundred)."""
TICK = 0.005
TIMEOUT = 120.0
CHECKERS = (
    "object_creation",
    "object_query",
    "object_replacement",
    "object_deletion",
    "check_add_attribute",
    "check_remove_attribute",
    "check_replace_attribute",
)
PER_PATH = frozenset({"check_add_attribute", "check_remove_attribute", "check_replace_attribute"})


def synthetic_results(count: int = RESULT_COUNT) -> list[CheckResult]:
    """Results shaped like a big server's run: 20 resource types, per-attribute PATCH results, a few failures."""
    results: list[CheckResult] = []
    type_index = 0
    while len(results) < count:
        resource_type = f"Thing{type_index}"
        for checker in CHECKERS:
            for path in range(166 if checker in PER_PATH else 1):
                if len(results) == count:
                    return results
                status = Status.ERROR if len(results) % 97 == 0 else Status.SKIPPED if len(results) % 41 == 0 else Status.SUCCESS
                url = f"http://127.0.0.1:8000/v2/{resource_type}s/{len(results):08x}"
                results.append(
                    CheckResult(
                        status,
                        title=checker,
                        resource_type=resource_type,
                        reason=f"attr{path}String: the value given by replace is in the PATCH answer of {resource_type}.",
                        tags={"crud", "crud:update"},
                        section="3.5.2",
                        exchanges=[Exchange("PATCH", url, {"Content-Type": "application/scim+json"}, '{"Operations": []}', 200, {}, '{"id": "x"}', 0.002)],
                    )
                )
        type_index += 1
    return results


@dataclass
class Watchdog:
    """Wakes every TICK seconds on the event loop and keeps the worst lateness."""

    worst: float = 0.0
    _task: asyncio.Task[None] | None = field(default=None, repr=False)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._watch())

    def reset(self) -> float:
        worst, self.worst = self.worst, 0.0
        return worst

    async def _watch(self) -> None:
        while True:
            started = time.perf_counter()
            await asyncio.sleep(TICK)
            self.worst = max(self.worst, time.perf_counter() - started - TICK)

    def stop(self) -> None:
        if self._task:
            self._task.cancel()


async def until(pilot: Any, condition: Callable[[], bool], step: float = 0.001) -> None:
    deadline = time.perf_counter() + TIMEOUT
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("the app did not get there in time")
        await pilot.pause(step)


async def moment(condition: Callable[[], bool]) -> float:
    """When a condition first holds, looked at every millisecond on the event loop."""
    while not condition():
        await asyncio.sleep(0.001)
    return time.perf_counter()


async def timed(action: Callable[[], Awaitable[None]]) -> float:
    started = time.perf_counter()
    await action()
    return time.perf_counter() - started


async def ten_thousand() -> dict[str, float]:
    """Render the results, filter by status and by text, open a detail: times and the worst stall of each.

    The results are built once the app is up, as a run builds them (what exists before the app
    starts is frozen out of the garbage collector's passes)."""
    figures: dict[str, float] = {}
    app = ScimTuiApp(Profile.demo_profile())
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, RunScreen))
        screen: RunScreen = app.screen  # type: ignore[assignment]
        table = screen.query_one(ResultsTable)
        await app.workers.wait_for_complete()
        results = synthetic_results()
        watchdog = Watchdog()
        watchdog.start()
        await pilot.pause(0.1)
        watchdog.reset()
        groups = len({r.resource_type for r in results})

        async def render() -> None:
            screen.run_id += 1
            screen.state.start()
            for start in range(0, len(results), BATCH):
                screen.post_message(ResultsBatch(screen.run_id, results[start : start + BATCH]))
                await asyncio.sleep(BATCH_INTERVAL)
            await until(pilot, lambda: table.row_count == len(results) + groups)
            await pilot.pause()

        async def toggle_success() -> None:
            before = table.row_count
            await pilot.press("1")
            await until(pilot, lambda: table.row_count != before)
            await pilot.pause()

        async def type_filter() -> None:
            await pilot.press("slash")
            await pilot.press(*"thing7")
            await until(pilot, lambda: 0 < table.row_count < len(results))
            await pilot.pause()

        async def open_detail() -> None:
            table.focus()
            table.move_cursor(table.row_count // 2)
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, ResultScreen))
            await pilot.pause()

        for name, action in (
            ("render", render),
            ("status_filter", toggle_success),
            ("status_unfilter", toggle_success),
            ("text_filter", type_filter),
            ("open_detail", open_detail),
        ):
            figures[f"{name}_s"] = await timed(action)
            figures[f"{name}_worst_stall_s"] = watchdog.reset()
        watchdog.stop()
    return figures


async def first_result() -> dict[str, float]:
    """From pressing r on the demo profile to the first result row on screen."""
    app = ScimTuiApp(Profile.demo_profile())
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, RunScreen))
        screen: RunScreen = app.screen  # type: ignore[assignment]
        table = screen.query_one(ResultsTable)
        await app.workers.wait_for_complete()  # the resource types are read, the demo server is up
        await pilot.pause(0.1)
        watchdog = Watchdog()
        watchdog.start()
        shown = asyncio.get_running_loop().create_task(moment(lambda: table.row_count > 0))
        started = time.perf_counter()
        await pilot.press("r")  # returns once the app is idle: here, when the run has ended
        await until(pilot, lambda: not screen.running, step=0.05)
        first = await shown - started
        whole = time.perf_counter() - started
        watchdog.stop()
        return {"first_result_s": first, "whole_demo_run_s": whole, "demo_run_worst_stall_s": watchdog.worst, "demo_results": table.row_count}


def median_of(runs: list[dict[str, float]]) -> dict[str, dict[str, float]]:
    return {key: {"median": statistics.median(r[key] for r in runs), "min": min(r[key] for r in runs), "max": max(r[key] for r in runs)} for key in runs[0]}


def measure(repeats: int) -> dict[str, Any]:
    big = [asyncio.run(ten_thousand()) for _ in range(repeats)]
    demo = [asyncio.run(first_result()) for _ in range(repeats)]
    return {"results": RESULT_COUNT, "repeats": repeats, "ten_thousand": median_of(big), "demo": median_of(demo)}


def report(figures: dict[str, Any]) -> str:
    lines = [f"| app ({figures['results']} results, {figures['repeats']} runs) | median s (min–max) | worst stall median ms |", "|---|---|---|"]
    big = figures["ten_thousand"]
    for name in ("render", "status_filter", "status_unfilter", "text_filter", "open_detail"):
        t, stall = big[f"{name}_s"], big[f"{name}_worst_stall_s"]
        lines.append(f"| {name.replace('_', ' ')} | {t['median']:.3f} ({t['min']:.3f}–{t['max']:.3f}) | {1000 * stall['median']:.0f} |")
    demo = figures["demo"]
    first, whole = demo["first_result_s"], demo["whole_demo_run_s"]
    lines.append(
        f"| demo: r to first result | {first['median']:.3f} ({first['min']:.3f}–{first['max']:.3f}) | {1000 * demo['demo_run_worst_stall_s']['median']:.0f} |"
    )
    lines.append(f"| demo: r to the end of the run | {whole['median']:.3f} ({whole['min']:.3f}–{whole['max']:.3f}) | |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:  # the demo runs' history goes there, not to the user's
        os.environ.update({"XDG_CONFIG_HOME": f"{home}/config", "XDG_DATA_HOME": f"{home}/data", "XDG_CACHE_HOME": f"{home}/cache"})
        figures = measure(args.repeats)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "app.json").write_text(json.dumps(figures, indent=2))
    print(report(figures))


if __name__ == "__main__":
    main()
