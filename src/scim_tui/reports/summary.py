"""What a run gave, in short: when, and each result's check and status.

A run of thousands of results weighs tens of megabytes whole; telling what changed since the
previous run, or showing the last run of a profile, needs only this. The run history stores it
apart (history.py), so that those never unpack the whole report.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import field
from datetime import datetime
from typing import TYPE_CHECKING
from typing import Annotated
from typing import Literal
from typing import Protocol

from pydantic import AfterValidator
from pydantic import AwareDatetime
from pydantic import BaseModel
from pydantic import ConfigDict
from pydantic import Field
from pydantic import ValidationError

from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.reports.saved import StatusName
from scim_tui.reports.saved import in_this_era

if TYPE_CHECKING:
    from scim_tui.reports.model import RunReport

SUMMARY_VERSION = 1


@dataclass(frozen=True)
class Outcome:
    """One result, in short."""

    check_id: CheckId
    status: Status

    @property
    def deselected(self) -> bool:
        """Never: a summary keeps only the checks the run's selection chose (RunSummary.of)."""
        return False


class Judged(Protocol):
    """What a count needs of a result: a run's CheckResult and a saved Outcome alike."""

    @property
    def check_id(self) -> CheckId: ...
    @property
    def status(self) -> Status: ...
    @property
    def deselected(self) -> bool: ...


def counted(results: Iterable[Judged]) -> list[Judged]:
    """The results every count counts: not a suite's summary (it restates its suite's), nor a
    check the selection left out (a saved summary keeps no reason: its outcomes are all counted)."""
    return [result for result in results if not result.check_id.is_summary and not result.deselected]


def counts(results: Iterable[Judged]) -> dict[Status, int]:
    """How many results have each status, for every status, in Status order (summaries aside)."""
    found = dict.fromkeys(Status, 0)
    for result in counted(results):
        found[result.status] += 1
    return found


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def size_of(results: Iterable[Judged]) -> str:
    """``78 checks · 286 results``: a check may give several results (one per attribute...)."""
    shown = counted(results)
    return size_line(len({result.check_id for result in shown}), len(shown))


def size_line(checks: int, results: int) -> str:
    """``78 checks · 286 results``."""
    return f"{plural(checks, 'check')} · {plural(results, 'result')}"


def summary_line(results: list[Outcome], style: Callable[[str, Status], str] | None = None) -> str:
    """One line such as ``78 checks · 140 results · 138 SUCCESS · 2 ERROR``; ``style`` may decorate each count."""
    decorate = style or (lambda text, _status: text)
    shown = [decorate(f"{count} {status.name}", status) for status, count in counts(results).items() if count]
    return " · ".join([size_of(results), *shown])


class _Saved(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)

    scim_tui_summary: Literal[1]
    started_at: Annotated[AwareDatetime, AfterValidator(in_this_era)] = Field(strict=False)
    duration: float = Field(ge=0, le=10**9, allow_inf_nan=False)
    results: list[tuple[str | None, str, StatusName]]


@dataclass
class RunSummary:
    """A run's start, length and each result's check and status."""

    started_at: datetime
    duration: float
    results: list[Outcome] = field(default_factory=list)

    @classmethod
    def of(cls, report: RunReport) -> RunSummary:
        return cls(report.started_at, report.duration, [Outcome(result.check_id, result.status) for result in report.results if not result.deselected])

    def to_json(self) -> bytes:
        """One line of JSON, ending with a line break."""
        results = [[outcome.check_id.resource_type, outcome.check_id.checker, outcome.status.name] for outcome in self.results]
        data = {"scim_tui_summary": SUMMARY_VERSION, "started_at": self.started_at.isoformat(), "duration": round(self.duration, 3), "results": results}
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"

    @classmethod
    def from_json(cls, content: bytes) -> RunSummary:
        """The summary a ``to_json`` wrote; ValueError naming the first bad field when it is not one."""
        try:
            saved = _Saved.model_validate_json(content)
        except ValidationError as exc:
            first = exc.errors()[0]
            raise ValueError(f"its summary's {'.'.join(str(part) for part in first['loc'])}: {first['msg']}") from None
        outcomes = [Outcome(CheckId(checker, resource_type), Status[status]) for resource_type, checker, status in saved.results]
        return cls(saved.started_at, saved.duration, outcomes)

    def summary_line(self) -> str:
        return summary_line(self.results)
