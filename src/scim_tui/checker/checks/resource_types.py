"""Checks of the /ResourceTypes endpoint (RFC 7644 §4)."""

from __future__ import annotations

from scim2_models import ResourceType

from scim_tui.checker.answers import listed as listed_words
from scim_tui.checker.checks.probes import answers_not_found
from scim_tui.checker.checks.probes import refuses_write_methods
from scim_tui.checker.checks.probes import results_of
from scim_tui.checker.checks.probes import unknown_id
from scim_tui.checker.context import CheckContext
from scim_tui.checker.discovery import read_resource_types
from scim_tui.checker.discovery import relative_endpoint
from scim_tui.checker.discovery import schema_by_id
from scim_tui.checker.recorder import base_url_of
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status


def published_resource_types(context: CheckContext) -> list[ResourceType]:
    """GET /ResourceTypes, read leniently. Each check reads it itself, so its exchanges show what it
    judged; the engine reuses the answer to describe the server. Its form is judged once, by
    query_all_resource_types."""
    return read_resource_types(context).items


@checker("discovery", "resource-types", section="4")
def query_all_resource_types(context: CheckContext) -> list[CheckResult]:
    """GET /ResourceTypes answers a valid list of ResourceType objects (RFC 7644 §4, §3.4.2).

    SUCCESS when the answer is a ListResponse (with its "schemas" and its REQUIRED
    totalResults) of valid ResourceType objects, at least one; ERROR when the endpoint is
    unreachable, the list is empty, or its form breaks the RFC (no totalResults, a bare JSON
    array, a single object, an invalid resource type): the run goes on with what it understands.
    """
    published = read_resource_types(context)
    names = ", ".join(str(rt.name) for rt in published.items)
    if published.problems:
        reason = (
            f"GET {context.root_path('/ResourceTypes')} answered {len(published.items)} resource type(s) "
            f"({names or 'none'}), but {'; '.join(published.problems)} (RFC 7644 §3.4.2)."
        )
        return [CheckResult(Status.ERROR, reason=reason, data=published.items)]
    if not published.items:
        return [CheckResult(Status.ERROR, reason=f"GET {context.root_path('/ResourceTypes')} answered an empty list.")]
    return [CheckResult(Status.SUCCESS, reason=f"The server publishes {len(published.items)} resource type(s): {names}.", data=published.items)]


@checker("discovery", "resource-types", section="4")
def query_resource_type_by_id(context: CheckContext, resource_type: ResourceType) -> list[CheckResult]:
    """GET /ResourceTypes/{id} answers that resource type, with its metadata (RFC 7644 §4).

    Reads GET /ResourceTypes and GET /ResourceTypes/{id}, and compares the two documents as
    the server serves them (endpoints by the endpoint they name). SUCCESS when the answer is the resource type asked for, with the
    same id, name, endpoint and schema as in the list (when the list holds it), and a meta
    attribute; ERROR on a failed request, an invalid answer, another resource type, or a
    missing meta.
    """
    path = context.root_path(f"/ResourceTypes/{resource_type.id}")
    try:
        listed: ResourceType | None = _as_listed(context, resource_type)
    except ValueError:
        listed = None  # the list cannot be read: query_all_resource_types says why
    found = context.client.query(ResourceType, resource_type.id, expected_status_codes=context.expected_status_codes)
    if not isinstance(found, ResourceType):
        return [CheckResult(Status.ERROR, reason=f"GET {path} did not answer a ResourceType.", data=found)]
    different = (
        []
        if listed is None
        else [
            f"{name.rstrip('_')} {getattr(found, name)} where the list has {getattr(listed, name)}"
            for name in ("id", "name", "endpoint", "schema_")
            if _meaning(context, name, getattr(found, name)) != _meaning(context, name, getattr(listed, name))
        ]
    )
    if different:
        return [CheckResult(Status.ERROR, reason=f"GET {path} answered another resource type than the list holds: {listed_words(different)}.", data=found)]
    if found.meta is None:
        return [CheckResult(Status.ERROR, reason=f"GET {path} answered the resource type without its meta attribute.", data=found)]
    return [CheckResult(Status.SUCCESS, reason=f"GET {path} answered the {resource_type.name} resource type with its metadata.", data=found)]


def _meaning(context: CheckContext, name: str, value: object) -> object:
    """A value as the two documents are compared: an endpoint by the endpoint it names (a full path
    and a path relative to the base URL name the same one; resource_type_documents judges the
    form), anything else as served."""
    return (relative_endpoint(str(value), base_url_of(context.client)) or value) if name == "endpoint" else value


def _as_listed(context: CheckContext, resource_type: ResourceType) -> ResourceType | None:
    """The resource type as GET /ResourceTypes serves it (the run's own copy has its endpoint made
    relative to the base URL); None when the list does not hold it (the run's resource types came
    from files). ValueError when the list cannot be read."""
    served = published_resource_types(context)
    return next((item for item in served if item.id == resource_type.id and item.name == resource_type.name), None)


@checker("discovery", "resource-types", section="3.12")
def access_invalid_resource_type(context: CheckContext) -> list[CheckResult]:
    """GET /ResourceTypes/{id} with an unknown id answers 404 with a SCIM Error (RFC 7644 §3.12, §4).

    SUCCESS on 404 with a valid SCIM Error body; ERROR otherwise.
    """
    return answers_not_found(context, f"/ResourceTypes/{unknown_id()}")


@checker("discovery", "resource-types", section="4")
def resource_types_endpoint_methods(context: CheckContext) -> list[CheckResult]:
    """POST, PUT, PATCH and DELETE on /ResourceTypes answer 405 (RFC 7644 §4).

    One result per method: SUCCESS on 405, ACCEPTABLE on 501 (a method the server does not
    implement at all, RFC 7644 §3.12 Table 8), ERROR on any other status.
    """
    return refuses_write_methods(context, "/ResourceTypes")


@checker("discovery", "resource-types", section="4")
def resource_types_schema_validation(context: CheckContext) -> list[CheckResult]:
    """Every schema a resource type references can be read from /Schemas/{id} (RFC 7644 §4).

    One result per resource type, covering its schema and its schema extensions:
    SUCCESS when each is answered; ERROR naming those missing or unreachable.
    """
    results = []
    for resource_type in published_resource_types(context):
        mark = len(context.exchanges)
        uris = [str(resource_type.schema_), *(str(ext.schema_) for ext in resource_type.schema_extensions or [])]
        problems = [problem for uri in uris if (problem := _schema_problem(context, uri))]
        if problems:
            result = CheckResult(Status.ERROR, reason=f"Resource type {resource_type.name}: {'; '.join(problems)}.")
        else:
            result = CheckResult(Status.SUCCESS, reason=f"Resource type {resource_type.name}: its {len(uris)} schema(s) are published.")
        results.extend(results_of(context, mark, [result]))
    return results


def _schema_problem(context: CheckContext, uri: str) -> str | None:
    read = schema_by_id(context, uri)
    return read if isinstance(read, str) else None
