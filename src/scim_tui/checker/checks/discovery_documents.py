"""Strict checks of the discovery documents, read as raw JSON (RFC 7643 §5, §6, §7).

scim2-models fills in or forgives what a server leaves out, so these checks read the
JSON the server sent: every attribute the RFC marks REQUIRED is there with its JSON
type, the optional ones present have theirs, and ``meta.location`` names the URL the
document is served at (locations.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from scim_tui.checker.answers import body_kind
from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import member
from scim_tui.checker.answers import shown
from scim_tui.checker.checks.probes import results_of
from scim_tui.checker.context import CheckContext
from scim_tui.checker.discovery import relative_endpoint
from scim_tui.checker.exchanges import failure_reason
from scim_tui.checker.listings import fetch_listing
from scim_tui.checker.locations import located
from scim_tui.checker.recorder import base_url_of
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "boolean": (bool,),
    "integer": (int,),
    "object": (dict,),
    "array": (list,),
}


@dataclass(frozen=True)
class Field:
    """An attribute of a discovery document: its JSON type, whether the RFC marks it REQUIRED,
    the keywords it may hold, and the attributes of the object(s) it holds."""

    name: str
    kind: str
    required: bool = True
    keywords: tuple[str, ...] = ()
    children: tuple[Field, ...] = ()


def _optional(name: str, kind: str, *keywords: str) -> Field:
    return Field(name, kind, required=False, keywords=keywords)


def _feature(name: str, *limits: str) -> Field:
    """A feature of the ServiceProviderConfig: REQUIRED, with REQUIRED "supported" and limits."""
    return Field(name, "object", children=(Field("supported", "boolean"), *(Field(limit, "integer") for limit in limits)))


SCHEMAS = Field("schemas", "array")
"""RFC 7643 §3: every resource carries "schemas", REQUIRED."""

SERVICE_PROVIDER_CONFIG = (
    SCHEMAS,
    _optional("documentationUri", "string"),
    _feature("patch"),
    _feature("bulk", "maxOperations", "maxPayloadSize"),
    _feature("filter", "maxResults"),
    _feature("changePassword"),
    _feature("sort"),
    _feature("etag"),
    Field(
        "authenticationSchemes",
        "array",
        children=(
            Field("type", "string"),
            Field("name", "string"),
            Field("description", "string"),
            _optional("specUri", "string"),
            _optional("documentationUri", "string"),
        ),
    ),
)
"""RFC 7643 §5: what a ServiceProviderConfig holds."""

RESOURCE_TYPE = (
    SCHEMAS,
    _optional("id", "string"),
    Field("name", "string"),
    _optional("description", "string"),
    Field("endpoint", "string"),
    Field("schema", "string"),
    Field("schemaExtensions", "array", required=False, children=(Field("schema", "string"), Field("required", "boolean"))),
)
"""RFC 7643 §6: what a ResourceType holds (schemaExtensions is OPTIONAL, its sub-attributes REQUIRED)."""

ATTRIBUTE_TYPES = ("string", "boolean", "decimal", "integer", "dateTime", "reference", "binary", "complex")

SUB_ATTRIBUTE = (
    Field("name", "string"),
    Field("type", "string", keywords=ATTRIBUTE_TYPES),
    Field("multiValued", "boolean"),
    _optional("description", "string"),
    _optional("required", "boolean"),
    _optional("canonicalValues", "array"),
    _optional("caseExact", "boolean"),
    _optional("mutability", "string", "readOnly", "readWrite", "immutable", "writeOnly"),
    _optional("returned", "string", "always", "never", "default", "request"),
    _optional("uniqueness", "string", "none", "server", "global"),
    _optional("referenceTypes", "array"),
)
"""RFC 7643 §7, as its §8.7.1 representation marks them: name, type and multiValued REQUIRED."""

SCHEMA = (
    SCHEMAS,
    Field("id", "string"),
    _optional("name", "string"),
    _optional("description", "string"),
    # RFC 7643 §2.3.8: sub-attributes are never complex, so one level of subAttributes is all.
    Field("attributes", "array", children=(*SUB_ATTRIBUTE, Field("subAttributes", "array", required=False, children=SUB_ATTRIBUTE))),
)
"""RFC 7643 §7: what a Schema holds (id and attributes REQUIRED, §8.7.1)."""


def field_problems(data: dict[str, Any], fields: tuple[Field, ...], where: str = "") -> list[str]:
    """What breaks the fields in a JSON object: a REQUIRED one missing, a wrong JSON type,
    an unknown keyword. Attribute names are compared without case (RFC 7643 §2.1)."""
    problems = []
    keys = {key.lower(): key for key in data}
    for field in fields:
        name = f"{where}{field.name}"
        key = keys.get(field.name.lower())
        value = data[key] if key is not None else None
        if value is None:
            if field.required:
                problems.append(f"{name} is missing, though REQUIRED")
            continue
        problems.extend(_value_problems(value, field, name))
    return problems


def _value_problems(value: Any, field: Field, name: str) -> list[str]:
    if not _is_kind(value, field.kind):
        return [f"{name} is {_kind_of(value)}, not {_article(field.kind)}"]
    if field.keywords and value not in field.keywords:
        return [f"{name} is {shown(value)}, not one of {', '.join(field.keywords)}"]
    if not field.children:
        return []
    if isinstance(value, dict):
        return field_problems(value, field.children, f"{name}.")
    problems = []
    for index, item in enumerate(value):
        if not isinstance(item, dict):
            problems.append(f"{name}[{index}] is {_kind_of(item)}, not an object")
        else:
            problems.extend(field_problems(item, field.children, f"{name}[{index}]."))
    return problems


def _is_kind(value: Any, kind: str) -> bool:
    # bool is an int in Python, never a JSON integer
    return isinstance(value, JSON_TYPES[kind]) and not (kind == "integer" and isinstance(value, bool))


def _kind_of(value: Any) -> str:
    return next(
        (_article(kind) for kind in ("boolean", "integer", "string", "object", "array") if _is_kind(value, kind)),
        "a number" if isinstance(value, float) else "null",
    )


def _article(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def _fetch(context: CheckContext, endpoint: str) -> tuple[Any, str, CheckResult | None]:
    """GET an endpoint: its JSON body and URL, or an ERROR result when it is not a JSON object.

    The URL is the one the exchange recorded: every client engine has one, not every
    engine's response tells its URL.
    """
    mark = len(context.exchanges)
    response = context.client.request("GET", endpoint)
    url = context.exchanges[-1].url if len(context.exchanges) > mark else str(getattr(response, "url", endpoint))
    payload = body_of(response)
    if response.status_code != 200 or not isinstance(payload, dict):
        what = body_kind(response.text) if isinstance(payload, str) or payload is None else _kind_of(payload)
        reason = f"GET {context.root_path(endpoint)} answered {response.status_code} with {what} instead of 200 with a JSON object."
        return payload, url, CheckResult(Status.ERROR, reason=reason, data=payload)
    return payload, url, None


def _judged(label: str, section: str, data: dict[str, Any], fields: tuple[Field, ...], more: list[str], notes: list[str]) -> CheckResult:
    problems = field_problems(data, fields) + more
    if problems:
        return CheckResult(Status.ERROR, reason=f"{label} breaks RFC 7643 §{section}: {'; '.join(problems)}.", data=data)
    noted = "".join(f" {note[0].upper()}{note[1:]}." for note in notes)
    return CheckResult(Status.SUCCESS, reason=f"{label} holds every attribute RFC 7643 §{section} marks REQUIRED, each of its JSON type.{noted}", data=data)


Rule = Callable[[CheckContext, dict[str, Any]], str | None]
"""A rule of a document beyond its fields: what breaks it, or None."""


def _listed(
    context: CheckContext, endpoint: str, kind: str, section: str, fields: tuple[Field, ...], id_keys: tuple[str, ...], more: Rule | None = None
) -> list[CheckResult]:
    """One result per resource a discovery list holds, judged against `fields` (and `more`, a
    rule of its own); each is served at the list's URL followed by the value of one of `id_keys`.
    The list's own form is query_all_*'s to judge: here, whatever holds the documents is read."""
    mark = len(context.exchanges)
    try:
        resources = fetch_listing(context, endpoint).items
    except ValueError as exc:
        return [CheckResult(Status.ERROR, reason=f"{failure_reason(exc, context.exchanges[mark:])}.")]
    url = context.exchanges[mark].url if len(context.exchanges) > mark else endpoint
    if not resources:
        return [CheckResult(Status.SKIPPED, reason=f"GET {context.root_path(endpoint)} listed no {kind} to check.")]
    results = []
    for index, item in enumerate(resources):
        ids = [str(item[key]) for key in id_keys if isinstance(item.get(key), str) and item[key]]
        served_at = [f"{url.split('?')[0].rstrip('/')}/{value}" for value in ids] or [url]
        location = located(context, item, *served_at)
        problems = [problem for problem in (location.problem and _rule_of_3_1(location.problem), more(context, item) if more else None) if problem]
        results.append(_judged(f"{kind} {ids[0] if ids else f'#{index + 1}'}", section, item, fields, problems, [location.note] if location.note else []))
    return results


def _rule_of_3_1(problem: str) -> str:
    """A meta.location problem, in a reason that names another section: its own is RFC 7643 §3.1."""
    return f"{problem} (§3.1)"


def _endpoint_problem(context: CheckContext, resource_type: dict[str, Any]) -> str | None:
    """RFC 7643 §6: endpoint is "relative to the Base URL" (/Users), not a full path or a URL."""
    endpoint = member(resource_type, "endpoint")
    base = base_url_of(context.client)
    base_path, parts = urlsplit(base).path.rstrip("/"), urlsplit(endpoint) if isinstance(endpoint, str) else None
    if parts is None or not (parts.scheme or parts.netloc or (base_path and parts.path.startswith(f"{base_path}/"))):
        return None
    relative = relative_endpoint(endpoint, base)
    uses = f"the run uses {relative}" if relative else "it leaves the base URL, so the run cannot check this resource type"
    return f'endpoint {endpoint} is not relative to the base URL, as §6 has it ("/Users"): {uses}'


@checker("discovery", "discovery:strict", section="5", rfc=7643)
def service_provider_config_document(context: CheckContext) -> list[CheckResult]:
    """The ServiceProviderConfig holds every attribute RFC 7643 §5 marks REQUIRED.

    Reads GET /ServiceProviderConfig as raw JSON. SUCCESS when "schemas", patch,
    bulk, filter, changePassword, sort, etag (each with "supported", bulk with
    maxOperations and maxPayloadSize, filter with maxResults) and
    authenticationSchemes (each with type, name and description) are there with
    their JSON types, the optional attributes present have theirs, and
    meta.location, when given, names /ServiceProviderConfig or another URL of the
    same origin that serves the same document (RFC 7643 §3.1; another path on
    another origin cannot be checked from here, and is not judged).
    ERROR otherwise, naming each attribute missing or of the wrong type.
    """
    mark = len(context.exchanges)
    payload, url, failure = _fetch(context, "/ServiceProviderConfig")
    if failure:
        return results_of(context, mark, [failure])
    location = located(context, payload, url)
    result = _judged(
        "The ServiceProviderConfig",
        "5",
        payload,
        SERVICE_PROVIDER_CONFIG,
        [_rule_of_3_1(location.problem)] if location.problem else [],
        [location.note] if location.note else [],
    )
    return results_of(context, mark, [result])


@checker("discovery", "discovery:strict", section="6", rfc=7643)
def resource_type_documents(context: CheckContext) -> list[CheckResult]:
    """Each ResourceType holds every attribute RFC 7643 §6 marks REQUIRED.

    Reads GET /ResourceTypes as raw JSON; one result per resource type. SUCCESS
    when "schemas", name, endpoint and schema are strings (schemas a list), each
    schemaExtensions item has its schema and required, the optional attributes
    present have their JSON types, the endpoint is relative to the base URL
    ("/Users", not a full path or a URL), and meta.location, when given, names
    /ResourceTypes/{id} or a URL that serves the same document (RFC 7643 §3.1; another
    path on another origin is not judged). ERROR otherwise, naming each problem.
    SKIPPED when the list holds no resource type.
    """
    mark = len(context.exchanges)
    return results_of(context, mark, _listed(context, "/ResourceTypes", "ResourceType", "6", RESOURCE_TYPE, ("id", "name"), _endpoint_problem))


@checker("discovery", "discovery:strict", section="7", rfc=7643)
def schema_documents(context: CheckContext) -> list[CheckResult]:
    """Each Schema holds every attribute RFC 7643 §7 marks REQUIRED.

    Reads GET /Schemas as raw JSON; one result per schema. SUCCESS when "schemas",
    id and attributes are there, each attribute and sub-attribute has its name,
    type (one of the types of RFC 7643 §2.3) and multiValued (REQUIRED in the
    §8.7.1 representation), the optional characteristics present have their JSON
    types and keywords, and meta.location, when given, names /Schemas/{id} or a
    URL that serves the same document (RFC 7643 §3.1; another path on another
    origin is not judged). ERROR otherwise, naming each problem. SKIPPED when the list
    holds no schema.
    """
    mark = len(context.exchanges)
    return results_of(context, mark, _listed(context, "/Schemas", "Schema", "7", SCHEMA, ("id",)))
