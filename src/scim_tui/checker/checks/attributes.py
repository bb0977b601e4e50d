"""Checks of the attributes and excludedAttributes parameters (RFC 7644 §3.4.2.5, §3.4.3; SPEC.md §4.5)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from scim2_models import InvalidFilterException
from scim2_models import ListResponse
from scim2_models import Mutability
from scim2_models import Path
from scim2_models import Required
from scim2_models import Resource
from scim2_models import Returned
from scim2_models import ScimFilter
from scim2_models import SearchRequest

from scim_tui.checker.answers import answer_name
from scim_tui.checker.causes import NOT_IMPLEMENTED
from scim_tui.checker.checks.crud import find_in_pages
from scim_tui.checker.checks.narrowing import quoted
from scim_tui.checker.checks.probes import results_of
from scim_tui.checker.context import CheckContext
from scim_tui.checker.creations import not_kept
from scim_tui.checker.engine import exception_data
from scim_tui.checker.exchanges import Exchange
from scim_tui.checker.exchanges import failure_reason
from scim_tui.checker.exchanges import request_line
from scim_tui.checker.features import claims
from scim_tui.checker.filling import always_returned
from scim_tui.checker.filling import name_attribute
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import SkipCause
from scim_tui.checker.results import Status

Query = Callable[[SearchRequest[Any], str], Any]
"""Sends a request with the parameters of a SearchRequest, for the resource of an id."""

NOT_OFFERED = frozenset({404, 405, NOT_IMPLEMENTED})
"""The answers of a server that does not offer POST .search there: 404 ("Specified resource
(e.g., User) or endpoint does not exist"), 405 (no POST at that URL), 501 ("Service provider does
not support the request operation"), RFC 7644 §3.12, Table 8. RFC 7644 §3.4.3 lets a client
search so ("Clients MAY execute queries without passing parameters on the URL by using the HTTP
POST verb combined with the "/.search" path extension"), and no rule makes a server offer it
(the ServiceProviderConfig has no flag for it, RFC 7643 §5)."""


class NotOffered(Exception):
    """A POST .search answered as one the server does not offer (NOT_OFFERED)."""

    def __init__(self, exchange: Exchange):
        super().__init__(f"{request_line(exchange)} answered {exchange.status_code}")
        self.exchange = exchange


def search_not_offered(request: str, status: int) -> str:
    """Why a search is SKIPPED when the server does not offer POST .search (NOT_OFFERED), after the request's name."""
    return (
        f"{request} answered {status}: the server does not offer POST .search there, which RFC 7644 §3.4.3 leaves optional "
        '("Clients MAY execute queries ... using the HTTP POST verb combined with the "/.search" path extension").'
    )


def unoffered_search(exchanges: list[Exchange]) -> Exchange | None:
    """The last answer of a failed POST .search, when it says the server does not offer it (NOT_OFFERED)."""
    answered = next((e for e in reversed(exchanges) if e.status_code is not None), None)
    return answered if answered is not None and answered.status_code in NOT_OFFERED else None


def filtering_candidates(model: type[Resource[Any]]) -> tuple[str | None, str | None]:
    """The attribute to ask for and the one to exclude (SPEC.md §4.5 rules 1 to 3).

    Candidates are the fields returned by default, not read-only, not required,
    other than schemas, meta and id, named by their serialization alias.
    """
    candidates = [
        info.serialization_alias or name
        for name, info in model.model_fields.items()
        if model.get_field_annotation(name, Returned) == Returned.default
        and model.get_field_annotation(name, Mutability) != Mutability.read_only
        and model.get_field_annotation(name, Required) != Required.true
        and name not in ("schemas", "meta", "id")
    ]
    return (candidates[0] if candidates else None, candidates[1] if len(candidates) > 1 else None)


def unasked(model: type[Resource[Any]], included: str, resource: dict[str, Any]) -> list[str]:
    """The attributes an answer to attributes=<included> holds beyond it, those returned "always"
    and "schemas", attribute names compared without case (RFC 7643 §2.1)."""
    allowed = {name.lower() for name in (included, "schemas", *always_returned(model))}
    return [key for key in resource if key.lower() not in allowed]


def examine(
    label: str,
    model: type[Resource[Any]],
    resource_id: str | None,
    response: Any,
    included: str | None,
    excluded: str | None,
    exact: bool = False,
    dropped: frozenset[str] = frozenset(),
) -> CheckResult:
    """Judge one filtered answer (SPEC.md §4.5 rules 9 to 11); when `exact`, an answer to
    attributes= holds nothing else than asked (and what is returned "always", RFC 7644 §3.9).
    An attribute asked for that the resource's creation `dropped` (the server keeps none of it:
    creations.py) is missing for that reason: SKIPPED, not an ERROR of attribute filtering."""
    if isinstance(response, ListResponse):
        found = next((r for r in response.resources or [] if r.id == resource_id), None)
        if found is None:
            return CheckResult(Status.ERROR, reason=f"{label}: could not find {model.__name__} with id {resource_id} in the ListResponse.", data=response)
        serialized = found.model_dump()
    elif isinstance(response, Resource):
        serialized = response.model_dump()
    elif response is None:
        return CheckResult(Status.ERROR, reason=f"{label}: the answer is {answer_name(response)}.", data=response)
    else:
        return CheckResult(Status.ERROR, reason=f"{label}: unexpected response type {type(response).__name__}.", data=response)
    if included is not None and included not in serialized:
        missing = f"{label}: requested attribute '{included}' is missing from the {model.__name__} response"
        if included in dropped:
            return CheckResult(Status.SKIPPED, reason=f"{missing}, and {not_kept(included, model.__name__)}.", data=response)
        return CheckResult(Status.ERROR, reason=f"{missing}.", data=response)
    extra = unasked(model, included, serialized) if exact and included is not None else []
    if extra:
        reason = (
            f"{label}: the {model.__name__} answered to attributes={included} also holds {', '.join(extra)}, "
            "though the default list of attributes SHALL be overridden (RFC 7644 §3.9)."
        )
        return CheckResult(Status.ERROR, reason=reason, data=response)
    if excluded is not None and excluded in serialized:
        return CheckResult(Status.ERROR, reason=f"{label}: excluded attribute '{excluded}' is still present in the {model.__name__} response.", data=response)
    parameter = f"attributes={included}" if included is not None else f"excludedAttributes={excluded}"
    return CheckResult(Status.SUCCESS, reason=f"{label}: attribute filtering is honoured for {model.__name__} ({parameter}).", data=response)


def naming_filter(context: CheckContext, model: type[Resource[Any]], resource: Resource[Any]) -> ScimFilter[Any] | None:
    """A filter that lists `resource` alone, by the value the server gave its name attribute
    (userName eq "…"), when the server claims filter; None otherwise."""
    attribute = name_attribute(model)
    value = getattr(resource, attribute.field, None) if attribute else None
    if attribute is None or not isinstance(value, str) or not claims(context, "filter"):
        return None
    try:
        return ScimFilter(f"{attribute.name} eq {quoted(value)}")
    except InvalidFilterException:  # a name the filter grammar cannot hold: the whole list is read
        return None


def check_filtering(
    context: CheckContext, model: type[Resource[Any]], label: str, query: Query, exact: bool = False, listed: bool = False
) -> list[CheckResult]:
    """Create a resource, then ask for `included` and exclude `excluded`: one result each (SPEC.md §4.5);
    `exact` holds an answer to attributes= to nothing else (examine).

    A list (`listed`) is first narrowed to the resource by a filter on its name, where the server
    claims filter: the run's other checks create and delete resources meanwhile, so the pages of
    the whole list shift while they are read, and a resource may fall between two of them (RFC
    7644 §3.4.2.4: "clients SHOULD never assume repeatable results"), at any page size the server
    chooses. When the narrowed list does not hold it, the whole list is read page after page."""
    included, excluded = filtering_candidates(model)
    if included is None and excluded is None:
        return [CheckResult(Status.SKIPPED, reason=f"{label}: no suitable attributes exist to test filtering on {model.__name__}.")]
    created = context.references.read_only(context, model)  # no check writes to it
    resource_id = str(created.id)
    narrowing = naming_filter(context, model, created) if listed else None
    scopes: list[ScimFilter[Any] | None] = [narrowing, None] if narrowing is not None else [None]
    results = []
    for asked, left_out in ((included, None), (None, excluded)):
        if asked is None and left_out is None:
            continue

        def fetch(scope: ScimFilter[Any] | None, start: int | None, asked: str | None = asked, left_out: str | None = left_out) -> Any:
            request: SearchRequest[Any] = SearchRequest(
                attributes=[Path(asked)] if asked else None,
                excluded_attributes=[Path(left_out)] if left_out else None,
                filter=scope,
                start_index=start,
            )
            return query(request, resource_id)

        mark = len(context.exchanges)
        try:
            response = _found(context, fetch, resource_id, scopes)
        except NotOffered:
            raise  # search_with_attributes tells it apart
        except Exception as exc:
            reason = f"{label}: {failure_reason(exc, context.exchanges[mark:])}"
            result = CheckResult(Status.ERROR, reason=reason, data=exception_data(exc))
        else:
            result = examine(label, model, resource_id, response, asked, left_out, exact, context.creations.dropped(model, resource_id))
        results.extend(results_of(context, mark, [result]))
    return results


def _found(context: CheckContext, fetch: Callable[[ScimFilter[Any] | None, int | None], Any], resource_id: str, scopes: list[ScimFilter[Any] | None]) -> Any:
    """The answer holding the resource, read page after page, in the first scope that holds it (a
    filter narrowing the list; None, the whole list, comes last and tells in the end): a narrowed
    list that fails or lacks it gives way to the next."""
    *narrowed, whole = scopes
    for scope in narrowed:
        try:
            response, found = find_in_pages(context, partial(fetch, scope), resource_id, wait=False)
        except NotOffered:
            raise
        except Exception:  # the whole list tells
            continue
        if found is not None:
            return response
    return find_in_pages(context, partial(fetch, whole), resource_id)[0]


@checker("crud", "crud:read:attributes", section="3.4.2.5", shares=("fixture",))
def object_query_with_attributes(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """GET /Resource/{id} honours attributes and excludedAttributes (RFC 7644 §3.4.2.5, §3.9).

    Creates a resource with every writable attribute filled, reads it once asking
    for one attribute and once excluding another. One result each: SUCCESS when
    the attribute asked for is there and the excluded one is not; ERROR on an
    unexpected status (200 is expected unless configured otherwise), an answer
    that is not the resource, a missing attribute or an excluded one present.
    SKIPPED when the model has no attribute suitable to filter on.
    """

    def query(request: SearchRequest[Any], resource_id: str) -> Any:
        return context.client.query(model, resource_id, query_parameters=request, expected_status_codes=context.expected_status_codes)

    return check_filtering(context, model, "GET /Resource/{id}", query)  # the label SPEC.md §4.5 gives


@checker("crud", "crud:read:attributes", section="3.4.2.5", shares=("fixture",))
def object_list_with_attributes(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """GET /Resource honours attributes and excludedAttributes (RFC 7644 §3.4.2, §3.4.2.5).

    Creates a resource with every writable attribute filled, lists the endpoint
    once asking for one attribute and once excluding another, and looks for the
    resource by id: in the list narrowed to it by a filter on its name where the
    server claims filter, else (or when that list lacks it) in the whole list,
    following pages. One result each: SUCCESS when filtering
    is honoured; ERROR on an unexpected status (200 unless configured), an
    answer that is not a ListResponse, a list without the resource, a missing
    attribute or an excluded one present, and when the resource listed for
    attributes=X holds other attributes than X, those returned "always" and
    "schemas" ("the default list of attributes SHALL be overridden", RFC 7644
    §3.9; attribute_projection holds the other answers to it). SKIPPED when no
    attribute suits.
    """

    def query(request: SearchRequest[Any], resource_id: str) -> Any:
        return context.client.query(model, query_parameters=request, expected_status_codes=context.expected_status_codes)

    return check_filtering(context, model, "GET /Resource", query, exact=True, listed=True)  # the label SPEC.md §4.5 gives


@checker("crud", "crud:read:attributes", section="3.4.3", shares=("fixture",))
def search_with_attributes(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """POST /.search honours attributes and excludedAttributes (RFC 7644 §3.4.3).

    Creates a resource with every writable attribute filled, then searches from
    the server root with the two parameters in the request body, and looks for
    the resource by id: in the answer narrowed to it by a filter on its name
    where the server claims filter, else (or when that answer lacks it) in the
    whole answer, following pages. One result each: SUCCESS when
    filtering is honoured; ERROR on an unexpected status (200 unless
    configured), an answer that is not a ListResponse, a list without the
    resource, a missing attribute or an excluded one present. SKIPPED when no
    attribute suits, or when the server answers 404, 405 or 501: a search from
    the server root is optional. RFC 7644 §3.4.2.1: "Queries MAY be performed
    against a SCIM resource object, a resource type endpoint, or a SCIM server
    root"; §3.4.3: "Clients MAY execute queries without passing parameters on
    the URL by using the HTTP POST verb combined with the "/.search" path
    extension"; and a server that does not offer it answers "endpoint does not
    exist" (404) or "does not support the request operation" (501, §3.12, Table 8).
    """

    def query(request: SearchRequest[Any], resource_id: str) -> Any:
        mark = len(context.exchanges)
        try:
            return context.client.search(search_request=request, expected_status_codes=context.expected_status_codes, raise_scim_errors=True)
        except Exception:
            refused = unoffered_search(context.exchanges[mark:])
            if refused is not None:
                raise NotOffered(refused) from None
            raise

    label = "POST /.search"  # the label SPEC.md §4.5 gives
    try:
        return check_filtering(context, model, label, query, listed=True)
    except NotOffered as refused:
        reason = f"{label}: {search_not_offered(request_line(refused.exchange), refused.exchange.status_code or 0)}"
        return [CheckResult(Status.SKIPPED, reason=reason, skip_cause=SkipCause.NOT_APPLICABLE)]
