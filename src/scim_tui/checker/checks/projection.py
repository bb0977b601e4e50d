"""Checks that attributes and excludedAttributes shape every answer holding a resource
(RFC 7644 §3.9, §3.4.2.5, §3.4.3; "returned" in RFC 7643 §7).

attributes.py (SPEC.md §4.5) checks that the attribute asked for comes back and the
excluded one does not. These checks read the raw JSON the server sent, so that model
validation hides nothing, and hold it to the rest of the rule:

- with ``attributes=X`` an answer holds X, the attributes returned "always", and nothing
  else: "the default list of attributes SHALL be overridden" (RFC 7644 §3.9);
- ``excludedAttributes`` never removes an attribute returned "always": "each resource
  returned MUST contain the minimum set of resource attributes" (RFC 7644 §3.9);
- on GET, POST /.search, and the answers of POST, PUT and PATCH.

What "nothing else" leaves room for: "schemas", which every representation of a SCIM
resource MUST carry (RFC 7643 §3); "id", returned "always" (RFC 7643 §3.1), with any
other attribute the schema says is returned "always"; and, in the answer to a write,
the attributes returned on "request" that the client sent (RFC 7643 §7). "meta" is not
among them: its sub-attributes are returned "default" (RFC 7643 §3.1), so an answer to
``attributes=X`` holds it only when X names it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any
from urllib.parse import urljoin

from scim2_models import PatchOp
from scim2_models import Resource
from scim2_models import Returned
from scim2_models import SearchRequest

from scim_tui.checker.answers import bodiless
from scim_tui.checker.answers import body_kind
from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import member
from scim_tui.checker.checks.attributes import NOT_OFFERED
from scim_tui.checker.checks.attributes import filtering_candidates
from scim_tui.checker.checks.attributes import search_not_offered
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.probes import results_of
from scim_tui.checker.checks.probes import send_json
from scim_tui.checker.checks.probes import steps
from scim_tui.checker.context import CheckContext
from scim_tui.checker.features import claims
from scim_tui.checker.filling import Attribute
from scim_tui.checker.filling import always_returned
from scim_tui.checker.filling import attribute_value
from scim_tui.checker.filling import attributes_of
from scim_tui.checker.filling import creatable
from scim_tui.checker.filling import creation_json
from scim_tui.checker.guard import id_text
from scim_tui.checker.guard import resource_url
from scim_tui.checker.lag import settled
from scim_tui.checker.locations import served_at_url
from scim_tui.checker.recorder import base_url_of
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

SEARCH_SCHEMA = SearchRequest.__schema__
PATCH_SCHEMA = PatchOp.__schema__


def _returned(attribute: Attribute) -> Returned:
    return attribute.owner.get_field_annotation(attribute.field, Returned)


@dataclass(frozen=True)
class Projection:
    """One way of asking for part of a resource, and what its answer must and may hold."""

    parameter: str
    """"attributes" or "excludedAttributes"."""
    names: tuple[str, ...]
    always: tuple[str, ...]
    tolerated: tuple[str, ...] = ()
    """Attributes returned on "request" the client sent, which the answer to a write may hold."""

    @property
    def query(self) -> dict[str, str]:
        return {self.parameter: ",".join(self.names)}

    @property
    def text(self) -> str:
        return f"{self.parameter}={','.join(self.names)}"

    def problems(self, resource: dict[str, Any]) -> list[str]:
        """What breaks RFC 7644 §3.9 in a resource's JSON; attribute names compared without case."""
        keys = {key.lower(): key for key in resource}
        missing = [name for name in self.always if name.lower() not in keys]
        problems = [f'it lacks {", ".join(missing)}, returned "always" (RFC 7643 §7)'] if missing else []
        if self.parameter == "attributes":
            allowed = {name.lower() for name in (*self.names, *self.always, *self.tolerated, "schemas")}
            asked = [name for name in self.names if name.lower() not in keys]
            extra = [key for lowered, key in keys.items() if lowered not in allowed]
            if asked:
                problems.append(f"it lacks {', '.join(asked)}, asked for")
            if extra:
                problems.append(f"it also holds {', '.join(extra)}, not asked for, though the default list of attributes SHALL be overridden")
        return problems


def judged(label: str, projection: Projection, resource: dict[str, Any]) -> CheckResult:
    """SUCCESS when a resource's JSON holds what a projection asks, ERROR naming each problem."""
    problems = projection.problems(resource)
    if problems:
        return CheckResult(Status.ERROR, reason=f"{label}: {'; '.join(problems)} (RFC 7644 §3.9).", data=resource)
    kept = ", ".join(projection.always)
    if projection.parameter == "attributes":
        return CheckResult(
            Status.SUCCESS, reason=f'{label} answered only {", ".join(projection.names)}, with {kept} (returned "always") and schemas.', data=resource
        )
    return CheckResult(Status.SUCCESS, reason=f'{label} kept {kept}, returned "always".', data=resource)


