"""The user's files are safe from scim-tui: what it writes never replaces what is not a regular
file (/dev/null, /dev/stdout, a named pipe), a symbolic link stays a link, and what it reads
(a profile, a baseline, a discovery document) is refused in one line when it is not a regular
file or is larger than any such file, or when it nests too deep or holds an integer thousands
of digits long: never a hang, a traceback or gigabytes of memory."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from scim_tui.checker.limits import MAX_BASELINE_BYTES
from scim_tui.checker.limits import MAX_DOCUMENT_BYTES
from scim_tui.checker.limits import MAX_PROFILE_BYTES
from scim_tui.checker.limits import byte_size
from scim_tui.store.profiles import load_profiles
from scim_tui.store.profiles import profiles_dir
from tests.support.command import one_line_error
from tests.support.command import scim_tui_here

QUICK = ("--include-tags", "misc", "--no-history")
"""One check, so that each run takes a fraction of a second."""


def report_to(url: str, *flags: str) -> subprocess.CompletedProcess[str]:
    return scim_tui_here("check", "--url", url, *QUICK, *flags)


@pytest.mark.parametrize("flag", ["--output", "--har", "--update-baseline"])
def test_a_link_to_a_shared_report_stays_a_link_to_the_written_report(scim_server, tmp_path, flag):
    shared = tmp_path / "shared"
    shared.mkdir()
    target = shared / "report"
    target.write_text("# the previous report\n")
    link = tmp_path / "report-link"
    link.symlink_to(target)
    assert report_to(scim_server.url, flag, str(link)).returncode == 0
    assert link.is_symlink() and link.resolve() == target
    assert "the previous report" not in target.read_text() and target.read_text().strip()
    assert sorted(path.name for path in shared.iterdir()) == ["report"], "no temporary file left beside it"


@pytest.mark.parametrize("flag", ["--output", "--har", "--update-baseline"])
def test_dev_null_is_written_to_never_replaced(scim_server, tmp_path, flag):
    """A writer that replaced its path must never get to replace the machine's /dev/null: as root,
    which could, the test writes to a null device of its own; otherwise to /dev/null through a link,
    which a replacing writer would replace instead."""
    device = null_device(tmp_path)
    link = tmp_path / "null-link"
    link.symlink_to(device)
    process = report_to(scim_server.url, flag, str(link))
    assert process.returncode == 0, process.stderr
    assert link.is_symlink(), "the link was replaced by a regular file"
    assert stat.S_ISCHR(os.stat(device).st_mode), "the device was replaced by a regular file"


def null_device(folder: Path) -> Path:
    """A null device in the folder when this process may make one (root), else /dev/null."""
    device = folder / "null"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        return Path(os.devnull)
    return device


@pytest.mark.parametrize("flag", ["--output", "--har", "--update-baseline"])
def test_a_named_pipe_gets_the_report_and_stays_a_pipe(scim_server, tmp_path, flag):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(pipe.read_bytes()), daemon=True)
    reader.start()
    assert report_to(scim_server.url, flag, str(pipe)).returncode == 0
    reader.join(timeout=60)
    assert not reader.is_alive(), "nothing was ever written to the pipe"
    assert received[0].strip()
    assert stat.S_ISFIFO(os.stat(pipe).st_mode)


@pytest.mark.parametrize("path", ["/dev/stdout", "/proc/self/fd/1"])
def test_standard_output_named_as_a_file_gets_the_report_before_the_summary(scim_server, tmp_path, path):
    """Standard output redirected to a file: the report, then the summary the command prints
    there, neither written over the other."""
    output = tmp_path / "out.txt"
    with output.open("w") as stdout:
        process = subprocess.run(
            [sys.executable, "-m", "scim_tui.cli", "check", "--url", scim_server.url, *QUICK, "--format", "json", "--output", path],
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert process.returncode == 0, process.stderr
    text = output.read_text()
    assert text.startswith('{\n  "schema_version"'), text[:200]
    assert "SUCCESS" in text.split("\n}\n", 1)[1], "the summary follows the report"


def named_pipe(path: Path) -> None:
    os.mkfifo(path)


def device(path: Path) -> None:
    path.symlink_to("/dev/zero")


def sparse(size: int):
    def make(path: Path) -> None:
        with path.open("wb") as file:
            file.truncate(size)

    return make


NOT_READ = [
    pytest.param(named_pipe, "it is a named pipe, not a regular file", id="a named pipe"),
    pytest.param(device, "it is a device, not a regular file", id="/dev/zero"),
]
HUGE = 3 * 1024**3
"""A 3 GB file (sparse: it takes no room on disk)."""


@pytest.mark.parametrize(("make", "problem"), [*NOT_READ, pytest.param(sparse(HUGE), f"it is larger than {byte_size(MAX_PROFILE_BYTES)}", id="3 GB")])
def test_a_profile_file_that_cannot_be_one_is_listed_as_broken_unread(make, problem):
    profiles_dir().mkdir(parents=True)
    path = profiles_dir() / "odd.toml"
    make(path)
    [broken] = load_profiles().broken
    assert broken.path == path and broken.message.startswith(f"cannot be read: {problem}")


@pytest.mark.parametrize(("make", "problem"), [*NOT_READ, pytest.param(sparse(HUGE), f"it is larger than {byte_size(MAX_BASELINE_BYTES)}", id="3 GB")])
def test_a_baseline_file_that_cannot_be_one_is_one_line_before_any_request(tmp_path, make, problem):
    path = tmp_path / "baseline.toml"
    make(path)
    line = one_line_error(scim_tui_here("check", "--url", "http://127.0.0.1:9/v2", "--baseline", str(path)))
    assert line.startswith(f"scim-tui: error: Cannot read the baseline {path}: {problem}")


@pytest.mark.parametrize(("make", "problem"), [*NOT_READ, pytest.param(sparse(HUGE), f"it is larger than {byte_size(MAX_DOCUMENT_BYTES)}", id="3 GB")])
def test_a_discovery_file_that_cannot_be_one_is_one_line_before_any_request(tmp_path, make, problem):
    path = tmp_path / "schemas.json"
    make(path)
    line = one_line_error(scim_tui_here("check", "--url", "http://127.0.0.1:9/v2", "--schemas", str(path)))
    assert line.startswith(f"scim-tui: error: The schemas file {path} cannot be read ({problem}")


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("accepted = " + "[" * 5000 + "]" * 5000, "nests arrays or tables too deeply to be read"),
        ("[[accepted]]\ncheck = 'x'\nstatus = 'ERROR'\nnote = " + "7" * 5001, "holds an integer thousands of digits long"),
    ],
    ids=["nested 5,000 deep", "a 5,001-digit integer"],
)
def test_a_baseline_a_parser_cannot_take_is_one_line(tmp_path, content, problem):
    path = tmp_path / "baseline.toml"
    path.write_text(content)
    line = one_line_error(scim_tui_here("check", "--url", "http://127.0.0.1:9/v2", "--baseline", str(path)))
    assert line == f"scim-tui: error: The baseline {path} {problem}: fix it, or write it again with --update-baseline."
