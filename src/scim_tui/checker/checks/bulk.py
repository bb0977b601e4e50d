"""Checks of bulk requests (RFC 7644 §3.7): operations applied one by one, failOnErrors, maxOperations."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode
from urllib.parse import urljoin
from urllib.parse import urlsplit

from scim2_models import Resource

from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import member
from scim_tui.checker.answers import shown
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.probes import checked
from scim_tui.checker.checks.probes import results_of
from scim_tui.checker.checks.probes import send_json
from scim_tui.checker.checks.probes import unknown_id
from scim_tui.checker.context import CheckContext
from scim_tui.checker.exchanges import request_line
from scim_tui.checker.features import service_provider_config
from scim_tui.checker.features import unclaimed
from scim_tui.checker.filling import URI_REFERENCE_TYPES
from scim_tui.checker.filling import Attribute
from scim_tui.checker.filling import creation_json
from scim_tui.checker.filling import linking_attribute
from scim_tui.checker.filling import name_attribute
from scim_tui.checker.filling import on_request
from scim_tui.checker.filling import sub_attributes
from scim_tui.checker.filling import unique_for
from scim_tui.checker.filling import unique_string
from scim_tui.checker.guard import id_text
from scim_tui.checker.guard import origin
from scim_tui.checker.locations import same_url
from scim_tui.checker.locations import served_at_url
from scim_tui.checker.recorder import base_url_of
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

BULK_PATH = "/Bulk"
BULK_REQUEST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:BulkRequest"
MAX_PROBE_OPERATIONS = 10_000
"""The most operations the maxOperations check sends: a server allowing more is not probed."""


@dataclass
class Outcome:
    """The result of one operation, as a BulkResponse reports it."""

    method: str
    status: int | None
    location: str
    detail: str
    bulk_id: str = ""

    @classmethod
    def read(cls, item: Any) -> Outcome:
        item = item if isinstance(item, dict) else {}
        response = member(item, "response") if isinstance(member(item, "response"), dict) else {}
        return cls(
            method=str(item.get("method") or "").upper(),
            status=_status(member(item, "status")),
            location=str(member(item, "location") or ""),
            detail=str(member(response, "detail") or ""),
            bulk_id=str(item.get("bulkId") or ""),
        )

    @property
    def failed(self) -> bool:
        return self.status is None or self.status >= 400


@dataclass
class Answer:
    """A POST /Bulk and what came back: the operations' outcomes when the answer is a BulkResponse."""

    status: int
    outcomes: list[Outcome] | None
    data: Any


def _status(value: Any) -> int | None:
    try:
        return int(str(value))
    except ValueError:
        return None


def _body(operations: list[dict[str, Any]], fail_on_errors: int | None = None) -> str:
    request: dict[str, Any] = {"schemas": [BULK_REQUEST_SCHEMA], "Operations": operations}
    if fail_on_errors is not None:
        request["failOnErrors"] = fail_on_errors
    return json.dumps(request)


def _post(context: CheckContext, body: str) -> Answer:
    response = send_json(context, "POST", BULK_PATH, body)
    data = body_of(response)
    items = member(data, "Operations") if isinstance(data, dict) else None
    outcomes = [Outcome.read(item) for item in items] if response.status_code == 200 and isinstance(items, list) else None
    return Answer(response.status_code, outcomes, data)


def _not_a_bulk_response(answer: Answer, request: str) -> CheckResult:
    return CheckResult(
        Status.ERROR,
        reason=f"{request} answered {answer.status} instead of 200 with a BulkResponse listing the operations (RFC 7644 §3.7.3).",
        data=answer.data,
    )


def _deletion_probe(endpoint: str) -> dict[str, Any]:
    """An operation that fails with 404 and would do no harm if the server wrongly ran it."""
    return {"method": "DELETE", "path": f"{endpoint}/{unknown_id()}"}


