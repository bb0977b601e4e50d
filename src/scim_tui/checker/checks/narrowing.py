"""List queries narrowed to a check's own resources (RFC 7644 §3.4.2.2), verified on the server.

Other checks create and delete resources on the same endpoints at the same time, so a check that
compares what a list holds (pagination, sorting) lists only resources it named itself. Narrowing
the list is plumbing, not what the check judges: a server MAY support only some operators
("the specified attribute and filter comparison combination is not supported", invalidFilter,
RFC 7644 §3.12, Table 9), so a prefix (sw) it refuses gives way to each name (eq ... or eq ...);
and a filter is used only once an answer shows it narrows. When none does, the rules that need
the exact matches are SKIPPED, naming why (filter_operators judges the filter itself), but for
those one match can tell: a server filtering on one eq comparison alone (a key-value store, a
server built for what identity providers send) still lists exactly one of the check's resources.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from functools import partial
from typing import Any

from scim2_models import ListResponse
from scim2_models import Resource

from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import member
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.probes import scim_error_problem
from scim_tui.checker.context import CheckContext
from scim_tui.checker.features import claims
from scim_tui.checker.filling import LONGEST
from scim_tui.checker.filling import USER_NAME_DOMAIN
from scim_tui.checker.filling import Attribute
from scim_tui.checker.filling import named_value
from scim_tui.checker.filling import unique_string
from scim_tui.checker.lag import settled

LIST_RESPONSE = str(ListResponse.__schema__)
UNCLAIMED = "the ServiceProviderConfig does not claim filter, so the list cannot be limited to this check's resources while other checks create theirs"


class ListQueryError(ValueError):
    """A list query answered something else than a ListResponse; the message says what."""

    def __init__(self, message: str, query: str):
        super().__init__(message)
        self.query = query
        """The request as a person reads it (ListPage.query)."""


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
        return [str(member(resource, "id")) for resource in self.resources]


@dataclass
class Named:
    """The resources a check created, by id, with the name each was given."""

    attribute: Attribute
    prefix: str
    names: dict[str, str] = field(default_factory=dict)

    def full(self, suffix: str) -> str:
        """The name of the resource with this suffix: the prefix, the suffix, and for a userName
        a mail domain (the userName an identity provider sends is an email address, and some
        servers take no other)."""
        return named_value(self.attribute, self.prefix + suffix)

    def suffix_of(self, resource_id: str) -> str:
        """The suffix a resource of the check was named with: alpha, Bravo ..."""
        return self.names[resource_id].removeprefix(self.prefix).removesuffix(named_value(self.attribute, ""))

    @property
    def starting_with(self) -> str:
        """The filter that selects exactly these resources by their common prefix (sw)."""
        return f"{self.attribute.name} sw {quoted(self.prefix)}"

    @property
    def any_of(self) -> str:
        """The filter that selects exactly these resources by each name (eq ... or eq ...), for a
        server without sw."""
        return " or ".join(f"{self.attribute.name} eq {quoted(name)}" for name in self.names.values())

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


def unique_prefix(kind: str, suffixes: Iterable[str] = ()) -> str:
    """A name prefix no other check and no other run uses, short enough that the prefix, the
    longest of the suffixes and a mail domain fit in LONGEST (the kind is left out where it does not)."""
    room = LONGEST - len(USER_NAME_DOMAIN) - max(map(len, suffixes), default=0) - 1
    return f"{unique_string(kind, room)}-"


def create_named(
    context: CheckContext, model: type[Resource[Any]], named: Named, suffixes: Iterable[str], extra: dict[str, dict[str, Any]] | None = None
) -> list[Resource[Any]]:
    """Create one resource (required attributes only) per suffix, named prefix + suffix, in that
    order; `extra` adds values to the resource of a suffix. They are deleted when the check ends."""
    created = []
    for suffix in suffixes:
        name = named.full(suffix)
        values = {named.attribute.name: name, **(extra or {}).get(suffix, {})}
        resource = context.resource_manager.create_and_register(model, fill_all=False, values=values)
        named.names[str(resource.id)] = name
        created.append(resource)
    return created


def narrowed_once(context: CheckContext, named: Named, model: type[Resource[Any]]) -> Narrowed:
    """narrow, asked once a run for a set the checks share (listed_named): a later check is given
    the answer, and the exchanges of the queries that made it."""
    return context.once(f"narrow {named.prefix}", lambda: narrow(context, named, model))


def list_page(context: CheckContext, model: type[Resource[Any]], **params: Any) -> ListPage:
    """GET the endpoint with query parameters; raise ListQueryError unless it answers 200 with a ListResponse."""
    path = resource_path(context, model)
    query = f"GET {context.root_path(path)}" + ("?" + "&".join(f"{key}={value}" for key, value in params.items()) if params else "")
    response = context.client.request("GET", path, params=params)
    body = body_of(response)
    if response.status_code != 200:
        problem = scim_error_problem(body)
        detail = f" ({body.get('detail')})" if not problem and member(body, "detail") else ""
        raise ListQueryError(f"{query} answered {response.status_code}{detail} instead of 200 with a ListResponse", query)
    if not isinstance(body, dict) or LIST_RESPONSE not in (member(body, "schemas") or []):
        raise ListQueryError(f"{query} answered 200 without a ListResponse (schemas {LIST_RESPONSE} missing)", query)
    resources = member(body, "Resources") or []
    if not isinstance(resources, list) or not all(isinstance(item, dict) for item in resources):
        raise ListQueryError(f"{query} answered a ListResponse whose Resources is not a list of objects", query)
    return ListPage(
        query,
        member(body, "totalResults"),
        member(body, "itemsPerPage"),
        member(body, "startIndex"),
        resources,
        member(body, "nextCursor"),
        member(body, "previousCursor"),
    )


MORE_PAGES = 4
"""How many pages after the first a list of the run's few resources is read on (`whole_list`)."""


