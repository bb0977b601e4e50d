"""Checks that a server refuses bad requests with the error RFC 7644 §3.12 defines for each.

Every refusal is judged on three things: its HTTP status, its body (a SCIM Error whose
"status" is a JSON string: MUST and REQUIRED in §3.12, so ERROR when broken), and its
scimType (Table 9). How much a wrong status or scimType weighs follows the keyword of
the rule: MUST or SHALL gives ERROR, the SHOULD of Table 8 gives DEVIATION.
"""

from __future__ import annotations

import json
from typing import Any

from scim2_models import Mutability
from scim2_models import PatchOp
from scim2_models import Resource
from scim2_models import Uniqueness

from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import member
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.probes import Refusal
from scim_tui.checker.checks.probes import judge_refusal
from scim_tui.checker.checks.probes import results_of
from scim_tui.checker.checks.probes import scim_error_problem
from scim_tui.checker.checks.probes import send_json
from scim_tui.checker.context import CheckContext
from scim_tui.checker.features import unclaimed
from scim_tui.checker.filling import PREFIX
from scim_tui.checker.filling import UNIQUE
from scim_tui.checker.filling import Attribute
from scim_tui.checker.filling import attributes_of
from scim_tui.checker.filling import case_exact
from scim_tui.checker.filling import complex_lists
from scim_tui.checker.filling import creation_json
from scim_tui.checker.filling import name_attribute
from scim_tui.checker.filling import on_request
from scim_tui.checker.filling import unique_for
from scim_tui.checker.filling import unique_string
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import PrerequisiteFailed
from scim_tui.checker.results import Status

CORE_USER = "urn:ietf:params:scim:schemas:core:2.0:User"
INVALID_SYNTAX = Refusal(400, "invalidSyntax", "RFC 7644 §3.12, Tables 8 and 9, SHOULD", Status.DEVIATION)
MISSING_REQUIRED = Refusal(400, "invalidValue", "RFC 7644 §3.12, Tables 8 and 9, SHOULD", Status.DEVIATION)
MISSING_USER_NAME = Refusal(
    400,
    "invalidValue",
    "RFC 7644 §3.12, Tables 8 and 9, SHOULD",
    Status.DEVIATION,
    (Status.ERROR, "RFC 7643 §4.1.1: each User MUST include a non-empty userName value"),
)
DUPLICATE = Refusal(409, "uniqueness", "RFC 7644 §3.3, MUST", accepted=(Status.DEVIATION, "RFC 7643 §2.2: a server-unique value SHOULD be unique"))
TAKEN_USER_NAME = Refusal(
    409,
    "uniqueness",
    "RFC 7644 §3.3, MUST",
    accepted=(Status.ERROR, "RFC 7643 §4.1.1: userName MUST be unique across the service provider's entire set of Users"),
)
INVALID_PATH = Refusal(400, "invalidPath", "RFC 7644 §3.5.2, SHALL")
REMOVE_WITHOUT_PATH = Refusal(400, "noTarget", "RFC 7644 §3.5.2.2")
UNMATCHED_FILTER = Refusal(400, "noTarget", "RFC 7644 §3.5.2.3, SHALL")
SAME_NAME = Refusal(409, "uniqueness", "RFC 7644 §3.3, MUST, when the server refuses a creation as a conflict")


def _post(context: CheckContext, model: type[Resource[Any]], request: str, body: Any, refusal: Refusal) -> CheckResult:
    """POST a creation the server should refuse, and judge the answer (a creation it accepted all
    the same is deleted, as every creation of the run)."""
    mark = len(context.exchanges)
    path = resource_path(context, model)
    response = send_json(context, "POST", path, body)
    return results_of(context, mark, [judge_refusal(f"POST {context.root_path(path)} {request}", response, refusal)])[0]


def is_user_name(model: type[Resource[Any]], attribute: Attribute) -> bool:
    """Whether an attribute is the userName of the core User schema, whose RFC 7643 §4.1.1 makes
    it REQUIRED ("each User MUST include a non-empty userName value") and unique (MUST)."""
    return str(model.__schema__) == CORE_USER and attribute.owner is model and attribute.name == "userName"


def unique_attribute(model: type[Resource[Any]]) -> Attribute | None:
    """The first single-valued string a client writes that the schema declares unique (server or global)."""
    return next(
        (
            attribute
            for attribute in attributes_of(model)
            if attribute.writable
            and not attribute.multi_valued
            and attribute.root_type is str
            and attribute.owner.get_field_annotation(attribute.field, Uniqueness) in UNIQUE
        ),
        None,
    )


