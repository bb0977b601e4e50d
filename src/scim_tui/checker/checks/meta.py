"""Checks of the common attributes a server assigns: id and meta (RFC 7643 §3.1)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from datetime import datetime
from typing import Any

from scim2_models import Meta
from scim2_models import Resource

from scim_tui.checker.answers import answer_name
from scim_tui.checker.answers import listed
from scim_tui.checker.answers import shown
from scim_tui.checker.checks.comparison import matches
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.patch import Target
from scim_tui.checker.checks.patch import send_patch
from scim_tui.checker.checks.probes import method_refused
from scim_tui.checker.checks.probes import results_of
from scim_tui.checker.context import CheckContext
from scim_tui.checker.engine import failure_result
from scim_tui.checker.exchanges import Exchange
from scim_tui.checker.exchanges import request_line
from scim_tui.checker.features import unclaimed
from scim_tui.checker.filling import Attribute
from scim_tui.checker.filling import attribute_named
from scim_tui.checker.filling import changeable_string
from scim_tui.checker.filling import name_attribute
from scim_tui.checker.filling import unique_for
from scim_tui.checker.filling import unique_string
from scim_tui.checker.locations import Located
from scim_tui.checker.locations import located
from scim_tui.checker.recorder import base_url_of
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status


@dataclass
class Update:
    """A request that made or changed the resource, and the resource as it answered."""

    label: str
    resource: Resource[Any]
    sent: float
    """When the request went out (time.monotonic)."""
    answered: float
    """When its answer came back: the server made the change between the two."""
    exchanges: list[Exchange] = field(default_factory=list)
    change: tuple[Attribute, str] | None = None
    """The attribute it gave a new value, and that value (None for the creation)."""


@checker("meta", section="3.1", rfc=7643)
def resource_metadata(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """A server gives each resource a stable id of its own and a meta it keeps up to date (RFC 7643 §3.1).

    Creates a resource with an externalId of ours, reads it, replaces it by PUT and
    patches it, each time with a new externalId (or, when the server's schema declares
    externalId immutable or readOnly, or the created resource does not hold the one sent,
    a new value of another single-valued string it declares readWrite and returned by
    default, RFC 7643 §2.2), then deletes it.
    One result per rule:

    - meta of the created resource: ERROR when meta.location is missing (RFC 7644 §3.3:
      the body SHALL hold it) or names neither the resource's URL nor another URL of the
      same origin where a GET answers the resource (its shape is not judged; another
      path on another origin, which a GET from here cannot check, is not judged), when
      meta.resourceType is not the resource type's name, or when lastModified differs
      from created (it MUST equal created until the resource is modified); DEVIATION
      when resourceType, created or lastModified is missing (they are returned by
      default, with no MUST); SUCCESS otherwise.
    - id is not the externalId sent: ERROR when it is (the id is always issued by the
      server and MUST NOT be specified by the client).
    - id is stable: ERROR when the read, the PUT or the PATCH answers another id (it
      MUST be stable and non-reassignable).
    - lastModified after the PUT, and after the PATCH: lastModified is "the most recent
      DateTime that the details of this resource were updated", so it moves forward.
      A DateTime may have any precision, and a server that keeps whole seconds cannot
      move it within the second of the previous change. SUCCESS when it is later, or
      unchanged in whole seconds with less than a second between the previous answer
      and the update's request; ERROR when it is earlier, or unchanged otherwise;
      SKIPPED when it is unchanged and the answer does not hold the value sent (the
      server kept none of the change: nothing was updated to move it);
      DEVIATION when the answer has none; SKIPPED when the previous answer had none
      to compare with, for the PATCH when the ServiceProviderConfig does not claim
      PATCH support, for an update answered 405 (the server refuses the method itself,
      which the check of that method judges), and for both when the schema lets a client
      change no attribute.
    """
    mark = len(context.exchanges)
    external_id = unique_string("external")
    sent = time.monotonic()
    created = context.resource_manager.create_and_register(model, fill_all=False, values={"externalId": external_id})
    creation = Update("the creation", created, sent, time.monotonic())
    path = resource_path(context, model, created.id)
    results = results_of(context, mark, [_created_meta(context, model, created, path), _id_not_external(created, external_id)])

    mark = len(context.exchanges)
    seen = [("the read", context.client.query(model, created.id, expected_status_codes=context.expected_status_codes))]
    previous, named = creation, context.root_path(path)
    timeline = []
    for update in _updates(context, model, created, path, kept_external=created.external_id == external_id):
        if isinstance(update, Update):
            seen.append((update.label, update.resource))
            timeline.append(_moved_forward(previous, update, named))
            previous = update
        else:
            timeline.append(update)
    return [*results, *results_of(context, mark, [_id_stable(created, seen, named)]), *timeline]


def _updates(context: CheckContext, model: type[Resource[Any]], created: Resource[Any], path: str, kept_external: bool) -> list[Update | CheckResult]:
    """A PUT, then a PATCH, each giving a new value to an attribute the schema lets a client change
    (externalId unless the creation did not keep it); a SKIPPED result for the one that cannot be sent."""
    preferred = (attribute_named(model, "externalId") if kept_external else None, name_attribute(model))
    changed = changeable_string(model, *preferred)
    if changed is None:
        declared = "; ".join(item.declaration for item in preferred if item is not None)
        why = f"Skipped: the {model.__name__} schema declares no single-valued string a client may change and read back ({declared})."
        return [CheckResult(Status.SKIPPED, reason=f"lastModified after a {method}: {why}") for method in ("PUT", "PATCH")]
    updates: list[Update | CheckResult] = [_attempt(context, "PUT", path, lambda: _replace(context, model, created, changed))]
    skipped = unclaimed(context, "patch")
    if skipped:
        skipped.reason = f"lastModified after a PATCH: {skipped.reason}"
    updates.append(skipped or _attempt(context, "PATCH", path, lambda: _patch(context, model, str(created.id), changed)))
    return updates


def _attempt(context: CheckContext, method: str, path: str, update: Callable[[], Update]) -> Update | CheckResult:
    """Send an update and keep its exchanges; when it fails, a result saying why (engine.failure_result)."""
    mark = len(context.exchanges)
    try:
        done = update()
    except Exception as exc:
        sent = context.exchanges[mark:]
        failed = (method_refused(request_line(sent[-1]), sent[-1]) if sent else None) or failure_result(exc, sent)
        failed.reason, failed.exchanges = f"lastModified after a {method}: {failed.reason}", sent
        return failed
    done.exchanges = context.exchanges[mark:]
    return done


def _replace(context: CheckContext, model: type[Resource[Any]], created: Resource[Any], changed: Attribute) -> Update:
    # No meta: the resource type comes from the model, whatever meta.resourceType says.
    value = unique_for(changed.name, changed.name)
    replacement = created.model_copy(update={changed.field: value, "meta": None})
    sent = time.monotonic()
    # A PUT answered 204 is object_replacement's finding (RFC 7644 §3.5.1: 200 and the resource):
    # lastModified is read back, as after a PATCH.
    answer = context.client.replace(model, replacement, expected_status_codes=[*context.expected_status_codes, 204])
    if answer is None and context.exchanges[-1].status_code == 204:
        answer = context.client.query(model, created.id, expected_status_codes=context.expected_status_codes)
    return Update("the PUT", _resource(answer, model, "PUT"), sent, time.monotonic(), change=(changed, value))


def _patch(context: CheckContext, model: type[Resource[Any]], resource_id: str, changed: Attribute) -> Update:
    """PATCH a new value of the attribute changed; a server that answers 204 is read back."""
    value = unique_for(changed.name, changed.name)
    operation = {"op": "replace", "path": changed.name, "value": value}
    target = Target(model, resource_id, resource_path(context, model, resource_id), {})
    sent = time.monotonic()
    seen, _ = send_patch(context, target, [operation])
    return Update("the PATCH", model.model_validate(seen), sent, time.monotonic(), change=(changed, value))


def _resource(answer: Any, model: type[Resource[Any]], method: str) -> Resource[Any]:
    if not isinstance(answer, Resource):
        raise ValueError(f"the {method} answer is {answer_name(answer)} instead of the {model.__name__}")
    return answer


def _created_meta(context: CheckContext, model: type[Resource[Any]], created: Resource[Any], path: str) -> CheckResult:
    """ERROR for a wrong or missing meta.location, a wrong resourceType, lastModified unlike created;
    DEVIATION for a missing resourceType, created or lastModified."""
    meta = created.meta or Meta()
    errors = []
    location = _located(context, created, path) if meta.location else Located()
    if not meta.location:
        errors.append("meta.location is missing, though the body of a 201 SHALL hold it (RFC 7644 §3.3)")
    elif location.problem:
        errors.append(location.problem)
    expected_type = _resource_type_name(context, model)
    if meta.resource_type and expected_type and meta.resource_type != expected_type:
        errors.append(f"meta.resourceType is {shown(meta.resource_type)} instead of {shown(expected_type)}")
    if meta.created and meta.last_modified and meta.created != meta.last_modified:
        errors.append(
            f"meta.lastModified {_shown(meta.last_modified)} differs from meta.created {_shown(meta.created)}, "
            "though it MUST equal it until the resource is modified"
        )
    missing = [name for name, value in (("resourceType", meta.resource_type), ("created", meta.created), ("lastModified", meta.last_modified)) if not value]
    problems = errors + ([f"meta lacks {', '.join(missing)}, returned by default"] if missing else [])
    if problems:
        status = Status.ERROR if errors else Status.DEVIATION
        return CheckResult(status, reason=f"The created {expected_type or model.__name__}: {'; '.join(problems)} (RFC 7643 §3.1).", data=created)
    return CheckResult(
        Status.SUCCESS,
        reason=f"The created {expected_type or model.__name__} has meta.resourceType {shown(meta.resource_type)}, "
        f"created equal to lastModified, and {location.note or f'its location {meta.location}'}.",
        data=created,
    )


def _located(context: CheckContext, created: Resource[Any], path: str) -> Located:
    """What meta.location says of the resource: judged by what a GET on it answers, never by its shape."""
    served_at = f"{base_url_of(context.client).rstrip('/')}{path}"
    return located(context, {"id": created.id, "meta": {"location": str((created.meta or Meta()).location)}}, served_at)


def _resource_type_name(context: CheckContext, model: type[Resource[Any]]) -> str | None:
    resource_types = getattr(context.client.provider, "resource_types", None) or ()
    return next((str(rt.name) for rt in resource_types if context.model_for(rt) is model), None)


def _id_not_external(created: Resource[Any], external_id: str) -> CheckResult:
    if created.id == external_id:
        return CheckResult(
            Status.ERROR,
            reason=f"The created resource's id is {shown(external_id)}, the externalId the client sent: the id MUST "
            "be issued by the server, never specified by the client (RFC 7643 §3.1).",
            data=created,
        )
    return CheckResult(
        Status.SUCCESS, reason=f"The server issued the id {created.id} of its own, not the externalId {shown(external_id)} the client sent.", data=created
    )


def _id_stable(created: Resource[Any], seen: list[tuple[str, Any]], path: str) -> CheckResult:
    changed = [f"{label} answered the id {shown(getattr(answer, 'id', None))}" for label, answer in seen if getattr(answer, "id", None) != created.id]
    done = listed([label for label, _ in seen])
    if changed:
        return CheckResult(
            Status.ERROR, reason=f"{path} was created with the id {created.id}, but {'; '.join(changed)}: the id MUST be stable (RFC 7643 §3.1)."
        )
    return CheckResult(Status.SUCCESS, reason=f"The id {created.id} stayed the same in {done}.")


def _moved_forward(before: Update, after: Update, path: str) -> CheckResult:
    """Whether lastModified moved forward from one change to the next (see the checker's docstring)."""
    old = before.resource.meta.last_modified if before.resource.meta else None
    new = after.resource.meta.last_modified if after.resource.meta else None
    request = f"{after.label.removeprefix('the ')} {path}"
    if old is None:
        return CheckResult(
            Status.SKIPPED, reason=f"Skipped: {before.label} answered no meta.lastModified to compare the one after {request} with.", exchanges=after.exchanges
        )
    if new is None:
        status, reason = Status.DEVIATION, f"{request} answered no meta.lastModified, which is returned by default"
    elif new > old:
        status, reason = Status.SUCCESS, f"{request} moved lastModified forward, from {_shown(old)} to {_shown(new)}"
    elif new < old:
        status, reason = Status.ERROR, f"{request} moved lastModified back, from {_shown(old)} to {_shown(new)}"
    elif (ignored := _ignored(after)) is not None:
        reason = f"Skipped: {request} left lastModified at {_shown(new)}, and kept none of the change ({ignored}): nothing was updated to move it."
        return CheckResult(Status.SKIPPED, reason=reason, data=after.resource, exchanges=after.exchanges)
    elif _whole_second(new) and after.sent - before.answered < 1:
        status = Status.SUCCESS
        reason = (
            f"{request} left lastModified at {_shown(new)}; the server keeps whole seconds, and the "
            f"{after.label.removeprefix('the ')} came within a second of {before.label}, so no later value was due"
        )
    else:
        status, reason = Status.ERROR, f"{request} left lastModified at {_shown(new)}, where {before.label} had put it"
    suffix = "" if status is Status.SUCCESS else ": it is the DateTime of the most recent update (RFC 7643 §3.1)"
    return CheckResult(status, reason=f"{reason}{suffix}.", data=after.resource, exchanges=after.exchanges)


def _ignored(update: Update) -> str | None:
    """What an update's answer holds instead of the value it sent, when it kept none of its change."""
    if update.change is None:
        return None
    attribute, value = update.change
    held = getattr(update.resource, attribute.field, None)
    if matches(value, held):
        return None
    return f"its answer holds {attribute.name} {shown(held)}, not the {shown(value)} sent"


def _whole_second(moment: datetime) -> bool:
    return moment.microsecond == 0


def _shown(moment: datetime | None) -> str:
    return "nothing" if moment is None else moment.isoformat().replace("+00:00", "Z")
