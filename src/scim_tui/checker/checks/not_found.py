"""Writes to what does not exist: a resource the check deleted, an id that names nothing
(RFC 7644 §3.6, §3.12).

The unknown id is one the run made up (``scim-tui-missing-…``, guard.py): it names nothing, so
the writes harm nothing. A server that created a resource at it (a PUT taken as a creation) gets
that resource deleted as every creation of the run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scim2_models import Mutability
from scim2_models import PatchOp
from scim2_models import Resource

from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import member
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.probes import method_refused
from scim_tui.checker.checks.probes import results_of
from scim_tui.checker.checks.probes import scim_error_problem
from scim_tui.checker.checks.probes import send_json
from scim_tui.checker.checks.probes import unknown_id
from scim_tui.checker.context import CheckContext
from scim_tui.checker.exchanges import request_line
from scim_tui.checker.features import claims
from scim_tui.checker.filling import attributes_of
from scim_tui.checker.filling import creation_json
from scim_tui.checker.filling import unique_string
from scim_tui.checker.guard import Owned
from scim_tui.checker.guard import id_text
from scim_tui.checker.guard import markers_in
from scim_tui.checker.guard import unsafe_id_problem
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

DELETED = "RFC 7644 §3.6: a service provider MUST return a 404 (Not Found) error code for all operations associated with the previously deleted resource"
UNKNOWN = "RFC 7644 §3.12, Table 8: 404, the specified resource does not exist"


@checker("errors", "errors:not-found", section="3.6")
def not_found_writes(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Writes to a resource that is not there get 404 with a SCIM Error (RFC 7644 §3.6, §3.12).

    Creates a resource and deletes it (object_deletion judges that DELETE), then sends the
    DELETE again: "a service provider MUST return a 404 (Not Found) error code for all
    operations associated with the previously deleted resource" (§3.6). Then a PUT, a PATCH
    and a DELETE of an id that names nothing (one the run made up): 404, "the specified
    resource does not exist" (§3.12, Table 8). One result per request: SUCCESS on 404 with a
    SCIM Error body; ERROR on another status (a 2xx did something to what does not exist) or a
    body that is not a SCIM Error (§3.12 MUST). SKIPPED: the DELETE again when the first one
    failed; the PATCH when the ServiceProviderConfig does not claim patch; a request answered 405
    (the server refuses the method itself, which the check of that method judges). A resource a
    PUT created at the made-up id is deleted afterwards.
    """
    missing = resource_path(context, model, unknown_id())
    # What the schema declares immutable is left out: a PUT sets it only where nothing holds it (RFC 7644 §3.5.1).
    fixed = {attribute.name for attribute in attributes_of(model) if attribute.mutability is Mutability.immutable and not attribute.required}
    body = {key: value for key, value in creation_json(context, model).items() if key not in fixed}
    requests: list[tuple[str, Callable[[], Any]]] = [
        (f"PUT {context.root_path(missing)} (an id that names nothing)", lambda: _put_missing(context, model, missing, body)),
        (f"PATCH {context.root_path(missing)} (an id that names nothing)", lambda: _patch_missing(context, model, missing)),
        (f"DELETE {context.root_path(missing)} (an id that names nothing)", lambda: context.client.request("DELETE", missing)),
    ]
    results = [_deleted_again(context, model)]
    for request, send in requests:
        mark = len(context.exchanges)
        if request.startswith("PATCH") and not claims(context, "patch"):
            results.append(CheckResult(Status.SKIPPED, reason=f"{request}: Skipped: the ServiceProviderConfig does not claim patch support."))
            continue
        response = send()
        results.append(results_of(context, mark, [method_refused(request, response) or _not_found(request, response, UNKNOWN)])[0])
    return results


def _deleted_again(context: CheckContext, model: type[Resource[Any]]) -> CheckResult:
    mark = len(context.exchanges)
    created = context.resource_manager.create_and_register(model, fill_all=False)
    path = resource_path(context, model, created.id)
    first = context.client.request("DELETE", path)
    if not 200 <= first.status_code < 300:
        reason = (
            f"Skipped: {request_line(context.exchanges[-1])} answered {first.status_code}, so nothing was deleted to delete again (object_deletion judges it)."
        )
        return results_of(context, mark, [CheckResult(Status.SKIPPED, reason=reason)])[0]
    again = context.client.request("DELETE", path)
    if again.status_code == 404:
        context.resource_manager.forget(str(created.id))
    result = _not_found(f"DELETE {context.root_path(path)} of the {model.__name__} it had just deleted", again, DELETED)
    return results_of(context, mark, [result])[0]


def _not_found(request: str, response: Any, rule: str) -> CheckResult:
    """SUCCESS on 404 with a SCIM Error body, ERROR otherwise."""
    payload = body_of(response)
    code = response.status_code
    if code != 404:
        return CheckResult(Status.ERROR, reason=f"{request} answered {code} instead of 404 ({rule}).", data=payload)
    problem = scim_error_problem(payload, code)
    if problem:
        return CheckResult(Status.ERROR, reason=f"{request} answered 404, but {problem} (RFC 7644 §3.12, MUST).", data=payload)
    return CheckResult(Status.SUCCESS, reason=f"{request} answered 404 with a SCIM Error.", data=payload)


def _put_missing(context: CheckContext, model: type[Resource[Any]], path: str, body: dict[str, Any]) -> Any:
    """PUT a whole resource at an id that names nothing; a resource the server made of it is the run's to delete."""
    response = send_json(context, "PUT", path, body)
    created = body_of(response)
    resource_id = id_text(member(created, "id")) if 200 <= response.status_code < 300 else None
    if isinstance(resource_id, str) and not unsafe_id_problem(resource_id):
        endpoint = resource_path(context, model)
        context.guard.own(Owned(model.__name__, endpoint, resource_id, markers_in(body), confirmed=False))
    return response


def _patch_missing(context: CheckContext, model: type[Resource[Any]], path: str) -> Any:
    operation = {"op": "replace", "path": attributes_of(model)[0].name, "value": unique_string()}
    return send_json(context, "PATCH", path, {"schemas": [str(PatchOp.__schema__)], "Operations": [operation]})
