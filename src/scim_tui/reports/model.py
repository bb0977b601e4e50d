"""A finished run as one value: what was checked, when, and every result.

``RunReport.to_dict``/``from_dict`` is the one serialization of a run: the JSON
report and the run history both use it.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from datetime import datetime
from typing import Any

from pydantic import BaseModel

from scim_tui import __version__
from scim_tui.checker import CheckResult
from scim_tui.checker import Exchange
from scim_tui.checker import Status
from scim_tui.checker.exchanges import Redactor
from scim_tui.checker.exchanges import printable_data
from scim_tui.checker.registry import verdict_names
from scim_tui.checker.results import ResultKey
from scim_tui.checker.results import result_keys
from scim_tui.reports.saved import SavedReport
from scim_tui.reports.saved import SavedResult
from scim_tui.reports.saved import saved_report
from scim_tui.reports.saved import saved_result
from scim_tui.reports.summary import counts
from scim_tui.reports.summary import summary_line
from scim_tui.selection import Selection

SCHEMA_VERSION = 1
"""Bumped whenever a field of the serialized report changes meaning or disappears."""


@dataclass
class RunReport:
    """One run of the checks against one target."""

    target: str
    """The base URL checked, without credentials."""
    started_at: datetime
    """When the run started, in UTC."""
    duration: float
    """Seconds the run took."""
    results: list[CheckResult] = field(default_factory=list)
    profile: str | None = None
    selection: Selection = field(default_factory=Selection)
    tool_version: str = __version__
    schema_version: int = SCHEMA_VERSION
    closing_leftovers: list[str] = field(default_factory=list)
    """What the run's own clean-up could not delete (or may remain) when the run was closed
    early: no result was left to name them on."""
    accepted: dict[ResultKey, str] = field(default_factory=dict)
    """The failing results a baseline accepts, by their key (check and place among its results),
    with the baseline's note on each ("" when it has none)."""
    exchanges: list[Exchange] = field(default_factory=list)
    """Every exchange of the run, when it was kept (iter_checks' `exchanges`): the probe before the
    run, discovery, the checks', the resources they share, clean-up. A report read back holds
    those no result carries."""

    @classmethod
    def create(
        cls,
        results: Iterable[CheckResult],
        *,
        target: str,
        started_at: datetime,
        duration: float,
        profile: str | None = None,
        selection: Selection | None = None,
        secrets: Iterable[str] = (),
        closing_leftovers: Iterable[str] = (),
        exchanges: Iterable[Exchange] = (),
    ) -> RunReport:
        """A report of a run, with the known secrets taken out of the target and the leftovers.

        The results are taken as they are: the run redacted each as it came (run.py, `redacted`),
        as the engine redacted the exchanges as they were made.
        """
        redactor = Redactor(secrets)
        return cls(
            target=redactor.url(target),
            started_at=started_at,
            duration=duration,
            results=list(results),
            profile=profile,
            selection=selection or Selection(),
            closing_leftovers=[redactor.text(item) or "" for item in closing_leftovers],
            exchanges=list(exchanges),
        )

    def counts(self) -> dict[Status, int]:
        """How many results have each status, for every status, in Status order."""
        return counts(self.results)

    @property
    def leftovers(self) -> list[str]:
        """Resources the run created and could not delete (or that may remain), each named once."""
        return list(dict.fromkeys([*(item for result in self.results for item in result.leftovers), *self.closing_leftovers]))

    @property
    def readiness(self) -> list[CheckResult]:
        """The verdicts given on the other results (each identity provider's READY or NOT READY), when given."""
        names = verdict_names()
        return [result for result in self.results if result.title in names and result.status is not Status.SKIPPED]

    def at_or_above(self, threshold: Status) -> list[CheckResult]:
        """The results whose status is as bad as ``threshold`` or worse (SKIPPED never is), but
        those a baseline accepts."""
        return [r for key, r in self.keyed() if key not in self.accepted and r.status is not Status.SKIPPED and r.status >= threshold]

    def keyed(self) -> list[tuple[ResultKey, CheckResult]]:
        """Each result with its key, in order."""
        return list(zip(result_keys(self.results), self.results, strict=True))

    def acceptance(self, key: ResultKey) -> str | None:
        """How a result is marked when a baseline accepts it ("accepted: its note"); None when not."""
        if key not in self.accepted:
            return None
        return f"accepted: {self.accepted[key]}" if self.accepted[key] else "accepted"

    def every_exchange(self) -> list[tuple[Exchange, CheckResult | None]]:
        """Each exchange of the run once, in the order the requests were sent, with the first
        result that carries it (None for those no result carries)."""
        carried: dict[int, tuple[Exchange, CheckResult | None]] = {}
        for result in self.results:
            for exchange in result.exchanges:
                carried.setdefault(id(exchange), (exchange, result))
        every = {id(exchange): (exchange, None) for exchange in self.exchanges} | carried
        return sorted(every.values(), key=lambda pair: pair[0].started or self.started_at)

    def summary_line(self, style: Callable[[str, Status], str] | None = None) -> str:
        """One line such as ``140 checks · 138 SUCCESS · 2 ERROR``; ``style`` may decorate each count."""
        return summary_line(self.results, style)  # type: ignore[arg-type]

    def to_dict(self, every_exchange: bool = False) -> dict[str, Any]:
        """The report as JSON values. Each result carries its exchanges when it is not a SUCCESS, or
        with `every_exchange` (a SUCCESS's are counted in `exchanges_left_out` instead); the HAR
        holds every one."""
        return {
            "schema_version": self.schema_version,
            "tool": {"name": "scim-tui", "version": self.tool_version},
            "target": self.target,
            "profile": self.profile,
            "started_at": self.started_at.isoformat(),
            "duration": round(self.duration, 3),
            "selection": self.selection.model_dump(mode="json"),
            "counts": {status.name: count for status, count in self.counts().items()},
            "leftovers": self.leftovers,
            "readiness": [{"check_id": str(r.check_id), "status": r.status.name, "reason": r.reason} for r in self.readiness],
            "results": [self._result_dict(key, result, every_exchange or result.status is not Status.SUCCESS) for key, result in self.keyed()],
            "run_exchanges": [exchange.to_dict() for exchange, result in self.every_exchange() if result is None],
        }

    def _result_dict(self, key: ResultKey, result: CheckResult, exchanges: bool) -> dict[str, Any]:
        data = result_to_dict(result, exchanges)
        if key in self.accepted:
            data["accepted"] = self.accepted[key]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunReport:
        """The report a ``to_dict`` made; ValueError, naming the first bad field, when it is not one."""
        return cls._from_saved(saved_report(data, SCHEMA_VERSION))

    @classmethod
    def from_json(cls, content: bytes) -> RunReport:
        """The report a ``to_json`` (or the JSON report) wrote; ValueError when it is not one."""
        return cls._from_saved(saved_report(content, SCHEMA_VERSION))

    @classmethod
    def _from_saved(cls, saved: SavedReport) -> RunReport:
        results = [_result_from_saved(result) for result in saved.results]
        named = {item for result in results for item in result.leftovers}
        return cls(
            target=saved.target,
            started_at=saved.started_at,
            duration=saved.duration,
            results=results,
            profile=saved.profile,
            selection=saved.selection,
            tool_version=saved.tool.version,
            closing_leftovers=[item for item in saved.leftovers if item not in named],
            exchanges=[Exchange.from_dict(exchange.model_dump()) for exchange in saved.run_exchanges],
        )


