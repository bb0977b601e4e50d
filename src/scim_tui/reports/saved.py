"""What a saved report must be to be read back, checked all at once when it is read.

A report read from disk (the run history, a JSON report) may have been cut short, edited or
corrupted. Every field is checked here, with its type, its range and a nesting limit, so a bad
file fails where it is read, with one ValueError naming the first bad field, and never later
in a comparison or on screen.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Annotated
from typing import Any
from typing import Literal
from typing import TypeVar

from pydantic import AfterValidator
from pydantic import AwareDatetime
from pydantic import BaseModel
from pydantic import ConfigDict
from pydantic import Field
from pydantic import JsonValue
from pydantic import ValidationError

from scim_tui.checker import Status
from scim_tui.checker.exchanges import Role
from scim_tui.selection import Selection

Saved = TypeVar("Saved", bound=BaseModel)
Seconds = Annotated[float, Field(ge=0, le=10**9, allow_inf_nan=False)]
StatusName = Literal[tuple(status.name for status in Status)]  # type: ignore[valid-type]


def in_this_era(moment: datetime) -> datetime:
    """Far-off years cannot be shown in local time (astimezone overflows), and no run was made then."""
    if not 2000 <= moment.year <= 9000:
        raise ValueError("is not a date of this era")
    return moment


class _Saved(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)


class SavedExchange(_Saved):
    method: str
    url: str
    request_headers: dict[str, str] = Field(default_factory=dict)
    request_body: str | None = None
    status_code: int | None = Field(default=None, ge=100, le=999)
    response_headers: dict[str, str] = Field(default_factory=dict)
    response_body: str | None = None
    elapsed: Seconds = 0.0
    error: str | None = None
    note: str | None = None
    started: Annotated[AwareDatetime, AfterValidator(in_this_era)] | None = Field(default=None, strict=False)
    role: Role = Field(default=Role.JUDGED, strict=False)
    subject: str | None = None


class SavedResult(_Saved):
    status: StatusName
    title: str | None = None
    description: str | None = None
    reason: str | None = None
    data: JsonValue = None
    tags: list[str] = Field(default_factory=list)
    resource_type: str | None = None
    exchanges: list[SavedExchange] = Field(default_factory=list)
    section: str | None = None
    rfc: int = Field(default=7644, ge=1, le=99999)
    leftovers: list[str] = Field(default_factory=list)
    cause: str | None = None


class SavedTool(_Saved):
    version: str


class SavedReport(_Saved):
    schema_version: int
    tool: SavedTool
    target: str
    profile: str | None = None
    started_at: Annotated[AwareDatetime, AfterValidator(in_this_era)] = Field(strict=False)
    duration: Seconds
    selection: Selection = Field(default_factory=Selection)
    results: list[SavedResult]
    leftovers: list[str] = Field(default_factory=list)
    run_exchanges: list[SavedExchange] = Field(default_factory=list)


def saved_report(data: Mapping[str, Any] | bytes, schema_version: int) -> SavedReport:
    """A report's fields, checked; ValueError (one line naming the first bad field) when one is wrong.

    ``data`` is a report's dict, or its JSON as bytes (parsed without Python's recursion, so
    no nesting depth can crash the reader).
    """
    saved = _checked(SavedReport, data)
    if saved.schema_version != schema_version:
        raise ValueError(f"unsupported schema_version {saved.schema_version}")
    return saved


def saved_result(data: Mapping[str, Any]) -> SavedResult:
    """One result's fields, checked; ValueError naming the first bad field."""
    return _checked(SavedResult, data)


def _checked(model: type[Saved], data: Mapping[str, Any] | bytes) -> Saved:
    try:
        return model.model_validate_json(data) if isinstance(data, bytes) else model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ValueError(f"{where}: {first['msg']}" if where else first["msg"]) from None
