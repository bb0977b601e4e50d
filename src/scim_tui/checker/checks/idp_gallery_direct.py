"""Microsoft's gallery validation, its direct tests of authentication, pagination and the manager
(idp_gallery.py has the sources and the verdict)."""

from __future__ import annotations

from functools import partial
from typing import Any

from scim2_models import Resource

from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import member
from scim_tui.checker.answers import shown
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.idp import ENTERPRISE
from scim_tui.checker.checks.idp import GROUP_SCHEMA
from scim_tui.checker.checks.idp import POPULATION
from scim_tui.checker.checks.idp import USER_SCHEMA
from scim_tui.checker.checks.idp import has
from scim_tui.checker.checks.idp import list_problem
from scim_tui.checker.checks.idp import population
from scim_tui.checker.checks.idp import resources_in
from scim_tui.checker.checks.idp import shared_users
from scim_tui.checker.checks.idp_entra import ENTRA
from scim_tui.checker.checks.idp_entra import entra_user
from scim_tui.checker.checks.idp_gallery import TAGS
from scim_tui.checker.checks.idp_gallery import not_applicable
from scim_tui.checker.checks.idp_gallery import not_replayable
from scim_tui.checker.checks.idp_lifecycle import patched_then_read
from scim_tui.checker.checks.idp_lifecycle import phases
from scim_tui.checker.checks.idp_readiness import replay
from scim_tui.checker.checks.idp_readiness import step
from scim_tui.checker.checks.idp_wire import send
from scim_tui.checker.checks.patch import Target
from scim_tui.checker.context import CheckContext
from scim_tui.checker.limits import MAX_SAMPLED_PAGES
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

PAGE = 5
"""The test reads pages of this many."""
BARE_MANAGER = (
    "Microsoft's Logic App sends the manager's id as a bare string where the enterprise manager is complex (RFC 7643 §4.3), "
    'and removes it with a replace of ""; a server must take both to pass the test.'
)
LIFETIME_MINUTES = (60, 360)
"""The lifetime of an access token the test accepts, in minutes."""


@checker(*TAGS, section="2")
@replay(ENTRA)
def gallery_validate_credentials(context: CheckContext) -> list[CheckResult]:
    """Validate_Credentials_Test (mandatory, or Federated_Identity_Test): OAuth client credentials give a token living 60 to 360 minutes, which SCIM
    accepts (RFC 7644 §2, RFC 6749 §4.4).

    Per Microsoft's test overview (AzureAD/SCIMReferenceCode, SCIM-Validation-Test-Overview.md):
    the token endpoint answers 2xx with an access_token whose lifetime is
    between 60 and 360 minutes, and SCIM answers 2xx with it. Runs when the
    run's client gets its token by client credentials (a profile's oauth2
    auth), which tells the lifetime of its token (``token_lifetime``, seconds);
    SKIPPED otherwise, as Microsoft skips it without a token endpoint. SUCCESS
    then; a DEVIATION naming a lifetime out of range or missing; ERROR when
    SCIM refuses the token.
    """
    auth = getattr(getattr(context.client, "client", None), "auth", None)
    if auth is None or not hasattr(auth, "token_lifetime"):
        return not_applicable(
            'the run\'s client does not get its token by OAuth client credentials (a profile with kind = "oauth2"), which Microsoft requires of gallery apps.'
        )
    path = model_path(context, USER_SCHEMA)
    response = send(context, ENTRA, "GET", path, params={"count": 1})
    if not 200 <= response.status_code < 300:
        return [
            CheckResult(
                Status.ERROR,
                reason=f"GET {context.root_path(path)}?count=1 with the client-credentials token answered {response.status_code}.",
                data=body_of(response),
            )
        ]
    lifetime = auth.token_lifetime
    low, high = LIFETIME_MINUTES
    if lifetime is None or not low * 60 <= lifetime <= high * 60:
        told = "no expires_in" if lifetime is None else f"a token living {lifetime / 60:g} minutes"
        return [CheckResult(Status.DEVIATION, reason=f"The token endpoint gave {told}; Microsoft's validation wants {low} to {high} minutes.", blocks=True)]
    return [
        CheckResult(
            Status.SUCCESS, reason=f"The token endpoint gave a token living {lifetime / 60:g} minutes, and SCIM answered {response.status_code} with it."
        )
    ]


def model_path(context: CheckContext, schema: str) -> str:
    """The endpoint of the server's resource type of a core schema (/Users when it has none)."""
    for resource_type in getattr(context.client.provider, "resource_types", None) or ():
        if str(resource_type.schema_) == schema:
            return "/" + str(resource_type.endpoint).strip("/")
    return "/Users"


@checker(*TAGS, section="2")
def gallery_federated_identity(context: CheckContext) -> list[CheckResult]:
    """Federated_Identity_Test (mandatory, or Validate_Credentials_Test): workload identity federation; not replayable without an Entra tenant.

    Per Microsoft's test overview (AzureAD/SCIMReferenceCode, SCIM-Validation-Test-Overview.md):
    an Entra ID token, exchanged for the app's own. Always SKIPPED, named as
    not replayed.
    """
    return not_replayable("workload identity federation exchanges a token of an Entra tenant for the app's own.")


