"""What every checker is given: the client, the run's configuration, and a resource manager."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from scim2_models import Error
from scim2_models import Resource
from scim2_models import ResourceType
from scim2_models import Schema
from scim2_models import ServiceProviderConfig

from scim_tui.checker.answers import answer_name
from scim_tui.checker.answers import id_in_location
from scim_tui.checker.answers import json_object
from scim_tui.checker.exchanges import Exchange
from scim_tui.checker.exchanges import cleaning_up
from scim_tui.checker.exchanges import header
from scim_tui.checker.results import CheckConfig


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


class CheckContext:
    """The context a checker runs in (SPEC.md §2.5).

    One context is made per check, sharing the client, the configuration, the run's
    discovery and the resources references point at, with its own resource manager
    and its own exchange list.
    """

    def __init__(
        self,
        client: Any,
        conf: CheckConfig | None = None,
        discovery: Discovery | None = None,
        exchanges: list[Exchange] | None = None,
        stopping: threading.Event | None = None,
        references: References | None = None,
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

    def fork(self, exchanges: list[Exchange] | None = None) -> CheckContext:
        """A context for another check of the same run."""
        return CheckContext(self.client, self.conf, self.discovery, exchanges, self.stopping, self.references)

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


@dataclass
class CreatedResource:
    model: type[Resource[Any]]
    id: str
    resource_type: str


class ResourceManager:
    """Creates the resources of one check, and deletes exactly those afterwards."""

    def __init__(self, context: CheckContext):
        self.context = context
        self.created: list[CreatedResource] = []

    def create_and_register(
        self, model: type[Resource[Any]], fill_all: bool = True, values: dict[str, Any] | None = None, **request: Any
    ) -> Resource[Any]:
        """Create a resource with every writable attribute filled (or the required ones only),
        and `values` (JSON, by SCIM attribute name) in place of the generated ones.
        `request` goes to the HTTP request (headers=...).

        The resource is registered for deletion when the check ends, and returned as
        the server answered, with its id.
        """
        from scim_tui.checker.filling import build_resource

        payload = build_resource(self.context, model, fill_all=fill_all, values=values)
        mark = len(self.context.exchanges)
        try:
            created = self.context.client.create(payload, **request)
        except Exception:
            self._register_unread(model, self.context.exchanges[mark:])
            raise
        if not isinstance(created, Resource) or not created.id:
            self._register_unread(model, self.context.exchanges[mark:])
            raise ValueError(f"the answer is {answer_name(created)} instead of the created {model.__name__} with its id (RFC 7644 §3.3)")
        self.register(created)
        return created

    def register(self, resource: Resource[Any]) -> None:
        resource_type = resource.meta.resource_type if resource.meta and resource.meta.resource_type else ""
        self.created.append(CreatedResource(type(resource), str(resource.id), resource_type))

    def _register_unread(self, model: type[Resource[Any]], exchanges: list[Exchange]) -> None:
        """Register a resource the server created though its answer could not be read (a 200
        instead of 201, an invalid or empty body), so that it is deleted all the same.

        Its id comes from the body, else from the Location header (RFC 7644 §3.3).
        """
        post = next((exchange for exchange in reversed(exchanges) if exchange.method == "POST"), None)
        if post is None or not 200 <= (post.status_code or 0) < 300:
            return
        body = json_object(post.response_body)
        resource_id = body.get("id") or _id_in_location(post)
        if resource_id:
            meta = body.get("meta") if isinstance(body.get("meta"), dict) else {}
            self.created.append(CreatedResource(model, str(resource_id), str(meta.get("resourceType") or "")))

    def located(self, location: str) -> CreatedResource | None:
        """The resource of this manager at this location (a `$ref`), if there is one."""
        location = location.rstrip("/")
        return next((item for item in self.created if location.endswith(f"/{item.id}")), None)

    def forget(self, resource_id: str) -> None:
        """Stop tracking a resource the check deleted itself."""
        self.created = [item for item in self.created if item.id != resource_id]

    def cleanup(self) -> list[str]:
        """Delete what this check created, newest first. Return what could not be deleted.

        A second Ctrl-C while cleaning up skips the deletion under way, not the others;
        the interruption is raised again once every deletion was tried.
        """
        leftovers = []
        interrupted: KeyboardInterrupt | None = None
        for item in reversed(self.created):
            try:
                with cleaning_up():
                    deleted = self._delete(item)
            except KeyboardInterrupt as exc:
                interrupted, deleted = exc, False
            if not deleted:
                leftovers.append(f"{item.resource_type or item.model.__name__}/{item.id}")
        self.created = []
        if interrupted is not None:
            raise interrupted
        return leftovers

    def _delete(self, item: CreatedResource) -> bool:
        # meta.resourceType is the server's word: one naming another type (or none known) is not followed.
        target = item.resource_type if self._serves(item.resource_type, item.model) else item.model
        try:
            answer = self.context.client.delete(
                target, item.id, expected_status_codes=[200, 204, 404], raise_scim_errors=False
            )
        except Exception:
            return False
        # A resource the check already deleted answers 404: it is gone all the same.
        return not isinstance(answer, Error) or str(answer.status) == "404"

    def _serves(self, resource_type: str, model: type[Resource[Any]]) -> bool:
        """Whether the client knows a resource type of this name, for this model."""
        try:
            return bool(resource_type) and self.context.client.get_resource_model(resource_type) is model
        except Exception:
            return False


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
                context.resource_manager.forget(str(resource.id))
                self.manager.register(resource)
                made.append(resource)
        context.pointed_at.add(str(resource.id))
        return resource

    def located(self, location: str) -> CreatedResource | None:
        """The shared resource at this location (its `$ref`), if it is one."""
        return self.manager.located(location)


def _id_in_location(post: Exchange) -> str | None:
    """The id at the end of a POST answer's Location, when it names a resource of the endpoint posted to."""
    return id_in_location(header(post.response_headers, "Location"), urlsplit(post.url).path)
