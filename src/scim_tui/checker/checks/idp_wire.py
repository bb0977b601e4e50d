"""Requests as an identity provider writes them, and its answers as it reads them.

A replayed request is the provider's own: its JSON as it writes it (bytes, never built from or
checked against the server's /Schemas, which a provider does not read either), its headers,
its method and its path. It goes through the client's ``request`` method, the run's one guarded
and recorded door (recorder.py): writes go only to what the run created, at the URL the guard
builds (``resource_path``). Answers are read as raw JSON, as the provider reads them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from dataclasses import field
from typing import Any

from scim2_models import PatchOp
from scim2_models import Resource

from scim_tui.checker.answers import body_kind
from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import member
from scim_tui.checker.checks.crud import creation_read
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.crud import with_requested
from scim_tui.checker.checks.patch import PATCH_ANSWER
from scim_tui.checker.checks.patch import READ_BACK
from scim_tui.checker.checks.patch import Target
from scim_tui.checker.checks.patch import requested_after
from scim_tui.checker.context import CheckContext
from scim_tui.checker.exchanges import failure_reason
from scim_tui.checker.results import PrerequisiteFailed

SCIM_JSON = "application/scim+json"
LIBRARY_DOCS = re.compile(r"\s*\[type=\w+[^\]]*\]|\s*For further information visit \S+")
"""What a server's detail may carry of the library it validates with (pydantic's error type and
the address of its docs), which tells a person nothing: left out of reasons."""
VALIDATION_DUMP = re.compile(r"^\d+ validation errors? for \S+ (?P<field>\S+) ")
"""A validation library's heading ("1 validation error for EnterpriseUser manager …"): the field is kept."""
PATCH_SCHEMA = str(PatchOp.__schema__)


@dataclass(frozen=True)
class Provider:
    """An identity provider whose requests are replayed: its name, its tag, the key that names it
    (``--require-ready``), the headers it sends and the media type of its bodies."""

    name: str
    tag: str
    key: str
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = SCIM_JSON


class Refused(Exception):
    """An answer a provider cannot go on with; the message says what came back."""


def send(context: CheckContext, provider: Provider, method: str, path: str, body: Any = None, params: dict[str, Any] | None = None) -> Any:
    """One request as the provider sends it; the raw response."""
    headers = dict(provider.headers)
    options: dict[str, Any] = {"params": params} if params else {}
    if body is not None:
        options["content"] = json.dumps(body).encode()
        headers["Content-Type"] = provider.content_type
    return context.client.request(method, path, headers=headers, **options)


def told(response: Any) -> str:
    """What an answer says, in a few words: its SCIM Error's detail, else what its body is."""
    detail = member(body_of(response), "detail")
    if isinstance(detail, str) and detail.strip():
        text = LIBRARY_DOCS.sub("", " ".join(detail.split())).strip()
        return VALIDATION_DUMP.sub(lambda found: f"{found['field']}: ", text)[:300]
    return f"its body is {body_kind(response.text or '')}"


def resource_answer(response: Any, codes: tuple[int, ...] = (200,)) -> dict[str, Any]:
    """The resource an answer holds (a JSON object with an id); Refused when it holds none."""
    payload = body_of(response)
    if response.status_code not in codes:
        raise Refused(told(response))
    if not isinstance(payload, dict) or member(payload, "id") in (None, ""):
        raise Refused(f"the answer is {body_kind(response.text or '')} without the resource's id")
    return payload


def created(context: CheckContext, provider: Provider, model: type[Resource[Any]], body: dict[str, Any], checked: bool = False) -> Target:
    """A resource created by POST of the provider's body (deleted when the check ends: the guard
    keeps what a POST creates), read at its Location when the answer has no body (idp.creation
    judges that). A refusal raises Refused when the creation is what the check judges
    (`checked`), else PrerequisiteFailed: the check that needs it is SKIPPED, naming why."""
    path = resource_path(context, model)
    response = send(context, provider, "POST", path, body)
    answer, located = creation_read(context, response)
    try:
        payload = resource_answer(answer, (200, 201))
    except Refused as refused:
        if checked:
            raise
        why = failure_reason(refused, context.exchanges[-1:])
        raise PrerequisiteFailed(f"the {_kind(model)} it needs could not be created with {provider.name}'s body: {why}") from refused
    resource_id = str(member(payload, "id"))
    return Target(model, resource_id, resource_path(context, model, resource_id), payload, located=located)


def read(context: CheckContext, provider: Provider, target: Target, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """GET of a resource as the provider sends it; its JSON, or Refused."""
    return resource_answer(send(context, provider, "GET", target.url, params=params))


def patched(context: CheckContext, provider: Provider, target: Target, operations: list[dict[str, Any]]) -> tuple[dict[str, Any], str]:
    """PATCH operations as the provider writes them; the resource then seen and where it came from:
    the 200 answer (which holds the resource), or a GET after a 204 (RFC 7644 §3.5.2)."""
    response = send(context, provider, "PATCH", target.url, {"schemas": [PATCH_SCHEMA], "Operations": operations})
    if response.status_code == 204:
        seen, source = read(context, provider, target), READ_BACK
    elif response.status_code == 200 and not isinstance(body_of(response), dict):
        raise Refused(f"the 200 answer carries {body_kind(response.text or '')}, but a 200 must hold the resource; only a 204 has no body (RFC 7644 §3.5.2)")
    else:
        seen, source = resource_answer(response), PATCH_ANSWER
    return requested_after(context, target, operations, seen, source)


def replaced(context: CheckContext, provider: Provider, target: Target, body: dict[str, Any]) -> dict[str, Any]:
    """PUT of a whole resource as the provider writes it; the resource answered (RFC 7644 §3.5.1),
    with what the schema returns only on request read by a GET asking for it (crud.with_requested)."""
    return with_requested(context, target.model, target.id, resource_answer(send(context, provider, "PUT", target.url, body)), body)


def deleted(context: CheckContext, provider: Provider, target: Target) -> None:
    """DELETE of a resource as the provider sends it: 204 (RFC 7644 §3.6), or Refused."""
    response = send(context, provider, "DELETE", target.url)
    if response.status_code != 204:
        raise Refused(told(response) if response.status_code >= 400 else f"it answered {response.status_code} instead of 204 (RFC 7644 §3.6)")


def _kind(model: type[Resource[Any]]) -> str:
    return model.__name__.split("[", 1)[0]
