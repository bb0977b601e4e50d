"""Run history: every run made from a profile, saved as a JSON report, and what changed since the last one.

Files live in ``<user data dir>/runs/<profile slug>/``, one per run, named by start time
so they sort oldest first. A file that cannot be read as a report is reported once and
left alone: never rewritten, never deleted.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from dataclasses import dataclass
from dataclasses import field
from datetime import datetime
from enum import StrEnum
from pathlib import Path

from platformdirs import user_data_path

from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.profiles import slug
from scim_tui.profiles import write_atomically
from scim_tui.reports.model import RunReport

KEPT_RUNS = 50
"""Runs kept per profile; older ones are deleted when a new one is recorded."""
RUN_FILE = re.compile(r"^\d{8}T\d{6}\d{6}Z\.json$")

log = logging.getLogger(__name__)
_reported: set[Path] = set()
"""Unreadable files already reported in this process, so each is reported once."""


class Change(StrEnum):
    NEW_FAILURE = "new failure"
    FIXED = "fixed"


@dataclass
class RunChanges:
    """How a run differs from the previous run of the same profile, check by check."""

    new_failures: list[CheckId] = field(default_factory=list)
    fixed: list[CheckId] = field(default_factory=list)

    def change_of(self, check_id: CheckId) -> Change | None:
        if check_id in self.new_failures:
            return Change.NEW_FAILURE
        if check_id in self.fixed:
            return Change.FIXED
        return None

    def __bool__(self) -> bool:
        return bool(self.new_failures or self.fixed)


def history_root() -> Path:
    return user_data_path("scim-tui", appauthor=False) / "runs"


def profile_dir(profile_name: str) -> Path:
    """The folder of a profile's runs: its name made safe for a path, unique per name."""
    name = slug(profile_name) or "profile"
    if name != profile_name:
        name = f"{name}-{hashlib.sha256(profile_name.encode()).hexdigest()[:8]}"
    return history_root() / name


def record(report: RunReport) -> Path:
    """Save a run of a profile atomically, then keep only the last KEPT_RUNS of that profile.

    Raises OSError when the data directory cannot be written.
    """
    if not report.profile:
        raise ValueError("Only runs made from a profile are kept in the history.")
    folder = profile_dir(report.profile)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{report.started_at:%Y%m%dT%H%M%S%f}Z.json"
    write_atomically(path, json.dumps(report.to_dict(), ensure_ascii=False).encode(), private=True)
    _prune(folder)
    return path


def runs(profile_name: str) -> list[Path]:
    """The run files of a profile, oldest first."""
    return _run_files(profile_dir(profile_name))


def _run_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(path for path in folder.iterdir() if RUN_FILE.match(path.name))


def load(path: Path) -> RunReport | None:
    """The report in a run file, or None (reported once) when it cannot be read as one."""
    try:
        return RunReport.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        if path not in _reported:
            _reported.add(path)
            log.warning("Skipped the unreadable history file %s (%s); it was left as it is.", path, exc)
        return None


def latest(profile_name: str, before: datetime | None = None) -> RunReport | None:
    """The newest readable run of a profile (started before ``before``, when given)."""
    for path in reversed(runs(profile_name)):
        report = load(path)
        if report is not None and (before is None or report.started_at < before):
            return report
    return None


def compare(previous: RunReport, current: RunReport) -> RunChanges:
    """The checks that fail now and did not, and those that failed and now ran without failing.

    A check failed when any of its results is ERROR or CRITICAL. A check that did not
    run this time (skipped or not selected) is not called fixed.
    """
    failed_before = _failed(previous)
    failed_now = _failed(current)
    ran_now = {r.check_id for r in current.results if r.status is not Status.SKIPPED}
    order = list(dict.fromkeys(r.check_id for r in [*current.results, *previous.results]))
    return RunChanges(
        new_failures=[c for c in order if c in failed_now and c not in failed_before],
        fixed=[c for c in order if c in failed_before and c not in failed_now and c in ran_now],
    )


def _failed(report: RunReport) -> set[CheckId]:
    return {result.check_id for result in report.results if result.status.failed}


def _prune(folder: Path) -> None:
    """Delete the oldest runs beyond KEPT_RUNS; files that are not readable reports are kept."""
    paths = _run_files(folder)
    for path in paths[: max(0, len(paths) - KEPT_RUNS)]:
        if load(path) is not None:
            path.unlink(missing_ok=True)
