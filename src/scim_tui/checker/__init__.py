"""The checker engine: runs SCIM compliance checks through a synchronous scim2-client.

No Textual, no profile, no disk I/O: anyone can call it from a script or a test.
"""

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
