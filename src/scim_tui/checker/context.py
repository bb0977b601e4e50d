"""What every checker is given: the client, the run's configuration, and a resource manager."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from functools import partial
from typing import TYPE_CHECKING
from typing import Any
from typing import TypeVar

from scim2_models import Resource
from scim2_models import ResourceType
from scim2_models import Schema
from scim2_models import ServiceProviderConfig

from scim_tui.checker import lag
from scim_tui.checker.answers import answer_name
from scim_tui.checker.answers import bodiless
from scim_tui.checker.answers import json_object
from scim_tui.checker.answers import member
from scim_tui.checker.causes import NOT_IMPLEMENTED
from scim_tui.checker.causes import PRECONDITION_REQUIRED
from scim_tui.checker.creations import Adaptation
from scim_tui.checker.creations import Creations
from scim_tui.checker.creations import refusal
from scim_tui.checker.creations import refusal_text
from scim_tui.checker.deletions import Deletions
from scim_tui.checker.exchanges import GONE_NOTE
from scim_tui.checker.exchanges import UNLISTED_NOTE
from scim_tui.checker.exchanges import Exchange
from scim_tui.checker.exchanges import Role
from scim_tui.checker.exchanges import TransportNotes
from scim_tui.checker.exchanges import describe_error
from scim_tui.checker.exchanges import failure_reason
from scim_tui.checker.exchanges import header
from scim_tui.checker.exchanges import noted
from scim_tui.checker.exchanges import request_line
from scim_tui.checker.exchanges import sent_for
from scim_tui.checker.guard import MAX_MARKERS
from scim_tui.checker.guard import Guard
from scim_tui.checker.guard import Owned
from scim_tui.checker.guard import Pending
from scim_tui.checker.guard import WriteRefused
from scim_tui.checker.guard import carries
from scim_tui.checker.guard import id_text
from scim_tui.checker.guard import markers_in
from scim_tui.checker.guard import unsafe_id_problem
from scim_tui.checker.pacing import Pacer
from scim_tui.checker.parallel import side_by_side
from scim_tui.checker.recorder import Recorder
from scim_tui.checker.recorder import base_url_of
from scim_tui.checker.recorder import cleaning_up
from scim_tui.checker.recorder import current_exchanges
from scim_tui.checker.recorder import install_recorder
from scim_tui.checker.recorder import recorder_of
from scim_tui.checker.references import References
from scim_tui.checker.registry import Pool
from scim_tui.checker.results import CheckConfig
from scim_tui.checker.results import PrerequisiteFailed
from scim_tui.checker.secrets import Secrets

if TYPE_CHECKING:
    from scim_tui.checker.journal import Journal

Answer = TypeVar("Answer")


@dataclass
class Discovery:
    """What the discovery endpoints published, as the checks that read them saw it.

    Shared by every check of one run, so the engine describes the server from what
    the discovery checks already fetched instead of asking again.
    """

    service_provider_config: ServiceProviderConfig | None = None
    resource_types: list[ResourceType] | None = None
    schemas: list[Schema] | None = None
    failure: str | None = None
    """Why the server could not be described, when it could not."""
    unusable: dict[str, str] = field(default_factory=dict)
    """The resource types that cannot be checked, by name, with why (a schema served nowhere ...)."""
    schema_reads: dict[str, Any] = field(default_factory=dict)
    """What GET /Schemas/{id} answered, by schema URI: a Schema, or why there is none (discovery.schema_by_id)."""
    answers: dict[str, tuple[Any, list[Exchange]]] = field(default_factory=dict)
    """What the requests sent once a run answered (the discovery lists, one-off probes), by what
    they are, with their exchanges (CheckContext.once)."""
    locks: dict[str, threading.Lock] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


NEEDED_CREATION_ANSWERS = (200, 201)
"""The answers a creation made for a check's own use may have: 201 Created, or 200 with the resource."""


