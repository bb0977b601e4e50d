"""How the run creates resources it needs, as a server takes them (RFC 7643 §2.2 "required").

A check's own creations are plumbing, not what it judges. A resource made with only the
attributes the server's /Schemas requires may still be refused by the server's policy (a User
without an email). Such a refusal (a 4xx about the body) is tried once more with what an identity
provider sends (a work email, a name, displayName, active, externalId); when that passes, every
later creation of that resource type in the run carries those attributes, and object_creation
tells the refusal, once.

A server may also keep only part of what a creation sends (a store without an externalId): what
each creation's answer lacks of the values it sent is noted (`Creations.dropped`), so that a
check writing to that resource does not judge the server on an attribute it keeps none of.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from scim_tui.checker.answers import json_object
from scim_tui.checker.answers import member
from scim_tui.checker.exchanges import Exchange
from scim_tui.checker.exchanges import request_line

PROVIDER_ATTRIBUTES = ("emails", "name", "displayName", "active", "externalId")
"""What Entra ID and Okta send in a creation beside userName (IDP-DIALECTS.md)."""
NOT_ABOUT_THE_BODY = frozenset({401, 403, 404, 405, 408, 409, 429})
"""The 4xx answers that say nothing of what a creation's body lacks (rights, the URL, a conflict, a busy server)."""


@dataclass(frozen=True)
class Adaptation:
    """What a resource type's creations carry beyond its required attributes, and why."""

    added: tuple[str, ...]
    """The attributes an identity provider sends that the least creation lacked."""
    refusal: str
    """The request refused without them and what the server said: ``POST /v2/Users answered 400 ("...")``."""


class Creations:
    """The adaptations of the run, by model: shared by the checks of a run (several threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._adapted: dict[Any, Adaptation] = {}
        self._settled: set[Any] = set()
        self._refused: set[Any] = set()
        self._dropped: dict[tuple[Any, str], frozenset[str]] = {}

    def adaptation(self, model: Any) -> Adaptation | None:
        with self._lock:
            return self._adapted.get(model)

    def settled(self, model: Any) -> bool:
        """Whether a least creation of this model was made in this run (adapted or not)."""
        with self._lock:
            return model in self._settled

    def settle(self, model: Any, adaptation: Adaptation | None = None) -> None:
        """A least creation of this model passed: as it was, or with an adaptation (which stays)."""
        with self._lock:
            self._settled.add(model)
            if adaptation is not None:
                self._adapted.setdefault(model, adaptation)

    def refused(self, body: Any) -> bool:
        """Whether a body of this kind (an identity provider's for a model) was refused with a 4xx in
        this run: the run sends its fallback from then on, as the server answers it alike."""
        with self._lock:
            return body in self._refused

    def refuse(self, body: Any) -> None:
        with self._lock:
            self._refused.add(body)

    def drop(self, model: Any, resource_id: str, names: frozenset[str]) -> None:
        """The creation of the resource at that id answered without the values it sent of `names`."""
        if names:
            with self._lock:
                self._dropped[(model, resource_id)] = names

    def dropped(self, model: Any, resource_id: str) -> frozenset[str]:
        """The attributes the creation of the resource at that id sent, and its answer held none of."""
        with self._lock:
            return self._dropped.get((model, resource_id), frozenset())


def not_kept(name: str, kind: str) -> str:
    """Why a check does not judge the server on an attribute its creation dropped."""
    return (
        f"the server keeps no {name}: the creation of this {kind} answered without the {name} it was sent, so a write of it says nothing of the request judged"
    )


def refusal(exchanges: list[Exchange], endpoint: str) -> Exchange | None:
    """The first creation on the endpoint (``/Users``) answered with a 4xx about its body, if any."""
    return next(
        (
            exchange
            for exchange in exchanges
            if exchange.method == "POST"
            and urlsplit(exchange.url).path.rstrip("/").endswith(endpoint.rstrip("/"))
            and exchange.status_code is not None
            and 400 <= exchange.status_code < 500
            and exchange.status_code not in NOT_ABOUT_THE_BODY
        ),
        None,
    )


def refusal_text(exchange: Exchange) -> str:
    """``POST /v2/Users answered 400 ("emails: a User needs an email address")``: what the server said."""
    detail = member(json_object(exchange.response_body or ""), "detail")
    said = f' ("{" ".join(detail.split())[:200]}")' if isinstance(detail, str) and detail.strip() else ""
    return f"{request_line(exchange)} answered {exchange.status_code}{said}"
