"""Raw requests shared by several checkers: refused methods, unknown URLs, and how a refusal is judged."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from scim2_models import Error

from scim_tui.checker.answers import JSON_KINDS
from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import member
from scim_tui.checker.answers import plain_validation
from scim_tui.checker.causes import NOT_IMPLEMENTED
from scim_tui.checker.causes import failing_request
from scim_tui.checker.context import CheckContext
from scim_tui.checker.engine import failure_result
from scim_tui.checker.exchanges import request_line
from scim_tui.checker.recorder import RunCancelled
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

WRITE_METHODS = ("POST", "PUT", "PATCH", "DELETE")
SCIM_MEDIA_TYPE = "application/scim+json"


def unknown_id() -> str:
    """An id no server holds, recognisable as ours."""
    return f"scim-tui-missing-{uuid.uuid4().hex}"


def results_of(context: CheckContext, mark: int, results: list[CheckResult]) -> list[CheckResult]:
    """Give each result the exchanges made since `mark`, when it has none of its own."""
    for result in results:
        if not result.exchanges:
            result.exchanges = context.exchanges[mark:]
    return results


def checked(context: CheckContext, check: Callable[[], CheckResult], label: str | None = None) -> CheckResult:
    """The result of one step of a check, with the exchanges it made; what the step raises
    becomes a result saying why (engine.failure_result; its reason after `label`, when given)."""
    mark = len(context.exchanges)
    try:
        result = check()
    except Exception as exc:
        result = failure_result(exc, context.exchanges[mark:])
        result.reason = f"{label}: {result.reason}" if label else result.reason
    return results_of(context, mark, [result])[0]


def steps(context: CheckContext, labelled: Iterable[tuple[str | None, Callable[[], CheckResult]]]) -> list[CheckResult]:
    """The results of a check's steps, run in turn (see `checked` and `Steps`)."""
    return Steps(context).run(labelled)


class Steps:
    """A check's steps, run in turn, in one or several groups. Once a step got no answer at all
    (a dropped connection, no answer in time), or 501 Not Implemented (RFC 7644 §3.12, Table 8:
    "Service provider does not support the request operation"), the steps after it are SKIPPED
    naming it: they would all fail the same way, one fault read as many findings."""

    def __init__(self, context: CheckContext):
        self.context = context
        self.lost: str | None = None
        """Why the steps left are SKIPPED, once one step halted them."""
        self.cause: str | None = None

    def run(self, labelled: Iterable[tuple[str | None, Callable[[], CheckResult]]]) -> list[CheckResult]:
        results: list[CheckResult] = []
        for label, step in labelled:
            if self.lost is not None:
                results.append(self.skipped(label))
                continue
            result = checked(self.context, step, label)
            results.append(result)
            self.note(result)
        return results

    def skipped(self, label: str | None) -> CheckResult:
        return CheckResult(Status.SKIPPED, reason=f"{label + ': ' if label else ''}Skipped: {self.lost}.", cause=self.cause)

    def note(self, result: CheckResult) -> None:
        """Halt the steps left when this result got no answer, or 501."""
        last = result.exchanges[-1] if result.exchanges else None
        if not result.status.failed or last is None:
            return
        if last.status_code is None and last.error:
            if self.context.recorder.stopped:  # cancelled or silent while it waited: the check says so, as any other
                raise RunCancelled(self.context.recorder.stopped)
            self.lost = f"an earlier step got no answer ({request_line(last)}: {last.error})"
        elif last.status_code == NOT_IMPLEMENTED:
            self.lost, self.cause = f"an earlier step was answered 501 Not Implemented ({request_line(last)})", failing_request(last)


def refuses_write_methods(context: CheckContext, endpoint: str) -> list[CheckResult]:
    """One result per write method: SUCCESS when the endpoint answers 405, ACCEPTABLE on 501 (a
    server that does not implement the method at all: RFC 7644 §3.12, Table 8), ERROR otherwise."""
    results = []
    for method in WRITE_METHODS:
        mark = len(context.exchanges)
        body: dict[str, Any] | None = None if method == "DELETE" else {"json": {}}
        response = context.client.request(method, endpoint, **(body or {}))
        request = f"{method} {context.root_path(endpoint)}"
        if response.status_code == 405:
            result = CheckResult(Status.SUCCESS, reason=f"{request} answered 405 Method Not Allowed.")
        elif response.status_code == NOT_IMPLEMENTED:
            said = '"Service provider does not support the request operation, e.g., PATCH" (RFC 7644 §3.12, Table 8)'
            result = CheckResult(
                Status.ACCEPTABLE, reason=f"{request} answered 501 Not Implemented, which a server that does not implement {method} at all may answer: {said}."
            )
        else:
            result = CheckResult(
                Status.ERROR,
                reason=f"{request} answered {response.status_code} instead of 405 Method Not Allowed.",
                data=body_of(response),
            )
        results.append(results_of(context, mark, [result])[0])
    return results


def answers_not_found(context: CheckContext, path: str) -> list[CheckResult]:
    """SUCCESS when GET `path` answers 404 with a SCIM Error body (RFC 7644 §3.12), ERROR otherwise."""
    response = context.client.request("GET", path)
    request = request_line(context.exchanges[-1])
    payload = body_of(response)
    if response.status_code != 404:
        return [CheckResult(Status.ERROR, reason=f"{request} answered {response.status_code} instead of 404.", data=payload)]
    problem = scim_error_problem(payload)
    if problem:
        return [CheckResult(Status.ERROR, reason=f"{request} answered 404, but {problem}.", data=payload)]
    return [CheckResult(Status.SUCCESS, reason=f"{request} answered 404 with a SCIM Error.", data=payload)]


