"""Checks of the /Schemas endpoint (RFC 7644 §4, RFC 7643 §7)."""

from __future__ import annotations

from scim2_models import ResourceType
from scim2_models import Schema
from scim2_models import ServiceProviderConfig

from scim_tui.checker.checks.probes import answers_not_found
from scim_tui.checker.checks.probes import refuses_write_methods
from scim_tui.checker.checks.probes import results_of
from scim_tui.checker.checks.probes import unknown_id
from scim_tui.checker.context import CheckContext
from scim_tui.checker.discovery import read_resource_types
from scim_tui.checker.discovery import read_schemas
from scim_tui.checker.discovery import referenced
from scim_tui.checker.discovery import schema_answer
from scim_tui.checker.exchanges import describe_error
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status


def _resource_types(context: CheckContext) -> list[ResourceType]:
    """The resource types, to know the schemas they reference (none when they cannot be read:
    query_all_resource_types says why)."""
    try:
        return read_resource_types(context).items
    except ValueError:
        return []


CORE_SCHEMAS = {str(model.__schema__): model.__name__ for model in (ResourceType, ServiceProviderConfig, Schema)}


def published_schemas(context: CheckContext) -> list[Schema]:
    """GET /Schemas, read leniently. Each check reads it itself, so its exchanges show what it
    judged; the engine reuses the answer to describe the server. Its form and completeness are
    judged once, by query_all_schemas."""
    return read_schemas(context).items


@checker("discovery", "schemas", section="4")
def query_all_schemas(context: CheckContext) -> list[CheckResult]:
    """GET /Schemas answers the list of every schema the server uses (RFC 7644 §4, §3.4.2).

    SUCCESS when the answer is a ListResponse (with its "schemas" and its REQUIRED
    totalResults) of valid Schema objects, holding every schema the resource types reference
    (core, extension and custom alike); ERROR when the endpoint is unreachable, the list is
    empty or incomplete, or its form breaks the RFC (no totalResults, a bare JSON array, a
    single object, an invalid schema): the run goes on with what it understands, and reads a
    schema the list lacks from /Schemas/{id}.
    """
    published = read_schemas(context)
    schemas = published.items
    listed = {str(schema.id) for schema in schemas}
    lacking = [uri for uri in referenced(_resource_types(context)) if uri not in listed]
    problems = published.problems + ([f"it lacks {', '.join(lacking)}, which the resource types reference"] if lacking else [])
    if problems:
        reason = f"GET {context.root_path('/Schemas')} answered {len(schemas)} schema(s), but {'; '.join(problems)} (RFC 7644 §4, §3.4.2)."
        return [CheckResult(Status.ERROR, reason=reason, data=schemas)]
    if not schemas:
        return [CheckResult(Status.ERROR, reason=f"GET {context.root_path('/Schemas')} answered an empty list.")]
    names = ", ".join(str(schema.name or schema.id) for schema in schemas)
    return [CheckResult(Status.SUCCESS, reason=f"The server publishes {len(schemas)} schema(s): {names}.", data=schemas)]


@checker("discovery", "schemas", section="4")
def access_schema_by_id(context: CheckContext) -> list[CheckResult]:
    """Every published schema is answered by GET /Schemas/{id}, with its attribute definitions (RFC 7644 §4).

    One result per schema: SUCCESS when the answer is that schema with as many
    attributes as in the list; ERROR on a failed request, another schema, or missing
    attribute definitions.
    """
    results = []
    for listed in published_schemas(context):
        mark = len(context.exchanges)
        path = context.root_path(f"/Schemas/{listed.id}")
        found = _schema_by_id(context, str(listed.id))
        if isinstance(found, Exception):
            result = CheckResult(Status.ERROR, reason=f"GET {path} failed: {describe_error(found, 300)}")
        else:
            result = _compare_schema(path, listed, found)
        results.extend(results_of(context, mark, [result]))
    return results


def _schema_by_id(context: CheckContext, uri: str) -> object:
    """GET /Schemas/{id}, the request this check judges: sent once a run (a schema the run read
    already is judged on that answer, its exchange among the result's); a schema read here is
    kept for the run too."""
    found = schema_answer(context, uri)
    if isinstance(found, Schema) and found.id == uri:
        context.discovery.schema_reads.setdefault(uri, found)
    return found


def _compare_schema(path: str, listed: Schema, found: object) -> CheckResult:
    if not isinstance(found, Schema) or found.id != listed.id:
        return CheckResult(Status.ERROR, reason=f"GET {path} answered another object than that schema.", data=found)
    expected, got = len(listed.attributes or []), len(found.attributes or [])
    if got == 0 or got != expected:
        return CheckResult(Status.ERROR, reason=f"GET {path} answered {got} attribute definition(s), the list has {expected}.", data=found)
    return CheckResult(Status.SUCCESS, reason=f"GET {path} answered the schema with its {got} attribute definition(s).", data=found)


@checker("discovery", "schemas", section="3.12")
def access_invalid_schema(context: CheckContext) -> list[CheckResult]:
    """GET /Schemas/{id} with an unknown id answers 404 with a SCIM Error (RFC 7644 §3.12, §4).

    SUCCESS on 404 with a valid SCIM Error body; ERROR otherwise.
    """
    return answers_not_found(context, f"/Schemas/{unknown_id()}")


@checker("discovery", "schemas", section="4")
def core_schemas_validation(context: CheckContext) -> list[CheckResult]:
    """The core schemas of ResourceType, ServiceProviderConfig and Schema, when published, are right (RFC 7643 §7).

    RFC 7643 §7 defines these three schemas, and RFC 7644 §4 does not require the
    /Schemas endpoint to list them, so this check reads what the server publishes:
    SUCCESS when each core schema it lists (found by its RFC URI as id) has attribute
    definitions (the reason names those not published, which is allowed); ERROR when
    /Schemas cannot be read, or when a listed core schema has no attribute. A schema's
    name is "human-readable" (RFC 7643 §7), not a key: §8.7.2 itself names the
    ServiceProviderConfig schema "Service Provider Configuration", so it is not compared.
    """
    by_id = {str(schema.id): schema for schema in published_schemas(context)}
    problems, missing = [], []
    for uri, name in CORE_SCHEMAS.items():
        schema = by_id.get(uri)
        if schema is None:
            missing.append(name)
        elif not schema.attributes:
            problems.append(f"{uri} ({schema.name or name}) is published without any attribute definition")
    if problems:
        return [CheckResult(Status.ERROR, reason=f"A core schema lacks its attribute definitions, which are REQUIRED (RFC 7643 §7): {'; '.join(problems)}.")]
    if missing:
        return [CheckResult(Status.SUCCESS, reason=f"Not published, which RFC 7644 allows: {', '.join(missing)}; the published core schemas are well formed.")]
    return [CheckResult(Status.SUCCESS, reason="The three core schemas are published and well formed.")]


@checker("discovery", "schemas", section="4")
def schemas_endpoint_methods(context: CheckContext) -> list[CheckResult]:
    """POST, PUT, PATCH and DELETE on /Schemas answer 405 (RFC 7644 §4).

    One result per method: SUCCESS on 405, ACCEPTABLE on 501 (a method the server does not
    implement at all, RFC 7644 §3.12 Table 8), ERROR on any other status.
    """
    return refuses_write_methods(context, "/Schemas")
