"""The resources the checks of a run share instead of each making its own: those references point
at (a manager, a group's members), the sets the listing checks read, and the resources one check
hands over to another (object_creation's to the check taking a fresh one)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from collections.abc import Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from typing import Any
from typing import Literal
from typing import TypeVar

from scim2_models import Resource

from scim_tui.checker.guard import Owned
from scim_tui.checker.guard import resource_url
from scim_tui.checker.registry import HandOver
from scim_tui.checker.registry import Pool

if TYPE_CHECKING:
    from scim_tui.checker.context import CheckContext
    from scim_tui.checker.context import ResourceManager

Answer = TypeVar("Answer")
PER_MODEL: frozenset[Pool] = frozenset({"listed", "population", "fixture"})
"""The pools made for each resource type apart (of the model of the checks reading them); "members"
is one for the run (users, whatever checks point at them)."""
PoolKey = tuple[Pool, "type[Resource[Any]] | None"]
"""A pool, with the model of its resources when it is made per resource type (PER_MODEL)."""


class UndeclaredPool(RuntimeError):
    """A check read a pool of shared resources its checker does not declare (Checker.shares): it
    could be deleted while the check still reads it."""


Spare = Literal["full", "least", "replaced"]
"""A resource handed over: created with every writable attribute or the required ones only, or replaced."""
HANDOVER_POLL = 0.1
"""How often (seconds) a check waiting for a resource handed over looks whether the run is stopping."""


@dataclass(frozen=True)
class Referenced:
    """A resource made for references to point at, as the server answered its creation: a
    reference's value is its `id` (never read out of a URL), its `$ref` its meta.location."""

    id: str
    kind: str
    """The name of its resource type (User, Group ...)."""
    location: str | None
    """Its meta.location; None when the server gave none."""
    url: str
    """Where the run reads it: the base URL, its endpoint, its id (the URI a `$ref` that must hold
    a value gives it when the server answered no meta.location)."""


def _referenced(context: CheckContext, resource: Resource[Any], kept: list[Owned], model: type[Resource[Any]]) -> Referenced:
    location = resource.meta.location if resource.meta else None
    url = context.guard.base_url + resource_url(context.client.resource_endpoint(model), str(resource.id))
    return Referenced(str(resource.id), kept[0].kind if kept else model.__name__, str(location) if location else None, url)


