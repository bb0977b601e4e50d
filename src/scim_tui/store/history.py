"""Run history: every run made from a profile, saved compressed, and what changed since the last one.

Files live in ``<user data dir>/runs/<profile>/``, one per run (``<start time>Z.json.gz``),
named by start time so they sort oldest first. Each holds two gzip members: a small summary
(when, and each result's check and status), read to tell what changed and to show the last run
without unpacking the rest; then the whole JSON report. Both are written as they are encoded, so
a run of thousands of results is never held twice in memory. The one-member ``.json.gz`` and
plain ``.json`` files of earlier versions are still read. A profile keeps its last HISTORY_KEPT_RUNS runs and at
most HISTORY_KEPT_BYTES of them, the oldest dropped first. A file that cannot be read as a report is
reported in one line and set aside in the ``set-aside/`` folder beside it: never deleted, never
pruned, and never in the way of a run.
"""

from __future__ import annotations

import errno
import gzip
import logging
import os
import re
import zlib
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import BinaryIO

from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker.json_shape import json_values
from scim_tui.checker.limits import HISTORY_KEPT_BYTES
from scim_tui.checker.limits import HISTORY_KEPT_RUNS
from scim_tui.checker.limits import MAX_HISTORY_REPORT_BYTES
from scim_tui.checker.limits import MAX_HISTORY_REPORT_VALUES
from scim_tui.checker.limits import MAX_HISTORY_SUMMARY_BYTES
from scim_tui.checker.limits import byte_size
from scim_tui.reports import json_report
from scim_tui.reports.model import RunReport
from scim_tui.reports.summary import Judged
from scim_tui.reports.summary import RunSummary
from scim_tui.store.paths import data_dir
from scim_tui.store.paths import storage_name
from scim_tui.store.paths import write_atomically

"""Runs kept per profile; older ones are deleted when a new one is recorded."""
"""What a profile's runs may take on disk together; the oldest go first (the newest always stays)."""
COMPRESSION_LEVEL = 6
RUN_FILE = re.compile(r"^\d{8}T\d{6}\d{6}Z\.json(\.gz)?$")
SET_ASIDE = "set-aside"
REPORT_START = b'{"schema_version"'
"""How every run file of earlier versions begins (RunReport.to_dict puts schema_version first)."""
SUMMARY_START = b'{"scim_tui_summary"'
"""How every run file begins now: its summary."""
GZIP_WBITS = 16 + zlib.MAX_WBITS
"""zlib's way of asking for one gzip member."""

log = logging.getLogger(__name__)
Warn = Callable[[str], object]
"""Where a line about an unreadable file goes: the log by default (printed by `scim-tui check`)."""
_reported: set[Path] = set()
"""Unreadable files that could not be set aside, already reported in this process."""


class Change(StrEnum):
    NEW_FAILURE = "new failure"
    FIXED = "fixed"


@dataclass
class RunChanges:
    """How a run differs from the previous run of the same profile, check by check."""

    new_failures: list[CheckId] = field(default_factory=list)
    fixed: list[CheckId] = field(default_factory=list)
    compared: int = 0
    """How many checks both runs ran: only those are compared."""

    def change_of(self, check_id: CheckId) -> Change | None:
        if check_id in self.new_failures:
            return Change.NEW_FAILURE
        if check_id in self.fixed:
            return Change.FIXED
        return None

    def __bool__(self) -> bool:
        return bool(self.new_failures or self.fixed)


def history_root() -> Path:
    return data_dir() / "runs"


def profile_dir(profile_name: str) -> Path:
    """The folder of a profile's runs: its name made safe for a path, unique per name."""
    return history_root() / storage_name(profile_name)


def record(report: RunReport, warn: Warn = log.warning) -> Path:
    """Save a run of a profile atomically, compressed, then prune the profile's oldest runs.

    Raises OSError when the data directory cannot be written, or the report is larger than the
    history reads back (then nothing is written).
    """
    if not report.profile:
        raise ValueError("Only runs made from a profile are kept in the history.")
    folder = profile_dir(report.profile)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{report.started_at:%Y%m%dT%H%M%S%f}Z.json.gz"
    write_atomically(path, _packed(report), private=True)
    _prune(folder, warn)
    return path