def scim_error_problem(payload: Any, status: int | None = None) -> str | None:
    """What keeps a body from being a SCIM Error object (RFC 7644 §3.12), or None when it is one.

    Read on the raw JSON, since the Error model turns a number into a string: "status" is
    REQUIRED as a JSON string, and holds the answer's HTTP status when `status` is given.
    """
    if not isinstance(payload, dict):
        return "its body is not a JSON object"
    if Error.__schema__ not in (member(payload, "schemas") or []):
        return f"its body does not carry the schema {Error.__schema__}"
    problem = _status_problem(member(payload, "status"), status)
    if problem:
        return problem
    try:
        Error.model_validate(payload)
    except ValidationError as exc:
        return f"its SCIM Error is invalid ({plain_validation(exc)})"
    return None


def _status_problem(value: Any, status: int | None) -> str | None:
    if value is None:
        return 'its SCIM Error has no "status", which is REQUIRED'
    if not isinstance(value, str):
        return f'its "status" is {json.dumps(value)}, {JSON_KINDS.get(type(value), "a JSON object")} instead of a JSON string'
    if status is not None and value.strip() != str(status):
        return f'its "status" is "{value}" while the answer\'s status is {status}'
    return None


def send_json(context: CheckContext, method: str, path: str, body: Any, headers: dict[str, str] | None = None, params: dict[str, Any] | None = None) -> Any:
    """Send a JSON body (or text, sent as it is) as application/scim+json, and return the raw response.

    The body goes as bytes: every client engine takes them (the in-process one refuses text).
    """
    content = (body if isinstance(body, str) else json.dumps(body)).encode()
    options: dict[str, Any] = {"params": params} if params else {}
    return context.client.request(method, path, content=content, headers={"Content-Type": SCIM_MEDIA_TYPE, **(headers or {})}, **options)


METHOD_JUDGES = {"POST": "object_creation", "PUT": "object_replacement", "PATCH": "check_add_attribute", "DELETE": "object_deletion"}
"""The check that judges each method as a whole (RFC 7644 §3.3, §3.5.1, §3.5.2, §3.6)."""


def method_refused(request: str, response: Any) -> CheckResult | None:
    """SKIPPED when the server refuses the request's method itself (405 Method Not Allowed, RFC
    9110 §15.5.6), whatever it carries: the finding of the check judging the method, not of a rule
    on what the request carries (one fault, one finding). None otherwise."""
    if response.status_code != 405:
        return None
    method = request.split(" ", 1)[0]
    judge = METHOD_JUDGES.get(method, f"the check of {method}")
    reason = f"Skipped: {request} answered 405 Method Not Allowed: the server refuses {method} itself ({judge} judges it)."
    return CheckResult(Status.SKIPPED, reason=reason, data=body_of(response))


@dataclass(frozen=True)
class Refusal:
    """How a server must refuse one kind of bad request."""

    status: int
    scim_type: str
    rule: str
    """The section and keyword the refusal comes from, as a reason quotes it."""
    missed: Status = Status.ERROR
    """The status of a wrong HTTP status or scimType: ERROR for MUST/SHALL, DEVIATION for SHOULD."""
    accepted: tuple[Status, str] | None = None
    """The status and the rule of the request accepted (a 2xx or 3xx), when not `missed` and `rule`:
    what the acceptance itself breaks (a SHOULD: DEVIATION, a MUST: ERROR)."""
    other_scim_type: Status | None = None
    """The status of a missing or other scimType, when not `missed`: DEVIATION where a table names
    the scimType but the rule itself asks only for the status (scimType is OPTIONAL, §3.12)."""
    also: tuple[str, ...] = ()
    """Other scimTypes Table 9 gives for the same refusal, as right as `scim_type`."""

    @property
    def met(self) -> Status:
        return Status.COMPLIANT if self.missed is Status.DEVIATION else Status.SUCCESS


def judge_refusal(request: str, response: Any, refusal: Refusal) -> CheckResult:
    """The result of one request the server should have refused."""
    payload = body_of(response)
    code = response.status_code
    if code < 400:
        status, rule = refusal.accepted or (refusal.missed, refusal.rule)
        return CheckResult(status, reason=f"{request} answered {code} instead of {refusal.status} ({rule}).", data=payload)
    answered: list[tuple[Status, str]] = []
    """What the answer gave instead of what was due: "instead of 409 (...)", "with no scimType instead of ..."."""
    if code != refusal.status:
        answered.append((refusal.missed, f"instead of {refusal.status} ({refusal.rule})"))
    right = (refusal.scim_type, *refusal.also)
    if isinstance(payload, dict) and payload.get("scimType") not in right:  # told even beside a body problem
        scim_type = f'scimType "{payload["scimType"]}"' if payload.get("scimType") else "no scimType"
        expected = " or ".join(f'"{name}"' for name in right)
        answered.append((refusal.other_scim_type or refusal.missed, f"with {scim_type} instead of {expected} ({refusal.rule})"))
    body_problem = scim_error_problem(payload, code)
    if not answered and not body_problem:
        reason = f'{request} answered {code} with a SCIM Error of scimType "{payload.get("scimType") or refusal.scim_type}".'
        return CheckResult(refusal.met, reason=reason, data=payload)
    status = max([Status.ERROR] * bool(body_problem) + [worst for worst, _ in answered])
    said = "".join(f" {text}" for text in [", and ".join(text for _, text in answered)] if text)
    body = f"{', and' if answered else ', but'} {body_problem} (RFC 7644 §3.12, MUST)" if body_problem else ""
    return CheckResult(status, reason=f"{request} answered {code}{said}{body}.", data=payload)
