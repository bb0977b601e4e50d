"""Checks of sorting: sortBy and sortOrder (RFC 7644 §3.4.2.3)."""

from __future__ import annotations

from functools import partial
from typing import Any

from scim2_models import Resource

from scim_tui.checker.checks.filtering import listed
from scim_tui.checker.checks.filtering import without_name_attribute
from scim_tui.checker.checks.narrowing import UNCLAIMED
from scim_tui.checker.checks.narrowing import ListQueryError
from scim_tui.checker.checks.narrowing import Named
from scim_tui.checker.checks.narrowing import narrowed_once
from scim_tui.checker.checks.narrowing import whole_list
from scim_tui.checker.checks.probes import results_of
from scim_tui.checker.checks.probes import steps
from scim_tui.checker.context import CheckContext
from scim_tui.checker.features import claims
from scim_tui.checker.features import unclaimed
from scim_tui.checker.filling import case_exact
from scim_tui.checker.filling import name_attribute
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status


@checker("sort", section="3.4.2.3", shares=("listed",))
def sort_order(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """sortBy and sortOrder order a list (RFC 7644 §3.4.2.3).

    Lists three resources named with a prefix of the run's own (alpha-one, gamma-two, Beta-two,
    created in that order, shared with the filter and pagination checks, which only list them
    too), with a filter that lists exactly them, as an answer showed
    (sw on that prefix, else eq on each name; narrowing.py; read on, page after page, when a
    page holds fewer), sorted by the name attribute:
    sortOrder=ascending, sortOrder=descending, and no sortOrder, which "SHALL default to
    ascending". One result each: SUCCESS when the resources come in the expected order, ERROR
    otherwise (sortBy names the attribute whose value "SHALL be used to order the returned
    responses", and "sortOrder MUST sort according to the attribute type": without case when
    caseExact is false, so Beta-two comes between alpha-one and gamma-two). SKIPPED when the
    ServiceProviderConfig does not claim sort, or does not claim filter (without it the list
    cannot be limited to this check's resources while other checks create theirs), when no
    filter lists exactly them (refused or ignored), or when the schema has no name attribute.
    """
    skipped = unclaimed(context, "sort")
    if skipped:
        return [skipped]
    if not claims(context, "filter"):
        return [CheckResult(Status.SKIPPED, reason=f"Skipped: {UNCLAIMED}.")]
    attribute = name_attribute(model)
    if attribute is None:
        return [without_name_attribute(model, "sort by")]
    named = listed(context, model, attribute).named
    scope = narrowed_once(context, named, model)
    if scope.filter is None:
        return [CheckResult(Status.SKIPPED, reason=f"Skipped: {scope.why_not}.")]
    exact = case_exact(attribute)
    ascending = sorted(named.names, key=lambda i: named.names[i] if exact else named.names[i].casefold())
    how = f"{attribute.name} has caseExact {str(exact).lower()}, so it sorts {'with' if exact else 'without'} case"
    orders = (("ascending", "ascending", ascending), ("descending", "descending", ascending[::-1]), ("default order", None, ascending))
    return steps(context, [(label, partial(_ordered, context, model, named, scope.filter, (label, order, expected), how)) for label, order, expected in orders])


def _ordered(context: CheckContext, model: type[Resource[Any]], named: Named, scope: str, sorting: tuple[str, str | None, list[str]], how: str) -> CheckResult:
    """SUCCESS when the list of `scope` sorted by the name attribute (in `order`) holds the resources as `expected`."""
    label, order, expected = sorting
    mark = len(context.exchanges)
    params = {"filter": scope, "sortBy": named.attribute.name} | ({"sortOrder": order} if order else {})
    try:
        page = whole_list(context, model, **params)
    except ListQueryError as exc:
        return results_of(context, mark, [CheckResult(Status.ERROR, reason=f"{label}: {exc}.")])[0]
    got = [i for i in page.ids if i in named.names]
    shown = ", ".join(named.suffix_of(i) for i in expected)
    if got == expected:
        result = CheckResult(Status.SUCCESS, reason=f"{label}: {page.query} answered {shown} in that order ({how}).")
    elif sorted(got) != sorted(expected):
        result = CheckResult(Status.ERROR, reason=f"{label}: {page.query} answered {named.described(page.ids)} instead of the 3 resources of the filter.")
    else:
        seen = ", ".join(named.suffix_of(i) for i in got)
        default = "; without sortOrder the order SHALL be ascending" if order is None else ""
        result = CheckResult(Status.ERROR, reason=f"{label}: {page.query} answered {seen} instead of {shown} ({how}{default}).")
    return results_of(context, mark, [result])[0]
