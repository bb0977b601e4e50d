"""The JSON report's one definition: every field it has, and what a saved report must be to be
read back, checked all at once when it is read.

A report read from disk (the run history, a JSON report) may have been cut short, edited or
corrupted. Every field is checked here, with its type, its range and a nesting limit, so a bad
file fails where it is read, with one ValueError naming the first bad field, and never later
in a comparison or on screen. The fields the writer derives (`counts`, `readiness`, a result's
`check_id`) are declared too, and ignored on reading. `json_schema()` is the report's JSON
Schema, kept in report.schema.json by `scripts/report_schema.py` (a test holds it current).
"""

from __future__ import annotations

import ast
import inspect
import itertools
import textwrap
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING
from typing import Annotated
from typing import Any
from typing import Literal
from typing import TypeVar
from typing import cast

from pydantic import AfterValidator
from pydantic import AwareDatetime
from pydantic import BaseModel
from pydantic import ConfigDict
from pydantic import Field
from pydantic import JsonValue
from pydantic import ValidationError
from pydantic.json_schema import GenerateJsonSchema
from pydantic.json_schema import JsonSchemaValue
from pydantic_core.core_schema import ModelSchema

from scim_tui.checker import Status
from scim_tui.checker.exchanges import Role
from scim_tui.checker.results import SkipCause
from scim_tui.selection import Selection

Saved = TypeVar("Saved", bound=BaseModel)
Seconds = Annotated[float, Field(ge=0, le=10**9, allow_inf_nan=False)]
if TYPE_CHECKING:
    StatusName = str
else:
    StatusName = Literal[tuple(status.name for status in Status)]  # a status's name, as the JSON Schema lists them


def in_this_era(moment: datetime) -> datetime:
    """Far-off years cannot be shown in local time (astimezone overflows), and no run was made then."""
    if not 2000 <= moment.year <= 9000:
        raise ValueError("is not a date of this era")
    return moment


class _Saved(BaseModel):
    # The fields' docstrings describe them in the JSON Schema (json_schema), read when it is made:
    # pydantic's use_attribute_docstrings looks for each class's source as the module loads, which
    # doubled the time this module takes to load, on the way to the app's first screen.
    model_config = ConfigDict(extra="ignore", strict=True)


class SavedExchange(_Saved):
    """One HTTP request and its response, secrets replaced by ***."""

    method: str
    url: str
    request_headers: dict[str, str] = Field(default_factory=dict)
    request_body: str | None = None
    status_code: int | None = Field(default=None, ge=100, le=999)
    """Null when no response came (see error)."""
    response_headers: dict[str, str] = Field(default_factory=dict)
    response_body: str | None = None
    """Cut after 256 KiB."""
    elapsed: Seconds = 0.0
    """Seconds from sending the request to reading the whole response."""
    error: str | None = None
    """Why no response came, when none did."""
    note: str | None = None
    """What the client did beyond sending the request once (sent it again on a new connection ...), or why the run sent it for itself."""
    started: Annotated[AwareDatetime, AfterValidator(in_this_era)] | None = Field(default=None, strict=False)
    """When the request was sent, ISO 8601 in UTC."""
    role: Role = Field(default=Role.JUDGED, strict=False)
    """What the request was for: judged by the check, or sent by the run for itself (a creation, a proof, a clean-up)."""
    subject: str | None = None
    """The resource type the run sent it for, when it was not judged."""
    resent: bool = False
    """True when the server answered it busy (429, 503) and the request was sent again: a later exchange holds the answer. Optional: older reports lack it."""


