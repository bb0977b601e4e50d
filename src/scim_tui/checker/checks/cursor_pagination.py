"""Checks of cursor-based pagination (RFC 9865), run when the ServiceProviderConfig announces it."""

from __future__ import annotations

from functools import partial
from typing import Any

from scim2_models import Resource

from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import shown
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.filtering import SHARED_NAMES
from scim_tui.checker.checks.filtering import listed
from scim_tui.checker.checks.narrowing import UNCLAIMED
from scim_tui.checker.checks.narrowing import ListPage
from scim_tui.checker.checks.narrowing import Named
from scim_tui.checker.checks.narrowing import narrowed_once
from scim_tui.checker.checks.pagination import PAGE_SIZE
from scim_tui.checker.checks.pagination import Pages
from scim_tui.checker.context import CheckContext
from scim_tui.checker.features import claims
from scim_tui.checker.features import service_provider_config
from scim_tui.checker.filling import name_attribute
from scim_tui.checker.limits import MAX_CURSOR_PAGES
from scim_tui.checker.pacing import pause
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

MADE_UP_CURSOR = "scim-tui-not-a-cursor"
MAX_EXPIRY_WAIT = 5
"""Seconds this check waits at most for a cursor to pass its cursorTimeout; a longer timeout is not waited out."""


def _announced(context: CheckContext) -> tuple[Any, str | None]:
    """The announced pagination, or None and why the check does not apply."""
    config = service_provider_config(context)
    pagination = getattr(config, "pagination", None)
    if pagination is None or not pagination.cursor:
        return None, "the ServiceProviderConfig does not announce cursor pagination (pagination.cursor is not true)"
    if not claims(context, "filter"):
        return None, UNCLAIMED
    return pagination, None


def _first(page: ListPage, named: Named) -> tuple[Status, str]:
    found = len(page.resources)
    if found > PAGE_SIZE:
        return Status.ERROR, f"{page.query} answered {found} resources, more than count={PAGE_SIZE}."
    if not set(page.ids) <= set(named.names):
        return Status.ERROR, f"{page.query} answered {named.described(page.ids)}, not only resources of the filter."
    if found < len(SHARED_NAMES) and not page.next_cursor:
        return Status.ERROR, f"{page.query} answered {named.described(page.ids)} of the {len(SHARED_NAMES)} matches without a nextCursor to the others."
    return Status.SUCCESS, f"{page.query} answered {named.described(page.ids)} and a nextCursor to the next page."


def _next_pages(pages: list[ListPage], named: Named) -> tuple[Status, str]:
    seen: list[str] = []
    for page in pages[1:]:
        if len(page.resources) > PAGE_SIZE:
            return Status.ERROR, f"{page.query} answered {len(page.resources)} resources, more than count={PAGE_SIZE}: count holds for every page of a cursor."
        if repeated := set(page.ids) & set(pages[0].ids + seen):
            return Status.ERROR, f"{page.query} answered {named.described(repeated)} already on an earlier page."
        seen += page.ids
    if pages[-1].next_cursor:
        return (
            Status.ERROR,
            f"{MAX_CURSOR_PAGES} pages followed by nextCursor and the last still has one, for {len(SHARED_NAMES)} matches "
            f"in pages of {PAGE_SIZE}: the last page carries no nextCursor.",
        )
    missing = set(named.names) - set(pages[0].ids) - set(seen)
    if missing:
        return Status.ERROR, f"the pages reached by nextCursor leave out {named.described(missing)}."
    return (
        Status.SUCCESS,
        f"{len(pages) - 1} page(s) reached by nextCursor hold {named.described(seen)}, the matches after the first page, and the last has no nextCursor.",
    )


def _previous(back: ListPage, first: ListPage, named: Named) -> tuple[Status, str]:
    if set(back.ids) != set(first.ids):
        return Status.ERROR, f"{back.query} answered {named.described(back.ids)} instead of the first page's {named.described(first.ids)}."
    return Status.SUCCESS, f"{back.query} answered the first page again, {named.described(back.ids)}."


def _refused(context: CheckContext, model: type[Resource[Any]], cursor: str, scope: str, expected: tuple[str, ...]) -> tuple[Status, str]:
    """What a list query with a cursor the server must refuse answered, judged: 400 with one of the `expected` scimTypes."""
    path = resource_path(context, model)
    query = f"GET {context.root_path(path)}?filter={scope}&cursor=…&count={PAGE_SIZE}"
    response = context.client.request("GET", path, params={"filter": scope, "cursor": cursor, "count": PAGE_SIZE})
    body = body_of(response)
    scim_type = body.get("scimType") if isinstance(body, dict) else None
    wanted = " or ".join(expected)
    if response.status_code != 400:
        return Status.ERROR, f"{query} answered {response.status_code} instead of 400 with scimType {wanted}."
    if scim_type not in expected:
        return Status.DEVIATION, f"{query} answered 400 with scimType {shown(scim_type)} instead of {wanted}."
    return Status.SUCCESS, f"{query} answered 400 with scimType {scim_type}."