@checker("bulk", "bulk:operations", section="3.7")
def bulk_operations(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """A bulk request creates, replaces by bulkId reference, and deletes a resource (RFC 7644 §3.7).

    Sends POST /Bulk with three operations: a POST creating a resource (with a bulkId),
    a PUT of that resource addressed as "<endpoint>/bulkId:<bulkId>" (§3.7.2), and a
    DELETE addressed the same way; then GETs the resource, which must be gone. One
    result per operation: SUCCESS when it reports the status a single request would
    have answered (201, 200, 204; §3.7.3) and a location (REQUIRED but for a failed POST,
    §3.7), the PUT's and the DELETE's the one the POST reported; ERROR otherwise, and when
    the answer is not a BulkResponse or a GET on that location still answers after the
    DELETE. A fourth result, for a resource type with an attribute referencing others
    (members): a second POST /Bulk creates a resource it may reference (with a bulkId) and one
    of this type whose members hold "bulkId:<that bulkId>" in its data (§3.7.2); SUCCESS when a
    GET on the second's location shows the first's id there, ERROR when it shows the bulkId
    left as sent, another value, or a creation failed; SKIPPED when the type has no such
    attribute, or the creation kept no member. SKIPPED when the
    ServiceProviderConfig does not claim bulk. A resource the bulk created is
    deleted afterwards whatever the server answered.
    """
    skipped = unclaimed(context, "bulk")
    if skipped:
        return [skipped]
    mark = len(context.exchanges)
    endpoint = resource_path(context, model)
    data = creation_json(context, model)
    replacement = _renamed(model, data)
    bulk_id = unique_string()
    reference = f"{endpoint}/bulkId:{bulk_id}"
    operations: list[dict[str, Any]] = [
        {"method": "POST", "path": endpoint, "bulkId": bulk_id, "data": data},
        {"method": "PUT", "path": reference, "data": replacement},
        {"method": "DELETE", "path": reference},
    ]
    answer = _post(context, _body(operations))
    if answer.outcomes is None:
        return results_of(context, mark, [_not_a_bulk_response(answer, f"POST {context.root_path(BULK_PATH)}")])
    post, put, delete = (_reported(answer.outcomes, method) for method in ("POST", "PUT", "DELETE"))
    created = post.location if post is not None and not post.failed and post.location else None
    base = base_url_of(context.client)
    results = [
        _judged(f"POST {endpoint} (bulkId {bulk_id})", post, 201, base, None, answer.data),
        _judged(f"PUT {reference}", put, 200, base, created, answer.data),
        _judged(f"DELETE {reference}", delete, 204, base, created, answer.data),
    ]
    if created and results[2].status is Status.SUCCESS:
        results[2] = _confirm_deletion(context, urljoin(base, created), results[2])
    results = results_of(context, mark, results)
    return [*results, checked(context, lambda: _reference_in_data(context, model))]


def _reference_in_data(context: CheckContext, model: type[Resource[Any]]) -> CheckResult:
    """POST /Bulk creating a resource, then one of `model` whose linking attribute (members) holds
    "bulkId:<the first's bulkId>": the resource created must hold the first one's id (§3.7.2)."""
    link = linking_attribute(model)
    if link is None:
        why = f"{model.__name__} has no attribute referencing other resources (such as members) to hold a bulkId"
        return CheckResult(Status.SKIPPED, reason=f"data reference: Skipped: {why}.")
    referenced = _referenced_model(context, link, model)
    first, holder = unique_string(), unique_string()
    reference = f"bulkId:{first}"
    endpoint = resource_path(context, model)
    operations = [
        {"method": "POST", "path": resource_path(context, referenced), "bulkId": first, "data": creation_json(context, referenced)},
        {"method": "POST", "path": endpoint, "bulkId": holder, "data": creation_json(context, model, {link.name: [{"value": reference}]})},
    ]
    answer = _post(context, _body(operations))
    creations = f"a {referenced.__name__} (bulkId {first}) and a {model.__name__} whose {link.name} holds {reference}"
    request = f"POST {context.root_path(BULK_PATH)} creating {creations}"
    if answer.outcomes is None:
        return _not_a_bulk_response(answer, request)
    made = {outcome.bulk_id: outcome for outcome in answer.outcomes}
    for bulk_id in (first, holder):
        outcome = made.get(bulk_id)
        if outcome is None or outcome.status != 201 or not outcome.location:
            said = f"answered {outcome.status}{f' ({outcome.detail})' if outcome.detail else ''}" if outcome else "has no result"
            reason = f"data reference: in {request}, the POST with bulkId {bulk_id} {said} instead of 201 with a location (RFC 7644 §3.7.2, §3.7.3)."
            return CheckResult(Status.ERROR, reason=reason, data=answer.data)
    return _judge_reference(context, link.name, reference, made[first].location, made[holder].location, on_request(model, [link.name]))


def _referenced_model(context: CheckContext, link: Attribute, holder: type[Resource[Any]]) -> type[Resource[Any]]:
    """A model the linking attribute may reference: another than the holder's when there is one."""
    types = set(sub_attributes(link)["$ref"].reference_types or ()) - URI_REFERENCE_TYPES
    models = [found for name in sorted(types) if (found := context.client.get_resource_model(name)) is not None]
    return next((found for found in models if found is not holder), models[0] if models else holder)


def _judge_reference(context: CheckContext, name: str, reference: str, first: str, holder: str, asked: dict[str, str]) -> CheckResult:
    """SUCCESS when the resource at `holder` holds, in `name`, the id of the resource at `first`."""
    base = base_url_of(context.client)
    asking = f"?{urlencode(asked)}" if asked else ""  # the holder's link returned only on request: asked for
    holding, referenced = served_at_url(context, urljoin(base, holder) + asking), served_at_url(context, urljoin(base, first))
    if not isinstance(holding, dict) or not isinstance(referenced, dict):
        why = f"GET on the locations the bulk answered ({holder}, {first}) did not answer both resources"
        return CheckResult(Status.SKIPPED, reason=f"data reference: Skipped: {why}.")
    values = [id_text(member(item, "value")) for item in member(holding, name) or [] if isinstance(item, dict)]
    said = f"GET {urlsplit(urljoin(base, holder)).path} answers {name} {shown(values)}"
    if reference in values:
        unresolved = "where the service provider replaces a bulkId reference with the id of the resource created (RFC 7644 §3.7.2)"
        return CheckResult(Status.ERROR, reason=f"data reference: {said}: {reference} was left as sent, {unresolved}.")
    if not values:
        why = f"the creation kept none of the {name} it carried (object_creation tells whether creations keep them)"
        return CheckResult(Status.SKIPPED, reason=f"data reference: Skipped: {said}: {why}.")
    if id_text(member(referenced, "id")) not in values:
        reason = f"data reference: {said}, not the id {member(referenced, 'id')} of the resource created with {reference} (RFC 7644 §3.7.2)."
        return CheckResult(Status.ERROR, reason=reason)
    return CheckResult(Status.SUCCESS, reason=f"data reference: {said}: {reference} became the id of the resource created with it.")


def _renamed(model: type[Resource[Any]], data: dict[str, Any]) -> dict[str, Any]:
    """The resource with a new name, for the replacement (the same resource when it has no name)."""
    name = name_attribute(model)
    if name is None or not isinstance(data.get(name.name), str):
        return data
    return {**data, name.name: unique_for(name, "replaced")}


def _reported(outcomes: list[Outcome], method: str) -> Outcome | None:
    return next((outcome for outcome in outcomes if outcome.method == method), None)


def _judged(operation: str, outcome: Outcome | None, expected: int, base: str, created: str | None, data: Any) -> CheckResult:
    """SUCCESS when an operation reports the expected status and a location: the location the
    POST reported for the resource, when `created` gives it (a location is compared as a URL,
    never read for an id)."""
    if outcome is None:
        return CheckResult(Status.ERROR, reason=f"The BulkResponse holds no result for the operation {operation} (RFC 7644 §3.7.3).", data=data)
    said = f"Bulk operation {operation} answered {outcome.status}"
    if outcome.status != expected:
        detail = f" ({outcome.detail})" if outcome.detail else ""
        return CheckResult(
            Status.ERROR, reason=f"{said}{detail} instead of {expected}, the status of a successful {operation.split()[0]} (RFC 7644 §3.7.3).", data=data
        )
    if not outcome.location:
        return CheckResult(Status.ERROR, reason=f"{said} without a location, which every operation but a failed POST MUST have (RFC 7644 §3.7).", data=data)
    if created is not None and not same_url(base, outcome.location, created):
        reason = f"{said} with the location {outcome.location}, not {created}, the location of the resource the POST created (RFC 7644 §3.7)."
        return CheckResult(Status.ERROR, reason=reason, data=data)
    return CheckResult(Status.SUCCESS, reason=f"{said} with the location {outcome.location}.", data=data)


def _confirm_deletion(context: CheckContext, location: str, result: CheckResult) -> CheckResult:
    """The DELETE's result, once a GET on the resource's location showed it is gone (ERROR when
    it is not). A location on another origin is not followed: the clean-up looks for the resource."""
    if origin(location) != origin(base_url_of(context.client)):
        return result
    response = context.client.request("GET", location)
    request = request_line(context.exchanges[-1])
    if response.status_code != 404:
        reason = f"{result.reason} Yet {request} then answered {response.status_code} instead of 404: the resource was not deleted."
        return CheckResult(Status.ERROR, reason=reason, data=body_of(response))
    return CheckResult(Status.SUCCESS, reason=f"{result.reason} {request} then answered 404.", data=result.data)


@checker("bulk", "bulk:fail-on-errors", section="3.7.3")
def bulk_fail_on_errors(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """A bulk request stops once it meets failOnErrors errors (RFC 7644 §3.7.3).

    Sends POST /Bulk with failOnErrors 1 and two DELETEs of ids that do not exist
    (harmless if run). §3.7 defines failOnErrors as "the number of errors that the
    service provider will accept before the operation is terminated". SUCCESS when the
    BulkResponse reports the first DELETE failed and nothing of the second; ERROR when
    the second was performed too, when the first did not fail, or when the answer is
    not a BulkResponse. SKIPPED when the ServiceProviderConfig does not claim bulk.
    """
    skipped = unclaimed(context, "bulk")
    if skipped:
        return [skipped]
    endpoint = resource_path(context, model)
    request = f"POST {context.root_path(BULK_PATH)} with failOnErrors 1"
    answer = _post(context, _body([_deletion_probe(endpoint), _deletion_probe(endpoint)], fail_on_errors=1))
    if answer.outcomes is None:
        return [_not_a_bulk_response(answer, request)]
    if not answer.outcomes or not answer.outcomes[0].failed:
        first = f"answered {answer.outcomes[0].status}" if answer.outcomes else "has no result"
        reason = f"In {request}, the DELETE of an unknown {model.__name__} id {first} instead of 404, so failOnErrors could not be seen at work."
        return [CheckResult(Status.ERROR, reason=reason, data=answer.data)]
    if len(answer.outcomes) > 1:
        reason = f"{request} went on after the first error: the BulkResponse reports {len(answer.outcomes)} operations performed instead of 1."
        return [CheckResult(Status.ERROR, reason=reason, data=answer.data)]
    reason = f"{request} stopped after the first failed operation ({answer.outcomes[0].status}): the second was not performed."
    return [CheckResult(Status.SUCCESS, reason=reason, data=answer.data)]


@checker("bulk", "bulk:max-operations", section="3.7.4")
def bulk_max_operations(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """A bulk request with more operations than maxOperations answers 413 (RFC 7644 §3.7.4).

    Sends POST /Bulk with maxOperations + 1 DELETEs of an id that does not exist
    (harmless if run), under maxPayloadSize, once a run (the other resource types' results
    judge the same answer). "If either limit is exceeded, the service
    provider MUST return HTTP response code 413": SUCCESS on 413, ERROR otherwise.
    SKIPPED when the ServiceProviderConfig does not claim bulk, states no maxOperations,
    allows more than 10,000 operations, or when so many operations would exceed maxPayloadSize.
    """
    skipped = unclaimed(context, "bulk")
    if skipped:
        return [skipped]
    config = service_provider_config(context)
    bulk = config.bulk if config else None
    limit = bulk.max_operations if bulk else None
    if limit is None:
        return [CheckResult(Status.SKIPPED, reason="Skipped: the ServiceProviderConfig states no bulk.maxOperations.")]
    count = limit + 1
    if count > MAX_PROBE_OPERATIONS:
        return [
            CheckResult(Status.SKIPPED, reason=f"Skipped: bulk.maxOperations is {limit}; requests of more than {MAX_PROBE_OPERATIONS} operations are not sent.")
        ]
    body = _body([_deletion_probe(resource_path(context, model))] * count)
    if bulk and bulk.max_payload_size is not None and len(body) > bulk.max_payload_size:
        reason = (
            f"Skipped: {count} operations take {len(body)} bytes, more than bulk.maxPayloadSize "
            f"({bulk.max_payload_size}), so maxOperations cannot be exceeded alone."
        )
        return [CheckResult(Status.SKIPPED, reason=reason)]
    # One probe a run: its answer does not depend on the resource type (its operations name nothing).
    answer = context.once("bulk maxOperations", lambda: _post(context, body))
    request = f"POST {context.root_path(BULK_PATH)} with {count} operations (maxOperations is {limit})"
    if answer.status != 413:
        reason = f"{request} answered {answer.status} instead of 413 Payload Too Large, which RFC 7644 §3.7.4 requires (MUST)."
        return [CheckResult(Status.ERROR, reason=reason, data=answer.data)]
    return [CheckResult(Status.SUCCESS, reason=f"{request} answered 413 Payload Too Large.", data=answer.data)]