def result_to_dict(result: CheckResult, exchanges: bool = True) -> dict[str, Any]:
    """A result as JSON values; without `exchanges`, its exchanges are counted, not written."""
    kept = result.exchanges if exchanges else []
    return {
        "check_id": str(result.check_id),
        "title": result.title,
        "resource_type": result.resource_type,
        "status": result.status.name,
        "reason": result.reason,
        "description": result.description,
        "section": result.section,
        "rfc": result.rfc,
        "tags": sorted(result.tags),
        "leftovers": list(result.leftovers),
        "cause": result.cause,
        "skip_cause": result.skip_cause.value if result.skip_cause else None,
        "data": jsonable(result.data),
        "exchanges": [exchange.to_dict() for exchange in kept],
        "exchanges_left_out": result.exchanges_left_out + len(result.exchanges) - len(kept),
    }


def result_from_dict(data: Mapping[str, Any]) -> CheckResult:
    """A result a ``result_to_dict`` made; ValueError, naming the first bad field, when it is not one."""
    return _result_from_saved(saved_result(data))


def _result_from_saved(saved: SavedResult) -> CheckResult:
    return CheckResult(
        status=Status[saved.status],
        title=saved.title,
        description=saved.description,
        reason=saved.reason,
        data=saved.data,
        tags=set(saved.tags),
        resource_type=saved.resource_type,
        exchanges=[Exchange.from_dict(exchange.model_dump()) for exchange in saved.exchanges],
        section=saved.section,
        rfc=saved.rfc,
        leftovers=list(saved.leftovers),
        cause=saved.cause,
        skip_cause=saved.skip_cause,
        exchanges_left_out=saved.exchanges_left_out,
    )


def jsonable(data: Any) -> Any:
    """A result's data as JSON values: models as SCIM JSON, anything unknown as its text."""
    if isinstance(data, BaseModel):
        return data.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(data, Mapping):
        return {str(key): jsonable(value) for key, value in data.items()}
    if isinstance(data, (list, tuple, set, frozenset)):
        return [jsonable(item) for item in data]
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    return str(data)


def redacted(result: CheckResult, redactor: Redactor) -> CheckResult:
    """A copy of a result as a run keeps it: its data as JSON values, every string of it printable
    (the server's: exchanges.printable), and the known secrets taken out of its reason, its data
    and its leftovers (its exchanges already are). The one redaction of a result, as it comes."""
    data = _redact_values(printable_data(jsonable(result.data)), redactor)
    return replace(result, reason=redactor.text(result.reason), data=data, leftovers=[redactor.text(item) or "" for item in result.leftovers])


def _redact_values(value: Any, redactor: Redactor) -> Any:
    if isinstance(value, str):
        return redactor.text(value)
    if isinstance(value, dict):
        return {redactor.text(key): _redact_values(item, redactor) for key, item in value.items()}
    if isinstance(value, list):
        return [_redact_values(item, redactor) for item in value]
    return value