class SavedResult(_Saved):
    """One outcome of one check; a check may give several."""

    check_id: str | None = None
    """The check: its checker, prefixed by 'ResourceType/' for resource type checks. Stable across runs (written; read from title and resource_type)."""
    status: StatusName
    title: str | None = None
    """The checker's name."""
    description: str | None = None
    """What the check verifies."""
    reason: str | None = None
    """One sentence on what was seen."""
    data: JsonValue = None
    """The response object examined, as SCIM JSON, when there is one (any JSON value)."""
    tags: list[str] = Field(default_factory=list)
    resource_type: str | None = None
    exchanges: list[SavedExchange] = Field(default_factory=list)
    section: str | None = None
    """The section verified, such as '3.3', in the RFC named by rfc."""
    rfc: int = Field(default=7644, ge=1, le=99999)
    """The RFC of the section: 7644 (protocol), 7643 (schema), 9110 (HTTP), 9865 (cursor pagination) or 9967 (Security Event Tokens)."""
    leftovers: list[str] = Field(default_factory=list)
    """What this check created and could not delete."""
    cause: str | None = None
    """The request failing as a whole this result follows from, when others follow from it too: the same text on each. Optional: older reports lack it."""
    accepted: str | None = None
    """Present when a baseline (`--baseline`) accepts this failure: the baseline's note on it, possibly empty (written only)."""
    skip_cause: SkipCause | None = Field(default=None, strict=False)
    """Why a SKIPPED result did not run, when the engine knows it (deselected, prerequisite, not claimed, ...). Optional: older reports lack it."""
    exchanges_left_out: int = Field(default=0, ge=0)
    """How many exchanges of this result the report left out: a SUCCESS's, unless asked for every
    exchange (`--every-exchange`); the HAR holds them. Optional: older reports lack it."""


class SavedTool(_Saved):
    """What ran the checks."""

    name: Literal["scim-tui"] = "scim-tui"
    version: str
    """The scim-tui version that ran the checks."""


class SavedVerdict(_Saved):
    """An identity provider's readiness verdict, as its result gave it."""

    check_id: str
    status: StatusName
    reason: str | None = None


class SavedReport(_Saved):
    """One run of the scim-tui compliance checks against one SCIM server: `scim-tui check --format json`, and the run history."""

    schema_version: int
    """Bumped when a field changes meaning or disappears; new optional fields do not bump it."""
    tool: SavedTool
    target: str
    """The base URL of the SCIM endpoints, with any credentials replaced by ***."""
    profile: str | None = None
    """The profile the run was made from; null for a run on a bare --url."""
    started_at: Annotated[AwareDatetime, AfterValidator(in_this_era)] = Field(strict=False)
    """When the run started, ISO 8601 in UTC."""
    duration: Seconds
    """Seconds the run took."""
    selection: Selection = Field(default_factory=Selection)
    """The filters of the run; empty lists mean no filter."""
    counts: dict[StatusName, Annotated[int, Field(ge=0)]] = Field(default_factory=dict)
    """How many results have each status, every status present (written; counted again on reading)."""
    leftovers: list[str] = Field(default_factory=list)
    """Resources the run created and could not delete, as ResourceType/id."""
    readiness: list[SavedVerdict] = Field(default_factory=list)
    """Each identity provider's readiness verdict given in the run; also among the results (written only)."""
    results: list[SavedResult]
    run_exchanges: list[SavedExchange] = Field(default_factory=list)
    """The requests of the run that no result carries: the probe before the run, discovery, the resources the checks share, clean-up."""


class _Described(GenerateJsonSchema):
    """Each field of a model described by its docstring, as pydantic's use_attribute_docstrings would."""

    def model_schema(self, schema: ModelSchema) -> JsonSchemaValue:
        json_schema = super().model_schema(schema)
        for name, text in attribute_docstrings(schema["cls"]).items():
            json_schema["properties"][name].setdefault("description", text)
        return json_schema


def attribute_docstrings(cls: type) -> dict[str, str]:
    """The docstring written under each annotated attribute of a class, by the attribute's name."""
    body = cast(ast.ClassDef, ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0]).body
    return {
        field.target.id: inspect.cleandoc(docstring.value.value)
        for field, docstring in itertools.pairwise(body)
        if isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name)
        if isinstance(docstring, ast.Expr) and isinstance(docstring.value, ast.Constant) and isinstance(docstring.value.value, str)
    }


def json_schema() -> dict[str, Any]:
    """The JSON report's JSON Schema (draft 2020-12), made from the models: a report holds no field they do not declare."""
    schema = SavedReport.model_json_schema(mode="serialization", schema_generator=_Described)
    for model in [schema, *schema.get("$defs", {}).values()]:
        if "properties" in model:
            model["additionalProperties"] = False
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://github.com/scim-tui/scim-tui/report.schema.json"} | schema


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
