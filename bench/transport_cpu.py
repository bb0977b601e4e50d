"""Client CPU per request of the transports: scim-tui's (this tree's, and another commit's to
compare with) and httpx2's plain HTTPTransport, on one scim2-server in its own process (serve.py).

Each measure runs in a new process: a warm-up, then GET /Users/<id> and PATCH /Users/<id> each
`--requests` times, one after the other, timed by the process's CPU clock (the server's CPU is not
counted). Rounds interleave the variants, in a new order each round, so that the machine's slow and
fast spells fall on all of them; the figures are medians (min–max), and the paired ratio is each
measure over the plain HTTPTransport's of the same round.

    .venv/bin/python bench/transport_cpu.py --compare main --rounds 7

`--compare REV` measures the transport of that commit too (its src/, from `git archive`).
Not part of `make bench`; figures go to bench/results/transport.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
PLAIN = "httpx2.HTTPTransport"
PATCH = {"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations": [{"op": "replace", "path": "displayName", "value": "Bench"}]}


@contextmanager
def client(variant: str, url: str) -> Iterator[Any]:
    """The httpx2 client a variant sends with: scim-tui's for a profile, or a plain one."""
    if variant == PLAIN:
        with httpx2.Client(base_url=url, transport=httpx2.HTTPTransport(), trust_env=False, timeout=30) as plain:
            yield plain
        return
    from scim_tui.net.connect import open_client
    from scim_tui.store.profiles import Profile

    with open_client(Profile(name="bench", url=url, timeout=30)) as connection:
        yield connection.client.client


def measure(variant: str, url: str, user: str, requests: int) -> dict[str, float]:
    """Microseconds of this process's CPU per GET and per PATCH."""
    with client(variant, url) as http:
        return timed(http, user, requests)


def timed(http: Any, user: str, requests: int) -> dict[str, float]:
    for _ in range(50):
        http.get(f"/Users/{user}").raise_for_status()
    figures = {}
    for method, options in (("GET", {}), ("PATCH", {"json": PATCH})):
        started = time.process_time()
        for _ in range(requests):
            http.request(method, f"/Users/{user}", **options).raise_for_status()
        figures[method] = (time.process_time() - started) / requests * 1e6
    return figures


@contextmanager
def server() -> Iterator[str]:
    process = subprocess.Popen([sys.executable, str(HERE / "serve.py")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        yield process.stdout.readline().strip()  # type: ignore[union-attr]
    finally:
        process.stdin.close()  # type: ignore[union-attr]
        process.wait(timeout=10)


@contextmanager
def source_of(revision: str | None) -> Iterator[str | None]:
    """A directory holding src/ as it is at `revision` (None: this tree's, as installed)."""
    if revision is None:
        yield None
        return
    with tempfile.TemporaryDirectory() as directory:
        archive = subprocess.run(["git", "archive", revision, "src"], cwd=HERE.parent, check=True, capture_output=True).stdout
        archive_path = Path(directory) / "src.tar"
        archive_path.write_bytes(archive)
        with tarfile.open(archive_path) as tar:
            tar.extractall(directory, filter="data")
        yield str(Path(directory) / "src")


def run_one(variant: str, source: str | None, url: str, user: str, requests: int) -> dict[str, float]:
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = source
    command = [sys.executable, __file__, "--measure", variant, "--url", url, "--user", user, "--requests", str(requests)]
    return json.loads(subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout)


def summary(values: list[float]) -> str:
    return f"{statistics.median(values):.0f} ({min(values):.0f}–{max(values):.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--compare", metavar="REV", help="also measure scim-tui's transport as it is at this commit")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--requests", type=int, default=2000, help="GETs, then PATCHes, per measure")
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--user", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.url, args.user, args.requests)))
        return
    with source_of(args.compare) as before, server() as url:
        created = httpx2.post(f"{url}/Users", json={"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "userName": "bench"}, trust_env=False)
        user = created.raise_for_status().json()["id"]
        variants = {"scim-tui (this tree)": None, PLAIN: None} | ({f"scim-tui at {args.compare}": before} if args.compare else {})
        figures: dict[str, list[dict[str, float]]] = {name: [] for name in variants}
        for _ in range(args.rounds):
            for name in random.sample(list(variants), len(variants)):
                variant = PLAIN if name == PLAIN else "scim-tui"
                figures[name].append(run_one(variant, variants[name], url, user, args.requests))
    print(f"client CPU µs per request, median (min–max) of {args.rounds} rounds of {args.requests}; ratio: paired, to {PLAIN}'s")
    print("| transport | GET | PATCH | GET ratio | PATCH ratio |\n|---|---|---|---|---|")
    for name, rows in figures.items():
        ratios = {method: [row[method] / plain[method] for row, plain in zip(rows, figures[PLAIN], strict=True)] for method in ("GET", "PATCH")}
        cells = [summary([row[method] for row in rows]) for method in ("GET", "PATCH")]
        cells += [f"{statistics.median(ratios[method]):.2f}" for method in ("GET", "PATCH")]
        print(f"| {name} | {' | '.join(cells)} |")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "transport.json").write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
