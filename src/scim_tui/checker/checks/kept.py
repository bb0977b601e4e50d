"""Values a creation carried that the server did not keep (a Group created without the members
its POST carried, as servers that take members by PATCH only do).

object_creation reports that once. A check that needs a resource holding them adds them by PATCH
add; when it cannot (PATCH not claimed, or refused), the step is SKIPPED naming the creation,
instead of failing for what the creation did.
"""

from __future__ import annotations

from typing import Any

from scim_tui.checker.checks.comparison import missing
from scim_tui.checker.checks.crud import resource_path
from scim_tui.checker.checks.crud import with_requested
from scim_tui.checker.checks.patch import Target
from scim_tui.checker.checks.patch import send_patch
from scim_tui.checker.context import CheckContext
from scim_tui.checker.exchanges import failure_reason
from scim_tui.checker.features import claims
from scim_tui.checker.filling import Attribute


def held(context: CheckContext, target: Target, attribute: Attribute, values: list[dict[str, Any]]) -> str | None:
    """None once the resource holds every value, added by PATCH add when its creation dropped
    them; else why it does not, for the step that needs them to say it is SKIPPED."""
    target.current = with_requested(context, target.model, target.id, target.current, [attribute.name])
    lacking = missing(target.current, attribute, values)
    if not lacking:
        return None
    model = target.model.__name__
    creation = (
        f"POST {context.root_path(resource_path(context, target.model))} created the {model} without the "
        f"{attribute.name} it carried (object_creation reports it)"
    )
    if not claims(context, "patch"):
        return f"{creation}, and the ServiceProviderConfig does not claim PATCH to add them"
    mark = len(context.exchanges)
    try:
        seen, _source = send_patch(context, target, [{"op": "add", "path": attribute.name, "value": lacking}])
    except Exception as exc:
        return f"{creation}, and adding them failed: {failure_reason(exc, context.exchanges[mark:])}"
    target.current = seen  # with the attribute read by asking, when the schema returns it only on request (send_patch)
    if missing(seen, attribute, values):
        return f"{creation}, and a PATCH add of them left them out too"
    return None
