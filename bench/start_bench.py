"""Start-up benchmark: `scim-tui --version`, `scim-tui --help`, and the app's first paint.

Each command runs as a user runs it: the installed `scim-tui` script in a new process, timed
from the spawn to its exit (`--version`, `--help`) or, for the app, to the moment the first
screen is written to its terminal (a pseudo-terminal of 100×30 here): the profiles home, drawn
once the "Demo" profile's row is on it; `--demo`, drawn once the run screen shows its "Run"
key. Then `q` quits it. Configuration and data live in a throw-away directory. Repeated
`--repeats` times; median (min–max). Figures go to bench/results/start.json.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
COMMAND = str(Path(sys.executable).with_name("scim-tui"))
ROWS, COLUMNS = 30, 100
CEILING = 30.0
"""Seconds to wait for a screen before the measure is given up."""


def exit_time(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def first_paint(argv: list[str], marker: bytes, env: dict[str, str]) -> float:
    """Seconds from the spawn until `marker` is written to the terminal; then quit with `q`."""
    start = time.perf_counter()
    pid, terminal = pty.fork()
    if pid == 0:
        os.execve(argv[0], argv, env)
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    written = b""
    try:
        while marker not in written:
            ready, _, _ = select.select([terminal], [], [], CEILING)
            if not ready:
                raise TimeoutError(f"{argv} drew no {marker!r} within {CEILING:.0f} s")
            written += os.read(terminal, 1 << 16)
        painted = time.perf_counter() - start
        os.write(terminal, b"q")
        drain(terminal, pid)
    finally:
        os.close(terminal)
    return painted


def drain(terminal: int, pid: int) -> None:
    """Read what the app still writes until it exits (a full terminal buffer would block it)."""
    while not os.waitpid(pid, os.WNOHANG)[0]:
        try:
            if select.select([terminal], [], [], 0.1)[0]:
                os.read(terminal, 1 << 16)
        except OSError:  # the app closed its end
            os.waitpid(pid, 0)
            return


def spread(times: list[float]) -> dict[str, float]:
    return {"median": statistics.median(times), "min": min(times), "max": max(times)}


def measure(repeats: int, env: dict[str, str]) -> dict[str, Any]:
    measures = {
        "`scim-tui --version`, to its exit": lambda: exit_time([COMMAND, "--version"], env),
        "`scim-tui --help`, to its exit": lambda: exit_time([COMMAND, "--help"], env),
        "`scim-tui`, to the first paint (the profiles)": lambda: first_paint([COMMAND], b"Demo", env),
        "`scim-tui --demo`, to the first paint of the run screen": lambda: first_paint([COMMAND, "--demo"], b"Run", env),
    }
    runs: dict[str, list[float]] = {name: [] for name in measures}
    for _ in range(repeats):  # alternated, so a slow spell of the VM touches every row alike
        for name, timed in measures.items():
            runs[name].append(timed())
    return {"repeats": repeats, "times": {name: spread(times) for name, times in runs.items()}}


def report(figures: dict[str, Any]) -> str:
    lines = [f"| start ({figures['repeats']} runs) | median s (min–max) |", "|---|---|"]
    for name, t in figures["times"].items():
        lines.append(f"| {name} | {t['median']:.3f} ({t['min']:.3f}–{t['max']:.3f}) |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        env = os.environ | {"XDG_CONFIG_HOME": f"{home}/config", "XDG_DATA_HOME": f"{home}/data", "TERM": "xterm-256color"}
        env.pop("SCIM_TUI_CONFIG_DIR", None)
        figures = measure(args.repeats, env)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "start.json").write_text(json.dumps(figures, indent=2))
    print(report(figures))


if __name__ == "__main__":
    main()
