"""Engine benchmark: scim-tui's full run against scim2-tester's, and a scale scenario.

Each server runs in its own process (bench/serve.py), so the CPU time measured here is
the client's alone. Run with `make bench`; figures go to bench/results/engine.json.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import asdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
from scim2_client.engines.httpx2 import SyncSCIMClient

from scim_tui.checker import CheckConfig

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
JOBS_OPTIONS = [1, 2, 4, 8]
"""The concurrencies compared; the engine's default is chosen from them."""
DEFAULT_JOBS = CheckConfig().jobs
LATENCY_MS = 5
"""The second comparison's server answers this late, like a server across a network."""
FAR_LATENCY_MS = 50
"""The third comparison's server answers this late, like a server across the world (issue 28's targets)."""
EVERY = f"scim-tui --jobs {DEFAULT_JOBS}, every check (beyond SPEC.md too)"
PEAK = "20 types × 100 attributes, every check, peak MiB"
SCALE_RATIO = "20 types × 100 attributes, every check, wall / scim2-tester's"
TARGETS = {
    "SPEC.md's checks, requests (most at any --jobs)": 230,
    "every check, requests": 480,
    f"SPEC.md's checks, --jobs {DEFAULT_JOBS}, wall / scim2-tester's, loopback": 0.35,
    f"SPEC.md's checks, --jobs {DEFAULT_JOBS}, wall / scim2-tester's, {FAR_LATENCY_MS} ms": 0.08,
    "every check, wall / scim2-tester's, loopback": 0.7,
    PEAK: 150,
    SCALE_RATIO: 0.8,
}
"""Issue 28's targets for the engine, each printed beside its figure (the app's and start-up's are
app_bench.py's and start_bench.py's)."""


@dataclass
class Measure:
    wall: float
    cpu: float
    requests: int
    results: int
    server_cpu: float | None = None
    """CPU seconds the server process spent meanwhile (Linux only)."""

    @property
    def cpu_per_request_ms(self) -> float:
        return 1000 * self.cpu / max(1, self.requests)