def answered_resource(label: str, response: Any, expected: int) -> tuple[dict[str, Any], CheckResult | None]:
    """The JSON object of an answer that must carry a resource, or an ERROR result."""
    payload = body_of(response)
    if response.status_code != expected:
        return {}, CheckResult(Status.ERROR, reason=f"{label} answered {response.status_code} instead of {expected}.", data=payload)
    if not isinstance(payload, dict):
        what = body_kind(response.text) if payload is None or isinstance(payload, str) else "a JSON array"
        return {}, CheckResult(Status.ERROR, reason=f"{label} answered {what} instead of the resource.", data=payload)
    return payload, None


@dataclass
class Subject:
    """The resource a projection check works on, as it was sent."""

    model: type[Resource[Any]]
    endpoint: str
    payload: dict[str, Any]
    asked: Attribute
    id: str = ""
    unsearchable: str | None = None
    """Why POST .search is not tried again: the reason its first answer (NOT_OFFERED) gave."""

    @property
    def path(self) -> str:
        return resource_url(self.endpoint, self.id)


def _write_projection(subject: Subject, projection: Projection) -> Projection:
    """The projection of an answer to a write: attributes returned on request the client sent are tolerated."""
    sent = {key.lower() for key in subject.payload}
    tolerated = tuple(a.name for a in attributes_of(subject.model) if _returned(a) == Returned.request and a.name.lower() in sent)
    return Projection(projection.parameter, projection.names, projection.always, tolerated)


def _created(context: CheckContext, subject: Subject, asking: Projection) -> CheckResult:
    """POST the resource asking for one attribute (deleted afterwards, as every creation of the run)."""
    label = f"POST {context.root_path(subject.endpoint)}?{asking.text}"
    response = send_json(context, "POST", subject.endpoint, subject.payload, params=asking.query)
    creatable(context, subject.model, response.status_code)  # refused as every creation is: no finding of the projection
    payload = body_of(response)
    if 200 <= response.status_code < 300:
        subject.id = _created_id(context, payload, response)
    if bodiless(response.status_code, response.text):
        return _unanswered(label, response.status_code, "object_creation")
    resource, failure = answered_resource(label, response, 201)
    if failure:
        return failure
    if not subject.id:
        return CheckResult(Status.ERROR, reason=f"{label} answered 201 without the id of the resource, nor a Location naming it.", data=resource)
    return judged(label, _write_projection(subject, asking), resource)


def _created_id(context: CheckContext, payload: Any, response: Any) -> str:
    """The id of a created resource: in its body, else the id of what a GET on its Location
    answers (RFC 7644 §3.3); never read out of the URL."""
    answered = id_text(member(payload, "id"))
    if isinstance(answered, str):
        return answered
    location = response.headers.get("location")
    served = id_text(member(served_at_url(context, urljoin(base_url_of(context.client), location)), "id")) if location else None
    return served if isinstance(served, str) else ""


def _read(context: CheckContext, subject: Subject, projection: Projection) -> CheckResult:
    label = f"GET {context.root_path(subject.path)}?{projection.text}"
    response = context.client.request("GET", subject.path, params=projection.query)
    resource, failure = answered_resource(label, response, 200)
    return failure or judged(label, projection, resource)


def _searched(context: CheckContext, subject: Subject, projection: Projection) -> CheckResult:
    """POST /.search on the endpoint for the resource's id (a filter), the projection in the body;
    SKIPPED when the server does not offer POST .search there (404, 405 or 501: RFC 7644 §3.4.3
    lets a client search so, "Clients MAY execute queries ... using the HTTP POST verb combined
    with the "/.search" path extension"), and not tried again after such an answer."""
    search = f"{subject.endpoint}/.search"
    label = f"POST {context.root_path(search)} with {projection.text}"
    if not claims(context, "filter"):
        return _not_tried(label, "filter")
    if subject.unsearchable is not None:
        return CheckResult(Status.SKIPPED, reason=f"{label} not tried: {subject.unsearchable}")
    body = {"schemas": [SEARCH_SCHEMA], "filter": f'id eq "{subject.id}"', projection.parameter: list(projection.names)}

    def answered(response: Any) -> bool:
        """Whether the search found something, or failed: no empty list, which may lag behind the creation (lag.py)."""
        return response.status_code != 200 or bool(member(body_of(response), "Resources"))

    response = settled(context, partial(send_json, context, "POST", search, body), answered)
    if response.status_code in NOT_OFFERED:
        subject.unsearchable = f"POST .search was answered {response.status_code}, the server does not offer it there."
        return CheckResult(Status.SKIPPED, reason=search_not_offered(label, response.status_code), data=body_of(response))
    listed, failure = answered_resource(label, response, 200)
    if failure:
        return failure
    resources = member(listed, "Resources") or []
    if len(resources) != 1 or not isinstance(resources[0], dict):
        return CheckResult(Status.ERROR, reason=f"{label} for id {subject.id} listed {len(resources)} resources instead of the 1 created.", data=listed)
    return judged(label, projection, resources[0])


