"""Describing the server under test from its discovery endpoints (SPEC.md §1 steps 1 and 2)."""

from __future__ import annotations

from typing import Any

from scim2_models import ListResponse
from scim2_models import ResourceType
from scim2_models import Schema
from scim2_models import ScimProvider
from scim2_models import ServiceProviderConfig

from scim_tui.checker.answers import expected
from scim_tui.checker.context import CheckContext
from scim_tui.checker.exchanges import describe_error

DISCOVERY_QUERY = {"expected_status_codes": [200], "raise_scim_errors": True}


def describe_server(context: CheckContext) -> str | None:
    """Register what the server publishes on the client, unless the client already describes it.

    What the discovery checks already fetched is reused. Returns why the server could not
    be described, or None.
    """
    client = context.client
    discovery = context.discovery
    try:
        provider: ScimProvider = client.provider
        config = provider.config or discovery.service_provider_config or expected(_fetch(client, ServiceProviderConfig), ServiceProviderConfig)
        if provider.models:
            client.provider = ScimProvider(provider.models, provider.resource_types, config, provider.policy)
            return None
        resource_types = discovery.resource_types or expected(_fetch(client, ResourceType), ListResponse).resources or []
        schemas = discovery.schemas or expected(_fetch(client, Schema), ListResponse).resources or []
        if not resource_types:
            return "the server publishes no resource type"
        client.provider = ScimProvider.from_discovery(schemas, resource_types, config, provider.policy)
    except Exception as exc:
        discovery.failure = describe_error(exc)
        return discovery.failure
    return None


def _fetch(client: Any, model: type) -> Any:
    return client.query(model, **DISCOVERY_QUERY)
