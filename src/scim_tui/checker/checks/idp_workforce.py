"""SailPoint, Google Workspace and Rippling provisioning, replayed where their SCIM dialects differ
in documented ways (each with its tag and its readiness verdict; idp_readiness.py judges them).

Sources: SailPoint's developer forum on its SCIM 2.0 connector's PATCH
(https://developer.sailpoint.com/discuss/t/scim-api-patch-op/7752); Google Cloud Identity's
auto-provisioning help (https://support.google.com/cloudidentity/topic/7661972); for Rippling,
two third-party sources: Kombo's Rippling SCIM article (help.kombo.dev) and WorkOS's
(https://workos.com/docs/integrations/rippling-scim).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from scim2_models import Resource

from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import member
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.idp import ENTERPRISE
from scim_tui.checker.checks.idp import USER_SCHEMA
from scim_tui.checker.checks.idp import has
from scim_tui.checker.checks.idp import kept
from scim_tui.checker.checks.idp import list_problem
from scim_tui.checker.checks.idp import resources_in
from scim_tui.checker.checks.idp import user_body
from scim_tui.checker.checks.idp_lifecycle import create_step
from scim_tui.checker.checks.idp_lifecycle import deletion
from scim_tui.checker.checks.idp_lifecycle import patched_then_read
from scim_tui.checker.checks.idp_lifecycle import phases
from scim_tui.checker.checks.idp_platforms import judged_user
from scim_tui.checker.checks.idp_platforms import user
from scim_tui.checker.checks.idp_readiness import readiness
from scim_tui.checker.checks.idp_readiness import replay
from scim_tui.checker.checks.idp_readiness import step
from scim_tui.checker.checks.idp_wire import Provider
from scim_tui.checker.checks.idp_wire import send
from scim_tui.checker.checks.patch import Target
from scim_tui.checker.checks.probes import steps
from scim_tui.checker.context import CheckContext
from scim_tui.checker.filling import unique_string
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

SAILPOINT = Provider("SailPoint", "idp:sailpoint", "sailpoint")
GOOGLE = Provider("Google Workspace", "idp:google", "google")
RIPPLING = Provider("Rippling", "idp:rippling", "rippling")
SPC_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"
ADD_NO_PATH = (
    "SailPoint enables and disables with an add without a path, which RFC 7644 §3.5.2.1 defines (the "
    "target is the resource itself): a refusal is the server's fault by the RFC too."
)


def _activity(context: CheckContext, provider: Provider, target: Target, operation: dict[str, Any], active: bool) -> CheckResult:
    return patched_then_read(context, provider, target, [operation], {"active": active}, f"{operation['op']} active {str(active).lower()}")


@checker("idp", "idp:sailpoint", section="3.5.2.1", schema=USER_SCHEMA)
@replay(SAILPOINT)
def sailpoint_disable_enable(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """SailPoint disables and enables a user with ``{"op": "add", "value": {"active": false}}``, an add without a path (RFC 7644 §3.5.2.1).

    SailPoint's developer forum (https://developer.sailpoint.com/discuss/t/scim-api-patch-op/7752).
    One result for the user's creation (201 with the user: SailPoint reads its
    id there), one each for disabling and enabling, read back: SUCCESS; ERROR
    otherwise (the reason says when a replace with a path passes).
    """
    made, target = judged_user(context, SAILPOINT, model)
    if target is None:
        return [made]

    def phase(active: bool) -> Any:
        shapes = ({"op": "add", "value": {"active": active}}, {"op": "replace", "path": "active", "value": active})
        run, plain = (partial(_activity, context, SAILPOINT, target, operation, active) for operation in shapes)
        return partial(step, context, SAILPOINT, f"add active {str(active).lower()}", run, ADD_NO_PATH, plain, shapes, provider_only=False)

    return [made, *phases(context, [("disable", phase(False)), ("enable", phase(True))])]


@checker("idp", "idp:sailpoint", section="3")
def sailpoint_readiness(context: CheckContext, results: list[CheckResult]) -> list[CheckResult]:
    """Will SailPoint provisioning work? READY when no SailPoint step blocks it (the ``idp:sailpoint`` checks; idp_readiness.py).

    NOT READY naming the blocking steps, a DEVIATION (an ERROR with
    ``--require-ready sailpoint``); SKIPPED when no step ran. Source:
    https://developer.sailpoint.com/discuss/t/scim-api-patch-op/7752.
    """
    return readiness(SAILPOINT, context, results)


def _probed(context: CheckContext, path: str) -> CheckResult:
    response = send(context, GOOGLE, "GET", path, params={"count": 1})
    request = f"GET {context.root_path(path)}?count=1"
    problem = list_problem(response)
    if problem or len(resources_in(response)) > 1:
        return CheckResult(
            Status.ERROR,
            reason=f"{request} {problem or f'answered {len(resources_in(response))} users: count is ignored (RFC 7644 §3.4.2.4)'}.",
            data=body_of(response),
        )
    return CheckResult(Status.SUCCESS, reason=f"{request} answered a ListResponse of at most one user.", data=body_of(response))


@checker("idp", "idp:google", section="3.4.2.4", schema=USER_SCHEMA)
@replay(GOOGLE)
def google_setup_and_deprovisioning(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Google Workspace probes ``GET /Users?count=1`` at setup, and deprovisions a user by suspending or deleting it (RFC 7644 §3.4.2.4, §3.5.2.3, §3.6).

    Google Cloud Identity's auto-provisioning help (https://support.google.com/cloudidentity/topic/7661972),
    which does not spell the suspension's operation: the RFC's
    ``{"op": "replace", "path": "active", "value": false}`` is sent. One result
    per phase: the probe (a ListResponse of at most one user), the creation of
    the user then suspended (201 with the user: Google reads its id there), the
    suspension (active false read back), the deletion (204, then gone).
    SUCCESS; ERROR otherwise.
    """
    path = resource_path(context, model)
    probed = steps(context, [("probe at setup", partial(_probed, context, path))])
    made, suspended = judged_user(context, GOOGLE, model)
    deleted = user(context, GOOGLE, model)
    suspend = partial(_activity, context, GOOGLE, suspended, {"op": "replace", "path": "active", "value": False}, False) if suspended else None
    return [
        *probed,
        made,
        *(steps(context, [("suspend", suspend)]) if suspend else []),
        *steps(context, [("delete", partial(deletion, context, GOOGLE, deleted, "userName", str(deleted.current.get("userName") or "")))]),
    ]


