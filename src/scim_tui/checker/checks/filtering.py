"""Checks of the filter parameter (RFC 7644 §3.4.2.2).

Other checks create and delete resources on the same endpoints at the same time, so a
check lists only resources it named itself (narrowing.py), and compares only those.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from scim2_models import Resource

from scim_tui.checker.answers import json_object
from scim_tui.checker.causes import NOT_IMPLEMENTED
from scim_tui.checker.causes import ignored_filter
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.filter_rules import LABELS
from scim_tui.checker.checks.filter_rules import Made
from scim_tui.checker.checks.filter_rules import Rule
from scim_tui.checker.checks.filter_rules import eq_rule
from scim_tui.checker.checks.filter_rules import rules
from scim_tui.checker.checks.kept import held
from scim_tui.checker.checks.narrowing import ListPage
from scim_tui.checker.checks.narrowing import ListQueryError
from scim_tui.checker.checks.narrowing import Named
from scim_tui.checker.checks.narrowing import create_named
from scim_tui.checker.checks.narrowing import narrowed_once
from scim_tui.checker.checks.narrowing import quoted
from scim_tui.checker.checks.narrowing import unique_prefix
from scim_tui.checker.checks.narrowing import whole_list
from scim_tui.checker.checks.patch import Target
from scim_tui.checker.checks.probes import Refusal
from scim_tui.checker.checks.probes import judge_refusal
from scim_tui.checker.checks.probes import results_of
from scim_tui.checker.context import CheckContext
from scim_tui.checker.exchanges import Exchange
from scim_tui.checker.exchanges import request_line
from scim_tui.checker.features import unclaimed
from scim_tui.checker.filling import PREFIX
from scim_tui.checker.filling import Attribute
from scim_tui.checker.filling import attribute_value
from scim_tui.checker.filling import complex_lists
from scim_tui.checker.filling import name_attribute
from scim_tui.checker.filling import sub_attributes
from scim_tui.checker.lag import settled
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

UNSUPPORTED = '"the specified attribute and filter comparison combination is not supported" (RFC 7644 §3.12, Table 9)'
"""How a service provider refuses an operator it does not support: the RFC does not require every one."""


def typed_filter_attribute(model: type[Resource[Any]]) -> Attribute | None:
    """A writable multi-valued complex attribute with a `type` sub-attribute (emails, members ...)."""
    return next((attribute for attribute, subs in complex_lists(model) if attribute.writable and "type" in subs), None)


def judge(context: CheckContext, model: type[Resource[Any]], named: Named, rule: Rule, fresh: bool = False) -> tuple[CheckResult, ListPage | None]:
    """SUCCESS when the filter selects exactly the expected resources, ERROR otherwise (ACCEPTABLE
    when an optional operator is refused as unsupported); with the page answered, if any. A rule
    asked first on resources made `fresh` is asked again while its answer lacks them (lag.py)."""
    mark = len(context.exchanges)
    ask = partial(whole_list, context, model, filter=rule.expression)
    try:
        page = settled(context, ask, lambda page: not fresh or rule.expected <= set(page.ids))
    except ListQueryError as exc:
        if rule.optional and _unsupported(context.exchanges[-1]):
            result = CheckResult(
                Status.ACCEPTABLE, reason=f"{rule.label}: {exc.query} answered 400 invalidFilter, which a service provider answers when {UNSUPPORTED}."
            )
        else:
            result = CheckResult(Status.ERROR, reason=f"{rule.label}: {exc}{_refused_rule(rule, context.exchanges[-1])}.")
        return results_of(context, mark, [result])[0], None
    got = page.ids
    if set(got) == rule.expected and len(got) == len(rule.expected):
        result = CheckResult(Status.SUCCESS, reason=f"{rule.label}: {page.query} answered {named.described(got)}, as expected.")
    else:
        result = CheckResult(
            Status.ERROR,
            reason=f"{rule.label}: {page.query} answered {named.described(got)} instead of {named.described(rule.expected)} "
            f"({rule.keyword}, RFC 7644 §3.4.2.2).",
        )
    return results_of(context, mark, [result])[0], page


def _refused_rule(rule: Rule, exchange: Exchange) -> str:
    """The rule a filter refused as unreadable (400) breaks, when it is one of its own (a name in
    capitals, qualified by its URN ...); "" otherwise."""
    if exchange.status_code != 400 or rule.keyword == Rule.keyword:
        return ""
    return f" ({rule.keyword}, RFC 7644 §3.4.2.2)"


def _unsupported(exchange: Exchange) -> bool:
    """Whether an answer is a 400 invalidFilter: what a server answers to an operator it does not support."""
    return exchange.status_code == 400 and json_object(exchange.response_body or "").get("scimType") == "invalidFilter"


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


@checker("filter", "filter:operators", section="3.4.2.2", start="early", shares=("listed",))
def filter_operators(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Filters select exactly the resources they match (RFC 7644 §3.4.2.2).

    Lists three resources named with a prefix of the run's own (alpha-one, gamma-two, Beta-two,
    created in that order and shared with the pagination and sort checks, which only list them
    too: listed), the first with an externalId and, when the schema has one, a multi-valued
    complex attribute with a "type" (emails, members ...) that the others hold with another
    type. Then one GET per rule (filter_rules.py; a server answering fewer than all the matches
    in a page is read on, page after page), each giving one result: eq on the name
    attribute; eq with the value in upper case, which must find the resource when the
    attribute's caseExact is false and nothing when it is true; pr on externalId; co; sw; and;
    or; a value filter on the typed attribute (emails[type eq "work"]); eq with the attribute
    name and the operator in capitals (USERNAME EQ, "attribute names and attribute operators
    used in filters are case insensitive"); eq on the name qualified by its schema URN
    (attrPath = [URI ":"] ATTRNAME, §3.10); externalId in upper case, which must find nothing
    when the schema declares it caseExact true (RFC 7643 §3.1); ne; ew; gt, ge, lt and le on
    meta.lastModified around the first creation's; not; parentheses ((a or b) and b: without
    them, "and" binds first); pr inside a value path (emails[type eq "work" and value pr]).
    SUCCESS when the answer holds exactly the expected resources; ERROR otherwise ("only those
    resources matching the filter expression SHALL be returned"; string case sensitivity "SHALL
    be determined by the attribute's caseExact"). ACCEPTABLE when co, sw, pr, and, or, a value
    filter, ne, ew, gt, ge, lt, le, not, parentheses or pr in a value path is refused with 400 invalidFilter: "the
    specified attribute and filter comparison combination is not supported" (Table 9), which
    the RFC lets a server do. When the eq rule's answer holds resources its filter does not
    match (the server does not narrow a list by its filter), or is 501 Not Implemented: that
    one ERROR, and every other rule SKIPPED naming it. pr, and, the value filters, ne, not and
    the comparisons of meta.lastModified combine their test with a filter that lists the
    check's resources (sw on their prefix, else eq on each name, narrowing.py); SKIPPED when
    none does. SKIPPED when the ServiceProviderConfig does not claim filter, or the schema has
    no name attribute; a rule on externalId when the server did not keep the externalId sent,
    the value-filter rules when no attribute has a "type" sub-attribute, the comparisons when
    the creation answered no meta.lastModified.
    """
    skipped = unclaimed(context, "filter")
    if skipped:
        return [skipped]
    attribute = name_attribute(model)
    if attribute is None:
        return [without_name_attribute(model, "filter on")]
    made = listed(context, model, attribute)
    named = made.named
    creations = list(context.exchanges)  # the creations show why a rule could not run
    first = eq_rule(named)
    eq, page = judge(context, model, named, first, fresh=True)
    unfit = _unfit(first, page, eq.exchanges[-1])
    if unfit and eq.status.failed and eq.exchanges[-1].status_code != NOT_IMPLEMENTED:
        eq.cause = ignored_filter(eq.exchanges[-1])  # the steps relying on a filter meet it too (causes.py)
    if unfit:
        return [
            eq,
            *(
                CheckResult(Status.SKIPPED, reason=f"{label}: Skipped: {unfit}, so this rule cannot tell anything.", exchanges=eq.exchanges)
                for label in LABELS[1:]
            ),
        ]
    scope = narrowed_once(context, named, model)
    followed = rules(made, scope.filter, scope.why_not)
    for skipped_rule in (rule for rule in followed if isinstance(rule, CheckResult)):
        skipped_rule.exchanges = creations
    return [eq, *(judge(context, model, named, rule)[0] if isinstance(rule, Rule) else rule for rule in followed)]


