"""Checks of index-based pagination: startIndex, count and the list attributes (RFC 7644 §3.4.2.4)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from scim2_models import Resource

from scim_tui.checker.answers import shown
from scim_tui.checker.checks.filtering import SHARED_NAMES
from scim_tui.checker.checks.filtering import listed
from scim_tui.checker.checks.narrowing import ListPage
from scim_tui.checker.checks.narrowing import ListQueryError
from scim_tui.checker.checks.narrowing import Named
from scim_tui.checker.checks.narrowing import Narrowed
from scim_tui.checker.checks.narrowing import list_page
from scim_tui.checker.checks.narrowing import narrowed_once
from scim_tui.checker.context import CheckContext
from scim_tui.checker.exchanges import Exchange
from scim_tui.checker.filling import name_attribute
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

PAGE_SIZE = 2
"""Three resources in pages of two: a full first page, and a second one holding the last."""


class Pages:
    """The answers of the check's list queries, by name; a failed query holds why it failed."""

    def __init__(self, context: CheckContext, model: type[Resource[Any]], scope: dict[str, Any]):
        self.context, self.model, self.scope = context, model, scope
        self.answers: dict[str, ListPage | str] = {}
        self.exchanges: dict[str, list[Exchange]] = {}

    def fetch(self, name: str, **params: Any) -> None:
        mark = len(self.context.exchanges)
        try:
            self.answers[name] = list_page(self.context, self.model, **self.scope, **params)
        except ListQueryError as exc:
            self.answers[name] = str(exc)
        self.exchanges[name] = self.context.exchanges[mark:]

    def judged(self, label: str, judge: Callable[..., tuple[Status, str]], *needs: str) -> CheckResult:
        """The result of a rule: `judge` applied to the answers it needs, or ERROR when one of them failed."""
        exchanges = [exchange for name in needs for exchange in self.exchanges[name]]
        failed = next((answer for name in needs if isinstance(answer := self.answers[name], str)), None)
        if failed is not None:
            return CheckResult(Status.ERROR, reason=f"{label}: {failed}.", exchanges=exchanges)
        status, reason = judge(*(self.answers[name] for name in needs))
        return CheckResult(status, reason=f"{label}: {reason}", exchanges=exchanges)


def _count(first: ListPage) -> tuple[Status, str]:
    found = len(first.resources)
    if found > PAGE_SIZE:
        return (
            Status.ERROR,
            f"{first.query} answered {found} resources, more than count={PAGE_SIZE} (the service provider MUST NOT return more results than specified).",
        )
    if found < PAGE_SIZE:
        return Status.ACCEPTABLE, f"{first.query} answered {found} resource(s) of the {PAGE_SIZE} asked for, which a service provider MAY do."
    return Status.SUCCESS, f"{first.query} answered {found} resources, as count={PAGE_SIZE} asks."


def _start_index(first: ListPage, second: ListPage, named: Named, size: int = PAGE_SIZE) -> tuple[Status, str]:
    """The page at startIndex=1 and the one after it (pages of `size`) hold each of `named` once."""
    if len(first.resources) > size:
        held = f"the page at startIndex=1 holds more than count={size} (the count rule's finding)"
        return Status.SKIPPED, f"Skipped: {held}, so where the next page starts cannot be told."
    mine = set(named.names)
    repeated = set(first.ids) & set(second.ids)
    if repeated:
        return (
            Status.ERROR,
            f"{second.query} answered {named.described(repeated)} already on the page at startIndex=1: startIndex is the 1-based index of the first result.",
        )
    if not set(second.ids) <= mine:
        return Status.ERROR, f"{second.query} answered {named.described(second.ids)}, not only resources of the filter."
    missing = mine - set(first.ids) - set(second.ids)
    if len(first.ids) == size and missing:
        left_out = named.described(missing)
        return Status.ERROR, f"{second.query} answered {named.described(second.ids)}: the pages at startIndex=1 and {size + 1} leave out {left_out}."
    after = "the matches after the first page" if second.ids else "none is left after the page at startIndex=1"
    return Status.SUCCESS, f"{second.query} answered {named.described(second.ids)}, {after}."