@checker("idp", "idp:google", section="3")
def google_readiness(context: CheckContext, results: list[CheckResult]) -> list[CheckResult]:
    """Will Google Workspace provisioning work? READY when no Google step blocks it (the ``idp:google`` checks; idp_readiness.py).

    NOT READY naming the blocking steps, a DEVIATION (an ERROR with
    ``--require-ready google``); SKIPPED when no step ran. Source:
    https://support.google.com/cloudidentity/topic/7661972.
    """
    return readiness(GOOGLE, context, results)


@checker("idp", "idp:rippling", section="4")
@replay(RIPPLING)
def rippling_test_connection(context: CheckContext) -> list[CheckResult]:
    """Rippling's test connection: ``GET /ServiceProviderConfig`` answers the configuration (RFC 7644 §4).

    Per two third-party sources (Kombo's Rippling SCIM article, help.kombo.dev;
    https://workos.com/docs/integrations/rippling-scim). SUCCESS on 200 with a
    JSON object naming the ServiceProviderConfig schema; ERROR otherwise.
    """
    response = send(context, RIPPLING, "GET", "/ServiceProviderConfig")
    payload = body_of(response)
    request = f"GET {context.root_path('/ServiceProviderConfig')}"
    if response.status_code != 200 or SPC_SCHEMA not in (member(payload, "schemas") or []):
        return [CheckResult(Status.ERROR, reason=f"{request} answered {response.status_code} without a ServiceProviderConfig (RFC 7644 §4).", data=payload)]
    return [CheckResult(Status.SUCCESS, reason=f"{request} answered the configuration.")]


def _rippling_body(model: type[Resource[Any]]) -> dict[str, Any]:
    """What Rippling sends for a new user: externalId, a primary email, name, the employeeNumber."""
    schemas = [USER_SCHEMA, *([ENTERPRISE] if has(model, ENTERPRISE) else [])]
    return {"schemas": schemas, **kept(model, {**user_body("rippling"), ENTERPRISE: {"employeeNumber": unique_string("employee")}})}


@checker("idp", "idp:rippling", section="3.3", schema=USER_SCHEMA)
@replay(RIPPLING)
def rippling_create_and_retry(context: CheckContext, model: type[Resource[Any]]) -> list[CheckResult]:
    """Rippling creates a user with externalId, a primary email, name and employeeNumber, and retries a creation (RFC 7644 §3.3).

    Per two third-party sources (Kombo's Rippling SCIM article, help.kombo.dev;
    https://workos.com/docs/integrations/rippling-scim), which say Rippling
    expects its retried POST to be idempotent by externalId. One result for the
    creation (201, the values back), one for the same POST again: SUCCESS when
    it answers 409 (RFC 7644 §3.3 MUST for a duplicate userName) or the same
    user; ERROR when it creates a second user.
    """
    body = _rippling_body(model)
    made, target = create_step(context, RIPPLING, model, body)
    if target is None:
        return [made]
    return [made, *steps(context, [("retry the creation", partial(_retried, context, model, body, target))])]


def _retried(context: CheckContext, model: type[Resource[Any]], body: dict[str, Any], first: Target) -> CheckResult:
    response = send(context, RIPPLING, "POST", resource_path(context, model), body)
    request = f"POST {context.root_path(resource_path(context, model))} of the same user again"
    again = member(body_of(response), "id")
    if response.status_code == 409 or (response.status_code < 300 and str(again) == first.id):
        return CheckResult(Status.SUCCESS, reason=f"{request} answered {response.status_code} without creating a second user.", data=body_of(response))
    if response.status_code < 300:
        return CheckResult(
            Status.ERROR,
            reason=f"{request} answered {response.status_code} with another user, {again} (RFC 7644 §3.3: a duplicate userName MUST get 409).",
            data=body_of(response),
        )
    return CheckResult(Status.ERROR, reason=f"{request} answered {response.status_code} instead of 409 (RFC 7644 §3.3).", data=body_of(response))


@checker("idp", "idp:rippling", section="3")
def rippling_readiness(context: CheckContext, results: list[CheckResult]) -> list[CheckResult]:
    """Will Rippling provisioning work? READY when no Rippling step blocks it (the ``idp:rippling`` checks; idp_readiness.py).

    NOT READY naming the blocking steps, a DEVIATION (an ERROR with
    ``--require-ready rippling``); SKIPPED when no step ran. Sources
    (third-party): help.kombo.dev, https://workos.com/docs/integrations/rippling-scim.
    """
    return readiness(RIPPLING, context, results)