class CheckContext:
    """The context a checker runs in (SPEC.md §2.5).

    One context is made per check, sharing the client, the configuration, the run's
    discovery, its recorder (and the guard of its writes) and the resources references point
    at, with its own resource manager and its own exchange list.

    A context made without a recorder is the root of a run (or a script's or a test's own):
    it puts a fresh recorder on the client, redacting `secrets`, pacing its requests with `pacer`
    (else by the configuration), keeping every exchange in `log`, telling `journal` of each
    creation, and stopping once `cancelled()` says so; what is created outside any check is kept
    by its own manager.
    """

    def __init__(
        self,
        client: Any,
        conf: CheckConfig | None = None,
        discovery: Discovery | None = None,
        exchanges: list[Exchange] | None = None,
        stopping: threading.Event | None = None,
        references: References | None = None,
        recorder: Recorder | None = None,
        secrets: Secrets | None = None,
        cancelled: Callable[[], bool] | None = None,
        pacer: Pacer | None = None,
        creations: Creations | None = None,
        journal: Journal | None = None,
        log: list[Exchange] | None = None,
        notes: TransportNotes | None = None,
        lists: lag.Lists | None = None,
    ):
        self.client = client
        self.conf = conf or CheckConfig()
        self.discovery = discovery or Discovery()
        self.exchanges: list[Exchange] = exchanges if exchanges is not None else []
        self.stopping = stopping or threading.Event()
        """Set when the run ends early: the checks still running send nothing but clean-up."""
        self.resource_manager = ResourceManager(self)
        self.references = references or References(self.resource_manager)
        """The resources the checks of the run share (held by the run's own resource manager, deleted
        once the last check reading them ended, or when the run ends: references.py)."""
        self.pointed_at: set[str] = set()
        """The ids of the shared resources this check's references point at."""
        self.shares: frozenset[Pool] | None = None
        """The pools of shared resources the check may read (Checker.shares); None outside a run's plan (any)."""
        self.decoys: dict[str, str] = {}
        """The resource this check made, by endpoint, for its filters to leave out (checks/idp.py decoy)."""
        self.creations = creations or Creations()
        """How the run creates resources a server refused without more than their required attributes."""
        self.lists = lists or lag.Lists()
        """What the run learnt of the server's lists: whether they lag behind its writes (lag.py)."""
        if recorder is None:
            previous = recorder_of(client)
            guard = Guard(client, self.resource_manager, base_url_of(client), journal)
            stopped = lambda: self.stopping.is_set() or bool(cancelled and cancelled())  # noqa: E731
            pacer = pacer or Pacer(self.conf.pacing)
            recorder = install_recorder(client, secrets or (previous.secrets if previous else Secrets()), guard, stopped, pacer, log, notes)
        self.recorder = recorder
        """The recorder of the run's requests, with the guard of its writes."""

    @property
    def guard(self) -> Guard:
        return self.recorder.guard

    def root_path(self, path: str) -> str:
        """A path under the base URL (``/Users/abc``) as reasons name it: from the server's root (``/v2/Users/abc``)."""
        return self.guard.root_path(path)

    def fork(self, exchanges: list[Exchange] | None = None) -> CheckContext:
        """A context for another check of the same run."""
        return CheckContext(
            self.client, self.conf, self.discovery, exchanges, self.stopping, self.references, self.recorder, creations=self.creations, lists=self.lists
        )

    def once(self, key: str, send: Callable[[], Answer]) -> Answer:
        """What `send` gives, sent once in a run (a discovery list, a one-off probe): a later caller
        is given the first answer, and its exchanges show the requests that made it. When `send`
        raised, the next caller sends again."""
        discovery = self.discovery
        with discovery.lock:
            lock = discovery.locks.setdefault(key, threading.Lock())
        collected = current_exchanges()
        with lock:
            kept = discovery.answers.get(key)
            if kept is None:
                mark = len(collected) if collected is not None else 0
                answer = send()
                kept = discovery.answers[key] = (answer, collected[mark:] if collected is not None else [])
            elif collected is not None:
                collected.extend(kept[1])
        return kept[0]

    @property
    def expected_status_codes(self) -> list[int]:
        """The status codes a successful read may answer: the configured ones, or [200]."""
        return self.conf.expected_status_codes or [200]

    def model_for(self, resource_type: ResourceType) -> type[Resource[Any]] | None:
        """The model (with its extensions) the client composed for a resource type."""
        try:
            return self.client.get_resource_model(resource_type.id or resource_type.name)
        except Exception:
            return None