def _packed(report: RunReport) -> Iterator[bytes]:
    """A run file's bytes, as they are made: the summary's gzip member, then the report's."""
    yield gzip.compress(RunSummary.of(report).to_json(), compresslevel=COMPRESSION_LEVEL, mtime=0)
    packer = zlib.compressobj(COMPRESSION_LEVEL, zlib.DEFLATED, GZIP_WBITS)
    size = 0
    for piece in json_report.pieces(report, compact=True):
        encoded = piece.encode()
        size += len(encoded)
        if size > MAX_HISTORY_REPORT_BYTES:
            raise OSError(errno.EFBIG, f"its report is larger than {byte_size(MAX_HISTORY_REPORT_BYTES)}, more than the history reads back")
        if packed := packer.compress(encoded):
            yield packed
    yield packer.flush()


def runs(profile_name: str) -> list[Path]:
    """The run files of a profile, oldest first."""
    return _run_files(profile_dir(profile_name))


def _run_files(folder: Path) -> list[Path]:
    try:
        return sorted(path for path in folder.iterdir() if RUN_FILE.match(path.name) and path.is_file())
    except OSError:  # no folder yet, or one that cannot be listed: no run to compare with
        return []


def load(path: Path, warn: Warn = log.warning) -> RunReport | None:
    """The report in a run file; None when it cannot be read as one (then it is set aside, and said so)."""
    try:
        return RunReport.from_json(run_json(path))
    except (OSError, EOFError, zlib.error, ValueError, RecursionError) as exc:  # a bad file's every way to fail (tests/test_fuzz_state.py)
        _set_aside(path, _reason(exc), warn)
        return None


def run_json(path: Path) -> bytes:
    """A run file's report as JSON, unpacked (past its summary); ValueError when it is larger than
    any report, OSError (or EOFError, zlib.error) when it cannot be read or unpacked."""
    with _open(path) as file:
        head = file.read(len(SUMMARY_START))
        if head == SUMMARY_START:
            summary = file.readline(MAX_HISTORY_SUMMARY_BYTES)  # one line, its own gzip member
            if not summary.endswith(b"\n"):
                raise ValueError(f"its summary holds more than {byte_size(MAX_HISTORY_SUMMARY_BYTES)}")
            head = b""
        content = _rest(file, head)
    if json_values(content) > MAX_HISTORY_REPORT_VALUES:
        raise ValueError(f"it holds more than {MAX_HISTORY_REPORT_VALUES:,} JSON objects and arrays")
    return content


def _rest(file: BinaryIO, start: bytes) -> bytes:
    """`start` and what the file holds past where it is; ValueError, read no further, past
    MAX_HISTORY_REPORT_BYTES (read in pieces: one read of that size takes twice the memory)."""
    content = bytearray(start)
    while chunk := file.read(1 << 20):
        content += chunk
        if len(content) > MAX_HISTORY_REPORT_BYTES:
            raise ValueError(f"it holds more than {byte_size(MAX_HISTORY_REPORT_BYTES)}")
    return bytes(content)


def _open(path: Path) -> BinaryIO:
    return gzip.open(path, "rb") if path.name.endswith(".gz") else path.open("rb")  # type: ignore[return-value]


def _first_member(path: Path) -> bytes:
    """What a run file's first gzip member holds (at most MAX_HISTORY_SUMMARY_BYTES); the start of a plain file."""
    with path.open("rb") as file:
        if not path.name.endswith(".gz"):
            return file.read(len(SUMMARY_START))
        unpacker = zlib.decompressobj(GZIP_WBITS)
        content = b""
        while not unpacker.eof and len(content) <= MAX_HISTORY_SUMMARY_BYTES and (chunk := file.read(65536)):
            content += unpacker.decompress(chunk, MAX_HISTORY_SUMMARY_BYTES + 1 - len(content))
    return content


def _reason(exc: Exception) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    first = str(exc).strip().splitlines()
    return " ".join(first[:2]) if first else type(exc).__name__


