"""Checks of creating and reading resources (RFC 7644 §3.3, §3.4.1, §3.4.2).

The checks that replace and delete them are in replacement.py, registered after
the attribute-filtering checks so that a run follows the order of SPEC.md §4.3.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterable
from typing import Any

from scim2_models import ListResponse
from scim2_models import Resource
from scim2_models import SearchRequest

from scim_tui.checker.answers import JSON_KINDS
from scim_tui.checker.answers import answer_name
from scim_tui.checker.answers import bodiless
from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import json_object
from scim_tui.checker.answers import member
from scim_tui.checker.answers import shown
from scim_tui.checker.checks.comparison import missing
from scim_tui.checker.checks.probes import results_of
from scim_tui.checker.context import CheckContext
from scim_tui.checker.creations import refusal
from scim_tui.checker.creations import refusal_text
from scim_tui.checker.exchanges import Role
from scim_tui.checker.exchanges import failure_reason
from scim_tui.checker.exchanges import sent_for
from scim_tui.checker.filling import attributes_of
from scim_tui.checker.filling import linking_attribute
from scim_tui.checker.filling import on_request
from scim_tui.checker.guard import resource_url
from scim_tui.checker.lag import settled
from scim_tui.checker.limits import MAX_LISTING_PAGES
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import PrerequisiteFailed
from scim_tui.checker.results import Status


def resource_path(context: CheckContext, model: type[Resource[Any]], resource_id: str | None = None) -> str:
    """The path of a model's endpoint, or of one of its resources (its id one quoted path segment)."""
    endpoint = context.client.resource_endpoint(model)
    return resource_url(endpoint, resource_id) if resource_id else endpoint


def creation_read(context: CheckContext, response: Any) -> tuple[Any, bool]:
    """The answer that shows what a creation made: its own, or, when it answered 2xx without a body,
    a GET of the run's resource at its Location (RFC 7644 §3.3: the body SHOULD hold the resource,
    the Location SHALL name it); and whether it was read there. The creation's own answer when
    its Location names none of the run's resources."""
    if not bodiless(response.status_code, response.text):
        return response, False
    owned = context.guard.created_at(response.headers.get("Location", ""))
    if owned is None:
        return response, False
    with sent_for(Role.CREATION, owned.kind):
        return context.client.request("GET", owned.url), True


def with_requested(context: CheckContext, model: type[Resource[Any]], resource_id: str, current: dict[str, Any], names: Iterable[str]) -> dict[str, Any]:
    """`current` (a resource as an answer showed it) with the values of those of `names` the schema
    returns only on request, read by a GET asking for them (filling.on_request: a server may leave
    them out of every other answer); `current` as it is when each is returned by default."""
    asked = on_request(model, names)
    if not asked:
        return current
    response = context.client.request("GET", resource_path(context, model, resource_id), params=asked)
    answer = body_of(response)
    return {**current, **answer} if response.status_code == 200 and isinstance(answer, dict) else current


def find_in_pages(context: CheckContext, fetch: Callable[[int | None], Any], resource_id: str | None, wait: bool = True) -> tuple[Any, Resource[Any] | None]:
    """Read a list page after page until it holds the resource with this id.

    `fetch` answers the page starting at an index (None for the first page).
    Returns the last answer read, and the resource when it was found.

    The run's other checks create and delete resources while the pages are read, and a deletion
    before the next page's start moves the resource onto the page already read ("clients SHOULD
    never assume repeatable results", RFC 7644 §3.4.2.4): a whole list read in several pages
    without it is read once more. A list without it is read again after a pause, when `wait`,
    as a server's lists may lag behind its writes (lag.py).
    """

    def read() -> tuple[Any, Resource[Any] | None, int]:
        answer, found, pages = _walk(fetch, resource_id)
        if found is None and 1 < pages <= MAX_LISTING_PAGES:
            answer, found, pages = _walk(fetch, resource_id)
        return answer, found, pages

    def told(walked: tuple[Any, Resource[Any] | None, int]) -> bool:
        """Found, or a list that cannot lag: no list, or one too long to read to its end."""
        answer, found, pages = walked
        return found is not None or not isinstance(answer, ListResponse) or pages > MAX_LISTING_PAGES

    answer, found, _ = settled(context, read, told) if wait else read()
    return answer, found


