"""The checkers, one module per area. Importing this package registers them, in run order.

SPEC.md's checkers come first; the checks beyond it (what real SCIM clients depend on: headers, meta, filtering,
pagination ...) follow in their own tags.
"""

from scim_tui.checker.checks import service_provider_config  # noqa: F401
from scim_tui.checker.checks import resource_types  # noqa: F401
from scim_tui.checker.checks import schemas  # noqa: F401
from scim_tui.checker.checks import discovery_documents  # noqa: F401
from scim_tui.checker.checks import misc  # noqa: F401
from scim_tui.checker.checks import me  # noqa: F401
from scim_tui.checker.checks import crud  # noqa: F401
from scim_tui.checker.checks import attributes  # noqa: F401
from scim_tui.checker.checks import replacement  # noqa: F401
from scim_tui.checker.checks import patch  # noqa: F401
from scim_tui.checker.checks import patch_paths  # noqa: F401
from scim_tui.checker.checks import headers  # noqa: F401
from scim_tui.checker.checks import meta  # noqa: F401
from scim_tui.checker.checks import filtering  # noqa: F401
from scim_tui.checker.checks import pagination  # noqa: F401
from scim_tui.checker.checks import cursor_pagination  # noqa: F401
from scim_tui.checker.checks import sorting  # noqa: F401
from scim_tui.checker.checks import projection  # noqa: F401
from scim_tui.checker.checks import versioning  # noqa: F401
from scim_tui.checker.checks import errors  # noqa: F401
from scim_tui.checker.checks import not_found  # noqa: F401
from scim_tui.checker.checks import bodies  # noqa: F401
from scim_tui.checker.checks import nulls  # noqa: F401
from scim_tui.checker.checks import returned  # noqa: F401
from scim_tui.checker.checks import bulk  # noqa: F401
from scim_tui.checker.checks import events  # noqa: F401
from scim_tui.checker.checks import authentication  # noqa: F401
from scim_tui.checker.checks import idp_entra  # noqa: F401
from scim_tui.checker.checks import idp_okta  # noqa: F401
from scim_tui.checker.checks import idp_okta_oin  # noqa: F401
from scim_tui.checker.checks import idp_gallery  # noqa: F401
from scim_tui.checker.checks import idp_gallery_users  # noqa: F401
from scim_tui.checker.checks import idp_gallery_groups  # noqa: F401
from scim_tui.checker.checks import idp_gallery_scim  # noqa: F401
from scim_tui.checker.checks import idp_gallery_direct  # noqa: F401
from scim_tui.checker.checks import idp_platforms  # noqa: F401
from scim_tui.checker.checks import idp_workforce  # noqa: F401
from scim_tui.checker.checks import interop  # noqa: F401
from scim_tui.checker.checks import resource_type  # noqa: F401  (last: it sums up the others)
