"""Checker declarations: the @checker decorator, tag matching and the list of checkers."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any
from typing import Literal

from scim_tui.checker.results import CheckConfig

Scope = Literal["server", "resource_type", "model", "results"]
"""What a checker is given beside the context: nothing, a ResourceType, a resource model, or
the results of the run's other checks (a verdict on them, given once they all ended)."""
Start = Literal["first", "early", "any"]
"""When the engine starts a checker among the checks of the resource types (Checker.start)."""
HandOver = Literal["created", "replaced"]
"""What a checker hands over (Checker.hands_over): the resources it created, or the one it replaced."""
Pool = Literal["listed", "population", "members", "fixture"]
"""A set of resources the checks of a run share and only read (references.py): the three the filter,
pagination and sort checks list, the population the providers' listing checks page through, the
users the providers' groups and managers point at, the resource the read checks read."""


@dataclass(frozen=True)
class Checker:
    """A registered check: its function and what the engine needs to know about it."""

    name: str
    func: Callable[..., Any]
    tags: frozenset[str]
    section: str
    scope: Scope
    rfc: int = 7644
    schema: str | None = None
    """The core schema of the only resource type the checker runs on (an identity provider's step
    on Users); None: every resource type."""
    start: Start = "any"
    """When the engine starts it among the checks of the resource types, which run `jobs` at a time:
    "first" for a check handing the resources it creates over (`hands_over`: its takers wait for
    it, so it starts before them), "early" for one sending many requests one after another
    (started before the short ones, so that its length does not add to theirs), "any" in plan
    order."""
    hands_over: HandOver | None = None
    """What it hands to one later check of the resource type (References.offer): the resources it
    created ("created", object_creation) or the one it replaced ("replaced", object_replacement).
    Handed only when a check of the run takes them (`takes`), which waits for it: it comes later
    in plan order, so the pool starts it after this one."""
    takes: HandOver | None = None
    """What it takes from an earlier check of the resource type, when that check runs (`hands_over`)."""
    shares: frozenset[Pool] = frozenset()
    """The sets of shared resources it reads (References.shared): each is deleted once the last check
    of the run declaring it ended, not at the run's end; a check using one it did not declare ERRORs."""

    @property
    def per_type(self) -> bool:
        """Whether the checker runs once for each resource type (or for the one of its schema)."""
        return self.scope in ("resource_type", "model")

    def applies_to(self, schema: str) -> bool:
        return self.schema is None or self.schema == schema

    @cached_property
    def description(self) -> str:
        """The docstring, made once: every result of the checker holds this one string."""
        return inspect.cleandoc(self.func.__doc__ or "")

    @property
    def summary(self) -> str:
        """The first paragraph of the description."""
        return self.description.split("\n\n", 1)[0].replace("\n", " ")


_CHECKERS: dict[str, Checker] = {}
"""Filled once, when the check modules are imported; never changed by a run."""


def checker(
    *tags: str,
    section: str,
    rfc: int = 7644,
    schema: str | None = None,
    start: Start = "any",
    hands_over: HandOver | None = None,
    takes: HandOver | None = None,
    shares: Iterable[Pool] = (),
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare a checker with its tags and the section of an RFC (7644 unless said) it verifies;
    `schema` keeps it to the resource type of that core schema; `start` says when the engine
    starts it (Checker.start); `hands_over` what it hands to a later check and `takes` what it takes from an earlier one (Checker.hands_over);
    `shares` the sets of shared resources it reads (Checker.shares).

    The scope comes from the name of the second parameter: none, ``resource_type``,
    ``model`` or ``results``.
    """

    def register(func: Callable[..., Any]) -> Callable[..., Any]:
        params = list(inspect.signature(func).parameters)[1:]
        scope: Scope = "server" if not params else params[0]  # type: ignore[assignment]
        if scope not in ("server", "resource_type", "model", "results"):
            raise TypeError(f"{func.__name__}: unknown checker parameter {scope!r}")
        _CHECKERS[func.__name__] = Checker(func.__name__, func, frozenset(tags), section, scope, rfc, schema, start, hands_over, takes, frozenset(shares))
        return func

    return register


def all_checkers() -> list[Checker]:
    """Every checker, in declaration order (the order a run follows)."""
    from scim_tui.checker import checks  # noqa: F401  (importing registers them)

    return list(_CHECKERS.values())


def verdict_names() -> set[str]:
    """The checkers that give a verdict on the others' results once they all ended (a provider's readiness)."""
    return {item.name for item in all_checkers() if item.scope == "results"}


def get_all_available_tags() -> list[str]:
    """Every distinct tag of every registered checker, sorted (SPEC.md §4.1)."""
    return sorted({tag for item in all_checkers() for tag in item.tags})


def tag_matches(filter_tag: str, check_tag: str) -> bool:
    """A filter tag selects a check tag equal to it or below it (``crud`` selects ``crud:read``)."""
    return check_tag == filter_tag or check_tag.startswith(f"{filter_tag}:")


def any_tag_matches(filters: Iterable[str], tags: Iterable[str]) -> bool:
    tags = list(tags)
    return any(tag_matches(f, t) for f in filters for t in tags)


OPT_IN_TAGS = frozenset({"profile:interop"})
"""Tags whose checks run only when include_tags names them (or a tag above them): a profile
stricter than the RFCs, never part of a default run nor of a provider's readiness."""


def opt_in(tag: str) -> bool:
    """Whether a tag belongs to an opt-in tag (is it, or is below it)."""
    return any(tag_matches(chosen, tag) for chosen in OPT_IN_TAGS)


def filtered_out(tags: Iterable[str], conf: CheckConfig) -> str | None:
    """Why the tag filters of a run leave out a check with these tags, or None when it runs.
    A check with an opt-in tag runs only when include_tags selects that tag."""
    tags = list(tags)
    if conf.include_tags and not any_tag_matches(conf.include_tags, tags):
        return f"Skipped: none of its tags matches include_tags ({', '.join(sorted(conf.include_tags))})."
    wanted = [tag for tag in tags if opt_in(tag) and not any_tag_matches(conf.include_tags or (), [tag])]
    if wanted:
        return f"Skipped: its tag {wanted[0]} is opt-in, and include_tags does not name it."
    if conf.exclude_tags and any_tag_matches(conf.exclude_tags, tags):
        return f"Skipped: one of its tags matches exclude_tags ({', '.join(sorted(conf.exclude_tags))})."
    return None
