"""App benchmark: the run screen with 10,000 results, the first result of a demo run, and a real
run of about 10,000 results in the app beside the same run by `scim-tui check`.

Headless Textual (App.run_test). A watchdog task on the app's event loop sleeps 5 ms at a
time and records how late it wakes: the longest lateness is the longest frame the loop
could not draw, and each lateness over 100 ms a stall. During the real run a key (down, then
up) goes to the results every 0.2 s through the terminal driver, as a user's would, and its
latency is the time until the cursor moved. The app and the command each run in a fresh
process against one generated server (bench/serve.py, bench/scale.py), alternated.
Run with `make bench` (or alone); figures go to bench/results/app.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from textual import events

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

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
SIZE = (130, 40)
RESULT_COUNT = 10_000
BATCH = 1_000
"""Results per message, one message every BATCH_INTERVAL like the runner: as if the engine
gave 10,000 results a second (a real run gives about a hundred)."""
TICK = 0.005
STALL = 0.1
"""A lateness of the event loop beyond this is a stall a user sees."""
PROBE_EVERY = 0.2
"""Seconds between two keys pressed during the real run."""
TIMEOUT = 120.0
RUN_TIMEOUT = 1800.0
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
    stalls: int = 0
    """How many times it woke more than STALL late."""
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
            late = time.perf_counter() - started - TICK
            self.worst = max(self.worst, late)
            self.stalls += late > STALL

    def stop(self) -> None:
        if self._task:
            self._task.cancel()


async def until(pilot: Any, condition: Callable[[], bool], step: float = 0.001, timeout: float = TIMEOUT) -> None:
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("the app did not get there in time")
        await pilot.pause(step)


async def moment(condition: Callable[[], bool], step: float = 0.001) -> float:
    """When a condition first holds, looked at every `step` seconds on the event loop (no
    Pilot.pause: that draws the screen and posts a callback to every widget each time)."""
    while not condition():
        await asyncio.sleep(step)
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
        # a row of this run: the demo profile opens on its last run from the history, if any
        shown = asyncio.get_running_loop().create_task(moment(lambda: screen.run_id > 0 and table.row_count > 0))
        started = time.perf_counter()
        await pilot.press("r")  # returns once the app is idle: here, when the run has ended
        await until(pilot, lambda: not screen.running, step=0.05)
        first = await shown - started
        whole = time.perf_counter() - started
        watchdog.stop()
        return {"first_result_s": first, "whole_demo_run_s": whole, "demo_run_worst_stall_s": watchdog.worst, "demo_results": table.row_count}


async def probe_keys(app: ScimTuiApp, table: ResultsTable, latencies: list[float]) -> None:
    """Press down, then up, every PROBE_EVERY seconds through the terminal driver; keep how long
    each took to move the cursor."""
    driver = app._driver
    assert driver is not None
    for step in range(10**6):
        await asyncio.sleep(PROBE_EVERY)
        if table.row_count < 3:  # down from the second line needs a third
            continue
        table.move_cursor(1)
        before = table.cursor_row
        key = events.Key("down" if step % 2 == 0 else "up", None)
        key.set_sender(app)
        sent = time.perf_counter()
        driver.send_message(key)
        while table.cursor_row == before and time.perf_counter() - sent < TIMEOUT:
            await asyncio.sleep(0.001)
        latencies.append(time.perf_counter() - sent)


async def app_run(profile: Profile) -> dict[str, float]:
    """Press r on the profile, as a user would, and wait for the run's end, pressing keys all along."""
    app = ScimTuiApp(profile)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, RunScreen))
        screen: RunScreen = app.screen  # type: ignore[assignment]
        table = screen.query_one(ResultsTable)
        await app.workers.wait_for_complete()  # the resource types are read
        await pilot.pause(0.1)
        watchdog, latencies = Watchdog(), []
        watchdog.start()
        started, cpu = time.perf_counter(), time.process_time()
        await pilot.press("r")
        table.focus()
        prober = asyncio.get_running_loop().create_task(probe_keys(app, table, latencies))
        await asyncio.wait_for(moment(lambda: screen.progress.phase.value == "finished", step=0.05), RUN_TIMEOUT)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        prober.cancel()
        watchdog.stop()
        return {
            "wall_s": wall,
            "cpu_s": cpu,
            "results": len(screen.state.rows),
            "key_p90_s": statistics.quantiles(latencies, n=10)[-1] if len(latencies) > 1 else float("nan"),
            "key_worst_s": max(latencies, default=float("nan")),
            "keys": len(latencies),
            "stalls_over_100ms": watchdog.stalls,
            "worst_stall_s": watchdog.worst,
        }


def real_child(mode: str, url: str, types: int) -> None:
    """In this fresh process, run every check on the server by the app or by `scim-tui check`,
    with a profile and a history of their own; print the figures as JSON."""
    from scim_tui.cli.main import run
    from scim_tui.store.profiles import save_profile

    with tempfile.TemporaryDirectory() as home:
        os.environ.update({"XDG_CONFIG_HOME": f"{home}/config", "XDG_DATA_HOME": f"{home}/data", "XDG_CACHE_HOME": f"{home}/cache"})
        os.environ.pop("SCIM_TUI_CONFIG_DIR", None)
        profile = Profile(name="bench", url=url, max_resource_types=types)
        save_profile(profile)
        if mode == "app":
            figures = asyncio.run(app_run(profile))
        else:
            started, cpu = time.perf_counter(), time.process_time()
            run(["check", "--profile", "bench", "--output", os.devnull])
            figures = {"wall_s": time.perf_counter() - started, "cpu_s": time.process_time() - cpu}
    print(json.dumps(figures))


