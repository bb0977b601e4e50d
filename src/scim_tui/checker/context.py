"""What every checker is given: the client, the run's configuration, and a resource manager."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from types import SimpleNamespace
from typing import Any

from scim2_models import Context
from scim2_models import Resource
from scim2_models import ResourceType
from scim2_models import Schema
from scim2_models import ServiceProviderConfig

from scim_tui.checker.answers import answer_name
from scim_tui.checker.answers import json_object
from scim_tui.checker.exchanges import Exchange
from scim_tui.checker.exchanges import describe_error
from scim_tui.checker.exchanges import failure_reason
from scim_tui.checker.guard import Guard
from scim_tui.checker.guard import Owned
from scim_tui.checker.guard import Pending
from scim_tui.checker.guard import carries
from scim_tui.checker.guard import id_text
from scim_tui.checker.guard import unsafe_id_problem
from scim_tui.checker.pacing import Pacer
from scim_tui.checker.recorder import Recorder
from scim_tui.checker.recorder import base_url_of
from scim_tui.checker.recorder import cleaning_up
from scim_tui.checker.recorder import install_recorder
from scim_tui.checker.recorder import recorder_of
from scim_tui.checker.results import CheckConfig
from scim_tui.checker.results import PrerequisiteFailed
from scim_tui.checker.secrets import Secrets


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


class CheckContext:
    """The context a checker runs in (SPEC.md §2.5).

    One context is made per check, sharing the client, the configuration, the run's
    discovery, its recorder (and the guard of its writes) and the resources references point
    at, with its own resource manager and its own exchange list.

    A context made without a recorder is the root of a run (or a script's or a test's own):
    it puts a fresh recorder on the client, redacting `secrets`, pacing its requests with `pacer`
    (else by the configuration) and stopping once `cancelled()` says so, and what is created outside any check is kept by its own manager.
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
    ):
        self.client = client
        self.conf = conf or CheckConfig()
        self.discovery = discovery or Discovery()
        self.exchanges: list[Exchange] = exchanges if exchanges is not None else []
        self.stopping = stopping or threading.Event()
        """Set when the run ends early: the checks still running send nothing but clean-up."""
        self.resource_manager = ResourceManager(self)
        self.references = references or References(self.resource_manager)
        """The resources references point at, shared by the checks of the run (held by the run's
        own resource manager, so deleted when the run ends)."""
        self.pointed_at: set[str] = set()
        """The ids of the shared resources this check's references point at."""
        if recorder is None:
            previous = recorder_of(client)
            guard = Guard(client, self.resource_manager, base_url_of(client))
            stopped = lambda: self.stopping.is_set() or bool(cancelled and cancelled())  # noqa: E731
            pacer = pacer or Pacer(self.conf.pacing)
            recorder = install_recorder(client, secrets or (previous.secrets if previous else Secrets()), guard, stopped, pacer)
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
        return CheckContext(self.client, self.conf, self.discovery, exchanges, self.stopping, self.references, self.recorder)

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
        extra: dict[str, Any] | None = None,
        **request: Any,
    ) -> Resource[Any]:
        """Create a resource with every writable attribute filled (or the required and identifying
        ones only), and `values` (JSON, by SCIM attribute name) in place of the generated ones.
        `extra` (JSON) goes in the body as it is, beside what the model sends (what an identity
        provider adds: `meta`, an empty `groups`). `request` goes to the HTTP request (headers=...).

        The guard registers the resource for deletion when the check ends (whatever the answer);
        it is returned as the server answered, with its id. A creation that fails raises
        PrerequisiteFailed (the check needing it is SKIPPED), unless the creation is what the
        check judges (`checked`: its error is the check's result).
        """
        from scim_tui.checker.filling import build_resource

        mark = len(self.context.exchanges)
        try:
            payload = build_resource(self.context, model, fill_all=fill_all, values=values)
            if extra:
                body = payload.model_dump(scim_ctx=Context.RESOURCE_CREATION_REQUEST) | extra
                created = self._read_back(model, self.context.client.create(body, check_request_payload=False, url=self.context.client.resource_endpoint(model), **request))
            else:
                created = self.context.client.create(payload, **request)
            if not isinstance(created, Resource) or not created.id:
                raise ValueError(f"the answer is {answer_name(created)} instead of the created {model.__name__} with its id (RFC 7644 §3.3)")
            return created
        except Exception as exc:
            failure = exc
        # raised out of the except block, so that no exception becomes the context of its own cause
        if isinstance(failure, PrerequisiteFailed):
            if checked and isinstance(failure.__cause__, Exception):
                raise failure.__cause__  # the check's own fault, even when met making a resource it points at
            raise failure
        if checked:
            raise failure
        raise PrerequisiteFailed(f"the {model.__name__} it needs could not be created: {failure_reason(failure, self.context.exchanges[mark:])}") from failure

    def _read_back(self, model: type[Resource[Any]], answer: Any) -> Any:
        """The answer to a creation sent unchecked (a JSON body, which scim2-client gives back as
        it came), read as the checked creation reads it: the resource, or the client's error."""
        if not isinstance(answer, dict):
            return answer
        exchange = self.context.exchanges[-1]
        headers = {name.lower(): value for name, value in exchange.response_headers.items()}
        try:
            return self.context.client.check_response(answer, exchange.status_code, headers, expected_types=[model], scim_ctx=Context.RESOURCE_CREATION_RESPONSE)
        except Exception as exc:
            # What the client sets on its own errors: the answer, so that the reason tells what came back.
            exc.source = SimpleNamespace(status_code=exchange.status_code, headers=headers, text=exchange.response_body or "")  # type: ignore[attr-defined]
            raise

    def located(self, location: str) -> Owned | None:
        """The resource of this manager at this location (a `$ref`), if there is one."""
        location = location.rstrip("/")
        with self._lock:
            return next((item for item in self.owned if location.endswith(f"/{item.id}")), None)

    def release(self, resource_id: str) -> list[Owned]:
        """Stop keeping a resource (another manager keeps it from now on); return what was kept."""
        with self._lock:
            released = [item for item in self.owned if item.id == resource_id]
            self.owned = [item for item in self.owned if item.id != resource_id]
        return released

    def forget(self, resource_id: str) -> None:
        """Stop tracking a resource the check deleted itself."""
        self.release(resource_id)

    def cleanup(self) -> list[str]:
        """Delete what this check created, newest first, then look for the creations whose outcome
        is unknown. Return what could not be deleted, or may remain.

        A creation that may still happen later (its POST got no answer in time) is handed to the
        run's own manager, which looks for it once the run ends. A second Ctrl-C while cleaning up
        skips the deletion under way, not the others; the interruption is raised again once every
        deletion was tried.
        """
        with self._lock:
            owned, pending = self.owned, self.pending
            self.owned, self.pending = [], []
        run_manager = self.context.references.manager
        leftovers: list[str] = []
        interrupted: KeyboardInterrupt | None = None
        for item in [*reversed(owned), *pending]:
            if isinstance(item, Pending) and item.late and run_manager is not self:
                run_manager.record(item)
                continue
            try:
                with cleaning_up():
                    leftovers.extend(self._delete(item) if isinstance(item, Owned) else self._sweep(item))
            except KeyboardInterrupt as exc:
                interrupted = exc
                leftovers.append(str(item))
        if interrupted is not None:
            raise interrupted
        return leftovers

    def _delete(self, item: Owned) -> list[str]:
        """Delete one resource at its URL; [] once gone (a 404 says it already is), else its name."""
        try:
            if self.context.guard.confirm(item) is None:
                return []
        except Exception as refused:
            # Its URL did not show it as the run's own: looked for by its markers instead.
            return self._sweep(Pending(item.kind, item.endpoint, item.markers, describe_error(refused, 200), created=True))
        try:
            answer = self.context.client.request("DELETE", item.url)
        except Exception:
            return [str(item)]
        return [] if answer.status_code in (200, 204, 404) else [str(item)]

    def _sweep(self, pending: Pending) -> list[str]:
        """Look for a creation whose outcome is unknown by its markers, and delete what carries one.

        When the searches could not tell (no marker, a search refused, a filter the server
        ignores), or the creation may still happen later, it may remain.
        """
        found = self._search(pending)
        if found:
            return [left for item in found for left in self._delete(item)]
        return [str(pending)] if found is None or pending.late else []

    def _search(self, pending: Pending) -> list[Owned] | None:
        """The resources of the endpoint carrying one of the markers (a filter eq on each marker
        until one finds some); [] when every search answered an empty list, None when one could
        not tell (refused, failed, or answered resources without the marker: a filter ignored)."""
        told = bool(pending.markers)
        for marker in pending.markers:
            try:
                response = self.context.client.request("GET", pending.endpoint, params={"filter": f'{marker.attribute} eq "{marker.value}"'})
            except Exception:
                told = False
                continue
            listed = json_object(response.text) if response.status_code == 200 else {}
            resources = listed.get("Resources", []) if listed else None
            if not isinstance(resources, list):
                told = False
                continue
            matching = [r for r in resources if isinstance(r, dict) and carries(r, [marker])]
            # Resources without the marker: the filter was ignored, so only a whole list tells.
            told = told and (len(matching) == len(resources) or _whole(listed, resources))
            ids = [resource_id for r in matching if not unsafe_id_problem(resource_id := id_text(r.get("id")))]
            if ids:
                return [self.context.guard.own(Owned(pending.kind, pending.endpoint, i, pending.markers), record=False) for i in ids]
        return [] if told else None


