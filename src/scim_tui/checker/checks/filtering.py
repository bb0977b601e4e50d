"""Checks of the filter parameter (RFC 7644 §3.4.2.2), and the list queries scoped to a check's
own resources that the pagination and sorting checks share.

Other checks create and delete resources on the same endpoints at the same time, so a
check lists only resources whose name starts with a prefix of its own, and compares only those.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import field
from typing import Any

from scim2_models import ListResponse
from scim2_models import Resource

from scim_tui.checker.answers import body_of
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.probes import Refusal
from scim_tui.checker.checks.probes import judge_refusal
from scim_tui.checker.checks.probes import results_of
from scim_tui.checker.checks.probes import scim_error_problem
from scim_tui.checker.context import CheckContext
from scim_tui.checker.features import unclaimed
from scim_tui.checker.filling import PREFIX
from scim_tui.checker.filling import Attribute
from scim_tui.checker.filling import attribute_value
from scim_tui.checker.filling import case_exact
from scim_tui.checker.filling import complex_lists
from scim_tui.checker.filling import name_attribute
from scim_tui.checker.filling import sub_attributes
from scim_tui.checker.filling import unique_string
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

LIST_RESPONSE = str(ListResponse.__schema__)


class ListQueryError(ValueError):
    """A list query answered something else than a ListResponse; the message says what."""


@dataclass
class ListPage:
    """One answer of a list query, as the server sent it."""

    query: str
    """The request as a person reads it: GET /Users?filter=userName sw "x"&count=2."""
    total_results: Any
    items_per_page: Any
    start_index: Any
    resources: list[dict[str, Any]] = field(default_factory=list)
    next_cursor: Any = None
    previous_cursor: Any = None
    """The cursors of the pages after and before this one (RFC 9865), when the server gives them."""

    @property
    def ids(self) -> list[str]:
        return [str(resource.get("id")) for resource in self.resources]


@dataclass
class Named:
    """The resources a check created, by id, with the name each was given."""

    attribute: Attribute
    prefix: str
    names: dict[str, str] = field(default_factory=dict)

    @property
    def scope(self) -> str:
        """The filter that selects exactly these resources."""
        return f"{self.attribute.name} sw {quoted(self.prefix)}"

    def ids_named(self, *names: str) -> set[str]:
        return {resource_id for resource_id, name in self.names.items() if name in names}

    def described(self, ids: Iterable[str]) -> str:
        """Resources as a reason names them: "2 resources (x, y)", others counted apart."""
        ids = list(ids)
        if not ids:
            return "no resource"
        mine = [self.names[i] for i in ids if i in self.names]
        others = len(ids) - len(mine)
        parts = mine + ([f"{others} other{'s' if others > 1 else ''} not created by this check"] if others else [])
        return f"{len(ids)} resource{'s' if len(ids) > 1 else ''} ({', '.join(parts)})"


def quoted(value: str) -> str:
    """A string as a filter literal (RFC 7644 §3.4.2.2: a JSON string)."""
    return json.dumps(value)


def unique_prefix(kind: str) -> str:
    """A name prefix no other check and no other run uses."""
    return f"{unique_string(kind)}-"


def create_named(
    context: CheckContext, model: type[Resource[Any]], named: Named, suffixes: Iterable[str], extra: dict[str, dict[str, Any]] | None = None
) -> list[Resource[Any]]:
    """Create one resource (required attributes only) per suffix, named prefix + suffix, in that
    order; `extra` adds values to the resource of a suffix. They are deleted when the check ends."""
    created = []
    for suffix in suffixes:
        name = named.prefix + suffix
        values = {named.attribute.name: name, **(extra or {}).get(suffix, {})}
        resource = context.resource_manager.create_and_register(model, fill_all=False, values=values)
        named.names[str(resource.id)] = name
        created.append(resource)
    return created


def list_page(context: CheckContext, model: type[Resource[Any]], **params: Any) -> ListPage:
    """GET the endpoint with query parameters; raise ListQueryError unless it answers 200 with a ListResponse."""
    path = resource_path(context, model)
    query = f"GET {context.root_path(path)}" + ("?" + "&".join(f"{key}={value}" for key, value in params.items()) if params else "")
    response = context.client.request("GET", path, params=params)
    body = body_of(response)
    if response.status_code != 200:
        problem = scim_error_problem(body)
        detail = f" ({body.get('detail')})" if not problem and body.get("detail") else ""
        raise ListQueryError(f"{query} answered {response.status_code}{detail} instead of 200 with a ListResponse")
    if not isinstance(body, dict) or LIST_RESPONSE not in (body.get("schemas") or []):
        raise ListQueryError(f"{query} answered 200 without a ListResponse (schemas {LIST_RESPONSE} missing)")
    resources = body.get("Resources") or []
    if not isinstance(resources, list) or not all(isinstance(item, dict) for item in resources):
        raise ListQueryError(f"{query} answered a ListResponse whose Resources is not a list of objects")
    return ListPage(query, body.get("totalResults"), body.get("itemsPerPage"), body.get("startIndex"), resources, body.get("nextCursor"), body.get("previousCursor"))


def typed_filter_attribute(model: type[Resource[Any]]) -> Attribute | None:
    """A writable multi-valued complex attribute with a `type` sub-attribute (emails, members ...)."""
    return next((attribute for attribute, subs in complex_lists(model) if attribute.writable and "type" in subs), None)


@dataclass
class Rule:
    """One filter expression and the resources of the check it must select."""

    label: str
    expression: str
    expected: set[str]
    keyword: str = "only the resources matching the filter SHALL be returned"


def judge(context: CheckContext, model: type[Resource[Any]], named: Named, rule: Rule) -> CheckResult:
    """SUCCESS when the filter selects exactly the expected resources, ERROR otherwise."""
    mark = len(context.exchanges)
    try:
        page = list_page(context, model, filter=rule.expression)
    except ListQueryError as exc:
        return results_of(context, mark, [CheckResult(Status.ERROR, reason=f"{rule.label}: {exc}.")])[0]
    got = page.ids
    if set(got) == rule.expected and len(got) == len(rule.expected):
        result = CheckResult(Status.SUCCESS, reason=f"{rule.label}: {page.query} answered {named.described(got)}, as expected.")
    else:
        result = CheckResult(
            Status.ERROR,
            reason=f"{rule.label}: {page.query} answered {named.described(got)} instead of {named.described(rule.expected)} ({rule.keyword}, RFC 7644 §3.4.2.2).",
        )
    return results_of(context, mark, [result])[0]


def _typed_values(context: CheckContext, attribute: Attribute) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """A value of a typed complex attribute for the resource to find, and one of another type for
    a resource the filter must leave out (None when no other type can be given)."""
    kinds = sub_attributes(attribute)["type"].canonical_values
    found = attribute_value(context, attribute)[0]
    if "$ref" in found:  # its type names what the reference points to: keep it
        return found, None
    found["type"] = "work" if "work" in kinds else (kinds[0] if kinds else f"{PREFIX}work")
    other = {**attribute_value(context, attribute)[0], "type": next((kind for kind in kinds if kind != found["type"]), f"{PREFIX}other")}
    return found, other


@checker("filter", "filter:operators", section="3.4.2.2")
def filter_operators(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Filters select exactly the resources they match (RFC 7644 §3.4.2.2).

    Creates three resources named with a prefix of the check's own (alpha-one, beta-two,
    gamma-two), the first with an externalId and, when the schema has one, a multi-valued
    complex attribute with a "type" (emails, members ...) that the second holds with another
    type. Then one GET per rule, each giving one result: eq on the name attribute; eq with the
    value in upper case, which must find the resource when the attribute's caseExact is false
    and nothing when it is true; pr on externalId; co; sw; and; or; a value filter on the typed
    attribute (emails[type eq "work"]). SUCCESS when the answer holds exactly the expected
    resources; ERROR otherwise ("only those resources matching the filter expression SHALL be
    returned"; string case sensitivity "SHALL be determined by the attribute's caseExact").
    SKIPPED when the ServiceProviderConfig does not claim filter, or the schema has no name
    attribute; the pr rule is SKIPPED when the server did not keep the externalId sent, the
    value-filter rule when no attribute has a "type" sub-attribute.
    """
    skipped = unclaimed(context, "filter")
    if skipped:
        return [skipped]
    attribute = name_attribute(model)
    if attribute is None:
        return [without_name_attribute(model, "filter on")]
    named = Named(attribute, unique_prefix("filter"))
    typed = typed_filter_attribute(model)
    # Only alpha-one holds an externalId: the others are made without one (for the pr rule).
    extra: dict[str, dict[str, Any]] = {"alpha-one": {"externalId": f"{named.prefix}external"}, "beta-two": {"externalId": None}, "gamma-two": {"externalId": None}}
    if typed is not None:
        found, other = _typed_values(context, typed)
        extra["alpha-one"][typed.name] = [found]
        if other is not None:
            extra["beta-two"][typed.name] = [other]
    alpha = create_named(context, model, named, ("alpha-one", "beta-two", "gamma-two"), extra)[0]
    rules = _rules(named, alpha, typed, extra["alpha-one"])
    for skipped_rule in (rule for rule in rules if isinstance(rule, CheckResult)):
        skipped_rule.exchanges = list(context.exchanges)  # the creations show why the rule could not run
    return [judge(context, model, named, rule) if isinstance(rule, Rule) else rule for rule in rules]