def _set_aside(path: Path, reason: str, warn: Warn) -> None:
    """Move an unreadable run file out of the way, into set-aside/, and say so in one line."""
    folder = path.parent / SET_ASIDE
    try:
        folder.mkdir(exist_ok=True)
        destination = _free_name(folder / path.name)
        os.rename(path, destination)
    except FileNotFoundError:
        if not path.exists():  # another scim-tui set it aside (or pruned it) first
            return
        destination = None
    except OSError as exc:
        destination, reason = None, f"{reason}; it could not be set aside: {exc.strerror or exc}"
    if destination is not None:
        warn(f"Set aside the unreadable history file {path.name} ({reason}) in {folder}: look at it or delete it; runs go on without it.")
    elif path not in _reported:
        _reported.add(path)
        warn(f"Skipped the unreadable history file {path} ({reason}): move it away or delete it.")


def _free_name(path: Path) -> Path:
    candidate, number = path, 1
    while candidate.exists():
        candidate, number = path.with_name(f"{path.name}.{number}"), number + 1
    return candidate


def latest(profile_name: str, before: datetime | None = None, warn: Warn = log.warning) -> RunReport | None:
    """The newest readable run of a profile (started before ``before``, when given), whole."""
    for path in reversed(runs(profile_name)):
        report = load(path, warn)
        if report is not None and (before is None or report.started_at < before):
            return report
    return None


def latest_summary(profile_name: str, warn: Warn = log.warning) -> RunSummary | None:
    """What the newest readable run of a profile gave, without unpacking its report (but for the
    files of earlier versions, which have no summary)."""
    for path in reversed(runs(profile_name)):
        summary = load_summary(path, warn)
        if summary is not None:
            return summary
    return None


def load_summary(path: Path, warn: Warn = log.warning) -> RunSummary | None:
    """A run file's summary; None when it cannot be read (then the file is set aside, and said so)."""
    try:
        first = _first_member(path)
        if first.startswith(SUMMARY_START):
            return RunSummary.from_json(first)
    except (OSError, EOFError, zlib.error, ValueError) as exc:
        _set_aside(path, _reason(exc), warn)
        return None
    report = load(path, warn)
    return RunSummary.of(report) if report is not None else None


def compare(previous: RunSummary, current: RunReport) -> RunChanges:
    """The checks that fail now and did not, and those that failed and now pass, among the checks
    both runs ran (a check skipped or not selected in either run is not compared).

    A check failed when any of its results is ERROR or CRITICAL.
    """
    failed_before, failed_now = _failed(previous.results), _failed(current.results)
    compared = _ran(previous.results) & _ran(current.results)
    both: list[Judged] = [*current.results, *previous.results]
    order = list(dict.fromkeys(r.check_id for r in both))
    return RunChanges(
        new_failures=[c for c in order if c in compared and c in failed_now and c not in failed_before],
        fixed=[c for c in order if c in compared and c in failed_before and c not in failed_now],
        compared=len(compared),
    )


def _failed(results: Iterable[Judged]) -> set[CheckId]:
    return {result.check_id for result in results if result.status.failed}


def _ran(results: Iterable[Judged]) -> set[CheckId]:
    return {result.check_id for result in results if result.status is not Status.SKIPPED}


def _prune(folder: Path, warn: Warn) -> None:
    """Delete the oldest runs beyond HISTORY_KEPT_RUNS or HISTORY_KEPT_BYTES; the newest stays, whatever its size.

    A file is deleted only if it starts as a report scim-tui writes; one that does not is set
    aside instead. It is not read whole: after an upgrade, dozens of the former 40 MB files may
    go at once, and reading each would hold the end of the run for a minute.
    """
    paths = _run_files(folder)
    sizes = {path: _size(path) for path in paths}
    total = sum(sizes.values())
    for index, path in enumerate(paths[:-1]):
        if len(paths) - index <= HISTORY_KEPT_RUNS and total <= HISTORY_KEPT_BYTES:
            break
        total -= sizes[path]
        if _starts_as_a_report(path):
            path.unlink(missing_ok=True)
        else:
            _set_aside(path, "it does not start as a report", warn)


def _starts_as_a_report(path: Path) -> bool:
    try:
        head = _first_member(path)
    except (OSError, EOFError, zlib.error):
        return False
    return head.startswith((SUMMARY_START, REPORT_START))


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
