"""Where a run's requests go, by purpose and by check, on the embedded scim2-server (one job).

    .venv/bin/python bench/request_counts.py [--spec] [--top N]

Each request the run sends is counted once, from the run's log (every exchange, those of the
clean-up and of discovery included), beside the number the server served. A request is put to
the check that sent it, or to "(the run)" when no check did (discovery, the run-wide clean-up).
bench/README.md holds the figures.
"""

from __future__ import annotations

import argparse
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx2
from scim2_client.engines.httpx2 import SyncSCIMClient

from scim_tui.checker import CheckConfig
from scim_tui.checker import engine
from scim_tui.checker import iter_checks
from scim_tui.checker.exchanges import Exchange
from scim_tui.checker.exchanges import Role
from scim_tui.demo import DemoServer
from scim_tui.demo import make_app

SPEC_CHECKS = {"include_tags": {"discovery", "misc", "crud"}, "exclude_tags": {"discovery:strict"}}
RUN = "(the run)"


class Attributed(list):
    """A run's log that puts each exchange to the check running in its thread."""

    def __init__(self) -> None:
        super().__init__()
        self.running = threading.local()
        self.checks: list[str] = []

    def append(self, exchange: Exchange) -> None:
        super().append(exchange)
        self.checks.append(getattr(self.running, "check", RUN))


@contextmanager
def attributing(log: Attributed) -> Iterator[None]:
    """engine.run_step tells the log which check runs in its thread."""
    original = engine.run_step

    def run_step(context: Any, step: Any) -> Any:
        log.running.check = step.checker.name
        try:
            return original(context, step)
        finally:
            log.running.check = RUN

    engine.run_step = run_step
    try:
        yield
    finally:
        engine.run_step = original


def purpose(exchange: Exchange) -> str:
    """What a request was for: the check's own, or one the run sent for itself around it."""
    if exchange.role is Role.JUDGED:
        return "judged (the check's own)"
    if exchange.role is not Role.CLEANUP:
        return exchange.role.value
    step = exchange.purpose.removeprefix("clean-up: ").replace(exchange.subject or "resource", "resource")
    return f"clean-up: {step}"


def count(conf: CheckConfig) -> tuple[Attributed, int]:
    served: list[str] = []
    app = make_app()

    def counting(environ: dict[str, Any], start_response: Any) -> Any:
        served.append(environ["REQUEST_METHOD"])
        return app(environ, start_response)

    log = Attributed()
    with DemoServer(counting) as server, httpx2.Client(base_url=server.url) as http, attributing(log):
        list(iter_checks(SyncSCIMClient(http), conf, exchanges=log))
    return log, len(served)


def table(title: str, counts: Counter[str]) -> str:
    rows = [f"| {title} | requests |", "|---|---|", *(f"| {key} | {n} |" for key, n in counts.most_common())]
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", action="store_true", help="SPEC.md's checks only (discovery, misc, crud)")
    parser.add_argument("--top", type=int, default=25, help="how many checks to list")
    args = parser.parse_args()
    log, served = count(CheckConfig(jobs=1, **(SPEC_CHECKS if args.spec else {})))
    print(f"{len(log)} requests logged, {served} served\n")
    print(table("purpose", Counter(purpose(e) for e in log)), end="\n\n")
    by_check = Counter(log.checks)
    print(table("check", Counter(dict(by_check.most_common(args.top)))), end="\n\n")
    detail = Counter(f"{check} · {purpose(e)}" for check, e in zip(log.checks, log, strict=True) if check in dict(by_check.most_common(args.top)))
    print(table("check · purpose", Counter(dict(detail.most_common(args.top * 2)))))


if __name__ == "__main__":
    main()
