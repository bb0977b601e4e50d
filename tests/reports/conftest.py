"""A server that fails one check with an awkward body, and the CLI's report of a run on it."""

from __future__ import annotations

import subprocess

import pytest

from scim_tui.demo import make_app
from tests.command import scim_tui
from tests.servers import SCIM2_SERVER_BREAKS
from tests.servers import Broken

AWKWARD_BODY = "accepted \x01 ```` and | pipes"
AWKWARD_SHOWN = AWKWARD_BODY.replace("\x01", "\u2401")
"""The body as every report shows it: the engine makes control characters visible at capture."""
"""A body with a control character XML cannot hold and a fence Markdown must not close on."""


@pytest.fixture
def failing_url(serve) -> str:
    """A server that accepts PUT on /ServiceProviderConfig (one ERROR) and answers it an awkward body."""
    broken = Broken(make_app()).answer("PUT", "/v2/ServiceProviderConfig", 200, AWKWARD_BODY.encode(), headers=[("Content-Type", "text/plain")])
    return serve(broken).url


@pytest.fixture
def report_of(failing_url):
    """The report the CLI writes, in a format, for a run on the failing server (exit 1 asserted)."""

    def run(format: str, *args: str) -> str:  # noqa: A002
        # Without the checks scim2-server really fails, the PUT is the run's one ERROR.
        passing = ("--exclude-tags", ",".join(sorted(SCIM2_SERVER_BREAKS)))
        process: subprocess.CompletedProcess[str] = scim_tui("check", "--url", failing_url, *passing, "--format", format, *args)
        assert process.returncode == 1, process.stderr
        return process.stdout

    return run
