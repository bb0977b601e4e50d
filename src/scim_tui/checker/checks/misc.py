"""Checks that fit no endpoint: how the server answers what it does not serve (RFC 7644 §3.12)."""

from __future__ import annotations

from scim_tui.checker.checks.probes import answers_not_found
from scim_tui.checker.checks.probes import unknown_id
from scim_tui.checker.context import CheckContext
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult


@checker("misc", section="3.12")
def random_url(context: CheckContext) -> list[CheckResult]:
    """A request to a URL the server does not serve answers 404 with a SCIM Error (RFC 7644 §3.12).

    SUCCESS on 404 with a valid SCIM Error body. ERROR on another status, or on a
    404 whose body is not a SCIM Error, since RFC 7644 §3.12 says errors MUST be
    returned as SCIM Error JSON bodies.
    """
    return answers_not_found(context, f"/{unknown_id()}")