def _whole(listed: dict[str, Any], resources: list[Any]) -> bool:
    """Whether a ListResponse holds every resource there is (its first page is its only one)."""
    total = listed.get("totalResults")
    return isinstance(total, int) and total <= len(resources) and listed.get("startIndex") in (None, 1)


class References:
    """Resources made for references to point at (a manager, a group's members), shared by the
    checks of a run instead of made again for each reference.

    A check's references never point twice at the same resource: the resource a replacement
    points at differs from the one it replaces, as when each reference had a resource of its
    own. A resource is made, by the check that first needs it (its exchanges show the POST),
    with its required attributes only; the run's own resource manager holds it, and deletes
    it when the run ends.
    """

    def __init__(self, manager: ResourceManager):
        self.manager = manager
        self._made: dict[type[Resource[Any]], list[Resource[Any]]] = {}
        self._lock = threading.RLock()  # held while making one, which may need references itself

    def point_at(self, context: CheckContext, model: type[Resource[Any]]) -> Resource[Any]:
        """A resource of `model` this check's references do not point at yet, made if there is none."""
        with self._lock:
            made = self._made.setdefault(model, [])
            resource = next((item for item in made if str(item.id) not in context.pointed_at), None)
            if resource is None:
                resource = context.resource_manager.create_and_register(model, fill_all=False)
                for item in context.resource_manager.release(str(resource.id)):
                    self.manager.record(item)
                made.append(resource)
        context.pointed_at.add(str(resource.id))
        return resource

    def located(self, location: str) -> Owned | None:
        """The shared resource at this location (its `$ref`), if it is one."""
        return self.manager.located(location)
