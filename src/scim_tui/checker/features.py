"""What a server claims to support in its ServiceProviderConfig (RFC 7643 §5).

The checks of optional features read it here: a feature the server does not claim
is SKIPPED, not an ERROR.
"""

from __future__ import annotations

from scim2_models import ServiceProviderConfig

from scim_tui.checker.context import CheckContext
from scim_tui.checker.discovery import read_config
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import SkipCause
from scim_tui.checker.results import Status

FEATURES = {
    "patch": "patch",
    "bulk": "bulk",
    "filter": "filter",
    "changePassword": "change_password",
    "sort": "sort",
    "etag": "etag",
}
"""The features of a ServiceProviderConfig that have a ``supported`` flag, by their SCIM name."""


def service_provider_config(context: CheckContext) -> ServiceProviderConfig | None:
    """The server's configuration: as described for the run, else read by this check; None when
    it cannot be read (service_provider_config_endpoint says why: it claims nothing, then)."""
    return getattr(context.client.provider, "config", None) or context.discovery.service_provider_config or read_config(context)


def claims(context: CheckContext, feature: str) -> bool:
    """Whether the server claims a feature (its SCIM name: "filter", "etag" ...) as supported."""
    support = getattr(service_provider_config(context), FEATURES[feature], None)
    return bool(support is not None and support.supported)


def unclaimed(context: CheckContext, feature: str) -> CheckResult | None:
    """A SKIPPED result when the server does not claim a feature, None when it does."""
    if claims(context, feature):
        return None
    if service_provider_config(context) is None:
        why = "the ServiceProviderConfig could not be read (service_provider_config_endpoint says why), so it claims no optional feature"
        return CheckResult(Status.SKIPPED, reason=f"Skipped: {why}.", skip_cause=SkipCause.PREREQUISITE)
    why = f"the ServiceProviderConfig does not claim {feature} support ({feature}.supported is not true)"
    return CheckResult(Status.SKIPPED, reason=f"Skipped: {why}.", skip_cause=SkipCause.NOT_CLAIMED)
