"""The checker engine: runs SCIM compliance checks through a synchronous scim2-client.

No Textual, no profile, no disk I/O: anyone can call it from a script or a test.
"""

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scim_tui.checker.context import CheckContext
    from scim_tui.checker.engine import check_server
    from scim_tui.checker.engine import iter_checks
    from scim_tui.checker.exchanges import Exchange
    from scim_tui.checker.registry import get_all_available_tags
    from scim_tui.checker.results import CheckConfig
    from scim_tui.checker.results import CheckId
    from scim_tui.checker.results import CheckResult
    from scim_tui.checker.results import SCIMTesterError
    from scim_tui.checker.results import Status

_HOMES = {
    "check_server": "engine",
    "iter_checks": "engine",
    "get_all_available_tags": "registry",
    "CheckConfig": "results",
    "CheckContext": "context",
    "CheckId": "results",
    "CheckResult": "results",
    "Exchange": "exchanges",
    "SCIMTesterError": "results",
    "Status": "results",
}
"""Where each name lives: importing the package loads none of them, so a caller that needs only
the results (the app's first screen, the reports) does not load the engine and scim2-client."""
__all__ = [
    "check_server",
    "iter_checks",
    "get_all_available_tags",
    "CheckConfig",
    "CheckContext",
    "CheckId",
    "CheckResult",
    "Exchange",
    "SCIMTesterError",
    "Status",
]


def __getattr__(name: str) -> object:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
    globals()[name] = value
    return value