class References:
    """Resources made for references to point at (a manager, a group's members), shared by the
    checks of a run instead of made again for each reference.

    A check's references never point twice at the same resource: the resource a replacement
    points at differs from the one it replaces, as when each reference had a resource of its
    own. A resource is made, by the check that first needs it (its exchanges show the POST),
    with its required attributes only; the run's own resource manager holds it, and deletes
    it when the run ends.

    The pools the checks only read (`shared`) are deleted sooner: by the last check of the run
    declaring the pool (Checker.shares), as its own, after its own resources (which may point at
    them); so a server holds at once no more of the run's resources than the checks running need.
    """

    def __init__(self, manager: ResourceManager):
        self.manager = manager
        self._made: dict[type[Resource[Any]], list[Referenced]] = {}
        self._spare: dict[tuple[type[Resource[Any]], Spare], list[Resource[Any]]] = {}
        self._shared: dict[Hashable, Any] = {}
        self._holders: dict[PoolKey, int] = {}
        """How many checks of the run declaring each pool have not ended yet (`hold`, `leave`)."""
        self._pooled: dict[PoolKey, tuple[list[Hashable], list[str]]] = {}
        """What each pool made: its keys in `_shared`, and the ids of its resources."""
        self._handed: dict[tuple[type[Resource[Any]], HandOver], threading.Event] = {}
        """Set once the check handing resources of a model over (Checker.hands_over) ended."""
        self._lock = threading.RLock()  # held while making one, which may need references itself

    def expect(self, model: type[Resource[Any]], kind: HandOver) -> None:
        """A check of the run will hand resources of `model` over (`offer`): the check taking them
        waits for it, so that the run makes as many resources at any number of jobs."""
        with self._lock:
            self._handed.setdefault((model, kind), threading.Event())

    def settle(self, model: type[Resource[Any]], kind: HandOver) -> None:
        """The check handing resources of `model` over ended, whatever it could hand over."""
        with self._lock:
            self._handed.setdefault((model, kind), threading.Event()).set()

    def point_at(self, context: CheckContext, model: type[Resource[Any]]) -> Referenced:
        """A resource of `model` this check's references do not point at yet, made if there is none."""
        with self._lock:
            made = self._made.setdefault(model, [])
            referenced = next((item for item in made if item.id not in context.pointed_at), None)
            if referenced is None:
                resource = context.resource_manager.create_and_register(model, fill_all=False)
                referenced = _referenced(context, resource, self._kept(context, resource), model)
                made.append(referenced)
        context.pointed_at.add(referenced.id)
        return referenced

    def _kept(self, context: CheckContext, resource: Resource[Any]) -> list[Owned]:
        """Move a resource a check made to the run's own resource manager; what was moved."""
        released = context.resource_manager.release(str(resource.id))
        for item in released:
            self.manager.record(item)
        return released

    def offer(self, context: CheckContext, resource: Resource[Any], spare: Spare) -> None:
        """Hand a resource a check created and judged (its creation, or its replacement) to the check
        of the run taking one so (`fresh`, `replaced`), when the run has one (`expect`): until it
        takes it, the run's own resource manager holds it (and deletes it at the end when none
        did). Else the check offering it deletes it, as any of its own."""
        kind: HandOver = "replaced" if spare == "replaced" else "created"
        with self._lock:
            if (type(resource), kind) in self._handed and self._kept(context, resource):
                self._spare.setdefault((type(resource), spare), []).append(resource)

    def fresh(self, context: CheckContext, model: type[Resource[Any]], fill_all: bool, handed_over: bool = False) -> Resource[Any]:
        """A resource of `model`, created with every writable attribute filled or with its required
        ones only, that nothing was written to. With `handed_over`, one object_creation offered when
        there is one (this check's manager deletes it from then on; the exchanges of object_creation
        show its POST), waiting while it runs (`expect`): one check of a kind takes it, named in
        its code, so that which check makes what, and the run's request count, are the same at any
        number of jobs. Else one created now."""
        taken = self._taken(context, model, "created", "full" if fill_all else "least") if handed_over else None
        return taken or context.resource_manager.create_and_register(model, fill_all=fill_all)

    def replaced(self, context: CheckContext, model: type[Resource[Any]]) -> Resource[Any] | None:
        """The resource object_replacement replaced (its PUT answered with every value sent), as
        answered, when it offered one (waiting while it runs); this check's manager deletes it from
        then on. None when there is none."""
        return self._taken(context, model, "replaced", "replaced")

    def _taken(self, context: CheckContext, model: type[Resource[Any]], kind: HandOver, spare: Spare) -> Resource[Any] | None:
        """A spare of `model` handed over by the check handing over `kind`, once it ended."""
        with self._lock:
            handed = self._handed.get((model, kind))
        while handed is not None and not handed.wait(HANDOVER_POLL) and not context.stopping.is_set():
            pass
        with self._lock:
            spares = self._spare.get((model, spare))
            resource = spares.pop(0) if spares else None
            if resource is not None:
                for item in self.manager.release(str(resource.id)):
                    context.resource_manager.record(item)
        return resource

    def hold(self, pools: list[PoolKey]) -> None:
        """A check of the run declaring these pools will run: they live until it ended (`leave`)."""
        with self._lock:
            for pool in pools:
                self._holders[pool] = self._holders.get(pool, 0) + 1

    def leave(self, context: CheckContext, pools: list[PoolKey]) -> None:
        """A check declaring these pools is ending: the pools no other check of the run still to end
        declares become its own, deleted by its clean-up after the resources it made (which may
        point at them; its exchanges show the DELETEs), named on its results when they could not
        be. A pool no planned check held (a check run on its own) waits for the run's end."""
        released: list[Owned] = []
        with self._lock:
            for pool in pools:
                if not self._holders.get(pool):
                    continue
                self._holders[pool] -= 1
                if self._holders[pool]:
                    continue
                keys, ids = self._pooled.pop(pool, ([], []))
                for key in keys:
                    del self._shared[key]
                for resource_id in ids:
                    released.extend(self.manager.release(resource_id))
        context.resource_manager.inherit(released)

    def shared(self, context: CheckContext, pool: PoolKey, key: Hashable, make: Callable[[], tuple[Answer, list[Any]]]) -> Answer:
        """What `make` gives (and the resources it created, each with its id), made once a run for the
        checks that only read those resources (a named set the list checks share), so that their
        verdicts stay apart: none writes to them. The first check needing them makes them (its
        exchanges show the POSTs); the last check declaring `pool` deletes them (`leave`), else the
        run's own resource manager when the run ends. When `make` failed, the next check tries
        again. UndeclaredPool when the check's checker does not declare `pool`."""
        if context.shares is not None and pool[0] not in context.shares:
            raise UndeclaredPool(f"scim-tui's own mistake: the check reads the shared {pool[0]} without declaring it (checker(shares=...))")
        with self._lock:
            if key not in self._shared:
                made, resources = make()
                keys, ids = self._pooled.setdefault(pool, ([], []))
                for resource in resources:
                    self._kept(context, resource)
                    ids.append(str(resource.id))
                keys.append(key)
                self._shared[key] = made
            return self._shared[key]

    def read_only(self, context: CheckContext, model: type[Resource[Any]]) -> Resource[Any]:
        """A resource of `model` with every writable attribute filled, shared by the checks of a run
        that only read it (a read, a list, a filter), so that their verdicts stay apart: none
        writes to it, and no reference points at it (a group listing it as a member would change
        its `groups`; and whether it was made before a check needing a reference would change what
        the run makes, at several jobs). The first check needing it makes it (its exchanges show
        the POST); it is deleted as the pool "fixture" (`shared`). A creation that failed is tried
        again by the next check."""

        def made() -> tuple[Resource[Any], list[Resource[Any]]]:
            fixture = context.resource_manager.create_and_register(model, fill_all=True)
            return fixture, [fixture]

        return self.shared(context, ("fixture", model), ("fixture", model), made)
