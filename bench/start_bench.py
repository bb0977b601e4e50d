"""Start-up benchmark: `scim-tui --version`, `--help`, `tags`, and the app's first paint, each
beside importing `textual.app` alone in a new interpreter (the yardstick of issue 28's targets:
`tags` ≤ 1.0× of it, the first paint of `--demo` ≤ 3×).

Each command runs as a user runs it: the installed `scim-tui` script in a new process, timed
from the spawn to its exit (`--version`, `--help`) or, for the app, to the moment the first
screen is written to its terminal (a pseudo-terminal of 100×30 here): the profiles home, drawn
once the "Demo" profile's row is on it; `--demo`, drawn once the run screen shows its "Run"
key. Then `q` quits it. Configuration and data live in a throw-away directory. Repeated
`--repeats` times; median (min–max) of the wall time, and of the CPU time the process used
until then (user and system), which a busy machine changes far less. Figures go to
bench/results/start.json.

scim_tui's modules are compiled to bytecode first, as pip compiles a package it installs:
textual.app, the yardstick, loads from its bytecode, and with PYTHONDONTWRITEBYTECODE set (as
on this project's VM) an editable install would otherwise compile every module from source at
each start.
"""

from __future__ import annotations

import argparse
import compileall
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
TEXTUAL = "`python -c 'import textual.app'`, to its exit"
"""The yardstick: the other rows are also given as a ratio to it."""
TARGETS = {"`scim-tui tags`, to its exit": 1.0, "`scim-tui --demo`, to the first paint of the run screen": 3.0}
CEILING = 30.0
PACKAGE = Path(__file__).resolve().parents[1] / "src" / "scim_tui"
"""Seconds to wait for a screen before the measure is given up."""


def exit_time(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Seconds from the spawn to the exit, and the CPU seconds the process used."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    took = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise subprocess.CalledProcessError(process.returncode, argv)
    return took, usage.ru_utime + usage.ru_stime


def cpu_so_far(pid: int) -> float:
    """The CPU seconds (user and system) a running process has used (Linux: /proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def first_paint(argv: list[str], marker: bytes, env: dict[str, str]) -> tuple[float, float]:
    """Seconds from the spawn until `marker` is written to the terminal, and the CPU seconds
    used until then; then quit with `q`."""
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
        painted = time.perf_counter() - start, cpu_so_far(pid)
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
        TEXTUAL: lambda: exit_time([sys.executable, "-c", "import textual.app"], env),
        "`scim-tui tags`, to its exit": lambda: exit_time([COMMAND, "tags"], env),
        "`scim-tui --version`, to its exit": lambda: exit_time([COMMAND, "--version"], env),
        "`scim-tui --help`, to its exit": lambda: exit_time([COMMAND, "--help"], env),
        "`scim-tui`, to the first paint (the profiles)": lambda: first_paint([COMMAND], b"Demo", env),
        "`scim-tui --demo`, to the first paint of the run screen": lambda: first_paint([COMMAND, "--demo"], b"Run", env),
    }
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in measures}
    for _ in range(repeats):  # alternated, so a slow spell of the VM touches every row alike
        for name, timed in measures.items():
            runs[name].append(timed())
    return {
        "repeats": repeats,
        "load_average": os.getloadavg()[0],
        "wall": {name: spread([wall for wall, _ in times]) for name, times in runs.items()},
        "cpu": {name: spread([cpu for _, cpu in times]) for name, times in runs.items()},
    }


def report(figures: dict[str, Any]) -> str:
    lines = [
        f"| start ({figures['repeats']} runs, load average {figures['load_average']:.1f} at the end) | wall median s (min–max) | CPU median s (min–max) "
        "| wall ÷ textual.app | CPU ÷ textual.app | target |",
        "|---|---|---|---|---|---|",
    ]
    yardstick_wall, yardstick_cpu = figures["wall"][TEXTUAL]["median"], figures["cpu"][TEXTUAL]["median"]
    for name, wall in figures["wall"].items():
        cpu = figures["cpu"][name]
        target = f"≤ {TARGETS[name]:.1f}" if name in TARGETS else ""
        lines.append(
            f"| {name} | {wall['median']:.3f} ({wall['min']:.3f}–{wall['max']:.3f}) | {cpu['median']:.3f} ({cpu['min']:.3f}–{cpu['max']:.3f}) "
            f"| {wall['median'] / yardstick_wall:.2f} | {cpu['median'] / yardstick_cpu:.2f} | {target} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    compileall.compile_dir(PACKAGE, quiet=1)
    with tempfile.TemporaryDirectory() as home:
        env = os.environ | {"XDG_CONFIG_HOME": f"{home}/config", "XDG_DATA_HOME": f"{home}/data", "TERM": "xterm-256color"}
        env.pop("SCIM_TUI_CONFIG_DIR", None)
        figures = measure(args.repeats, env)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "start.json").write_text(json.dumps(figures, indent=2))
    print(report(figures))


if __name__ == "__main__":
    main()
