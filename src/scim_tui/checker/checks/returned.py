"""What the schema declares returned "never" (a password) is in no answer (RFC 7643 §7)."""

from __future__ import annotations

import json
import uuid
from typing import Any

from scim2_models import Resource
from scim2_models import Returned

from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import member
from scim_tui.checker.checks.crud import creation_read
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.narrowing import quoted
from scim_tui.checker.checks.probes import send_json
from scim_tui.checker.context import NEEDED_CREATION_ANSWERS
from scim_tui.checker.context import CheckContext
from scim_tui.checker.exchanges import Exchange
from scim_tui.checker.exchanges import request_line
from scim_tui.checker.features import claims
from scim_tui.checker.filling import Attribute
from scim_tui.checker.filling import attributes_of
from scim_tui.checker.filling import creation_json
from scim_tui.checker.filling import name_attribute
from scim_tui.checker.guard import id_text
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

NEVER = 'RFC 7643 §7: returned "never", "the attribute is never returned"'


def never_returned_attributes(model: type[Resource[Any]]) -> list[Attribute]:
    """The single-valued strings a client writes that the schema declares returned "never"."""
    return [a for a in attributes_of(model) if a.returned == Returned.never and a.writable and not a.multi_valued and a.root_type is str]


def secret_value() -> str:
    """A value for a password, strong enough for the usual policies, and found again in any answer."""
    return f"Scim-Tui-{uuid.uuid4().hex[:16]}!9"


@checker("bodies", "bodies:never-returned", section="7", rfc=7643)
def never_returned(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """An attribute the schema declares returned "never" (password) is in no answer (RFC 7643 §7).

    Creates a resource with a value for each such attribute, then reads it, reads it asking for
    them (attributes=password), and lists it with a filter on its name (when filter is claimed).
    SUCCESS when no answer holds the attribute, nor the value sent anywhere; ERROR naming each
    answer that does ("the attribute is never returned"). SKIPPED when the schema declares no such
    attribute a client writes, or the creation carrying it is refused. The resource is deleted.
    """
    hidden = never_returned_attributes(model)
    if not hidden:
        return [CheckResult(Status.SKIPPED, reason=f'Skipped: the {model.__name__} schema declares no attribute a client writes returned "never".')]
    values = {attribute.name: secret_value() for attribute in hidden}
    path = resource_path(context, model)
    body = creation_json(context, model) | values
    mark = len(context.exchanges)
    response = send_json(context, "POST", path, body)
    created = body_of(creation_read(context, response)[0])
    resource_id = id_text(member(created, "id"))
    if response.status_code not in NEEDED_CREATION_ANSWERS or not isinstance(resource_id, str):
        said = f"POST {context.root_path(path)} with {', '.join(values)} answered {response.status_code}"
        return [
            CheckResult(
                Status.SKIPPED, reason=f"Skipped: {said}, so there is no resource to read it back from (object_creation judges creations).", data=created
            )
        ]
    answers = [*context.exchanges[mark:], *_reads(context, model, resource_path(context, model, resource_id), body)]
    leaks = [exchange for exchange in answers if _holds(exchange, values)]
    names = ", ".join(values)
    if leaks:
        reason = f"{'; '.join(request_line(e) for e in leaks)}: the answer holds {names} or the value sent ({NEVER})."
        return [CheckResult(Status.ERROR, reason=reason)]
    reason = f"No answer holds {names} nor its value: {'; '.join(request_line(e) for e in answers)}."
    return [CheckResult(Status.SUCCESS, reason=reason)]


def _reads(context: CheckContext, model: type[Resource[Any]], path: str, body: dict[str, Any]) -> list[Exchange]:
    """GET the resource, GET it asking for the attributes, and list it by its name (filter claimed)."""
    names = ",".join(attribute.name for attribute in never_returned_attributes(model))
    context.client.request("GET", path)
    read = context.exchanges[-1]
    context.client.request("GET", path, params={"attributes": names})
    asked = context.exchanges[-1]
    name = name_attribute(model)
    if name is None or not claims(context, "filter") or not isinstance(body.get(name.name), str):
        return [read, asked]
    context.client.request("GET", resource_path(context, model), params={"filter": f"{name.name} eq {quoted(body[name.name])}"})
    return [read, asked, context.exchanges[-1]]


def _holds(exchange: Exchange, values: dict[str, str]) -> bool:
    """Whether an answer holds one of the attributes (in any resource it carries), or a value sent."""
    text = exchange.response_body or ""
    if any(value in text for value in values.values()):
        return True
    try:
        answer = json.loads(text)
    except ValueError:
        return False
    resources = member(answer, "Resources") if isinstance(member(answer, "Resources"), list) else [answer]
    return any(member(resource, name) is not None for resource in resources for name in values)