@checker("pagination", "pagination:cursor", section="2", rfc=9865, shares=("listed",))
def cursor_pagination(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Cursor-based pagination pages through a list as RFC 9865 §2 says, when the ServiceProviderConfig announces it.

    Lists three resources named with a prefix of the run's own (shared with the pagination and
    sort checks, which only list them too) with a
    filter that lists exactly them, as an answer showed (narrowing.py), in pages of two. One result per rule: the first page (cursor empty)
    holds at most count resources and a nextCursor; the pages reached by nextCursor hold the
    other matches, none twice, at most count each, and the last has no nextCursor; a
    previousCursor, where the server gives one, leads back to the first page (SKIPPED when none
    is given: it is OPTIONAL); a cursor the server never issued is answered 400 invalidCursor
    (DEVIATION for another scimType); a cursor past the announced cursorTimeout is answered 400
    expiredCursor or invalidCursor, or still served (ACCEPTABLE: the timeout is a minimum);
    SKIPPED when no cursorTimeout is announced or it is longer than 5 s. ERROR when a rule is
    broken. SKIPPED without an announcement of cursor pagination, or without a filter that
    lists exactly the check's resources (filter not claimed, refused or ignored).
    """
    pagination, why_not = _announced(context)
    attribute = name_attribute(model)
    if why_not is None and attribute is None:
        why_not = f"the {model.__name__} schema has no name attribute to filter this check's resources by"
    if why_not is not None or attribute is None:
        return [CheckResult(Status.SKIPPED, reason=f"Skipped: {why_not}.")]
    named = listed(context, model, attribute).named
    narrowed = narrowed_once(context, named, model)
    scope = narrowed.filter
    if scope is None:
        return [CheckResult(Status.SKIPPED, reason=f"Skipped: {narrowed.why_not}.")]
    pages = Pages(context, model, {"filter": scope, "count": PAGE_SIZE})
    pages.fetch("first", cursor="")
    walked = _walk(pages)
    return [
        pages.judged("first page", partial(_first, named=named), "first"),
        pages.judged("nextCursor", lambda *read: _next_pages(list(read), named), *walked) if len(walked) > 1 else _no_next(pages),
        _previous_result(pages, walked, named),
        _labelled(context, "invalid cursor", _refused(context, model, MADE_UP_CURSOR, scope, ("invalidCursor",))),
        _expired_result(context, model, pages, scope, pagination.cursor_timeout),
    ]


def _walk(pages: Pages) -> list[str]:
    """Follow nextCursor from the first page, MAX_CURSOR_PAGES at most: the names of the pages read."""
    names = ["first"]
    while len(names) <= MAX_CURSOR_PAGES:
        last = pages.answers[names[-1]]
        if isinstance(last, str) or not last.next_cursor:
            break
        names.append(f"page {len(names) + 1}")
        pages.fetch(names[-1], cursor=last.next_cursor)
    return names


def _no_next(pages: Pages) -> CheckResult:
    first = pages.answers["first"]
    if isinstance(first, str):
        return CheckResult(Status.SKIPPED, reason=f"nextCursor: Skipped: the first page could not be read ({first}).")
    return CheckResult(
        Status.SKIPPED, reason="nextCursor: Skipped: the first page gives no nextCursor to follow (the first page's result says why that is wrong)."
    )


def _previous_result(pages: Pages, walked: list[str], named: Named) -> CheckResult:
    second = pages.answers.get(walked[1]) if len(walked) > 1 else None
    if not isinstance(second, ListPage) or not second.previous_cursor:
        return CheckResult(Status.SKIPPED, reason="previousCursor: Skipped: the second page gives no previousCursor, which is OPTIONAL.")
    pages.fetch("back", cursor=second.previous_cursor)
    return pages.judged("previousCursor", partial(_previous, named=named), "back", "first")


def _expired_result(context: CheckContext, model: type[Resource[Any]], pages: Pages, scope: str, timeout: int | None) -> CheckResult:
    first = pages.answers["first"]
    if timeout is None or timeout > MAX_EXPIRY_WAIT:
        said = (
            "announces no cursorTimeout"
            if timeout is None
            else f"announces a cursorTimeout of {timeout} s, longer than the {MAX_EXPIRY_WAIT} s this check waits"
        )
        return CheckResult(Status.SKIPPED, reason=f"expired cursor: Skipped: the ServiceProviderConfig {said}.")
    if not isinstance(first, ListPage) or not first.next_cursor:
        return CheckResult(Status.SKIPPED, reason="expired cursor: Skipped: the first page gives no nextCursor to let expire.")
    if not pause(timeout + 1, lambda: context.recorder.stopped is not None):
        return CheckResult(Status.SKIPPED, reason=f"expired cursor: Skipped: {context.recorder.stopped}.")
    status, reason = _refused(context, model, first.next_cursor, scope, ("expiredCursor", "invalidCursor"))
    if status is Status.ERROR and context.exchanges[-1].status_code == 200:
        status, reason = (
            Status.ACCEPTABLE,
            f"a nextCursor {timeout + 1} s old, past the cursorTimeout of {timeout} s, was still served, which the RFC allows (the timeout is a minimum).",
        )
    return _labelled(context, "expired cursor", (status, reason))


def _labelled(context: CheckContext, label: str, judged: tuple[Status, str]) -> CheckResult:
    """The result of a rule judged on the check's last exchange."""
    status, reason = judged
    return CheckResult(status, reason=f"{label}: {reason}", exchanges=context.exchanges[-1:])