@checker("errors", "errors:create", section="3.12")
def creation_errors(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """POSTs a server must refuse get the SCIM Error RFC 7644 §3.12 defines (§3.3, §3.12).

    Sends three creations, one result each: a body that is not valid JSON (a
    resource cut short) must get 400 with scimType invalidSyntax, and one lacking a
    required attribute 400 with invalidValue (Tables 8 and 9: COMPLIANT, else
    DEVIATION; a User created without userName breaks RFC 7643 §4.1.1, "each User MUST
    include a non-empty userName value": ERROR); a resource whose unique attribute
    (userName) repeats the one of a resource just created, then repeats it in upper
    case when the attribute has caseExact false, must get 409 with scimType uniqueness
    (§3.3 MUST: SUCCESS; a second resource created breaks the SHOULD of RFC 7643 §2.2,
    "the value SHOULD be unique": DEVIATION, but a second User with a userName taken,
    in any case when caseExact is false, breaks RFC 7643 §4.1.1, "this identifier MUST
    be unique across the service provider's entire set of Users": ERROR; the existing
    resource answered as if created: ERROR). Every refusal's body must be
    a SCIM Error with "status" a JSON string equal to the HTTP status (§3.12 MUST:
    ERROR otherwise), and each problem of an answer is named. A schema that
    declares no unique attribute gets one POST repeating the name of a resource
    just created (a Group's displayName) instead: created (SUCCESS: uniqueness
    "none", RFC 7643 §2.2) or refused as a conflict with 409 uniqueness (SUCCESS)
    are right; another 4xx is judged as a conflict's refusal, and a 5xx is an
    ERROR. SKIPPED, for a rule, when the schema has no required attribute, no
    unique attribute nor name (or caseExact true, for the upper case).
    Whatever the server creates is deleted.
    """
    return [_invalid_json(context, model), _missing_required(context, model), *_duplicate(context, model)]


def _invalid_json(context: CheckContext, model: type[Resource[Any]]) -> CheckResult:
    text = json.dumps(creation_json(context, model))[:-1]
    return _post(context, model, "with a body that is not valid JSON (its closing brace cut)", text, INVALID_SYNTAX)


def _missing_required(context: CheckContext, model: type[Resource[Any]]) -> CheckResult:
    required = next((a for a in attributes_of(model) if a.required and a.writable), None)
    if required is None:
        return CheckResult(Status.SKIPPED, reason=f"Skipped: {model.__name__} has no required attribute a client writes, so none can be left out.")
    payload = creation_json(context, model)
    payload.pop(required.name, None)
    return _post(context, model, f"without the required {required.name}", payload, MISSING_USER_NAME if is_user_name(model, required) else MISSING_REQUIRED)


def _duplicate(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """A resource with the unique value of one just created, then (for a value compared without
    case, as userName: RFC 7643 §4.1.1) with that value in upper case: each must get 409."""
    unique = unique_attribute(model)
    if unique is None:
        return [_same_name(context, model)]
    value = unique_for(unique, "case")  # letters, so that its other case is another string
    mark = len(context.exchanges)
    try:
        existing = context.resource_manager.create_and_register(model, fill_all=False, values={unique.name: value})
    except PrerequisiteFailed as exc:
        return [CheckResult(Status.SKIPPED, reason=f"Skipped: {exc}, so none could be duplicated.", exchanges=context.exchanges[mark:])]
    refusal = TAKEN_USER_NAME if is_user_name(model, unique) else DUPLICATE
    same = _posted_again(context, model, existing, unique.name, value, f"with the {unique.name} of an existing {model.__name__}", refusal)
    same.exchanges = context.exchanges[mark:]
    other_case = PREFIX + value.removeprefix(PREFIX).upper()  # the run's mark stays as it is
    if case_exact(unique):
        reason = f"Skipped: {unique.name} has caseExact true, so {other_case} and {value} are two values."
        return [same, CheckResult(Status.SKIPPED, reason=reason)]
    what = f"with the {unique.name} of an existing {model.__name__} in upper case ({unique.name} has caseExact false, RFC 7643 §2.2)"
    return [same, _posted_again(context, model, existing, unique.name, other_case, what, refusal)]


def _same_name(context: CheckContext, model: type[Resource[Any]]) -> CheckResult:
    """A resource named as one just created, where nothing declares the name unique: created (201)
    or refused as a conflict (409 uniqueness, RFC 7644 §3.3) are both right; a 5xx never is."""
    name = name_attribute(model)
    if name is None:
        return CheckResult(Status.SKIPPED, reason=f"Skipped: {model.__name__} declares no unique attribute a client writes, nor a name to repeat.")
    value = unique_for(name, "same")
    mark = len(context.exchanges)
    try:
        context.resource_manager.create_and_register(model, fill_all=False, values={name.name: value})
    except PrerequisiteFailed as exc:
        return CheckResult(Status.SKIPPED, reason=f"Skipped: {exc}, so none could be named the same.", exchanges=context.exchanges[mark:])
    path = resource_path(context, model)
    request = f"POST {context.root_path(path)} with the {name.name} of an existing {model.__name__} (nothing declares it unique)"
    response = send_json(context, "POST", path, creation_json(context, model, {name.name: value}))
    code = response.status_code
    if code < 300:
        result = CheckResult(
            Status.SUCCESS, reason=f'{request} answered {code}: a value with uniqueness "none" may repeat (RFC 7643 §2.2).', data=body_of(response)
        )
    elif code >= 500:
        right = "created (201) or refused as a conflict (409 uniqueness, RFC 7644 §3.3), never failed on"
        result = CheckResult(Status.ERROR, reason=f"{request} answered {code}: a repeated value nothing declares unique is {right}.", data=body_of(response))
    else:
        result = judge_refusal(request, response, SAME_NAME)
    return results_of(context, mark, [result])[0]


def _posted_again(
    context: CheckContext, model: type[Resource[Any]], existing: Resource[Any], name: str, value: str, what: str, refusal: Refusal
) -> CheckResult:
    """POST a resource whose unique attribute holds `value`, taken by `existing`. Creating a second
    resource breaks what `refusal` says of it; answering 2xx with the existing one as if it were
    created hides the conflict a client must be told of (RFC 7644 §3.3 MUST: ERROR)."""
    result = _post(context, model, what, creation_json(context, model, {name: value}), refusal)
    answered = result.data if isinstance(result.data, dict) else {}
    if result.status.failed and member(answered, "id") == existing.id:
        result.status = Status.ERROR
        result.reason = (
            f"{(result.reason or '').split(' answered ')[0]} answered with the existing {model.__name__} "
            f"({existing.id}) as if it had created it, instead of 409 (RFC 7644 §3.3, MUST)."
        )
    return result


@checker("errors", "errors:patch", section="3.5.2")
def patch_errors(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """PATCH operations a server must refuse get 400 with the right scimType (RFC 7644 §3.5.2).

    Creates a resource, then sends three PATCH requests, one result each: a
    malformed path (an unclosed filter bracket) must get invalidPath (§3.5.2 SHALL
    answer an incompatible operation with the error of §3.12); a remove without a
    path must get noTarget (§3.5.2.2); a replace whose value filter matches no
    value of a multi-valued complex attribute (emails, members) must get noTarget
    (§3.5.2.3 SHALL). SUCCESS when the answer is 400 with that scimType and a SCIM
    Error body; ERROR otherwise. SKIPPED when the ServiceProviderConfig does not
    claim PATCH support, and for the last rule when the schema has no
    multi-valued complex attribute with a string "value".
    """
    skipped = unclaimed(context, "patch")
    if skipped:
        return [skipped]
    created = context.resource_manager.create_and_register(model, fill_all=False)
    path = resource_path(context, model, created.id)
    first = attributes_of(model)[0].name
    operations: list[tuple[Refusal, str, dict[str, Any]]] = [
        (INVALID_PATH, f"a malformed path '{first}[value eq \"x\"'", {"op": "replace", "path": f'{first}[value eq "x"', "value": unique_string()}),
        (REMOVE_WITHOUT_PATH, "a remove without a path", {"op": "remove"}),
    ]
    listed = filterable_attribute(model)
    if listed is not None:
        missing = unique_string()
        operation = {"op": "replace", "path": f'{listed.name}[value eq "{missing}"]', "value": {"value": missing}}
        operations.append((UNMATCHED_FILTER, f"a replace of {operation['path']} (a filter matching no value)", operation))
    results = [_patch(context, path, *item) for item in operations]
    if listed is None:
        reason = f"Skipped: {model.__name__} has no multi-valued complex attribute with a string value to filter on."
        results.append(CheckResult(Status.SKIPPED, reason=reason))
    return results


@checker("errors", "errors:members", section="3.5.2")
def dangling_member(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """A PATCH adding a member that is no resource is refused with a 4xx (RFC 7643 §4.2, RFC 7644 §3.12).

    Creates a resource with a "members" attribute (a Group), then PATCHes it to add a
    member whose value names no resource. A member's value is "Identifier of the member"
    (RFC 7643 §4.2): one naming nothing is the client's mistake, which a 4xx SCIM Error
    tells. SUCCESS on a 4xx with a SCIM Error body; ERROR on a 5xx (the server failed on a
    client's mistake) or a 4xx whose body is no SCIM Error (§3.12 MUST); DEVIATION when the
    server keeps the member (the PATCH answer, or a GET after a 204, holds it); ACCEPTABLE when
    it accepts the PATCH but keeps no such member (it drops what names nothing, as the
    robustness principle lets it, without telling the client). SKIPPED when PATCH is not
    claimed or the resource type has no "members".
    """
    skipped = unclaimed(context, "patch")
    if skipped:
        return [skipped]
    if "members" not in {attribute.name for attribute in attributes_of(model)}:
        return [CheckResult(Status.SKIPPED, reason=f"Skipped: {model.__name__} has no members attribute.")]
    created = context.resource_manager.create_and_register(model, fill_all=False)
    return [_dangling_member(context, resource_path(context, model, created.id), on_request(model, ["members"]))]


def _dangling_member(context: CheckContext, path: str, asked: dict[str, str]) -> CheckResult:
    missing = unique_string()
    operation = {"op": "add", "path": "members", "value": [{"value": missing}]}
    mark = len(context.exchanges)
    response = send_json(context, "PATCH", path, {"schemas": [str(PatchOp.__schema__)], "Operations": [operation]})
    request = f"PATCH {context.root_path(path)} adding a member whose value ({missing}) names no resource"
    code, payload = response.status_code, body_of(response)
    if code >= 500:
        result = CheckResult(
            Status.ERROR, reason=f"{request} answered {code}: the server failed on a client's mistake, which a 4xx SCIM Error tells (RFC 7644 §3.12)."
        )
    elif code < 400:
        result = _kept_or_dropped(context, path, request, code, payload, missing, asked)
    elif problem := scim_error_problem(payload, code):
        result = CheckResult(Status.ERROR, reason=f"{request} answered {code}, and {problem} (RFC 7644 §3.12, MUST).")
    else:
        result = CheckResult(Status.SUCCESS, reason=f"{request} answered {code} with a SCIM Error.")
    result.data = payload
    return results_of(context, mark, [result])[0]


def _kept_or_dropped(context: CheckContext, path: str, request: str, code: int, payload: Any, missing: str, asked: dict[str, str]) -> CheckResult:
    """A PATCH adding a member that names nothing, accepted: whether the group holds it now, as
    the answer shows it (a 200 with the resource) or a GET after it does (asking for members when
    the schema returns them only on request)."""
    where = "its answer"
    if asked or not (isinstance(payload, dict) and member(payload, "id") is not None):  # a 204, or no resource: read it
        response = context.client.request("GET", path, params=asked or None)
        payload, where = (body_of(response) if response.status_code == 200 else None), f"GET {context.root_path(path)} then"
    members = member(payload, "members")
    if isinstance(members, list) and any(member(item, "value") == missing for item in members):
        return CheckResult(
            Status.DEVIATION,
            reason=f"{request} answered {code}, and the group now holds that member, which is no resource (RFC "
            "7643 §4.2: a member's value identifies a member).",
        )
    return CheckResult(
        Status.ACCEPTABLE,
        reason=f"{request} answered {code}, and {where} holds no such member: the server dropped it without "
        "telling the client, where a 4xx SCIM Error would (RFC 7644 §3.12).",
    )


def _patch(context: CheckContext, path: str, refusal: Refusal, what: str, operation: dict[str, Any]) -> CheckResult:
    mark = len(context.exchanges)
    response = send_json(context, "PATCH", path, {"schemas": [str(PatchOp.__schema__)], "Operations": [operation]})
    return results_of(context, mark, [judge_refusal(f"PATCH {context.root_path(path)} with {what}", response, refusal)])[0]


def filterable_attribute(model: type[Resource[Any]]) -> Attribute | None:
    """A writable multi-valued complex attribute with a string "value" sub-attribute (emails, members)."""
    return next(
        (
            attribute
            for attribute, subs in complex_lists(model)
            if attribute.mutability == Mutability.read_write and "value" in subs and subs["value"].root_type is str
        ),
        None,
    )