class ResourceManager:
    """What one check (or the run) created, deleted afterwards: exactly that, and nothing else.

    The guard (guard.py) records here each resource the check's requests create, and each
    creation whose outcome is unknown. Clean-up deletes every owned resource at its own URL,
    looks for each unknown creation by its marker (deleting only what carries it), and names
    what may remain.
    """

    def __init__(self, context: CheckContext):
        self.context = context
        self.owned: list[Owned] = []
        self.pending: list[Pending] = []
        self.deleted: list[str] = []
        """The resources its clean-up deleted (and saw gone)."""
        self.forgotten: list[Owned] = []
        """The resources the check deleted itself: the run's clean-up checks that queries no longer list them."""
        self.unlisting: list[Owned] = []
        """The run's own manager: the resources deleted during the run, whose absence from queries
        its clean-up asks about last, several in one query (RFC 7644 §3.6)."""
        self.unconfirmed: dict[Owned, int] = {}
        """The run's own manager: those of `unlisting` whose DELETE was taken at its word (not read
        back, or read back without telling), with what the DELETE answered."""
        self.deletions = Deletions()
        """The run's own manager: how each endpoint deletes, as the clean-up's read-backs showed it."""
        self._lock = threading.Lock()  # the run's own manager is shared by the checks' threads

    def record(self, item: Owned | Pending) -> None:
        with self._lock:
            (self.owned if isinstance(item, Owned) else self.pending).append(item)  # type: ignore[arg-type]

    def create_and_register(
        self,
        model: type[Resource[Any]],
        fill_all: bool = True,
        values: dict[str, Any] | None = None,
        checked: bool = False,
        adapt: bool = True,
        **request: Any,
    ) -> Resource[Any]:
        """Create a resource with every writable attribute filled (or the required and identifying
        ones only), and `values` (JSON, by SCIM attribute name) in place of the generated ones.
        `request` goes to the HTTP request (headers=...).

        The guard registers the resource for deletion when the check ends (whatever the answer);
        it is returned as the server answered, with its id. A creation that fails raises
        PrerequisiteFailed (the check needing it is SKIPPED), unless the creation is what the
        check judges (`checked`: its error is the check's result).

        A least creation (not `fill_all`, not `checked`) refused with a 4xx about its body is sent
        once more with what an identity provider sends (creations.py); once that passed, the run's
        later least creations of the model carry it from the start (unless not `adapt`).
        """
        least = not fill_all and not checked
        adaptation = self.context.creations.adaptation(model) if least and adapt else None
        mark = len(self.context.exchanges)
        try:
            created = self._create(model, fill_all, self._provided(model, values) if adaptation else values, request, judged=checked)
        except Exception as exc:
            failure = exc
        else:
            if least:
                self.context.creations.settle(model)
            return created
        refused = refusal(self.context.exchanges[mark:], self.context.client.resource_endpoint(model))
        if least and adaptation is None and refused is not None and not isinstance(failure, PrerequisiteFailed):
            adapted = self._adapted(model, values, request, refused)
            if adapted is not None:
                return adapted
        # raised out of the except block, so that no exception becomes the context of its own cause
        if isinstance(failure, PrerequisiteFailed):
            if checked and failure.made is model and isinstance(failure.__cause__, Exception):
                raise failure.__cause__  # its own kind, met making one it points at (a User's manager): the check's finding
            raise failure  # another kind it points at could not be made: that kind's object_creation reports it
        if checked:
            raise failure
        reason = failure_reason(failure, self.context.exchanges[mark:])
        raise PrerequisiteFailed(f"the {model.__name__} it needs could not be created: {reason}", made=model) from failure

    def _create(
        self,
        model: type[Resource[Any]],
        fill_all: bool,
        values: dict[str, Any] | None,
        request: dict[str, Any],
        judged: bool = False,
    ) -> Resource[Any]:
        from scim_tui.checker.filling import build_resource

        payload = build_resource(self.context, model, fill_all=fill_all, values=values)
        if not judged:
            # A creation the check only needs is used when answered 200: the status is
            # object_creation's to judge (RFC 7644 §3.3: 201), once, not every check's.
            request = {"expected_status_codes": list(NEEDED_CREATION_ANSWERS), **request}
        mark = len(self.context.exchanges)
        with sent_for(Role.JUDGED if judged else Role.CREATION, model.__name__.partition("[")[0]):  # User, not User[EnterpriseUser]
            created = self.context.client.create(payload, **request)
            located = created is None
            if located:
                created = self._located(model, mark)
        if not isinstance(created, Resource) or not created.id:
            raise ValueError(f"the answer is {answer_name(created)} instead of the created {model.__name__} with its id (RFC 7644 §3.3)")
        self.context.creations.drop(model, str(created.id), self._dropped(model, payload, created, read=located))
        return created

    def _dropped(self, model: type[Resource[Any]], payload: Resource[Any], created: Resource[Any], read: bool) -> frozenset[str]:
        """What a creation sent and its answer lacks, once a GET of the resource lacks it too (an
        answer may hold less than the server keeps; `read` when `created` is that GET's answer
        already); nothing when that GET fails (creations.py)."""
        from scim_tui.checker.filling import dropped_by

        answered = dropped_by(model, payload, created)
        if not answered or read:
            return answered
        try:
            with sent_for(Role.CREATION, model.__name__.partition("[")[0]):
                read = self.context.client.query(model, created.id, expected_status_codes=[200])
        except Exception:
            return frozenset()
        return answered & dropped_by(model, payload, read) if isinstance(read, Resource) else frozenset()

    def _located(self, model: type[Resource[Any]], mark: int) -> Resource[Any] | None:
        """The resource a creation answered 2xx without a body made, read at its Location (RFC 7644
        §3.3: the body SHOULD hold it, the Location SHALL name it). The guard took it from the
        Location; the GET proves it the run's by the values sent, or the creation failed. None
        when the answer names none of the run's resources."""
        post = next((exchange for exchange in reversed(self.context.exchanges[mark:]) if exchange.method == "POST"), None)
        if post is None or not bodiless(post.status_code, post.response_body):
            return None
        owned = self.context.guard.created_at(header(post.response_headers, "location"))
        if owned is None:
            return None
        read = self.context.client.query(model, owned.id)
        proven = self.context.guard.owned(owned.endpoint, owned.id)
        if proven is None or not proven.confirmed:
            said = f"{request_line(post)} answered {post.status_code} without a body"
            raise ValueError(f"{said}, and its Location names {owned}, which does not hold the values sent")
        return read

    def _provided(self, model: type[Resource[Any]], values: dict[str, Any] | None) -> dict[str, Any]:
        """`values` over what an identity provider sends in a creation."""
        from scim_tui.checker.filling import provider_values

        return {**provider_values(self.context, model), **(values or {})}

    def _adapted(self, model: type[Resource[Any]], values: dict[str, Any] | None, request: dict[str, Any], refused: Exchange) -> Resource[Any] | None:
        """The creation sent once more with what an identity provider sends, remembered for the run
        when it passes; None when it adds nothing to what was refused, or is refused too."""
        provided = self._provided(model, values)
        sent = json_object(refused.request_body or "")
        added = tuple(name for name in provided if name not in sent and name not in (values or {}))
        if not added:
            return None
        try:
            created = self._create(model, False, provided, request)
        except Exception:
            return None
        self.context.creations.settle(model, Adaptation(added, refusal_text(refused)))
        return created

    def inherit(self, items: list[Owned]) -> None:
        """Keep resources other checks made and pointed at: deleted after this check's own (newest
        first), which may point at them."""
        with self._lock:
            self.owned[:0] = items

    def release(self, resource_id: str) -> list[Owned]:
        """Stop keeping a resource (another manager keeps it from now on); return what was kept."""
        with self._lock:
            released = [item for item in self.owned if item.id == resource_id]
            self.owned = [item for item in self.owned if item.id != resource_id]
        return released

    def forget(self, resource_id: str, unlisted: bool = False) -> None:
        """Stop tracking a resource the check deleted itself (a GET then answered 404); `unlisted`
        when the check also saw a query no longer list it, so the clean-up need not ask again.
        Another creation of the run's taken at that id since (a server reusing ids, or answering
        several creations with one id) is kept: the clean-up looks for it."""
        with self._lock:
            gone = [item for item in self.owned if item.id == resource_id and self.context.guard.deleted(item)]
            self.owned = [item for item in self.owned if item not in gone]
        for item in gone:
            self.context.guard.gone(item)
            if not unlisted:
                with self._lock:
                    self.forgotten.append(item)

    def cleanup(self) -> list[str]:
        """Delete what this check created (`_deleted`), then look for the creations whose outcome
        is unknown. Return what could not be deleted, or may remain. Whether queries still list
        what was deleted is asked by the run's own manager, last (`unlisting`).

        A creation that may still happen later (its POST got no answer in time) is handed to the
        run's own manager, which looks for it once the run ends. A Ctrl-C while cleaning up stops
        the run: the deletion under way is tried again, unless the run was stopping already (a
        second Ctrl-C skips it, not the others; with several jobs, each deletion goes on to its
        end). The interruption is raised again once every deletion was tried, carrying what is
        left (`leftovers`), for whoever tells the user.
        """
        with self._lock:
            owned, pending = self.owned, self.pending
            self.owned, self.pending = [], []
        run_manager = self.context.references.manager
        leftovers, interrupted = self._deleted(list(reversed(owned)))
        for item in pending:
            if item.late and run_manager is not self:
                run_manager.record(item)
                continue
            left, interruption = self._cleaned(item, self._sweep)
            leftovers.extend(left)
            interrupted = interruption or interrupted
        with self._lock:
            forgotten, self.forgotten = self.forgotten, []
        run_manager.unlist(forgotten)
        if run_manager is self:  # last: a resource created since at one of their ids is deleted by then
            unlisted, interruption = self._side_by_side(self._unlisting_chunks(), self._unlisted)
            leftovers.extend(_flat(unlisted))
            interrupted = interruption or interrupted
        if interrupted is not None:
            interrupted.leftovers = [*getattr(interrupted, "leftovers", []), *leftovers]  # type: ignore[attr-defined]
            raise interrupted
        return leftovers

    def unlist(self, items: list[Owned], deleted: int | None = None) -> None:
        """Resources deleted during the run, for the run's clean-up to ask whether queries still list
        them; `deleted`, what their DELETE answered when no GET told they were gone."""
        with self._lock:
            self.unlisting.extend(items)
            if deleted is not None:
                self.unconfirmed.update(dict.fromkeys(items, deleted))

    def _unlisting_chunks(self) -> list[list[Owned]]:
        """What `unlisting` holds, by endpoint, in chunks of at most UNLISTED_PER_QUERY."""
        with self._lock:
            items, self.unlisting = self.unlisting, []
        by_endpoint: dict[str, list[Owned]] = {}
        for item in items:
            by_endpoint.setdefault(item.endpoint, []).append(item)
        return [group[start : start + UNLISTED_PER_QUERY] for group in by_endpoint.values() for start in range(0, len(group), UNLISTED_PER_QUERY)]

    def _deleted(self, owned: list[Owned]) -> tuple[list[str], KeyboardInterrupt | None]:
        """Delete `owned` (newest first), `jobs` at a time: what is left, and the Ctrl-C met. A
        resource whose DELETE was refused or failed is tried again once the others were deleted,
        one after another, newest first (a server may refuse to delete what another references):
        those left with their bare name (`_remove`)."""
        outcomes, interrupted = self._side_by_side(owned, self._delete)
        if len(owned) > 1 and self.context.conf.jobs > 1 and not self.context.stopping.is_set():
            for index, item in enumerate(owned):
                if outcomes[index] == [str(item)]:
                    outcomes[index], interruption = self._cleaned(item, self._delete)
                    interrupted = interruption or interrupted
        return _flat(outcomes), interrupted

    def _side_by_side(self, items: list[Any], clean: Callable[[Any], list[str]]) -> tuple[list[list[str]], KeyboardInterrupt | None]:
        """What is left of each item once `clean`ed (`_cleaned`), `jobs` at a time, and the last Ctrl-C met."""
        outcomes, waited = side_by_side(lambda item: self._cleaned(item, clean), items, self.context.conf.jobs, self.context.stopping)
        interruptions = [waited, *(interruption for _left, interruption in outcomes)]
        return [left for left, _interruption in outcomes], next((i for i in reversed(interruptions) if i is not None), None)

    def _cleaned(self, item: Owned | Pending | list[Owned], clean: Callable[[Any], list[str]]) -> tuple[list[str], KeyboardInterrupt | None]:
        """What is left of one item (or a chunk of the same endpoint) once `clean` deleted (or looked
        for) it, and the Ctrl-C met meanwhile."""
        items = item if isinstance(item, list) else [item]
        interrupted = None
        for _attempt in range(2):
            try:
                with cleaning_up(), sent_for(Role.CLEANUP, items[0].kind):
                    return clean(item), interrupted
            except KeyboardInterrupt as exc:
                stopping, interrupted = self.context.stopping.is_set(), exc
                self.context.stopping.set()
                if stopping:
                    break
        return [str(one) for one in items], interrupted

    def _delete(self, item: Owned) -> list[str]:
        """Delete one resource the run created, once a GET of its URL proved it the run's own;
        one not proven (its GET showed other values, or nothing at that id) is looked for by
        its markers instead, unless the run deleted it already (then nothing at its id is its
        deletion seen). [] once gone, else what may remain."""
        item = self.context.guard.current(item)  # with the values the run gave it since
        try:
            proven = self.context.guard.confirm(item)
        except WriteRefused as refused:
            proven, why = None, f"{refused.answer or 'a GET of its URL'} without the values the run gave it"
        except Exception as failed:
            proven, why = None, f"reading it at the id {item.id} it was answered failed: {describe_error(failed, 200)}"
        else:
            if proven is None and self.context.guard.deleted(item):  # the run's DELETE went through already
                return self._gone_already(item)
            why = f"nothing was found at the id {item.id} it was answered"
        if proven is None:
            return self._sweep(Pending(item.kind, item.endpoint, item.markers, why, created=True))
        return self._remove(proven)

    def _remove(self, item: Owned) -> list[str]:
        """DELETE a resource proven the run's own, then GET it as deletions.py decides (each one
        until the endpoint is seen deleting for good, then one in several): [] when it is gone,
        else its bare name when the DELETE was refused or failed. A DELETE not read back, or whose
        GET did not answer 404, is taken at its word until the run's last query (`_unlisted`),
        which names what the server still holds (RFC 7644 §3.6: a deleted resource answers 404,
        and is omitted from query results)."""
        deletions = self.context.references.manager.deletions
        try:
            answer = self.context.client.request("DELETE", item.url)
            if answer.status_code == PRECONDITION_REQUIRED:
                answer = self._delete_if_match(item) or answer
            if answer.status_code not in (200, 204):
                return self._gone_already(item) if answer.status_code == 404 else [str(item)]
            if not deletions.read_back(item.endpoint):
                return self._taken_at_its_word(item, answer.status_code)
            with noted(GONE_NOTE):
                after = self.context.client.request("GET", item.url)
        except Exception:
            return [str(item)]
        gone = _after_deletion(item, answer.status_code, after) is None
        deletions.seen(item.endpoint, gone)
        if not gone:
            return self._taken_at_its_word(item, answer.status_code)
        self.context.references.manager.unlist([item])
        return self._gone(item)

    def _delete_if_match(self, item: Owned) -> Any:
        """A DELETE the server would take only conditionally (428, RFC 6585 §3; RFC 7644 §3.14):
        sent again with If-Match, the version a GET of the resource answers (its ETag, else its
        meta.version); None when the GET gives none."""
        read = self.context.client.request("GET", item.url)
        served = json_object(read.text) if read.status_code == 200 else None
        version = read.headers.get("ETag") or member(member(served, "meta"), "version")
        if not isinstance(version, str) or not version:
            return None
        return self.context.client.request("DELETE", item.url, headers={"If-Match": version})

    def _taken_at_its_word(self, item: Owned, deleted: int) -> list[str]:
        """A resource whose DELETE answered `deleted` (2xx), not seen gone since: the run's last query
        asks whether it is still listed (every one, listed or not, is read again on an endpoint
        whose read-backs did not all answer 404: a server may delete a moment after it answers),
        and the journal keeps it until then."""
        self.context.references.manager.unlist([item], deleted=deleted)
        return self._gone(item, settled=False)

    def _gone_already(self, item: Owned) -> list[str]:
        """A resource whose DELETE answered 404: gone, once the run's clean-up asked queries about it."""
        self.context.references.manager.unlist([item])
        return self._gone(item)

    def _unlisted(self, items: list[Owned]) -> list[str]:
        """The names of deleted resources of one endpoint that a query still lists: one query on all
        their ids first; each it lists, or all when it cannot tell, is asked about on its own. One
        whose DELETE was taken at its word (`unconfirmed`) is read first when listed, or whatever
        the query says on an endpoint whose read-backs did not all answer 404 (deletions.py): still
        served, it is named still there (the journal keeps it); else the journal forgets it now."""
        leftovers: list[str] = []
        listed = self._maybe_listed(items)
        for item in items:
            with self._lock:
                deleted = self.unconfirmed.pop(item, None)
            read = item in listed or self.deletions.unsure(item.endpoint)
            still = self._read_after_deletion(item, deleted) if deleted is not None and read else None
            if deleted is not None and still is None:
                self.context.guard.settle(item.creation)
            if still is not None:
                leftovers.append(still)
            elif item in listed and (listing := lag.settled(self.context, partial(self._listing, item), lambda listing: listing is None)):
                leftovers.append(f"{item} (still listed: deleted, and a GET of it answers 404, yet {listing} still lists it)")
        return leftovers

    def _read_after_deletion(self, item: Owned, deleted: int) -> str | None:
        """What a GET finds of a resource whose DELETE (answered `deleted`) was taken at its word
        (`_remove`): None when it is gone, else its name, saying what the server still holds."""
        try:
            with noted(GONE_NOTE):
                return _after_deletion(item, deleted, self.context.client.request("GET", item.url))
        except Exception:
            return str(item)

    def _maybe_listed(self, items: list[Owned]) -> list[Owned]:
        """Those of `items` that a filter on all their ids (`id eq "…" or id eq "…"`) still lists, or
        all of them when its answer cannot tell: no list (the server cannot filter so), a resource
        it was not asked about, or a page short of the whole (the filter was read in part, or not
        at all)."""
        if len(items) < 2:
            return items
        query = " or ".join(f'id eq "{item.id}"' for item in items)
        try:
            with noted(UNLISTED_NOTE):
                response = self.context.client.request("GET", items[0].endpoint, params={"filter": query})
        except Exception:
            return items
        listed = json_object(response.text) if response.status_code == 200 else None
        resources = _listed_resources(listed)
        asked = {item.id for item in items}
        if listed is None or resources is None:
            return items
        foreign = any(not isinstance(r, dict) or id_text(member(r, "id")) not in asked for r in resources)
        if foreign or (resources and not _whole(listed, resources)):
            return items
        return [item for item in items if any(_still_ours(r, item.id, by_id=True) for r in resources)]

    def _listing(self, item: Owned) -> str | None:
        """The filtered GET that still lists a deleted resource, or None when none does, or none
        can tell (RFC 7644 §3.6: a deleted resource MUST be omitted from query results). Its id
        first: a list answered to that query tells, whatever a check replaced. A server that
        cannot filter on id is asked on each marker (as the clean-up search asks), until one
        lists it; one that filters on nothing (501) is asked once."""
        for attribute, value in [("id", item.id), *((marker.attribute, marker.value) for marker in item.markers[:MAX_MARKERS])]:
            query = f'{attribute} eq "{value}"'
            try:
                with noted(UNLISTED_NOTE):
                    response = self.context.client.request("GET", item.endpoint, params={"filter": query})
            except Exception:
                continue
            if response.status_code == NOT_IMPLEMENTED:  # no filter at all: no query can tell
                return None
            listed = json_object(response.text) if response.status_code == 200 else None
            resources = _listed_resources(listed)
            if resources is None:
                continue
            if any(_still_ours(r, item.id, by_id=attribute == "id") for r in resources):
                return f"GET {self.context.root_path(item.endpoint)}?filter={query}"
            if attribute == "id":
                return None
        return None

    def _gone(self, item: Owned, settled: bool = True) -> list[str]:
        self.context.guard.gone(item, settled)
        with self._lock:
            self.deleted.append(str(item))
        return []

    def _sweep(self, pending: Pending) -> list[str]:
        """Look for a creation whose outcome is unknown by its markers, and delete what a GET of
        its own URL proves the run's (a listing may show a marker on what is not).

        When the searches could not tell (no marker, a search refused, a filter the server
        ignores), when what they listed proved none of the run's, or when the creation may still
        happen later, it may remain.
        """
        found = self._search(pending)
        if found is None:
            return [str(pending)]
        leftovers: list[str] = []
        proven = False
        for hit in found:
            try:
                mine = self.context.guard.confirm(hit)
            except Exception:
                continue  # listed with the marker, but its own URL does not show it: not the run's
            if mine is not None:
                proven = True
                leftovers.extend(self._remove(mine))
        if proven:
            return leftovers
        if found or pending.late:
            return [str(pending)]
        self.context.guard.gone(pending)
        return []

    def _search(self, pending: Pending) -> list[Owned] | None:
        """The resources of the endpoint listed with one of the markers (a filter eq on each marker
        until one finds some), each yet to be proven the run's; [] when every search answered an
        empty list, None when one could not tell (refused, failed, answered resources without
        the marker: a filter ignored), or listed it at an id that is no safe path segment."""
        told = bool(pending.markers)
        for marker in pending.markers[:MAX_MARKERS]:  # the newest values the run gave it first
            try:
                response = self.context.client.request("GET", pending.endpoint, params={"filter": f'{marker.attribute} eq "{marker.value}"'})
            except Exception:
                told = False
                continue
            if response.status_code == NOT_IMPLEMENTED:  # no filter at all: no search can tell
                return None
            listed = json_object(response.text) if response.status_code == 200 else None
            resources = _listed_resources(listed)
            if listed is None or resources is None:  # refused, or answered no ListResponse: it cannot tell
                told = False
                continue
            matching = [r for r in resources if isinstance(r, dict) and carries(r, [marker])]
            # Resources without the marker: the filter was ignored, so only a whole list tells.
            told = told and (len(matching) == len(resources) or _whole(listed, resources))
            ids = [resource_id for r in matching if not unsafe_id_problem(resource_id := id_text(member(r, "id")))]
            if ids:
                return [self.context.guard.own(Owned(pending.kind, pending.endpoint, i, pending.markers), record=False) for i in ids]
            told = told and not matching  # listed at ids the run cannot address: they may remain
        return [] if told else None


