"""A run against a hostile server, the requests it logged, and what its results say was left."""

from __future__ import annotations

from typing import Any

from scim2_models import PatchOp

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from tests.support.servers import make_client

WRITES = ("POST", "PUT", "PATCH", "DELETE")


class Logged:
    """A WSGI middleware that notes every request's method and path, as the server saw it."""

    def __init__(self, app: Any):
        self.app = app
        self.requests: list[tuple[str, str]] = []

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        self.requests.append((environ["REQUEST_METHOD"], environ.get("PATH_INFO", "")))
        return self.app(environ, start_response)

    def writes_to(self, ids: list[str]) -> list[tuple[str, str]]:
        """The writes whose path names one of `ids` (a segment of it: sequential ids are digits
        that "/v2" holds too)."""
        return [(method, path) for method, path in self.requests if method in WRITES and set(path.split("/")) & set(ids)]


def run(url: str, timeout: float = 5, **conf: Any) -> list[CheckResult]:
    only = conf.pop("only", None)
    with make_client(url, timeout=timeout) as scim:
        return list(iter_checks(scim, CheckConfig(**conf), only=only))


def reported(results: list[CheckResult]) -> list[str]:
    return [item for result in results for item in result.leftovers]


def lists_then_patches(listing: Any, context, model) -> list[CheckResult]:
    """Creates a user with only its required and identifying attributes (its userName, displayName
    and externalId the run's markers), lists the users with the query parameters `listing` gives,
    then writes to the user."""
    created = context.resource_manager.create_and_register(model, fill_all=False)
    context.client.request("GET", "/Users", params=listing(created))
    patch = {"schemas": [str(PatchOp.__schema__)], "Operations": [{"op": "replace", "path": "nickName", "value": "changed"}]}
    context.client.request("PATCH", f"/Users/{created.id}", json=patch)
    return [CheckResult(Status.SUCCESS, reason="written")]
