"""A run of the identity-provider replays, without the gallery's and the OIN's own suites."""

from __future__ import annotations

from scim_tui.checker import CheckConfig
from scim_tui.checker import iter_checks
from tests.support.servers import make_client

GALLERY = "idp:entra:gallery"


OIN = "idp:okta:oin"
"""Microsoft's gallery validation and Okta's OIN suites have tests of their own (test_idp_gallery.py,
test_idp_oin.py): left out here."""


def run(url: str, **options) -> list:
    with make_client(url) as scim:
        return list(iter_checks(scim, CheckConfig(**{"include_tags": {"idp:entra", "idp:okta"}, "exclude_tags": {GALLERY, OIN}, **options})))
