"""A server that fails one check with an awkward body, and the CLI's report of a run on it."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from collections.abc import Iterator

import pytest

from scim_tui.demo import DemoServer
from scim_tui.demo import make_app
from scim_tui.reports import RunReport
from scim_tui.reports import write_report
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
    """The report of a run on the failing server (exit 1 asserted) in a format: JSON as the CLI
    writes it, the others written from that report read back. Each selection runs once a session,
    whatever the formats asked: the tests only read its report."""

    @functools.cache
    def run(*args: str) -> str:
        # Without the checks scim2-server really fails, the PUT is the run's one ERROR.
        passing = ("--exclude-tags", ",".join(sorted(SCIM2_SERVER_BREAKS)))
        process = scim_tui_here("check", "--url", failing_url, *passing, "--format", "json", *args)
        assert process.returncode == 1, process.stderr
        return process.stdout

    def report(format: str, *args: str) -> str:  # noqa: A002
        written = run(*args)
        return written if format == "json" else write_report(RunReport.from_dict(json.loads(written)), format)

    return report
