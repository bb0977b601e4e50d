"""What a request body carries, as the server must read it: nothing at all, an attribute name in
another case, an id that is not the resource's (RFC 7643 §2.1, §3.1; RFC 7644 §3.5.1, §3.12)."""

from __future__ import annotations

from typing import Any

from scim2_models import Resource

from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import member
from scim_tui.checker.answers import shown
from scim_tui.checker.checks.crud import creation_read
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.probes import Refusal
from scim_tui.checker.checks.probes import judge_refusal
from scim_tui.checker.checks.probes import method_refused
from scim_tui.checker.checks.probes import results_of
from scim_tui.checker.checks.probes import scim_error_problem
from scim_tui.checker.checks.probes import send_json
from scim_tui.checker.checks.probes import unknown_id
from scim_tui.checker.context import CheckContext
from scim_tui.checker.features import claims
from scim_tui.checker.filling import creation_json
from scim_tui.checker.filling import name_attribute
from scim_tui.checker.filling import unique_for
from scim_tui.checker.guard import Owned
from scim_tui.checker.guard import id_text
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

EMPTY_BODY = Refusal(
    400,
    "invalidSyntax",
    "RFC 7644 §3.12, Tables 8 and 9, SHOULD",
    Status.DEVIATION,
    (Status.ERROR, "an empty body carries not even the schemas every SCIM body MUST carry, RFC 7643 §3 and RFC 7644 §3.5.2"),
    also=("invalidValue",),
)
NAMES_CASE = 'RFC 7643 §2.1: attribute names are case insensitive, so "{spelled}" is {name}'
READ_ONLY = "RFC 7644 §3.5.1: values of a readOnly attribute (id, RFC 7643 §3.1) SHALL be ignored"