def _paged(context: CheckContext, path: str) -> CheckResult:
    """``startIndex=N&count=5`` page after page, as Microsoft's test steps (the next start five
    further, whatever a page held): each page answers 200 with the startIndex asked, page*5+1,
    and there are at least two."""
    pages: list[str] = []
    start: int | None = 1
    while start is not None and len(pages) < MAX_SAMPLED_PAGES:
        params = {"startIndex": start, "count": PAGE}
        response = send(context, ENTRA, "GET", path, params=params)
        expected = len(pages) * PAGE + 1
        answered = member(body_of(response), "startIndex")
        asked = f"GET {context.root_path(path)}?startIndex={start}&count={PAGE}"
        problem = list_problem(response)
        if problem or answered != expected:
            return CheckResult(
                Status.ERROR,
                reason=f"Page {len(pages) + 1}: {asked} {problem or f'answered startIndex {shown(answered)} instead of {expected}'} (RFC 7644 §3.4.2.4).",
                data=body_of(response),
            )
        found = resources_in(response)
        pages.append(asked)
        following = start + PAGE
        start = following if found and following <= (member(body_of(response), "totalResults") or 0) else None
    if len(pages) < 2:
        return CheckResult(
            Status.ERROR, reason=f"{pages[0]} answered every resource in one page, though the run holds {POPULATION}: count is ignored (RFC 7644 §3.4.2.4)."
        )
    return CheckResult(Status.SUCCESS, reason=f"{len(pages)} pages of {PAGE}, each answering the startIndex asked.")


def _pagination(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    population(context, model, POPULATION)
    return [step(context, ENTRA, "read the pages", partial(_paged, context, resource_path(context, model)))]


@checker(*TAGS, section="3.4.2.4", schema=USER_SCHEMA, shares=("population",))
@replay(ENTRA)
def gallery_user_pagination(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """SCIM_User_Pagination_Test (mandatory): ``GET /Users?startIndex=N&count=5`` over at least 11 users, each page's startIndex the one asked (RFC
    7644 §3.4.2.4).

    Per Microsoft's test overview (AzureAD/SCIMReferenceCode, SCIM-Validation-Test-Overview.md):
    at least two pages, each answering 200 with startIndex page*5+1. Lists
    11 users the run holds until it ends (Microsoft tops the server up to 11),
    so that the run's other checks change nothing: shared with the other
    checks that only list users (idp.population), none writing to them.
    SUCCESS then; ERROR otherwise.
    """
    return _pagination(context, model)


@checker(*TAGS, section="3.4.2.4", schema=GROUP_SCHEMA, shares=("population",))
@replay(ENTRA)
def gallery_group_pagination(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """SCIM_Group_Pagination_Test (optional): ``GET /Groups?startIndex=N&count=5`` over at least 11 groups, each page's startIndex the one asked (RFC
    7644 §3.4.2.4).

    Per Microsoft's test overview (AzureAD/SCIMReferenceCode, SCIM-Validation-Test-Overview.md):
    as the user pagination, on 11 groups the run holds until it ends. SUCCESS
    then; ERROR otherwise. Microsoft counts a failure as a WARNING.
    """
    return _pagination(context, model)


@checker(*TAGS, section="3.5.2.3", schema=USER_SCHEMA, shares=("members",))
@replay(ENTRA)
def gallery_update_manager(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """SCIM_Update_Manager_Test (mandatory): the manager set (Add), changed (replace) and removed (replace with ""), each read back (RFC 7644 §3.5.2).

    Per Microsoft's test overview (AzureAD/SCIMReferenceCode, SCIM-Validation-Test-Overview.md)
    and its Logic App: ``{"op": "Add", "path": "<enterprise URN>:manager", "value": "<id>"}``,
    then ``{"op": "replace", …, "value": "<other id>"}``, then ``"value": ""``;
    a GET after each must show the manager's value (none after the removal).
    One result per phase: SUCCESS then; a DEVIATION when only the RFC's
    spelling (a complex value ``{"value": …}``, a remove) passes; ERROR
    otherwise. Skipped (as Microsoft skips it) when the server's User has no
    enterprise extension. The managers are users made as Entra makes them,
    shared with the run's other checks pointing at users (idp.shared_users).
    """
    if not has(model, ENTERPRISE):
        return not_applicable(f"the server's {model.__name__} has no enterprise extension, so no manager is mapped.")
    managers = shared_users(context, 2, entra_user)
    if isinstance(managers, CheckResult):
        return [managers]
    target, (first, second) = entra_user(context, model), managers
    path = f"{ENTERPRISE}:manager"

    def phase(label: str, op: str, value: Any, expected: str | None, plain: dict[str, Any]) -> tuple[str, Any]:
        operation = {"op": op, "path": path, "value": value}
        run, rfc = (partial(_managed, context, target, sent, expected) for sent in (operation, plain))
        return label, partial(step, context, ENTRA, f"{op} manager", run, BARE_MANAGER, rfc, (operation, plain))

    return phases(
        context,
        [
            phase("set the manager", "Add", first.id, first.id, {"op": "add", "path": path, "value": {"value": first.id}}),
            phase("change the manager", "replace", second.id, second.id, {"op": "replace", "path": path, "value": {"value": second.id}}),
            phase("remove the manager", "replace", "", None, {"op": "remove", "path": path}),
        ],
    )


def _managed(context: CheckContext, target: Target, operation: dict[str, Any], expected: str | None) -> CheckResult:
    return patched_then_read(context, ENTRA, target, [operation], {f"{ENTERPRISE}:manager.value": expected}, f"{operation['op']} manager")