def _total_results(first: ListPage, second: ListPage, matches: int = len(SHARED_NAMES)) -> tuple[Status, str]:
    for page in (first, second):
        if page.total_results != matches:
            counted = " (it counts the page, not every match)" if page.total_results == len(page.resources) else ""
            return (
                Status.ERROR,
                f"{page.query} answered totalResults {shown(page.total_results)} instead of the {matches} "
                f"match{'es' if matches > 1 else ''}{counted}; totalResults is REQUIRED and counts every result of the query.",
            )
    return Status.SUCCESS, f"{first.query} and {second.query} both answered totalResults {matches}, every match, not the page."


def _page_attributes(*pages: ListPage) -> tuple[Status, str]:
    for page, start in zip(pages, (1, PAGE_SIZE + 1), strict=False):
        problems = []
        if page.items_per_page != len(page.resources):
            problems.append(f"itemsPerPage {shown(page.items_per_page)} for {len(page.resources)} resource(s)")
        if page.start_index != start:
            problems.append(f"startIndex {shown(page.start_index)} instead of {start}")
        if problems:
            return (
                Status.ERROR,
                f"{page.query} answered {' and '.join(problems)}; both are REQUIRED when a page holds part of the results, and describe that page.",
            )
    queries = " and ".join(page.query for page in pages)
    return Status.SUCCESS, f"{queries} answered itemsPerPage equal to the number of Resources, and the startIndex asked for."


def _no_resources(page: ListPage, at_least: int, exact: bool, rule: str) -> tuple[Status, str]:
    if page.resources:
        return Status.ERROR, f"{page.query} answered {len(page.resources)} resource(s) instead of none ({rule})."
    total = page.total_results
    if not isinstance(total, int) or (total != at_least if exact else total < at_least):
        expected = f"{at_least}" if exact else f"at least {at_least}"
        return Status.ERROR, f"{page.query} answered no resource but totalResults {shown(total)} instead of {expected}; only totalResults is returned then."
    return Status.SUCCESS, f"{page.query} answered no resource and totalResults {total}."


def _start_below_one(page: ListPage, named: Named | None) -> tuple[Status, str]:
    if page.start_index not in (None, 1):
        return Status.ERROR, f"{page.query} answered startIndex {shown(page.start_index)}: a startIndex less than 1 SHALL be interpreted as 1."
    if len(page.resources) > 1 and page.start_index is None:
        found = f"{page.query} answered {len(page.resources)} resources for count=1 and no startIndex"
        return Status.SKIPPED, f"Skipped: {found} (count is the count rule's finding), so where it started cannot be told."
    if named is not None and not set(page.ids) <= set(named.names):
        return Status.ERROR, f"{page.query} answered {named.described(page.ids)}, not a resource of the filter."
    return Status.SUCCESS, f"{page.query} answered as startIndex=1: a startIndex less than 1 SHALL be interpreted as 1."


def _scope(context: CheckContext, named: Named | None, model: type[Resource[Any]]) -> Narrowed:
    """The filter that lists exactly the check's resources (narrowing.py), or why there is none."""
    if named is None:
        return Narrowed(None, f"the {model.__name__} schema has no name attribute to filter this check's resources by")
    return narrowed_once(context, named, model)


def _exact_rules(context: CheckContext, model: type[Resource[Any]], narrowed: Narrowed) -> list[CheckResult]:
    """The startIndex and totalResults rules when no filter lists exactly the check's resources:
    judged on the one an eq on its name lists alone, else SKIPPED naming why. One match: the page
    at startIndex=2&count=1 holds nothing, and totalResults is 1 on the page at startIndex=1&count=1
    and with count=0 (no resource, "except for totalResults"). The page at 2 lies past the end,
    where RFC 7644 §3.4.2.4 sets no rule: a server refusing it leaves the startIndex rule SKIPPED."""
    if narrowed.one is None:
        return [
            CheckResult(Status.SKIPPED, reason=f"startIndex: Skipped: {narrowed.why_not}; this rule needs the exact matches."),
            CheckResult(Status.SKIPPED, reason=f"totalResults: Skipped: {narrowed.why_not}; this rule needs the exact number of matches."),
        ]
    alone = Pages(context, model, {"filter": narrowed.one.any_of})
    alone.fetch("first", startIndex=1, count=1)
    alone.fetch("past the end", startIndex=2, count=1)
    alone.fetch("none", count=0)
    refused = alone.answers["past the end"]
    past_the_end = (
        CheckResult(
            Status.SKIPPED,
            reason=f"startIndex: Skipped: {refused}; with one match listed, the page at startIndex=2 lies past the end, where RFC 7644 §3.4.2.4 sets no rule.",
            exchanges=alone.exchanges["past the end"],
        )
        if isinstance(refused, str) and not isinstance(alone.answers["first"], str)
        else alone.judged("startIndex", partial(_start_index, named=narrowed.one, size=1), "first", "past the end")
    )
    return [past_the_end, alone.judged("totalResults", partial(_total_results, matches=1), "first", "none")]


