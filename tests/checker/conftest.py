"""Fixtures shared by the checker tests."""

from __future__ import annotations

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckContext
from scim_tui.checker import iter_checks
from tests.support.pets import pet_app
from tests.support.servers import make_client


@pytest.fixture
def described(serve):
    """A run's context on a fresh server with the Pet resource type, the server described; and its URL."""
    server = serve(pet_app())
    with make_client(server.url) as scim:
        list(iter_checks(scim, CheckConfig(include_tags={"discovery"})))
        yield CheckContext(scim), server.url