SHARED_NAMES = ("alpha-one", "gamma-two", "Beta-two")
"""The names, after a prefix of the run's own, of the three resources the filter, pagination and sort
checks list, created in this order: alpha first (the lastModified rules compare with its creation),
which is neither ascending nor descending; "Beta-two" sorts between the others without case
(caseExact false), and before them with case (caseExact true)."""


def listed(context: CheckContext, model: type[Resource[Any]], attribute: Attribute) -> Made:
    """Three resources named SHARED_NAMES, made once a run for the checks that only list them
    (filter, pagination, sort, cursors), so that their verdicts stay apart: none writes to them, and
    no other resource bears their prefix. Only alpha-one holds an externalId (for the pr rule) and,
    when the schema has one, a value of a typed attribute (emails, members) whose type the others
    hold not. The first check needing them makes them (its exchanges show the POSTs); the last
    check of the run declaring the pool "listed" deletes them (References.leave)."""

    def make() -> tuple[Made, list[Resource[Any]]]:
        named = Named(attribute, unique_prefix("list", SHARED_NAMES))
        typed = typed_filter_attribute(model)
        extra: dict[str, dict[str, Any]] = {name: {"externalId": None} for name in SHARED_NAMES}
        extra["alpha-one"]["externalId"] = f"{named.prefix}external"
        if typed is not None:
            found, other = _typed_values(context, typed)
            extra["alpha-one"][typed.name] = [found]
            if other is not None:  # neither holds the type found, even with what the run's creations may add (creations.py)
                extra["gamma-two"][typed.name] = [other]
                extra["Beta-two"][typed.name] = [_typed_values(context, typed)[1]]
        created = create_named(context, model, named, SHARED_NAMES, extra)
        alpha = created[0]
        return Made(named, alpha, typed, extra["alpha-one"], _typed_held(context, model, alpha, typed, extra["alpha-one"])), created

    return context.references.shared(context, ("listed", model), ("listed", model), make)


