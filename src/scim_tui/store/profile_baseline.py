"""A profile's baseline in the app: where its file is, and the failures accepted or un-accepted there.

The file is the one `scim-tui check --baseline FILE` reads, so the same file serves a CI job
and the app. A profile names it with its ``baseline`` key (relative to the config directory,
beside the profiles directory, whose every TOML file is read as a profile); without one, the app keeps it in ``<data dir>/baselines/<profile>.toml``.
Each change reads the file again first, so an entry written meanwhile by hand or by
`--update-baseline` is kept; a file that does not read is never written over.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field
from datetime import date
from pathlib import Path

from scim_tui.checker import CheckResult
from scim_tui.store import baseline
from scim_tui.store.baseline import BaselineError
from scim_tui.store.baseline import Entry
from scim_tui.store.paths import config_dir
from scim_tui.store.paths import data_dir
from scim_tui.store.paths import storage_name
from scim_tui.store.profiles import Profile


def baseline_file(profile: Profile) -> Path:
    """The file of the profile's accepted failures."""
    if profile.baseline:
        path = Path(profile.baseline).expanduser()
        return path if path.is_absolute() else config_dir() / path
    return data_dir() / "baselines" / f"{storage_name(profile.name)}.toml"


def read(path: Path) -> list[Entry]:
    """The entries of the file, none when it does not exist yet; BaselineError when it does not read."""
    return baseline.load(path) if path.exists() else []


@dataclass
class ProfileBaseline:
    """The accepted failures of one profile, as last read from (or written to) its file."""

    path: Path
    entries: list[Entry] = field(default_factory=list)
    problem: str | None = None
    """Why the file could not be read (one line): nothing is accepted, and nothing written, until it is fixed."""

    @classmethod
    def of(cls, profile: Profile) -> ProfileBaseline:
        path = baseline_file(profile)
        try:
            return cls(path, read(path))
        except BaselineError as error:
            return cls(path, problem=str(error))

    def accept(self, result: CheckResult, note: str, until: date | None) -> Entry:
        """Write an entry accepting this failing result; one for the same check and reason (expired,
        or for a milder status) is replaced, the others are kept."""
        entry = baseline.entry_of(result, note, until)
        kept = [old for old in self._current() if (old.check_id, old.reason) != (entry.check_id, entry.reason)]
        self._save([*kept, entry])
        return entry

    def unaccept(self, entry: Entry) -> None:
        """Remove this entry from the file."""
        entries = self._current()
        if entry in entries:
            entries.remove(entry)
        self._save(entries)

    def _current(self) -> list[Entry]:
        """The file's entries as they are now; BaselineError (and the problem kept) when it does not read."""
        try:
            return read(self.path)
        except BaselineError as error:
            self.problem = str(error)
            raise

    def _save(self, entries: list[Entry]) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BaselineError(f"Cannot write the baseline {self.path}: {exc.strerror or exc}.") from exc
        baseline.write(self.path, entries)
        self.entries, self.problem = entries, None