def without_name_attribute(model: type[Resource[Any]], purpose: str) -> CheckResult:
    return CheckResult(
        Status.SKIPPED,
        reason=f"Skipped: the {model.__name__} schema has no required single-valued string attribute to name resources with and {purpose}.",
    )


def _rules(named: Named, created: Resource[Any], typed: Attribute | None, alpha_values: dict[str, Any]) -> list[Rule | CheckResult]:
    name = named.attribute.name
    alpha, beta, gamma = (named.prefix + suffix for suffix in ("alpha-one", "beta-two", "gamma-two"))
    exact = case_exact(named.attribute)
    case_rule = Rule(
        "eq, other case",
        f"{name} eq {quoted(alpha.upper())}",
        set() if exact else named.ids_named(alpha),
        f"{name} has caseExact {str(exact).lower()}, and the case sensitivity of a string comparison SHALL follow caseExact",
    )
    return [
        Rule("eq", f"{name} eq {quoted(alpha)}", named.ids_named(alpha)),
        case_rule,
        _presence_rule(named, created),
        Rule("co", f"{name} co {quoted(gamma.removeprefix(PREFIX))}", named.ids_named(gamma)),
        Rule("sw", named.scope, named.ids_named(alpha, beta, gamma)),
        Rule("and", f'{named.scope} and {name} co "two"', named.ids_named(beta, gamma)),
        Rule("or", f"{name} eq {quoted(alpha)} or {name} eq {quoted(gamma)}", named.ids_named(alpha, gamma)),
        _value_filter_rule(named, typed, alpha_values),
    ]