def _walk(fetch: Callable[[int | None], Any], resource_id: str | None) -> tuple[Any, Resource[Any] | None, int]:
    """One reading of a list, page after page, until the resource or the list's end: the last
    answer, the resource when found, and how many pages were read (more than MAX_LISTING_PAGES
    when the reading stopped there)."""
    answer = fetch(None)
    for pages in range(1, MAX_LISTING_PAGES + 1):
        if not isinstance(answer, ListResponse):
            return answer, None, pages
        resources = answer.resources or []
        found = next((r for r in resources if r.id == resource_id), None)
        start = answer.start_index or 1
        if found is not None or not resources or start + len(resources) > (answer.total_results or 0):
            return answer, found, pages
        answer = fetch(start + len(resources))
    return answer, None, MAX_LISTING_PAGES + 1


@checker("crud", "crud:create", section="3.3", start="first", hands_over="created")
def object_creation(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """POST on a resource endpoint creates a resource (RFC 7644 §3.3).

    Sends a resource with every writable attribute filled, then one with only the attributes
    its /Schemas requires (and those telling it apart), then hands them to the checks that
    write to a fresh resource (deleted by the end of the run). The first: SUCCESS
    when the server answers 201 with the created resource and its id; ERROR on any other
    status, an error, an answer that is not the resource, or an id that is not a string (RFC 7643
    §3.1: read as its text, every other check runs); DEVIATION when the 201 has no body
    (it SHOULD hold the resource: the one its Location names is read there), or the resource
    created lacks every value the request gave an attribute referencing other resources
    (members): only readOnly attributes "SHALL be ignored". The second: SUCCESS when created;
    DEVIATION when refused with a 4xx (a policy asking for attributes the schema declares
    optional, RFC 7643 §2.2 "required"), whether or not the same resource with what an identity
    provider sends (a work email, a name, displayName, active, externalId) is then created; the
    run creates its resources of that type so from then on. ERROR when it fails otherwise.
    """
    mark = len(context.exchanges)
    created = context.resource_manager.create_and_register(model, fill_all=True, checked=True)
    path = context.root_path(resource_path(context, model))
    post = next((exchange for exchange in reversed(context.exchanges[mark:]) if exchange.method == "POST"), None)
    located = post is not None and bodiless(post.status_code, post.response_body)
    if located:
        answered = (
            f"POST {path} answered 201 without a body (which SHOULD hold the created resource, RFC 7644 §3.3); "
            f"the {model.__name__} {created.id} its Location names was read there"
        )
    else:
        answered = f"POST {path} answered 201 with the created {model.__name__} {created.id}"
    dropped = _dropped_links(context, model, created)
    answered_id = member(json_object(post.response_body), "id") if post is not None else None
    if answered_id is not None and not isinstance(answered_id, str):
        kind = JSON_KINDS.get(type(answered_id), "a JSON object")
        reason = f"POST {path} answered 201 with the id {shown(answered_id)}, {kind}, where an id is a string (RFC 7643 §3.1); the run reads it as its text."
        full = CheckResult(Status.ERROR, reason=reason, data=created)
    elif dropped:
        reason = (
            f"{answered}, without the {dropped} it carried: only readOnly attributes of a creation SHALL "
            f"be ignored (RFC 7644 §3.3), and {dropped} is readWrite (RFC 7643 §2.2)."
        )
        full = CheckResult(Status.DEVIATION, reason=reason, data=created)
    else:
        full = CheckResult(Status.DEVIATION if located else Status.SUCCESS, reason=f"{answered}.", data=created)
    judged = results_of(context, 0, [full])[0]
    context.references.offer(context, created, "full")  # a later check writes to it instead of making its own
    return [judged, _least_creation(context, model)]


def _dropped_links(context: CheckContext, model: type[Resource[Any]], created: Resource[Any]) -> str | None:
    """The attribute referencing other resources (members) whose values the creation carried and
    the created resource lacks, or None."""
    attribute = linking_attribute(model)
    post = next((e for e in reversed(context.exchanges) if e.method == "POST" and e.status_code == 201), None)
    if attribute is None or post is None:
        return None
    sent = member(json_object(post.request_body or ""), attribute.name)
    values = [item for item in sent if isinstance(item, dict)] if isinstance(sent, list) else []
    if not values:
        return None
    held = with_requested(context, model, str(created.id), created.model_dump(), [attribute.name])
    return attribute.name if missing(held, attribute, values) == values else None


def _least_creation(context: CheckContext, model: type[Resource[Any]]) -> CheckResult:
    """The creation of a resource with only the attributes its /Schemas requires, judged."""
    mark = len(context.exchanges)
    required = ", ".join(a.name for a in attributes_of(model) if a.required and a.writable) or "none"
    least = f"a {model.__name__} with only the attributes its /Schemas requires ({required})"
    try:
        created = context.resource_manager.create_and_register(model, fill_all=False, adapt=False)
    except PrerequisiteFailed as exc:
        refused = refusal(context.exchanges[mark:], resource_path(context, model))
        if refused is None:
            return results_of(
                context, mark, [CheckResult(Status.ERROR, reason=f"{failure_reason(exc.__cause__ or exc, context.exchanges[mark:])} ({least}).")]
            )[0]
        reason = f'{refusal_text(refused)} to {least}, and the run cannot create one, not even with what an identity provider sends (RFC 7643 §2.2 "required").'
        return results_of(context, mark, [CheckResult(Status.DEVIATION, reason=reason)])[0]
    adaptation = context.creations.adaptation(model)
    refused = refusal(context.exchanges[mark:], resource_path(context, model))
    if refused is None or adaptation is None:
        context.references.offer(context, created, "least")
        post = next(exchange for exchange in reversed(context.exchanges[mark:]) if exchange.method == "POST")
        answered = "201 (the resource read at its Location)" if bodiless(post.status_code, post.response_body) else "201"
        reason = f"POST {context.root_path(resource_path(context, model))} answered {answered} with the {model.__name__} {created.id}, created as {least}."
        return results_of(context, mark, [CheckResult(Status.SUCCESS, reason=reason)])[0]
    added = " and ".join(", ".join(adaptation.added).rsplit(", ", 1))
    reason = (
        f'{refusal_text(refused)} to {least}, which declares {added} optional (RFC 7643 §2.2 "required"); '
        f"with {added} as an identity provider sends them it was created, and the run creates its {model.__name__} resources so."
    )
    return results_of(context, mark, [CheckResult(Status.DEVIATION, reason=reason)])[0]


@checker("crud", "crud:read", section="3.4.1", shares=("fixture",))
def object_query(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """GET on a resource's URL answers that resource (RFC 7644 §3.4.1).

    Reads back by id a resource created with every writable attribute filled (shared with
    the other checks that only read it, deleted once the last of them ended). SUCCESS when the
    answer is 200 with the resource of that id; ERROR on another status, an
    error, or another object.
    """
    created = context.references.read_only(context, model)
    path = context.root_path(resource_path(context, model, created.id))
    found = context.client.query(model, created.id, expected_status_codes=context.expected_status_codes)
    if not isinstance(found, Resource) or found.id != created.id:
        return [CheckResult(Status.ERROR, reason=f"GET {path} answered {answer_name(found)} instead of the {model.__name__} {created.id}.", data=found)]
    return [CheckResult(Status.SUCCESS, reason=f"GET {path} answered the {model.__name__} {created.id}.", data=found)]


@checker("crud", "crud:read", section="3.4.2", shares=("fixture",))
def object_query_without_id(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """GET on a resource endpoint lists its resources, the new one included (RFC 7644 §3.4.2).

    Lists the endpoint (following pages when the list is paginated, and once more when they
    lack it: the run's other checks' deletions shift the pages) looking for a resource
    the run created (shared with the other checks that only read it). SUCCESS when a
    ListResponse holds the resource;
    ERROR when listing fails or the resource is absent.
    """
    created = context.references.read_only(context, model)
    path = context.root_path(resource_path(context, model))

    def fetch(start: int | None) -> Any:
        parameters: SearchRequest[Any] | None = SearchRequest(start_index=start) if start else None
        return context.client.query(model, query_parameters=parameters, expected_status_codes=context.expected_status_codes)

    answer, found = find_in_pages(context, fetch, created.id)
    if found is None:
        return [CheckResult(Status.ERROR, reason=f"GET {path} answered a list without the {model.__name__} {created.id} just created.", data=answer)]
    return [CheckResult(Status.SUCCESS, reason=f"GET {path} lists the {model.__name__} {created.id} just created.", data=answer)]