def _replaced(context: CheckContext, subject: Subject, projection: Projection) -> CheckResult:
    label = f"PUT {context.root_path(subject.path)}?{projection.text}"
    response = send_json(context, "PUT", subject.path, subject.payload, params=projection.query)
    if bodiless(response.status_code, response.text):
        return _unanswered(label, response.status_code, "object_replacement")
    resource, failure = answered_resource(label, response, 200)
    return failure or judged(label, _write_projection(subject, projection), resource)


def _patched(context: CheckContext, subject: Subject, projection: Projection) -> CheckResult:
    """PATCH a new value of the attribute asked for; with "attributes" the answer MUST be 200 (RFC 7644 §3.5.2)."""
    label = f"PATCH {context.root_path(subject.path)}?{projection.text}"
    if not claims(context, "patch"):
        return _not_tried(label, "patch")
    if not subject.asked.changeable:
        return CheckResult(Status.SKIPPED, reason=f"{label} not tried: {subject.asked.declaration} (RFC 7643 §2.2), so a client may not give it a new value.")
    value = attribute_value(context, subject.asked, avoid=subject.payload.get(subject.asked.name))
    body = {"schemas": [PATCH_SCHEMA], "Operations": [{"op": "replace", "path": subject.asked.name, "value": value}]}
    response = send_json(context, "PATCH", subject.path, body, params=projection.query)
    resource, failure = answered_resource(label, response, 200)
    return failure or judged(label, _write_projection(subject, projection), resource)


def _unanswered(label: str, code: int, judge: str) -> CheckResult:
    """SKIPPED: a write answered without a body holds no projection to judge (its judge reports
    the answer: a creation's body SHOULD hold the resource, a PUT's answer holds it)."""
    return CheckResult(
        Status.SKIPPED, reason=f"Skipped: {label} answered {code} without a body, so there is no projection to judge ({judge} judges that answer)."
    )


def _not_tried(label: str, feature: str) -> CheckResult:
    return CheckResult(
        Status.SKIPPED, reason=f"{label} not tried: the ServiceProviderConfig does not claim {feature} support ({feature}.supported is not true)."
    )


@checker("projection", section="3.9")
def attribute_projection(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """attributes and excludedAttributes give exactly what they ask on every answer holding a resource (RFC 7644 §3.9).

    Beyond the attributes checks (crud:read:attributes), reads each answer as raw JSON. Creates a resource
    (its required attributes and one attribute X returned by default) by POST
    ?attributes=X, then GETs it with attributes=X and with excludedAttributes
    naming the attributes returned "always" (id ...), searches it by id with
    POST {endpoint}/.search with each parameter in the body (when filter is
    claimed), PUTs it with excludedAttributes, and PATCHes X with attributes=X
    (when patch is claimed). One result per request. SUCCESS when an answer to
    attributes=X holds X, the attributes returned "always", "schemas", and
    nothing else (RFC 7644 §3.9: "the default list of attributes SHALL be
    overridden"; meta, returned "default", is left out), and when an answer to
    excludedAttributes still holds the attributes returned "always" ("MUST
    contain the minimum set"). ERROR on any other content, a status other than
    201 for POST and 200 for the others (RFC 7644 §3.5.2: a PATCH with
    attributes MUST answer 200). SKIPPED when the model has no optional
    attribute returned by default, for the search (filter) or PATCH (patch)
    the server does not claim, for the searches when POST {endpoint}/.search
    answers 404, 405 or 501 (a server need not offer it: "Clients MAY execute
    queries ... using the HTTP POST verb combined with the "/.search" path
    extension", RFC 7644 §3.4.3; the other steps run all the same), and for the
    PATCH when the server's schema declares the attribute asked for immutable
    (RFC 7643 §2.2); the whole check when its POST is refused with a 4xx and so
    is the run's least creation (object_creation reports it).
    """
    asked = _asked_attribute(model)
    if asked is None:
        return [CheckResult(Status.SKIPPED, reason=f"{model.__name__} has no optional attribute returned by default to ask for.")]
    always = tuple(always_returned(model))
    attributes = Projection("attributes", (asked.name,), always)
    excluded = Projection("excludedAttributes", always, always)
    values = {asked.name: attribute_value(context, asked)}
    payload = creation_json(context, model, values)
    subject = Subject(model, resource_path(context, model), payload, asked)

    mark = len(context.exchanges)
    results = results_of(context, mark, [_created(context, subject, attributes)])
    if not subject.id:
        return results
    requests = [
        (_read, attributes),
        (_read, excluded),
        (_searched, attributes),
        (_searched, excluded),
        (_replaced, excluded),
        (_patched, attributes),
    ]
    results.extend(steps(context, [(None, partial(step, context, subject, projection)) for step, projection in requests]))
    return results


def _asked_attribute(model: type[Resource[Any]]) -> Attribute | None:
    """The attribute to ask for: the first of SPEC.md §4.5's candidates (returned by default, not
    read-only, not required)."""
    name = filtering_candidates(model)[0]
    return next((attribute for attribute in attributes_of(model) if attribute.name == name), None)