def _unfit(eq_rule: Rule, page: ListPage | None, exchange: Exchange) -> str | None:
    """Why the eq rule's answer leaves every other rule nothing to tell (the server ignores the
    filter, or does not implement filtering), or None."""
    if page is not None and set(page.ids) - eq_rule.expected:
        return "the eq rule shows that the server does not narrow a list by its filter (its answer holds resources the filter does not match)"
    if exchange.status_code == NOT_IMPLEMENTED:
        return f"the eq rule was answered 501 Not Implemented ({request_line(exchange)})"
    return None


def _typed_held(context: CheckContext, model: type[Resource[Any]], alpha: Resource[Any], typed: Attribute | None, values: dict[str, Any]) -> str | None:
    """Why the resource the value filter must find does not hold its typed value (its creation
    dropped it, kept.py), or None when it does."""
    if typed is None:
        return None
    target = Target(model, str(alpha.id), resource_path(context, model, alpha.id), alpha.model_dump())
    return held(context, target, typed, values[typed.name])


def without_name_attribute(model: type[Resource[Any]], purpose: str) -> CheckResult:
    return CheckResult(
        Status.SKIPPED,
        reason=f"Skipped: the {model.__name__} schema has no required single-valued string attribute to name resources with and {purpose}.",
    )


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
