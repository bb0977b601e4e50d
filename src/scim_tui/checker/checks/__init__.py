"""The checkers, one module per area. Importing this package registers them, in run order."""

from scim_tui.checker.checks import service_provider_config  # noqa: F401
from scim_tui.checker.checks import resource_types  # noqa: F401
from scim_tui.checker.checks import schemas  # noqa: F401
from scim_tui.checker.checks import misc  # noqa: F401
from scim_tui.checker.checks import crud  # noqa: F401
from scim_tui.checker.checks import attributes  # noqa: F401
from scim_tui.checker.checks import replacement  # noqa: F401
from scim_tui.checker.checks import patch  # noqa: F401
from scim_tui.checker.checks import resource_type  # noqa: F401  (last: it sums up the others)