def _after_deletion(item: Owned, deleted: int, after: Any) -> str | None:
    """What a GET after its DELETE (answered `deleted`) says of a resource: None when it is gone
    (404, 410, or another resource's values served at its id), else its name: still there when the
    GET serves it (its values, or its id without values of another), may remain when it cannot
    tell (an error, an answer without it)."""
    if after.status_code in (404, 410):
        return None
    served = json_object(after.text)
    shown = carries(served, item.markers)
    if 200 <= after.status_code < 300 and shown is False:
        return None  # another resource's values at its id: the run's is gone, its id reused (not the run's to name)
    if 200 <= after.status_code < 300 and (shown or id_text(member(served, "id")) == item.id):
        return f"{item} (still there: its DELETE answered {deleted}, yet a GET still serves it)"
    without = " without it" if 200 <= after.status_code < 300 else ""
    return f"{item} (may remain: its DELETE answered {deleted}, then a GET answered {after.status_code}{without})"


def _flat(lefts: list[list[str]]) -> list[str]:
    return [name for left in lefts for name in left]


def _listed_resources(listed: dict[str, Any] | None) -> list[Any] | None:
    """The resources of a ListResponse (none when it says it holds none), None when it is no list."""
    if listed is None:
        return None
    resources = member(listed, "Resources")
    if isinstance(resources, list):
        return resources
    return [] if resources is None and member(listed, "totalResults") == 0 else None


def _still_ours(listed: Any, resource_id: str, by_id: bool) -> bool:
    """Whether a listed resource is the deleted one: its id, and (found by its id, not by a marker)
    a value the run gave it, so that a listing echoing the id asked for names nothing."""
    return isinstance(listed, dict) and id_text(member(listed, "id")) == resource_id and (not by_id or bool(markers_in(listed)))


def _whole(listed: dict[str, Any], resources: list[Any]) -> bool:
    """Whether a ListResponse holds every resource there is (its first page is its only one)."""
    total = member(listed, "totalResults")
    return isinstance(total, int) and total <= len(resources) and member(listed, "startIndex") in (None, 1)


UNLISTED_PER_QUERY = 20
"""How many deleted resources the clean-up asks about in one query (`id eq "…" or …`), keeping its URL short."""