def whole_list(context: CheckContext, model: type[Resource[Any]], **params: Any) -> ListPage:
    """`list_page`, then the pages after it while its answer holds part of the results (totalResults
    above what came), as a server MAY answer fewer than asked (RFC 7644 §3.4.2.4: a page of two,
    say): the first page with every resource read. Stops at a page that brings nothing new (a
    server ignoring startIndex) or after MORE_PAGES."""
    first = page = list_page(context, model, **params)
    resources = list(first.resources)
    seen = set(first.ids)
    start = first.start_index if isinstance(first.start_index, int) else 1
    for _ in range(MORE_PAGES):
        total = first.total_results
        if not isinstance(total, int) or len(resources) >= total or not page.resources:
            break
        start += len(page.resources)
        page = list_page(context, model, **params, startIndex=start)
        fresh = [resource for resource in page.resources if str(member(resource, "id")) not in seen]
        if not fresh:
            break
        resources.extend(fresh)
        seen.update(str(member(resource, "id")) for resource in fresh)
    if len(resources) == len(first.resources):
        return first
    return replace(first, query=f"{first.query} (and the pages after it)", resources=resources)


@dataclass(frozen=True)
class Narrowed:
    """The filter that lists exactly a check's resources, as an answer showed; else why there is none."""

    filter: str | None
    why_not: str = ""
    one: Named | None = None
    """When no filter lists them all: the first of them alone, which an eq on its name was answered
    with (`one.any_of` is that filter), for the rules a single match can tell."""


def narrow(context: CheckContext, named: Named, model: type[Resource[Any]]) -> Narrowed:
    """The first filter, of sw on the prefix then eq on each name, whose answer holds exactly the
    check's resources, once an eq on one name showed that a filter narrows (its answer holds that
    resource alone); none when the server does not claim filter, ignores it, or answers neither
    with exactly them."""
    if not claims(context, "filter"):
        return Narrowed(None, UNCLAIMED)
    one = Named(named.attribute, named.prefix, dict([next(iter(named.names.items()))]))
    ignored = _ignored(context, named, one, model)
    if ignored:
        return Narrowed(None, ignored)
    failures = []
    for expression in (named.starting_with, named.any_of):
        try:
            page = settled(context, partial(whole_list, context, model, filter=expression), lambda page: set(named.names) <= set(page.ids))
        except ListQueryError as exc:
            failures.append(str(exc))
            continue
        if set(page.ids) == set(named.names) or (page.total_results == len(named.names) and set(page.ids) < set(named.names)):
            return Narrowed(expression)
        failures.append(f"{page.query} answered {named.described(page.ids)} instead of {named.described(named.names)}")
    return Narrowed(None, f"no filter lists exactly this check's resources ({'; '.join(failures)})", one)


def _ignored(context: CheckContext, named: Named, one: Named, model: type[Resource[Any]]) -> str | None:
    """Why a filter does not narrow a list on this server: an eq on the name of `one` of the check's
    resources answers something else than that resource alone (None when it answers it)."""
    try:
        page = settled(context, partial(whole_list, context, model, filter=one.any_of), lambda page: set(one.names) <= set(page.ids))
    except ListQueryError as exc:
        return f"{exc}, so no filter lists only this check's resources"
    if page.ids == list(one.names):
        return None
    if not page.ids:
        return f"{page.query} answered no resource instead of that resource: the server does not find it by its filter (filter_operators reports it)"
    return (
        f"{page.query} answered {named.described(page.ids)} instead of that resource alone: the server does "
        "not narrow a list by its filter (filter_operators reports it)"
    )
