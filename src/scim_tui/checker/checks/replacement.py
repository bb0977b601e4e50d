"""Checks of replacing and deleting resources (RFC 7644 §3.5.1, §3.6)."""

from __future__ import annotations

from functools import partial
from typing import Any

from scim2_models import Mutability
from scim2_models import Resource

from scim_tui.checker.answers import answer_name
from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import member
from scim_tui.checker.answers import shown
from scim_tui.checker.causes import kept_after_delete
from scim_tui.checker.causes import listed_after_delete
from scim_tui.checker.causes import replaced_without_resource
from scim_tui.checker.checks.comparison import attribute_at
from scim_tui.checker.checks.comparison import matches
from scim_tui.checker.checks.comparison import paths_of
from scim_tui.checker.checks.comparison import value_at
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.context import CheckContext
from scim_tui.checker.features import claims
from scim_tui.checker.filling import attributes_of
from scim_tui.checker.filling import build_resource
from scim_tui.checker.guard import Marker
from scim_tui.checker.guard import carries
from scim_tui.checker.guard import id_text
from scim_tui.checker.guard import markers_in
from scim_tui.checker.lag import settled
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status


@checker("crud", "crud:update", section="3.5.1", hands_over="replaced", takes="created")
def object_replacement(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """PUT replaces a resource with new values of its mutable attributes (RFC 7644 §3.5.1).

    Takes the resource object_creation made with every writable attribute filled (or creates
    one), then PUTs it with a new value for every writable attribute (immutable ones keep
    theirs). SUCCESS when the answer is 200 with the new values, and the resource goes to
    object_deletion (deleted by the end of the run when it does not run); ERROR on another
    status, an error, or an answer still holding old values. A 204 without the resource is that
    ERROR, and the cause the identity providers' steps meeting it name (causes.py).
    """
    created = context.references.fresh(context, model, fill_all=True, handed_over=True)  # object_creation's
    path = context.root_path(resource_path(context, model, created.id))
    replacement = _replacement(context, model, created)
    answer = context.client.replace(replacement, expected_status_codes=[*context.expected_status_codes, 204])
    if answer is None and context.exchanges[-1].status_code == 204:
        reason = f"PUT {path} answered 204 without the {model.__name__}, where a PUT returns 200 and the entire resource (RFC 7644 §3.5.1)."
        return [CheckResult(Status.ERROR, reason=reason, cause=replaced_without_resource(path))]
    if not isinstance(answer, Resource) or answer.id != created.id:
        return [CheckResult(Status.ERROR, reason=f"PUT {path} answered {answer_name(answer)} instead of the {model.__name__}.", data=answer)]
    dropped = context.creations.dropped(model, str(created.id))
    stale = _unchanged(model, replacement.model_dump(), answer.model_dump(), dropped)
    if stale:
        return [CheckResult(Status.ERROR, reason=f"PUT {path} answered 200, but {'; '.join(stale)}.", data=answer)]
    context.references.offer(context, answer, "replaced")  # what the server holds is known: object_deletion deletes it
    aside = f" (but {', '.join(sorted(dropped))}, which its creation answered without: the server keeps none of it)" if dropped else ""
    return [CheckResult(Status.SUCCESS, reason=f"PUT {path} answered 200 with the new values of the {model.__name__}{aside}.", data=answer)]


def _replacement(context: CheckContext, model: type[Resource[Any]], created: Resource[Any]) -> Resource[Any]:
    """New values for every writable attribute; immutable ones (and those holding some) as created."""
    replacement = build_resource(context, model, fill_all=True)
    for attribute in attributes_of(model):
        root = attribute.root_type
        kept = attribute.mutability == Mutability.immutable or (
            attribute.is_complex and any(sub.mutability == Mutability.immutable for sub in attributes_of(root))
        )
        if kept:
            setattr(replacement, attribute.field, getattr(created, attribute.field))
    replacement.id = created.id
    replacement.meta = created.meta
    return replacement


def _unchanged(model: type[Resource[Any]], sent: dict[str, Any], answered: dict[str, Any], dropped: frozenset[str]) -> list[str]:
    """What the answer to a replacement does not hold of the readable, mutable values sent, but
    those the creation `dropped` (the server keeps none of them: creations.py)."""
    stale = []
    for path in paths_of(model):
        attribute = attribute_at(model, path)
        top_level = len(path.parts) == 1
        if not top_level or attribute is None or attribute.hidden or attribute.is_extension or attribute.mutability != Mutability.read_write:
            continue
        if attribute.name in dropped:
            continue
        expected = value_at(sent, path)
        actual = value_at(answered, path)
        if expected is not None and not matches(expected, actual):
            stale.append(f"{path} is {shown(actual, 60)} instead of {shown(expected, 60)}")
    return stale


@checker("crud", "crud:delete", section="3.6", takes="replaced")
def object_deletion(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """DELETE removes a resource: 204, then a GET answers 404, and queries omit it (RFC 7644 §3.6).

    Takes the resource object_replacement replaced (its PUT answered with every value sent), or
    creates one, deletes it, reads it again, then (when the server claims filter) queries it by
    a value the run gave it. SUCCESS when DELETE answers 204, the GET 404 and the query
    lists it no more; ERROR when DELETE answers another status, the resource can still be read
    (or another is served at its id), the GET answers another status than 404, or the query still lists it (a service provider
    MAY keep the record, but MUST answer 404 for it and MUST omit it from query results).
    """
    replaced = context.references.replaced(context, model)
    created = replaced or context.references.fresh(context, model, fill_all=True)
    path = resource_path(context, model, created.id)
    deleted = context.client.request("DELETE", path)
    request = f"DELETE {context.root_path(path)}"
    if deleted.status_code != 204:
        return [CheckResult(Status.ERROR, reason=f"{request} answered {deleted.status_code} instead of 204.", data=body_of(deleted))]
    after = context.client.request("GET", path)
    # a replaced resource holds the values its PUT answered, not those of its creation
    markers = markers_in(replaced.model_dump()) if replaced is not None else None
    if after.status_code == 404:
        return [_omitted_from_queries(context, model, str(created.id), request, markers)]
    owned = context.guard.owned(resource_path(context, model), str(created.id))
    ours = markers if markers is not None else owned.markers if owned is not None else ()
    if 200 <= after.status_code < 300 and carries(body_of(after), ours) is False:
        reason = (
            f"{request} answered 204, then a GET of its URL served another resource instead of 404: its id was given to "
            "another (RFC 7643 §3.1: an id MUST be non-reassignable)."
        )
        return [CheckResult(Status.ERROR, reason=reason, data=body_of(after))]
    if 200 <= after.status_code < 300:
        reason = f"{request} answered 204, but the {model.__name__} can still be read."
        return [CheckResult(Status.ERROR, reason=reason, data=body_of(after), cause=kept_after_delete(context.root_path(path)))]
    return [CheckResult(Status.ERROR, reason=f"{request} answered 204, but a GET then answered {after.status_code} instead of 404.", data=body_of(after))]


def _omitted_from_queries(context: CheckContext, model: type[Resource[Any]], resource_id: str, request: str, markers: tuple[Marker, ...] | None) -> CheckResult:
    """The result of `request` (a DELETE answered 204, then a GET 404) once a query filtered on a
    value the run gave the resource (one of `markers`, else of its creation) no longer lists it
    (ERROR when it does); the resource is forgotten once gone from both."""
    said = f"{request} answered 204, and a GET then answered 404"
    endpoint = resource_path(context, model)
    owned = context.guard.owned(endpoint, resource_id)
    if markers is None:
        markers = owned.markers if owned is not None else ()
    if owned is None or not markers or not claims(context, "filter"):
        context.resource_manager.forget(resource_id)
        return CheckResult(Status.SUCCESS, reason=f"{said}.")
    marker = markers[0]
    query = f'{marker.attribute} eq "{marker.value}"'

    def resources_of(listed: Any) -> Any:
        return member(body_of(listed), "Resources") if listed.status_code == 200 else None

    def lists_it(listed: Any) -> bool:
        resources = resources_of(listed)
        return isinstance(resources, list) and any(isinstance(item, dict) and id_text(member(item, "id")) == resource_id for item in resources)

    ask = partial(context.client.request, "GET", endpoint, params={"filter": query})
    listed = settled(context, ask, lambda listed: not lists_it(listed))  # a list may lag behind the deletion (lag.py)
    named = f"GET {context.root_path(endpoint)}?filter={query}"
    body = body_of(listed)
    resources = resources_of(listed)
    if not isinstance(resources, list):
        context.resource_manager.forget(resource_id)
        return CheckResult(Status.SUCCESS, reason=f"{said}; {named} answered {listed.status_code} without a list, so whether queries omit it is not known.")
    if lists_it(listed):
        reason = (
            f"{request} answered 204 and a GET then answered 404, but {named} still lists it: a deleted "
            "resource MUST be omitted from query results (RFC 7644 §3.6)."
        )
        return CheckResult(Status.ERROR, reason=reason, data=body, cause=listed_after_delete(context.root_path(resource_path(context, model, resource_id))))
    context.resource_manager.forget(resource_id, unlisted=True)
    return CheckResult(Status.SUCCESS, reason=f"{request} answered 204, a GET then answered 404, and {named} no longer lists it.", data=body)
