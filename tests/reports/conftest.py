"""A server that fails one check with an awkward body, and the CLI's report of a run on it."""

from __future__ import annotations

import functools
from collections.abc import Callable
from collections.abc import Iterator

import pytest

from scim_tui.demo import DemoServer
from scim_tui.demo import make_app
from tests.support.command import scim_tui_here
from tests.support.servers import SCIM2_SERVER_BREAKS
from tests.support.servers import Broken

AWKWARD_BODY = "accepted \x01 ```` and | pipes"
AWKWARD_SHOWN = AWKWARD_BODY.replace("\x01", "\u2401")
"""The body as every report shows it: the engine makes control characters visible at capture."""
"""A body with a control character XML cannot hold and a fence Markdown must not close on."""


@pytest.fixture(scope="session")
def failing_url() -> Iterator[str]:
    """A server that accepts PUT on /ServiceProviderConfig (one ERROR) and answers it an awkward
    body. Shared by the session: a run leaves it as it found it."""
    broken = Broken(make_app()).answer("PUT", "/v2/ServiceProviderConfig", 200, AWKWARD_BODY.encode(), headers=[("Content-Type", "text/plain")])
    with DemoServer(broken) as server:
        yield server.url


@pytest.fixture(scope="session")
def report_of(failing_url) -> Callable[..., str]:
    """The report the CLI writes, in a format, for a run on the failing server (exit 1 asserted).
    Each run is made once a session: the tests only read its report."""

    @functools.cache
    def run(format: str, *args: str) -> str:  # noqa: A002
        # Without the checks scim2-server really fails, the PUT is the run's one ERROR.
        passing = ("--exclude-tags", ",".join(sorted(SCIM2_SERVER_BREAKS)))
        process = scim_tui_here("check", "--url", failing_url, *passing, "--format", format, *args)
        assert process.returncode == 1, process.stderr
        return process.stdout

    return run
