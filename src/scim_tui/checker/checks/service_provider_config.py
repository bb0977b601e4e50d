"""Checks of the /ServiceProviderConfig endpoint (RFC 7644 §4)."""

from __future__ import annotations

from scim2_models import ServiceProviderConfig

from scim_tui.checker.answers import expected
from scim_tui.checker.checks.probes import refuses_write_methods
from scim_tui.checker.context import CheckContext
from scim_tui.checker.discovery import query_config
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status


@checker("discovery", "service-provider-config", section="4")
def service_provider_config_endpoint(context: CheckContext) -> list[CheckResult]:
    """GET /ServiceProviderConfig answers a valid ServiceProviderConfig object (RFC 7644 §4).

    SUCCESS when it does (with the attributes RFC 9967 and the interoperability profile add to
    it, judged by their own checks); ERROR when the endpoint is unreachable, answers an
    unexpected status, or answers an object that is not a valid ServiceProviderConfig.
    """
    config = expected(query_config(context), ServiceProviderConfig)
    context.discovery.service_provider_config = config
    supported = [name for name in ("patch", "bulk", "filter", "change_password", "sort", "etag") if getattr(getattr(config, name, None), "supported", False)]
    features = ", ".join(supported) if supported else "no optional feature"
    return [CheckResult(Status.SUCCESS, reason=f"A valid ServiceProviderConfig, announcing {features}.", data=config)]


@checker("discovery", "service-provider-config", section="4")
def service_provider_config_endpoint_methods(context: CheckContext) -> list[CheckResult]:
    """POST, PUT, PATCH and DELETE on /ServiceProviderConfig answer 405 (RFC 7644 §4).

    The discovery endpoints are read-only. One result per method: SUCCESS on 405,
    ACCEPTABLE on 501 (a method the server does not implement at all, RFC 7644 §3.12
    Table 8), ERROR on any other status.
    """
    return refuses_write_methods(context, "/ServiceProviderConfig")
