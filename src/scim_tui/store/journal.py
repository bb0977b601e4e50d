"""Each run's journal of its creations, on disk, per target: what a run killed before its clean-up
(kill -9, a power cut) left, for the next run of that target to find (checker/journal.py).

A run appends one line to a file of its own before each creation is sent, synced to disk before
the request goes, and one once the creation is settled; it holds a lock on the file (flock) as
long as its process lives, and removes the file when it ends. A file whose lock can be taken is
the journal of a run that did not end: the next run of the target reads what it left unsettled
(a line cut short is ignored), looks for it, and removes the file once all of it was looked for.
Nothing in a journal is secret: an endpoint, and the random values the run gave each creation.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from dataclasses import field
from datetime import UTC
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from scim_tui.checker.exchanges import Redactor
from scim_tui.checker.guard import MARK
from scim_tui.checker.guard import Creation
from scim_tui.checker.guard import Marker
from scim_tui.checker.limits import MAX_JOURNAL_BYTES
from scim_tui.store.paths import data_dir
from scim_tui.store.profiles import Profile

try:
    import fcntl
except ImportError:  # no POSIX file locks: no journal (a killed run's leftovers stay unnamed)
    fcntl = None  # type: ignore[assignment]

SUFFIX = ".jsonl"
"""The most of a journal read back: far more than any run writes."""


def journals_dir(target: str) -> Path:
    """Where the journals of runs of a target are: one folder per base URL (its credentials left out)."""
    parts = urlsplit(target)
    port = f":{parts.port}" if parts.port else ""
    normal = f"{parts.scheme.lower()}://{(parts.hostname or '').lower()}{port}{parts.path.rstrip('/')}"
    return data_dir() / "journals" / hashlib.sha256(normal.encode()).hexdigest()[:24]


@dataclass
class Recovery:
    """What the runs of a target that did not end had left unsettled, and what became of it."""

    looked_for: int
    deleted: list[str]
    remaining: list[str]

    def line(self) -> str:
        """One line for a person: what a run that ended before its clean-up left, and what was done."""
        left = f"A run of this server that ended before its clean-up (killed, or the machine stopped) left {self.looked_for} creation(s) unsettled"
        done = f"deleted {', '.join(self.deleted)}" if self.deleted else "none of them was found on the server"
        remains = f"; may remain: {', '.join(self.remaining)}" if self.remaining else ""
        return f"{left}: {done}{remains}."


@dataclass
class RunJournal:
    """The journal of this run of a target (iter_checks' `journal`), and, when `recover`, what the
    runs of the target that did not end left. Use it as a context manager around the run."""

    target: str
    recover: bool = True
    problem: str | None = None
    """Why the journal could not be kept, when it could not (the run goes on without it)."""
    recovery: Recovery | None = None
    """What was done of what earlier runs left, once the run looked for it."""
    _descriptor: int | None = None
    _path: Path | None = None
    _claimed: list[tuple[Path, int]] = field(default_factory=list)
    _looked_for: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __enter__(self) -> RunJournal:
        if fcntl is None:
            self.problem = "this system has no file locks"
            return self
        folder = journals_dir(self.target)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            self._path = folder / f"{os.getpid()}-{secrets.token_hex(6)}{SUFFIX}"
            self._descriptor = os.open(self._path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
            fcntl.flock(self._descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            self._failed(exc)
        self._write({"target": Redactor().url(self.target), "started": datetime.now(UTC).isoformat()}, sync=False)
        return self

    def __exit__(self, *exc: object) -> None:
        """The run ended (what it left is in its report): its journal goes; the journals it claimed
        but did not finish looking through are left for the next run."""
        for _path, descriptor in self._claimed:
            os.close(descriptor)
        self._claimed = []
        if self._descriptor is not None:
            os.close(self._descriptor)
            self._descriptor = None
        if self._path is not None:
            self._path.unlink(missing_ok=True)

    # The engine's side (checker/journal.py)

    def add(self, creation: Creation) -> None:
        self._write({"add": _entry(creation)}, sync=True)

    def remove(self, creation: Creation) -> None:
        self._write({"remove": _entry(creation)}, sync=False)

    def earlier(self) -> list[Creation]:
        """What the runs of the target that did not end left unsettled; their journals stay locked
        (claimed) until `recovered`, so that no other run looks for the same at the same time."""
        if not self.recover or fcntl is None:
            return []
        left: list[Creation] = []
        for path, descriptor in _dead_journals(journals_dir(self.target), self._path):
            unsettled = _unsettled(descriptor)
            if unsettled:
                self._claimed.append((path, descriptor))
                left.extend(unsettled)
            else:
                path.unlink(missing_ok=True)
                os.close(descriptor)
        self._looked_for = len(left)
        return left

    def recovered(self, deleted: list[str], remaining: list[str]) -> None:
        self.recovery = Recovery(self._looked_for, deleted, remaining)
        for path, descriptor in self._claimed:
            path.unlink(missing_ok=True)
            os.close(descriptor)
        self._claimed = []

    def _write(self, line: dict[str, Any], sync: bool) -> None:
        with self._lock:
            if self._descriptor is None:
                return
            try:
                os.write(self._descriptor, (json.dumps(line) + "\n").encode())
                if sync:
                    getattr(os, "fdatasync", os.fsync)(self._descriptor)  # on disk before the creation is sent
            except OSError as exc:
                self._failed(exc)

    def _failed(self, exc: OSError) -> None:
        """Go on without a journal, saying why (a full disk, a read-only data dir)."""
        self.problem = f"{exc.strerror or exc}"
        if self._descriptor is not None:
            os.close(self._descriptor)
            self._descriptor = None


@contextmanager
def run_journal(profile: Profile, url: str, recover: bool = True) -> Iterator[RunJournal | None]:
    """The journal of a run of a profile on `url`; None for the embedded demo server, which a
    killed run takes down with it."""
    if profile.demo:
        yield None
        return
    with RunJournal(url, recover) as journal:
        yield journal


def journal_lines(journal: RunJournal | None) -> list[str]:
    """What a run's journal has to tell a person: what was done of what a run that ended before its
    clean-up left, and why the journal could not be kept, when it could not."""
    if journal is None:
        return []
    lines = [journal.recovery.line()] if journal.recovery is not None else []
    if journal.problem:
        lines.append(f"The run's journal could not be kept ({journal.problem}): were this run killed, the next would not know what it left.")
    return lines


def left_behind(target: str) -> int:
    """How many creations the runs of a target that did not end left unsettled (none is claimed)."""
    if fcntl is None:
        return 0
    count = 0
    for _path, descriptor in _dead_journals(journals_dir(target), None):
        count += len(_unsettled(descriptor))
        os.close(descriptor)
    return count


def _dead_journals(folder: Path, own: Path | None) -> list[tuple[Path, int]]:
    """The journals of runs that did not end, each open and locked: its lock could be taken."""
    try:
        paths = sorted(path for path in folder.iterdir() if path.suffix == SUFFIX and path != own)
    except OSError:
        return []
    dead = []
    for path in paths:
        try:
            descriptor = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # its run is alive
            os.close(descriptor)
            continue
        dead.append((path, descriptor))
    return dead


def _unsettled(descriptor: int) -> list[Creation]:
    """The creations a journal adds and does not remove; lines that cannot be read are ignored
    (the last one may have been cut short)."""
    counts: Counter[Creation] = Counter()
    content = os.pread(descriptor, MAX_JOURNAL_BYTES, 0)
    for raw in content.splitlines():
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        for key, step in (("add", 1), ("remove", -1)):
            creation = _creation(line.get(key)) if isinstance(line, dict) else None
            if creation is not None:
                counts[creation] += step
    return [creation for creation, count in counts.items() if count > 0]


def _entry(creation: Creation) -> dict[str, Any]:
    return {"kind": creation.kind, "endpoint": creation.endpoint, "markers": [[marker.attribute, marker.value] for marker in creation.markers]}


def _creation(entry: Any) -> Creation | None:
    """A journal's entry as a creation; None when it is not one the run could have written."""
    if not isinstance(entry, dict):
        return None
    kind, endpoint, markers = entry.get("kind"), entry.get("endpoint"), entry.get("markers")
    if not (isinstance(kind, str) and isinstance(endpoint, str) and endpoint.startswith("/") and isinstance(markers, list) and markers):
        return None
    pairs = [pair for pair in markers if isinstance(pair, list) and len(pair) == 2 and all(isinstance(part, str) for part in pair)]
    if len(pairs) != len(markers) or not all(value.startswith(MARK) for _attribute, value in pairs):
        return None
    return Creation(kind, endpoint, tuple(Marker(attribute, value) for attribute, value in pairs))