def real_runs(types: int, attributes: int, repeats: int) -> dict[str, Any]:
    """The app's run and the command's, alternated, on one generated server."""
    sys.path.insert(0, str(HERE))
    from engine_bench import server
    from scale import write

    runs: dict[str, list[dict[str, float]]] = {"app": [], "command": []}
    with tempfile.TemporaryDirectory() as tmp:
        schemas, resource_types = write(Path(tmp), types, attributes)
        with server("--schemas", str(schemas), "--resource-types", str(resource_types)) as target:
            for _ in range(repeats):
                for mode in ("command", "app"):
                    argv = [sys.executable, __file__, "--real-child", mode, target.url, "--types", str(types)]
                    done = subprocess.run(argv, capture_output=True, text=True, timeout=RUN_TIMEOUT)
                    if done.returncode:
                        raise RuntimeError(f"the {mode}'s run failed: {done.stderr.strip()[-2000:]}")
                    runs[mode].append(json.loads(done.stdout.strip().splitlines()[-1]))
    pairs = list(zip(runs["app"], runs["command"], strict=True))
    ratios = [app["wall_s"] / command["wall_s"] for app, command in pairs]
    cpu_ratios = [app["cpu_s"] / command["cpu_s"] for app, command in pairs]
    return {
        "types": types,
        "attributes": attributes,
        "app": median_of(runs["app"]),
        "command": median_of(runs["command"]),
        "ratio": spread(ratios),
        "cpu_ratio": spread(cpu_ratios),
    }


def spread(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def median_of(runs: list[dict[str, float]]) -> dict[str, dict[str, float]]:
    return {key: spread([r[key] for r in runs]) for key in runs[0]}


def measure(repeats: int, types: int, attributes: int, real_repeats: int) -> dict[str, Any]:
    figures: dict[str, Any] = {"results": RESULT_COUNT, "repeats": repeats}
    if repeats:  # 0: the real run alone
        figures["ten_thousand"] = median_of([asyncio.run(ten_thousand()) for _ in range(repeats)])
        figures["demo"] = median_of([asyncio.run(first_result()) for _ in range(repeats)])
    if real_repeats:
        figures["real"] = real_runs(types, attributes, real_repeats)
    return figures


def report(figures: dict[str, Any]) -> str:
    if "ten_thousand" not in figures:
        return "\n".join(real_report(figures["real"]) if "real" in figures else [])
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
    if "real" in figures:
        lines += ["", *real_report(figures["real"])]
    return "\n".join(lines)


def real_report(real: dict[str, Any]) -> list[str]:
    """The real run's figures beside their targets (issue 28)."""
    app, command, ratio = real["app"], real["command"], real["ratio"]

    def cell(value: dict[str, float], scale: float = 1, digits: int = 2) -> str:
        return f"{scale * value['median']:.{digits}f} ({scale * value['min']:.{digits}f}–{scale * value['max']:.{digits}f})"

    return [
        f"| real run, {real['types']} types × {real['attributes']} attributes, {app['results']['median']:.0f} results | median (min–max) | target |",
        "|---|---|---|",
        f"| `scim-tui check`, wall s | {cell(command['wall_s'])} | |",
        f"| the app, `r` to the end, wall s | {cell(app['wall_s'])} | |",
        f"| the app over the command | {cell(ratio)} | ≤ 1.1 |",
        f"| CPU (the client process, all threads): the app's s, the command's s | {cell(app['cpu_s'], 1, 1)}, {cell(command['cpu_s'], 1, 1)} | |",
        f"| CPU: the app over the command (what a busy machine moves least) | {cell(real['cpu_ratio'])} | |",
        f"| key latency, 90th percentile, ms ({app['keys']['median']:.0f} keys) | {cell(app['key_p90_s'], 1000, 0)} | ≤ 50 |",
        f"| key latency, worst, ms | {cell(app['key_worst_s'], 1000, 0)} | |",
        f"| event-loop stalls over 100 ms | {cell(app['stalls_over_100ms'], 1, 0)} | 0 |",
        f"| worst stall, ms | {cell(app['worst_stall_s'], 1000, 0)} | |",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3, help="rounds of the synthetic 10,000 results and of the demo run; 0: none")
    parser.add_argument("--types", type=int, default=24, help="resource types of the real run's server (24 × 100 attributes: about 10,000 results)")
    parser.add_argument("--attributes", type=int, default=100)
    parser.add_argument("--real-repeats", type=int, default=1, help="rounds of the real run (each a run by the command and one by the app); 0: none")
    parser.add_argument("--real-child", nargs=2, metavar=("MODE", "URL"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.real_child:
        real_child(*args.real_child, args.types)
        return
    with tempfile.TemporaryDirectory() as home:  # the demo runs' history goes there, not to the user's
        os.environ.update({"XDG_CONFIG_HOME": f"{home}/config", "XDG_DATA_HOME": f"{home}/data", "XDG_CACHE_HOME": f"{home}/cache"})
        figures = measure(args.repeats, args.types, args.attributes, args.real_repeats)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "app.json").write_text(json.dumps(figures, indent=2))
    print(report(figures))


if __name__ == "__main__":
    main()