@dataclass
class Server:
    url: str
    pid: int

    def cpu(self) -> float | None:
        """The CPU seconds the server process has used so far, from /proc (None elsewhere than Linux)."""
        try:
            fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def server(*args: str):
    """Start bench/serve.py with these arguments; yield it (its base URL and process id)."""
    process = subprocess.Popen([sys.executable, str(HERE / "serve.py"), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        yield Server(process.stdout.readline().strip(), process.pid)
    finally:
        process.stdin.close()
        process.wait(timeout=10)


def counter(http: httpx2.Client) -> list[int]:
    """Count the HTTP requests this client sends, in the list's one item."""
    count = [0]

    def on_request(request: httpx2.Request) -> None:
        count[0] += 1

    http.event_hooks["request"].append(on_request)
    return count


@contextmanager
def plain_client(url: str):
    """A scim2-client on a plain httpx2 client, as scim2-tester is used; with its request count."""
    with httpx2.Client(base_url=url, timeout=60) as http:
        yield SyncSCIMClient(http), counter(http)


@contextmanager
def scim_tui_client(url: str):
    """The client scim-tui itself builds for a profile (its transport included); with its request count."""
    from scim_tui.net.connect import open_client
    from scim_tui.store.profiles import Profile

    with open_client(Profile(name="bench", url=url, timeout=60)) as connection:
        yield connection.client, counter(connection.client.client)


def measure(run: Callable[[Any], list[Any]], target: Server) -> Measure:
    connect = plain_client if run is scim2_tester_run else scim_tui_client
    with connect(target.url) as (client, count):
        server_cpu = target.cpu()
        cpu, wall = time.process_time(), time.perf_counter()
        results = run(client)
        measured = Measure(time.perf_counter() - wall, time.process_time() - cpu, count[0], len(results))
    after = target.cpu()
    measured.server_cpu = None if after is None or server_cpu is None else after - server_cpu
    return measured


SPEC_CHECKS = {"include_tags": {"discovery", "misc", "crud"}, "exclude_tags": {"discovery:strict"}}
"""The checks of SPEC.md, the set scim2-tester's check_server also runs. The checks beyond it
(headers, filtering, bulk ...) have no counterpart there; they are timed apart."""


def scim_tui_run(jobs: int, every_check: bool = False) -> Callable[[Any], list[Any]]:
    from scim_tui.checker import CheckConfig
    from scim_tui.checker import iter_checks

    selection = {} if every_check else SPEC_CHECKS
    return lambda client: list(iter_checks(client, CheckConfig(jobs=jobs, **selection)))


def scim2_tester_run(client: Any) -> list[Any]:
    from scim2_tester import check_server

    return check_server(client)


def spread(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def summarize(measures: list[Measure]) -> dict[str, Any]:
    return {
        "wall_s": spread([m.wall for m in measures]),
        "requests": spread([float(m.requests) for m in measures]),
        "cpu_per_request_ms": spread([m.cpu_per_request_ms for m in measures]),
        "client_cpu_s": spread([m.cpu for m in measures]),
        "server_cpu_s": spread([m.server_cpu or 0.0 for m in measures]),
        "results": measures[-1].results,
    }


def compare(repeats: int, jobs_options: list[int], latency_ms: float = 0) -> dict[str, Any]:
    """Alternate the runs of each tool on one server, `repeats` times."""
    every = EVERY
    runs: dict[str, list[Measure]] = {"scim2-tester": [], **{f"scim-tui --jobs {j}": [] for j in jobs_options}, every: []}
    with server("--latency-ms", str(latency_ms)) as target:
        measure(scim_tui_run(1), target)  # warm-up: imports and first connections
        measure(scim2_tester_run, target)
        for _ in range(repeats):
            runs["scim2-tester"].append(measure(scim2_tester_run, target))
            for jobs in jobs_options:
                runs[f"scim-tui --jobs {jobs}"].append(measure(scim_tui_run(jobs), target))
            runs[every].append(measure(scim_tui_run(DEFAULT_JOBS, every_check=True), target))
    figures = {name: summarize(measures) for name, measures in runs.items()}
    reference = figures["scim2-tester"]["wall_s"]["median"]
    for name, figure in figures.items():
        figure["wall_ratio_to_scim2_tester"] = figure["wall_s"]["median"] / reference
        # Each run against scim2-tester's run of the same round: the VM's slow and fast
        # spells weigh on both alike.
        figure["paired_ratio"] = spread([m.wall / t.wall for m, t in zip(runs[name], runs["scim2-tester"], strict=True)])
    return figures


def scale_child(url: str, pid: int, jobs: int) -> None:
    """Run once in a fresh process and print wall time, results, peak memory and history size as JSON."""
    results: list[Any] = []
    run = scim_tui_run(jobs, every_check=True)
    m = measure(lambda client: results.extend(run(client)) or results, Server(url, pid))
    peak = peak_kib() / 1024  # before the history: the run's own peak
    print(json.dumps({**asdict(m), "peak_mib": peak, "results_per_s": m.results / m.wall, **history_size(results, url, m.wall)}))


def tester_child(url: str, pid: int) -> None:
    """Run scim2-tester once on the server in this fresh process, and print its wall time and requests as JSON."""
    m = measure(scim2_tester_run, Server(url, pid))
    print(json.dumps({"wall": m.wall, "requests": m.requests, "results": m.results}))


def history_size(results: list[Any], url: str, wall: float) -> dict[str, float]:
    """What the run takes in the profile's history (compressed) and as plain JSON, and the times to record
    it and to read it back (as the next run does to compare)."""
    from datetime import UTC
    from datetime import datetime

    from scim_tui.reports import RunReport
    from scim_tui.reports import json_report
    from scim_tui.store import history

    report = RunReport.create(results, target=url, started_at=datetime.now(UTC), duration=wall, profile="bench")
    with tempfile.TemporaryDirectory() as data:
        os.environ["XDG_DATA_HOME"] = data  # never the user's own history
        started = time.perf_counter()
        path = history.record(report)
        record_s = time.perf_counter() - started
        stored = path.stat().st_size
        started = time.perf_counter()
        assert history.load(path) is not None
        load_s = time.perf_counter() - started
    return {
        "history_mib": stored / 2**20,
        "json_mib": sum(len(piece.encode()) for piece in json_report.pieces(report, compact=True)) / 2**20,
        "record_s": record_s,
        "load_s": load_s,
    }


def command_child(url: str) -> None:
    """Run `scim-tui check --profile` as a user does (JSON report to a file, the run recorded in
    the profile's history), in this fresh process, and print its peak memory and what it wrote."""
    from scim_tui.cli import main as cli
    from scim_tui.store import history
    from scim_tui.store.profiles import Profile
    from scim_tui.store.profiles import save_profile

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CONFIG_HOME"] = os.environ["XDG_DATA_HOME"] = tmp  # never the user's own profiles and history
        save_profile(Profile(name="bench", url=url))
        output = Path(tmp) / "report.json"
        started = time.perf_counter()
        status = cli.run(["check", "--profile", "bench", "--format", "json", "--output", str(output)])
        wall = time.perf_counter() - started
        [run] = history.runs("bench")
        figures = {
            "status": status,
            "wall": wall,
            "peak_mib": peak_kib() / 1024,
            "report_mib": output.stat().st_size / 2**20,
            "history_mib": run.stat().st_size / 2**20,
        }
    print(json.dumps(figures))


def peak_kib() -> int:
    """This process's peak resident memory. On Linux, VmHWM: ru_maxrss keeps, across exec, the
    peak of the parent the child was forked from (the benchmark itself, over 100 MiB)."""
    try:
        status = Path("/proc/self/status").read_text()
        return int(status.split("VmHWM:", 1)[1].split()[0])
    except (OSError, IndexError, ValueError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def scale(types: int, attributes: int, jobs: int, command: bool = False) -> dict[str, Any]:
    """The engine's run of every check on a generated server (and, with `command`, then the
    whole `scim-tui check --profile` on it, as a user runs it)."""
    from scale import write

    with tempfile.TemporaryDirectory() as tmp:
        schemas, resource_types = write(Path(tmp), types, attributes)
        with server("--schemas", str(schemas), "--resource-types", str(resource_types)) as target:
            output = _child("--scale-child", target.url, "--server-pid", str(target.pid), "--jobs", str(jobs))
            figures = {"types": types, "attributes": attributes, "jobs": jobs, **output}
            if command:
                figures["command"] = _child("--command-child", target.url)
                figures["scim2_tester"] = _child("--tester-child", target.url, "--server-pid", str(target.pid))
    return figures


def _child(*args: str) -> dict[str, Any]:
    """The figures a child run of this script printed last; SystemExit naming its error when it failed."""
    done = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True)
    if done.returncode != 0:
        last = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        raise SystemExit(f"The {args[0].removeprefix('--')} run failed: {last[0]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--jobs", type=int, default=4, help="the concurrency of the scale scenario")
    parser.add_argument("--far-repeats", type=int, default=1, help=f"rounds at {FAR_LATENCY_MS} ms (scim2-tester takes ~45 s each; 0 leaves them out)")
    parser.add_argument("--no-scale", action="store_true", help="leave out the growth series and the scale scenario")
    parser.add_argument("--only-scale", action="store_true", help="run the scale scenario alone (no comparison, no growth series, no command)")
    parser.add_argument("--types", type=int, default=20, help="resource types of --only-scale's server")
    parser.add_argument("--attributes", type=int, default=100, help="attributes of each of --only-scale's resource types")
    parser.add_argument("--command", action="store_true", help="with --only-scale, then `scim-tui check --profile` and scim2-tester on its server too")
    parser.add_argument("--scale-child", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--server-pid", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--command-child", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--tester-child", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.scale_child:
        scale_child(args.scale_child, args.server_pid, args.jobs)
        return
    if args.command_child:
        command_child(args.command_child)
        return
    if args.tester_child:
        tester_child(args.tester_child, args.server_pid)
        return

    sys.path.insert(0, str(HERE))
    if args.only_scale:
        alone = scale(args.types, args.attributes, args.jobs, command=args.command)
        load = os.getloadavg()
        print(json.dumps(alone))
        print(f"peak {alone['peak_mib']:.0f} MiB (target at 20 × 100: ≤ {TARGETS[PEAK]} MiB), load average {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f}")
        if "scim2_tester" in alone:
            print(f"wall {alone['wall'] / alone['scim2_tester']['wall']:.2f}× scim2-tester's (target at 20 × 100: ≤ {TARGETS[SCALE_RATIO]})")
        return
    figures: dict[str, Any] = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}}
    figures["compare"] = compare(args.repeats, JOBS_OPTIONS)
    figures["compare_latency"] = compare(args.repeats, [1, 4], LATENCY_MS)
    figures["compare_far"] = compare(args.far_repeats, [DEFAULT_JOBS], FAR_LATENCY_MS) if args.far_repeats else {}
    save(figures)
    print(report(figures), flush=True)  # before the scale runs: minutes more, and a figure kept if one fails
    if not args.no_scale:
        figures["growth"] = [scale(4, attributes, args.jobs) for attributes in (25, 50, 100)]
        figures["scale"] = scale(20, 100, args.jobs, command=True)
        save(figures)
        print("\n".join(["", scale_report(figures), "", *targets(figures)]))


def save(figures: dict[str, Any]) -> None:
    """Write the figures so far to bench/results/engine.json, with the machine's load now."""
    figures["load_average"] = os.getloadavg()
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "engine.json").write_text(json.dumps(figures, indent=2))


def report(figures: dict[str, Any]) -> str:
    lines = [
        "| run | wall median (min–max) s | requests | client CPU ms/request | client CPU s | server CPU s | "
        "ratio to scim2-tester | paired ratio median (min–max) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    far = ((f"{k}, {FAR_LATENCY_MS} ms latency", v) for k, v in figures["compare_far"].items())
    for name, f in [*figures["compare"].items(), *((f"{k}, {LATENCY_MS} ms latency", v) for k, v in figures["compare_latency"].items()), *far]:
        w, p = f["wall_s"], f["paired_ratio"]
        lines.append(
            f"| {name} | {w['median']:.3f} ({w['min']:.3f}–{w['max']:.3f}) | {f['requests']['median']:.0f} "
            f"| {f['cpu_per_request_ms']['median']:.2f} | {f['client_cpu_s']['median']:.2f} | {f['server_cpu_s']['median']:.2f} "
            f"| {f['wall_ratio_to_scim2_tester']:.2f} | {p['median']:.2f} ({p['min']:.2f}–{p['max']:.2f}) |"
        )
    lines += ["", *targets(figures)]
    return "\n".join(lines)


def scale_report(figures: dict[str, Any]) -> str:
    lines = [
        "| scale | wall s | results | results/s | requests | client CPU s | server CPU s | client CPU ms/result "
        "| peak MiB | history MiB (JSON MiB; record, load s) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in [*figures["growth"], figures["scale"]]:
        lines.append(
            f"| {s['types']} types × {s['attributes']} attributes | {s['wall']:.2f} | {s['results']} | {s['results_per_s']:.0f} "
            f"| {s['requests']} | {s['cpu']:.2f} | {s['server_cpu'] or 0:.2f} | {1000 * s['cpu'] / max(1, s['results']):.2f} | {s['peak_mib']:.0f} "
            f"| {s['history_mib']:.2f} ({s['json_mib']:.1f}; {s['record_s']:.2f}, {s['load_s']:.2f}) |"
        )
    command = figures["scale"]["command"]
    lines += [
        "",
        "| `scim-tui check --profile` at 20 types × 100 attributes | wall s | peak MiB | JSON report MiB | history file MiB |",
        "|---|---|---|---|---|",
        f"| exit {command['status']} | {command['wall']:.1f} | {command['peak_mib']:.0f} | {command['report_mib']:.1f} | {command['history_mib']:.2f} |",
    ]
    tester, ours = figures["scale"]["scim2_tester"], figures["scale"]
    lines += [
        "",
        "| 20 types × 100 attributes, one run each | wall s | requests | results |",
        "|---|---|---|---|",
        f"| scim2-tester | {tester['wall']:.1f} | {tester['requests']} | {tester['results']} |",
        f"| scim-tui, every check, --jobs {ours['jobs']} | {ours['wall']:.1f} | {ours['requests']} | {ours['results']} |",
    ]
    return "\n".join(lines)


def target_figures(figures: dict[str, Any]) -> list[float | None]:
    """The figure of each of TARGETS, in its order (None when not measured)."""
    compare = figures["compare"]
    spec_runs = [f for name, f in compare.items() if name.startswith("scim-tui --jobs") and name != EVERY]
    jobs = f"scim-tui --jobs {DEFAULT_JOBS}"
    scale_run = figures.get("scale")
    return [
        max(f["requests"]["max"] for f in spec_runs),
        compare[EVERY]["requests"]["median"],
        compare[jobs]["paired_ratio"]["median"],
        figures["compare_far"][jobs]["paired_ratio"]["median"] if figures["compare_far"] else None,
        compare[EVERY]["paired_ratio"]["median"],
        scale_run["peak_mib"] if scale_run else None,
        scale_run["wall"] / scale_run["scim2_tester"]["wall"] if scale_run and "scim2_tester" in scale_run else None,
    ]


def targets(figures: dict[str, Any]) -> list[str]:
    """Each target beside its figure, with the machine's load while it was measured."""
    load = figures.get("load_average") or os.getloadavg()
    lines = [f"| target (load average {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f}) | target | figure | met |", "|---|---|---|---|"]
    for (name, limit), figure in zip(TARGETS.items(), target_figures(figures), strict=True):
        shown = "not measured" if figure is None else f"{figure:.2f}" if isinstance(limit, float) else f"{figure:.0f}"
        met = "" if figure is None else "yes" if figure <= limit else "no"
        lines.append(f"| {name} | ≤ {limit} | {shown} | {met} |")
    return lines


if __name__ == "__main__":
    main()
