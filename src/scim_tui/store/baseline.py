"""A baseline: the failures a team accepts for now, so that a CI job fails only on new or worse ones.

A TOML file with one ``[[accepted]]`` entry per failing result (DEVIATION and worse): its check
and resource type, its status and reason as seen, a ``note`` for the person who accepts it and
an optional ``until`` date after which it counts again. `scim-tui check --update-baseline FILE`
writes it from a run (keeping the notes and dates already written); `--baseline FILE` judges
a run by it. A file that does not read is one line naming the problem and the fix.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from datetime import date
from pathlib import Path
from typing import Literal

import tomlkit
from pydantic import BaseModel
from pydantic import ConfigDict
from pydantic import Field
from pydantic import ValidationError

from scim_tui.checker import CheckId
from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.checker.limits import MAX_BASELINE_BYTES
from scim_tui.checker.results import ResultKey
from scim_tui.checker.results import result_keys
from scim_tui.errors import UserError
from scim_tui.store.paths import read_bounded
from scim_tui.store.paths import write_atomically
from scim_tui.store.toml_edits import TomlProblem
from scim_tui.store.toml_edits import read_toml

FAILING = (Status.DEVIATION, Status.ERROR, Status.CRITICAL)
"""The statuses a baseline may accept."""
HEADER = """\
Failures accepted for now by `scim-tui check --baseline`: a result listed here does not fail
the run, unless it gets worse than its status. Write why in `note`; add `until = YYYY-MM-DD`
to make an entry count again after that day. `--update-baseline` rewrites the entries from a
run and keeps the notes and dates written here."""


class BaselineError(UserError):
    """A baseline file that cannot be read or written: one line naming the problem and the fix."""


class Entry(BaseModel):
    """One accepted failing result."""

    model_config = ConfigDict(extra="forbid", strict=True)

    check: str = Field(min_length=1)
    """The checker's name."""
    resource_type: str | None = None
    """The resource type it ran for; none for a check of the whole server."""
    status: Literal["DEVIATION", "ERROR", "CRITICAL"]
    """The worst status accepted."""
    reason: str = ""
    """The reason as seen when the entry was written."""
    note: str = ""
    until: date | None = None
    """After this day the entry counts again."""

    @property
    def check_id(self) -> CheckId:
        return CheckId(self.check, self.resource_type)

    def accepts(self, result: CheckResult) -> bool:
        return result.check_id == self.check_id and result.status in FAILING and result.status <= Status[self.status]


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    accepted: list[Entry] = Field(default_factory=list)


@dataclass
class Judgement:
    """A run judged by a baseline."""

    accepted: dict[ResultKey, Entry] = field(default_factory=dict)
    """The failing results the baseline accepts, by their key (check and place among its results)."""
    fixed: list[Entry] = field(default_factory=list)
    """Entries whose check ran (not SKIPPED) and failed no more: to be removed from the baseline."""
    expired: list[Entry] = field(default_factory=list)
    """Entries past their `until` date: their results count again."""


def load(path: Path) -> list[Entry]:
    """The entries of a baseline file; BaselineError, naming the problem and the fix, when it cannot be read."""
    try:
        data = read_toml(read_bounded(path, MAX_BASELINE_BYTES).decode("utf-8"))
    except FileNotFoundError:
        raise BaselineError(f"The baseline {path} does not exist: write it first with --update-baseline {path}.") from None
    except OSError as exc:
        raise BaselineError(f"Cannot read the baseline {path}: {exc.strerror or exc}.") from exc
    except UnicodeDecodeError:
        raise BaselineError(f"The baseline {path} is not UTF-8 text: write it again with --update-baseline.") from None
    except TomlProblem as problem:
        what = f"is not valid TOML ({problem})" if problem.kind == "syntax" else str(problem)
        raise BaselineError(f"The baseline {path} {what}: fix it, or write it again with --update-baseline.") from None
    try:
        return _File.model_validate(data).accepted
    except ValidationError as exc:
        first = exc.errors()[0]
        where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in first["loc"]).lstrip(".")
        raise BaselineError(f"The baseline {path} has a bad entry: {where}: {first['msg']}: fix it, or write it again with --update-baseline.") from None


def judge(entries: Sequence[Entry], results: Sequence[CheckResult], today: date) -> Judgement:
    """Which failing results the entries accept, and which entries are fixed or expired."""
    judgement = Judgement(expired=[entry for entry in entries if entry.until is not None and entry.until < today])
    live: dict[CheckId, list[Entry]] = defaultdict(list)
    for entry in entries:
        if entry not in judgement.expired:
            live[entry.check_id].append(entry)
    ran: set[CheckId] = set()
    failing: set[CheckId] = set()
    for key, result in zip(result_keys(results), results, strict=True):
        if result.status is not Status.SKIPPED:  # a skipped check tells nothing of a fix
            ran.add(result.check_id)
        if result.status in FAILING:
            failing.add(result.check_id)
            accepting = next((entry for entry in live[result.check_id] if entry.accepts(result)), None)
            if accepting is not None:
                judgement.accepted[key] = accepting
    judgement.fixed = [entry for check_id, kept in live.items() if check_id in ran and check_id not in failing for entry in kept]
    return judgement


def entries_of(results: Sequence[CheckResult], previous: Sequence[Entry] = ()) -> list[Entry]:
    """An entry for each failing result, with the note and date of the previous entry for it (the
    one with the same reason, else any left for the same check)."""
    left = list(previous)
    entries = []
    for result in results:
        if result.status not in FAILING:
            continue
        same = [entry for entry in left if entry.check_id == result.check_id]
        old = next((entry for entry in same if entry.reason == (result.reason or "")), same[0] if same else None)
        if old is not None:
            left.remove(old)
        entries.append(entry_of(result, old.note if old else "", old.until if old else None))
    return entries


def entry_of(result: CheckResult, note: str = "", until: date | None = None) -> Entry:
    """The entry that accepts a failing result as it is now."""
    return Entry(
        check=result.check_id.checker,
        resource_type=result.check_id.resource_type,
        status=result.status.name,  # type: ignore[arg-type]
        reason=" ".join((result.reason or "").split()),
        note=note,
        until=until,
    )


def write(path: Path, entries: Sequence[Entry]) -> None:
    """Write the entries as a baseline file (atomically); BaselineError when it cannot be written."""
    document = tomlkit.document()
    for line in HEADER.splitlines():
        document.add(tomlkit.comment(line))
    if entries:  # an empty array of tables would be written as `accepted = []` above the comments
        accepted = tomlkit.aot()
        for entry in entries:
            accepted.append(tomlkit.item(entry.model_dump(exclude_none=True)))
        document["accepted"] = accepted
    try:
        write_atomically(path, tomlkit.dumps(document).encode())
    except OSError as exc:
        raise BaselineError(f"Cannot write the baseline {path}: {exc.strerror or exc}.") from exc


def label(entry: Entry) -> str:
    return f"{entry.check_id}{f' (until {entry.until})' if entry.until else ''}"