@checker("errors", "errors:empty-body", section="3.12")
def empty_bodies(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """A POST, PUT or PATCH with an empty body is refused with 400 invalidSyntax or invalidValue (RFC 7644 §3.12).

    Creates a resource, then sends a POST on its endpoint, a PUT and a PATCH of it, each with
    Content-Type: application/scim+json and no body at all. One result per request, judged as the
    errors checks judge a refusal: COMPLIANT on 400 with a SCIM Error of scimType invalidSyntax
    ("The request body message structure was invalid") or invalidValue ("A required value was
    missing", the one of the two Table 9 gives for PATCH) (Tables 8 and 9, SHOULD: DEVIATION on
    another 4xx or scimType); ERROR when accepted (nothing, not even "schemas", which every body
    MUST carry), on a 5xx (the server failed on a client's mistake), or a body that is not a
    SCIM Error (§3.12 MUST).
    The PATCH is SKIPPED when the ServiceProviderConfig does not claim patch, a request answered 405
    when the server refuses its method itself (the check of that method judges it). Whatever the
    server creates is deleted.
    """
    created = context.resource_manager.create_and_register(model, fill_all=False)
    endpoint = resource_path(context, model)
    path = resource_path(context, model, created.id)
    results = []
    for method, target in (("POST", endpoint), ("PUT", path), ("PATCH", path)):
        request = f"{method} {context.root_path(target)} with an empty body"
        if method == "PATCH" and not claims(context, "patch"):
            results.append(CheckResult(Status.SKIPPED, reason=f"{request}: Skipped: the ServiceProviderConfig does not claim patch support."))
            continue
        mark = len(context.exchanges)
        response = send_json(context, method, target, "")
        results.append(results_of(context, mark, [_judge_empty(request, response)])[0])
    return results


def _judge_empty(request: str, response: Any) -> CheckResult:
    """A refusal judged as the errors checks judge one; a 5xx is the server failing on a client's mistake."""
    refused = method_refused(request, response)
    if refused:
        return refused
    if response.status_code >= 500:
        reason = f"{request} answered {response.status_code}: the server failed on a client's mistake, which 400 invalidSyntax tells (RFC 7644 §3.12)."
        return CheckResult(Status.ERROR, reason=reason, data=body_of(response))
    return judge_refusal(request, response, EMPTY_BODY)


@checker("bodies", "bodies:names", section="2.1", rfc=7643)
def attribute_name_case(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """An attribute name in a body is read whatever its case (RFC 7643 §2.1).

    POSTs a resource whose name attribute is spelled with another case ("UserName" for userName,
    "DisplayName" for displayName): "attribute names are case insensitive". SUCCESS when it is
    created holding that name; ERROR when refused, failed, or created without it. SKIPPED when the
    schema has no name attribute. The resource is deleted afterwards.
    """
    name = name_attribute(model)
    if name is None:
        return [CheckResult(Status.SKIPPED, reason=f"Skipped: the {model.__name__} schema has no required single-valued string attribute to name it with.")]
    value = unique_for(name)
    spelled = other_case(name.name)
    body = {spelled if key == name.name else key: item for key, item in creation_json(context, model, {name.name: value}).items()}
    path = resource_path(context, model)
    request = f'POST {context.root_path(path)} naming {name.name} "{spelled}"'
    response = send_json(context, "POST", path, body)
    read, located = creation_read(context, response)
    answer = body_of(read)
    rule = NAMES_CASE.format(spelled=spelled, name=name.name)
    if not 200 <= response.status_code < 300:
        detail = member(answer, "detail")
        said = f" ({detail})" if isinstance(detail, str) and detail.strip() else ""
        return [CheckResult(Status.ERROR, reason=f"{request} answered {response.status_code}{said} ({rule}).", data=answer)]
    answered = f"{request} answered {response.status_code}" + (" (the resource read at its Location)" if located else "")
    held = member(answer, name.name)
    if held != value:
        return [CheckResult(Status.ERROR, reason=f"{answered} with {name.name} {shown(held)} instead of {shown(value)} ({rule}).", data=answer)]
    return [CheckResult(Status.SUCCESS, reason=f"{answered} with the {name.name} sent.", data=answer)]


def other_case(name: str) -> str:
    """An attribute name spelled another way: its first letter in capitals, else all of it."""
    capitalized = name[:1].upper() + name[1:]
    return capitalized if capitalized != name else name.upper()


@checker("bodies", "bodies:read-only", section="3.5.1")
def replacement_with_another_id(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """A PUT whose body carries another id replaces the resource at its URL and keeps its id (RFC 7644 §3.5.1).

    Creates a resource, then PUTs it as created with an "id" that names nothing (one the run made
    up). id is readOnly (RFC 7643 §3.1), and "any values provided SHALL be ignored": SUCCESS when
    the answer (or a GET after a 204) holds the resource's own id; ACCEPTABLE when refused with a
    4xx SCIM Error (the contradiction told to the client); ERROR when the resource took the id
    sent, on a 5xx, or a refusal that is not a SCIM Error; SKIPPED on 405 (the server refuses PUT
    itself: object_replacement judges it). The resource is deleted afterwards, under either id.
    """
    created = context.resource_manager.create_and_register(model, fill_all=False)
    path = resource_path(context, model, created.id)
    other = unknown_id()
    body = {key: item for key, item in created.model_dump().items() if key != "meta"} | {"id": other}
    request = f"PUT {context.root_path(path)} with the id {other}"
    response = send_json(context, "PUT", path, body)
    answer = body_of(response)
    code = response.status_code
    refused = method_refused(request, response)
    if refused:
        return [refused]
    if code >= 300:
        return [_refused(request, code, answer)]
    kept = id_text(member(answer, "id") if isinstance(answer, dict) and answer else member(body_of(context.client.request("GET", path)), "id"))
    if kept == other:
        mine = context.guard.owned(resource_path(context, model), str(created.id))
        if mine is not None:  # deleted under the id it took, as under its own
            context.guard.own(Owned(mine.kind, mine.endpoint, other, mine.markers, confirmed=False))
        return [CheckResult(Status.ERROR, reason=f"{request} answered {code}, and the {model.__name__} took the id sent ({READ_ONLY}).", data=answer)]
    if kept != created.id:
        return [
            CheckResult(
                Status.ERROR, reason=f"{request} answered {code}, and the {model.__name__} is answered with the id {shown(kept)} ({READ_ONLY}).", data=answer
            )
        ]
    return [
        CheckResult(
            Status.SUCCESS, reason=f"{request} answered {code}, and the {model.__name__} kept its id {created.id}: the id sent was ignored.", data=answer
        )
    ]


def _refused(request: str, code: int, answer: Any) -> CheckResult:
    problem = scim_error_problem(answer, code)
    if code >= 500 or problem:
        what = f", and {problem} (RFC 7644 §3.12, MUST)" if problem else ""
        return CheckResult(Status.ERROR, reason=f"{request} answered {code}{what}: {READ_ONLY}.", data=answer)
    reason = f"{request} answered {code} with a SCIM Error: {READ_ONLY}, but refusing a body that contradicts its URL tells the client what it did."
    return CheckResult(Status.ACCEPTABLE, reason=reason, data=answer)