def _presence_rule(named: Named, alpha: Resource[Any]) -> Rule | CheckResult:
    if not alpha.external_id:
        return CheckResult(Status.SKIPPED, reason="pr: Skipped: the server did not keep the externalId sent, so no attribute is known to be present on one resource only.")
    return Rule("pr", f"externalId pr and {named.scope}", named.ids_named(named.prefix + "alpha-one"))


def _value_filter_rule(named: Named, typed: Attribute | None, alpha_values: dict[str, Any]) -> Rule | CheckResult:
    if typed is None:
        return CheckResult(Status.SKIPPED, reason='value filter: Skipped: the schema has no multi-valued complex attribute with a "type" sub-attribute to filter on.')
    kind = alpha_values[typed.name][0]["type"]
    return Rule("value filter", f"{typed.name}[type eq {quoted(kind)}] and {named.scope}", named.ids_named(named.prefix + "alpha-one"))


INVALID_FILTER = Refusal(400, "invalidFilter", "RFC 7644 §3.4.2.2 and §3.12, Table 9", other_scim_type=Status.DEVIATION)


@checker("filter", "filter:invalid", section="3.4.2.2")
def filter_invalid(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """A malformed filter is refused with 400 and scimType invalidFilter (RFC 7644 §3.4.2.2, §3.12).

    Sends one GET with a filter whose parenthesis is never closed, judged as the errors checks
    judge a refusal. SUCCESS on 400 with a SCIM Error whose scimType is invalidFilter ("The
    specified filter syntax was invalid", Table 9); DEVIATION on 400 with another scimType or none
    (scimType is OPTIONAL in an error, but Table 9 names this one); ERROR on any other status (400
    is the status of a request "syntactically incorrect", Table 8, and a 200 answers a filter the
    server could not have understood) or on an answer that is not a SCIM Error (§3.12).
    SKIPPED when the ServiceProviderConfig does not claim filter.
    """
    skipped = unclaimed(context, "filter")
    if skipped:
        return [skipped]
    attribute = name_attribute(model)
    expression = f"({attribute.name if attribute else 'id'} eq {quoted(unique_prefix('invalid'))}"
    path = resource_path(context, model)
    response = context.client.request("GET", path, params={"filter": expression})
    return [judge_refusal(f"GET {context.root_path(path)}?filter={expression} (an unclosed parenthesis)", response, INVALID_FILTER)]