@checker("pagination", section="3.4.2.4", shares=("listed",))
def pagination_parameters(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """startIndex and count page through a list, and the list says where the page is (RFC 7644 §3.4.2.4).

    Lists three resources named with a prefix of the run's own (shared with the sort and cursor
    checks, which only list them too) with a
    filter that lists exactly them, as an answer showed (sw on that prefix, else eq on each
    name; narrowing.py): startIndex=1&count=2, startIndex=3&count=2,
    count=0, startIndex=0&count=1 and count=-1. One result per rule:
    count: ERROR when a page holds more resources than count (MUST NOT), ACCEPTABLE when
    fewer (MAY), SUCCESS otherwise; startIndex: the page at 3 holds the match left out of the
    page at 1, none twice; totalResults: every match (3), not the page; itemsPerPage and
    startIndex: the number of Resources and the index asked for (REQUIRED on a partial page);
    count=0: no Resources, only totalResults; startIndex below 1 SHALL be read as 1, a
    negative count as 0. ERROR when a rule is broken, SUCCESS otherwise; on a server holding
    more than count on a page (the count rule's finding), the startIndex rule is SKIPPED naming
    it, and startIndex below 1 is judged by the startIndex answered. Without such a filter
    (filter not claimed, refused or ignored, or no name attribute) other checks' resources share
    the list, and the others run on the whole list; the startIndex and totalResults rules, which
    need the exact matches, are judged on the one resource an eq on its name lists (a server
    filtering on one eq alone): startIndex=2&count=1 holds nothing, startIndex=1&count=1 and
    count=0 say totalResults 1; SKIPPED naming why when no eq lists it alone.
    """
    attribute = name_attribute(model)
    named = listed(context, model, attribute).named if attribute else None
    if named is None:
        for _ in SHARED_NAMES:
            context.resource_manager.create_and_register(model, fill_all=False)
    narrowed = _scope(context, named, model)
    scoped = named if narrowed.filter else None
    pages = Pages(context, model, {"filter": narrowed.filter} if scoped else {})
    pages.fetch("first", startIndex=1, count=PAGE_SIZE)
    if scoped:
        pages.fetch("second", startIndex=PAGE_SIZE + 1, count=PAGE_SIZE)
    pages.fetch("empty", count=0)
    pages.fetch("low", startIndex=0, count=1)
    pages.fetch("negative", count=-1)
    none_but_total = partial(_no_resources, at_least=len(SHARED_NAMES), exact=scoped is not None)
    return [
        pages.judged("count", _count, "first"),
        *(
            [
                pages.judged("startIndex", partial(_start_index, named=scoped), "first", "second"),
                pages.judged("totalResults", _total_results, "first", "second"),
                pages.judged("itemsPerPage and startIndex", _page_attributes, "first", "second"),
            ]
            if scoped
            else [*_exact_rules(context, model, narrowed), pages.judged("itemsPerPage and startIndex", _page_attributes, "first")]
        ),
        pages.judged("count=0", partial(none_but_total, rule='count=0 asks for "no resource results ... except for totalResults"'), "empty"),
        pages.judged("startIndex below 1", partial(_start_below_one, named=scoped), "low"),
        pages.judged("negative count", partial(none_but_total, rule='a negative count SHALL be interpreted as "0"'), "negative"),
    ]
