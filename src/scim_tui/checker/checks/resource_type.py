"""The whole suite of one resource type, summed up (RFC 7644 §3)."""

from __future__ import annotations

from scim2_models import ResourceType

from scim_tui.checker.context import CheckContext
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult


@checker("crud", section="3")
def resource_type_tests(context: CheckContext, resource_type: ResourceType) -> list[CheckResult]:
    """The create, read, update and delete suite of one resource type passes (RFC 7644 §3).

    Runs every resource check on the resource type, then adds one result summing
    them up: SUCCESS when none failed; ERROR naming the checks that failed, or when
    no schema matches the resource type. In a run, the engine streams the checks one
    by one and adds this summary after them.
    """
    from scim_tui.checker.engine import resource_type_suite

    return list(resource_type_suite(context, resource_type))
