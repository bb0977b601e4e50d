"""Describing the server under test from its discovery endpoints (SPEC.md §1 steps 1 and 2).

The run goes as far as the server lets it. Its documents are read leniently (listings.py: a list
without totalResults, a bare array, a single object), and what they lack is looked for:
- a schema the resource types reference but /Schemas does not list is read from /Schemas/{id};
- an extension served nowhere is left out (the run goes on with the core schema);
- an endpoint given as a full path or an absolute URL under the base URL is made relative;
- a resource type whose schema is served nowhere, or whose endpoint leaves the base URL, cannot
  be checked: its checks are SKIPPED saying why;
- an unreadable ServiceProviderConfig claims no optional feature.
The discovery checks report each of these once. Documents the user supplies (files, for a
server that does not serve them) stand in for what the server serves.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field
from typing import Any
from typing import Generic
from typing import TypeVar
from urllib.parse import quote
from urllib.parse import urlsplit

from pydantic import BaseModel
from pydantic import ValidationError
from scim2_client import ResponsePayloadValidationException
from scim2_models import Context
from scim2_models import ResourceType
from scim2_models import Schema
from scim2_models import ScimProvider
from scim2_models import ServiceProviderConfig

from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import member
from scim_tui.checker.answers import plain_validation
from scim_tui.checker.context import CheckContext
from scim_tui.checker.exchanges import Exchange
from scim_tui.checker.exchanges import describe_error
from scim_tui.checker.exchanges import failure_reason
from scim_tui.checker.limits import MAX_SCHEMA_READS
from scim_tui.checker.listings import Listing
from scim_tui.checker.listings import fetch_listing
from scim_tui.checker.listings import listing
from scim_tui.checker.recorder import base_url_of
from scim_tui.checker.recorder import recording
from scim_tui.checker.results import CheckConfig

DISCOVERY_QUERY: dict[str, Any] = {"expected_status_codes": [200], "raise_scim_errors": True}
Document = TypeVar("Document", bound=BaseModel)


@dataclass
class Published(Generic[Document]):
    """The documents a discovery list holds, and each way it breaks the RFCs (none when it does not)."""

    items: list[Document] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def documents(found: Listing, model: type[Document]) -> Published[Document]:
    """The valid documents of a listing; each invalid one is a problem, naming its first fault."""
    published: Published[Document] = Published(problems=list(found.problems))
    for index, item in enumerate(found.items):
        try:
            published.items.append(model.model_validate(item))
        except ValidationError as exc:
            published.problems.append(f"Resources[{index}] is not a valid {model.__name__} ({plain_validation(exc)})")
    return published


def read_resource_types(context: CheckContext) -> Published[ResourceType]:
    """GET /ResourceTypes, read leniently; the run reuses what the check read."""
    published = _published(context, "/ResourceTypes", ResourceType)
    context.discovery.resource_types = published.items
    return published


def read_schemas(context: CheckContext) -> Published[Schema]:
    """GET /Schemas, read leniently; the run reuses what the check read."""
    published = _published(context, "/Schemas", Schema)
    context.discovery.schemas = published.items
    return published


def _published(context: CheckContext, path: str, model: type[Document]) -> Published[Document]:
    """The documents of a discovery list, validated once in a run however many checks read them
    (CheckContext.once: each reader is given the exchanges of the GET that made them)."""
    return context.once(f"documents of {path}", lambda: documents(_listing(context, path), model))


def _listing(context: CheckContext, path: str) -> Listing:
    """GET a discovery list once in a run (CheckContext.once); one that could not be read is asked for again."""
    return context.once(f"GET {path}", lambda: fetch_listing(context, path))


def referenced(resource_types: list[ResourceType]) -> list[str]:
    """The schemas resource types reference, core and extensions, each once."""
    return list(dict.fromkeys(str(uri) for rt in resource_types for uri in [rt.schema_, *(ext.schema_ for ext in rt.schema_extensions or [])]))


def relative_endpoint(endpoint: str, base_url: str) -> str | None:
    """A resource type's endpoint relative to the base URL, as RFC 7643 §6 has it (``/Users``):
    given as a full path (``/scim/v2/Users``) or an absolute URL under the base URL, it is made
    so; None when it leaves the base URL."""
    parts, base = urlsplit(endpoint), urlsplit(base_url)
    base_path = base.path.rstrip("/")
    path = parts.path
    if parts.scheme or parts.netloc:
        if (parts.scheme.lower(), parts.netloc.lower()) != (base.scheme.lower(), base.netloc.lower()):
            return None
        if base_path and not (path == base_path or path.startswith(f"{base_path}/")):
            return None
        path = path[len(base_path) :]
    elif base_path and path.startswith(f"{base_path}/"):
        path = path[len(base_path) :]
    return f"/{path.strip('/')}" if path.strip("/") else None


def describe_server(context: CheckContext) -> str | None:
    """Register what the server publishes on the client, unless the client already describes it.

    What the discovery checks already read is reused. Returns why the server could not be
    described at all, or None; resource types that cannot be checked are noted in
    ``context.discovery.unusable``.
    """
    client = context.client
    discovery = context.discovery
    supplied = context.conf.documents or {}
    exchanges: list[Exchange] = []
    try:
        with recording() as exchanges:
            provider: ScimProvider = client.provider
            config = provider.config or discovery.service_provider_config or read_config(context, supplied.get("service_provider_config"))
            if provider.models:
                client.provider = ScimProvider(provider.models, provider.resource_types, config, provider.policy)
                return None
            resource_types = _supplied(supplied.get("resource_types"), ResourceType) or discovery.resource_types or read_resource_types(context).items
            resource_types = _within_limit(resource_types, context.conf, discovery.unusable)
            schemas = _supplied(supplied.get("schemas"), Schema) or discovery.schemas or _listed_schemas(context)
            schemas = _completed(context, schemas, resource_types)
            usable = _usable(resource_types, schemas, base_url_of(client), discovery.unusable)
            if not usable:
                return _nothing_to_check(resource_types, discovery.unusable)
            client.provider = ScimProvider.from_discovery(schemas, usable, config, provider.policy)
    except Exception as exc:
        discovery.failure = failure_reason(exc, exchanges)
        return discovery.failure
    return None


class ProviderConfig(ServiceProviderConfig):
    """RFC 7643 §5's ServiceProviderConfig with the attributes later documents add to it, taken as
    they come (their own checks judge them): securityEvents (RFC 9967 §4, which updates RFC 7643)
    and interopProfileConformant (draft-zollner-scim-interop-profile-02 §4)."""

    security_events: Any | None = None
    interop_profile_conformant: Any | None = None


def query_config(context: CheckContext) -> Any:
    """GET /ServiceProviderConfig as scim2-client queries it, a document carrying the attributes of
    ProviderConfig read into one (scim2-client knows RFC 7643's alone)."""
    try:
        return context.client.query(ServiceProviderConfig, expected_status_codes=context.expected_status_codes)
    except ResponsePayloadValidationException as exc:
        response = getattr(exc, "source", None)
        payload = body_of(response) if response is not None else None
        if (
            response is None
            or not isinstance(payload, dict)
            or not any(member(payload, name) is not None for name in ("securityEvents", "interopProfileConformant"))
        ):
            raise
        return context.client.check_response(
            payload, response.status_code, response.headers, context.expected_status_codes, [ProviderConfig], scim_ctx=Context.RESOURCE_QUERY_RESPONSE
        )


def read_config(context: CheckContext, supplied: Any = None) -> ServiceProviderConfig | None:
    """The ServiceProviderConfig, supplied or read; None when it cannot be (it then claims nothing)."""
    supplied = supplied if supplied is not None else (context.conf.documents or {}).get("service_provider_config")
    if supplied is not None:
        return ProviderConfig.model_validate(supplied)
    try:
        response = context.client.request("GET", "/ServiceProviderConfig")
        return ProviderConfig.model_validate(body_of(response)) if response.status_code == 200 else None
    except (ValidationError, ValueError):
        return None


def _supplied(value: Any, model: type[Document]) -> list[Document]:
    return documents(listing(value), model).items if value is not None else []


def _listed_schemas(context: CheckContext) -> list[Schema]:
    """/Schemas as served; none when it cannot be read (each schema is then read by its id)."""
    try:
        return read_schemas(context).items
    except ValueError:
        return []


def _completed(context: CheckContext, schemas: list[Schema], resource_types: list[ResourceType]) -> list[Schema]:
    """The schemas, with those the resource types reference but the list lacks, read from /Schemas/{id}."""
    listed = {str(schema.id) for schema in schemas}
    read = [schema_by_id(context, uri) for uri in referenced(resource_types) if uri not in listed]
    return [*schemas, *(schema for schema in read if isinstance(schema, Schema))]


def schema_by_id(context: CheckContext, uri: str) -> Schema | str:
    """GET /Schemas/{id}, once in a run for each schema (a check and the description of the
    server both need it, for every resource type referencing it), and for MAX_SCHEMA_READS
    schemas at most: the schema, or why there is none, in words."""
    reads = context.discovery.schema_reads
    if uri not in reads:
        if len(reads) >= MAX_SCHEMA_READS:
            return f"schema {uri} was not read: a run reads {MAX_SCHEMA_READS} schemas one by one at most"
        reads[uri] = _schema_read(context, uri)
    return reads[uri]


def schema_answer(context: CheckContext, uri: str) -> Any:
    """What GET /Schemas/{id} answered, as the client gave it (a Schema, another object, or the
    error it raised), sent once a run for each schema: a later reader (a check judging it, the
    description of the server) is given that answer, and its exchange."""

    def send() -> Any:
        try:
            return context.client.query(Schema, quote(uri, safe=":"), expected_status_codes=context.expected_status_codes)
        except Exception as exc:
            return exc

    return context.once(f"GET /Schemas/{uri}", send)


def _schema_read(context: CheckContext, uri: str) -> Schema | str:
    schema = schema_answer(context, uri)
    if isinstance(schema, Exception):
        return f"schema {uri} cannot be read ({describe_error(schema, 200)})"
    if not isinstance(schema, Schema) or schema.id != uri:
        return f"GET {context.root_path(f'/Schemas/{uri}')} answered another object"
    return schema


def _usable(resource_types: list[ResourceType], schemas: list[Schema], base_url: str, unusable: dict[str, str]) -> list[ResourceType]:
    """The resource types the run can check, each with a relative endpoint and only the
    extensions some schema describes; why each other one cannot be checked goes to `unusable`."""
    served = {str(schema.id) for schema in schemas}
    usable = []
    for resource_type in resource_types:
        name = str(resource_type.name or resource_type.id)
        endpoint = relative_endpoint(str(resource_type.endpoint or ""), base_url)
        if str(resource_type.schema_) not in served:
            unusable[name] = f"its schema {resource_type.schema_} is served neither in /Schemas nor at /Schemas/{{id}}"
        elif endpoint is None:
            unusable[name] = f"its endpoint {resource_type.endpoint} is not under the base URL {base_url}"
        else:
            extensions = [ext for ext in resource_type.schema_extensions or [] if str(ext.schema_) in served]
            usable.append(resource_type.model_copy(update={"endpoint": endpoint, "schema_extensions": extensions or None}))
    return usable


def _within_limit(resource_types: list[ResourceType], conf: CheckConfig, unusable: dict[str, str]) -> list[ResourceType]:
    """The resource types, but those past the run's limit (conf.max_resource_types) among those
    it selects, in the server's order: why each of these is not checked goes to `unusable`."""
    selected = [rt for rt in resource_types if not conf.resource_types or str(rt.name) in conf.resource_types]
    cut = selected[conf.max_resource_types :]
    why = (
        f"the run checks {conf.max_resource_types} resource types at most and the server publishes {len(selected)}: "
        "raise max_resource_types (a profile's key, or --max-resource-types) to check more"
    )
    for resource_type in cut:
        unusable[str(resource_type.name or resource_type.id)] = why
    return [rt for rt in resource_types if all(rt is not other for other in cut)]


def _nothing_to_check(resource_types: list[ResourceType], unusable: dict[str, str]) -> str:
    if not resource_types:
        return "the server publishes no resource type"
    return "no resource type can be checked: " + "; ".join(f"{name}: {why}" for name, why in unusable.items())
