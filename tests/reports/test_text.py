"""The text report: a line per result, a summary with the leftovers, colour only on a terminal."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys

import pytest

from scim_tui.demo import make_app
from scim_tui.reports.text import LEFTOVERS_NAMED
from tests.support.command import scim_tui_here
from tests.support.servers import Broken
from tests.support.servers import scim_error

RESULT = re.compile(r"^(SUCCESS|COMPLIANT|ACCEPTABLE|DEVIATION|ERROR|CRITICAL|SKIPPED) +(\S+)  ", re.MULTILINE)


@pytest.mark.slow
def test_one_line_per_result_then_the_summary(report_of):
    output = report_of("text")
    lines = RESULT.findall(output)
    summary = re.search(r"^\d+ checks · (\d+) results · (.*)$", output, re.MULTILINE)
    summaries = sum(name.endswith("resource_type_tests") for _, name in lines)
    deselected = len(re.findall(r"^SKIPPED +\S+ +Skipped: ((none|one) of its tags matches|its tag \S+ is opt-in)", output, re.MULTILINE))
    assert len(lines) - summaries - deselected == int(summary.group(1)), "a suite's summary, a check left out: not counted"
    counts = dict(reversed(part.split(" ")) for part in summary.group(2).split(" · "))
    assert int(counts["ERROR"]) == sum(status == "ERROR" for status, _ in lines) == 1
    assert re.search(r"^Target http://127\.0\.0\.1:\d+/v2 · started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC · \d+\.\d s$", output, re.MULTILINE)


def test_resources_that_could_not_be_deleted_are_listed(serve):
    server = serve(Broken(make_app()).answer("DELETE", "/v2/Groups/.*", 500, scim_error(500)))
    process = scim_tui_here("check", "--url", server.url, "--resource-type", "Group", "--include-tags", "crud:create,crud:delete")
    assert process.returncode == 1
    leftovers = re.search(
        r"^Left on the server: (\d+) resources? \(delete them by hand\): (.*?)(?: and \d+ more \(the JSON report names them all\))?$",
        process.stdout,
        re.MULTILINE,
    )
    assert leftovers, process.stdout[-2000:]
    named = leftovers.group(2).split(", ")
    assert all(re.fullmatch(r"Group/[\w-]+", item) for item in named) and len(named) == min(int(leftovers.group(1)), LEFTOVERS_NAMED)


def run_on_a_terminal(*args: str, no_color: bool = False) -> str:
    """Run the CLI with its standard output on a pseudo-terminal, and return what it printed."""
    controller, terminal = pty.openpty()
    env = {key: value for key, value in os.environ.items() if key != "NO_COLOR"}
    if no_color:
        env["NO_COLOR"] = "1"
    with subprocess.Popen([sys.executable, "-m", "scim_tui.cli", *args], stdout=terminal, stderr=subprocess.DEVNULL, env=env) as process:
        os.close(terminal)
        chunks = []
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # the terminal closed
                break
            if not chunk:
                break
            chunks.append(chunk)
        process.wait(timeout=60)
    os.close(controller)
    return b"".join(chunks).decode()


@pytest.mark.slow
def test_statuses_are_coloured_on_a_terminal(failing_url):
    output = run_on_a_terminal("check", "--url", failing_url, "--include-tags", "service-provider-config")
    assert "\x1b[31mERROR     \x1b[0m  service_provider_config_endpoint_methods" in output
    assert "\x1b[32mSUCCESS   \x1b[0m  service_provider_config_endpoint" in output


@pytest.mark.slow
def test_no_color_turns_colour_off(failing_url):
    output = run_on_a_terminal("check", "--url", failing_url, "--include-tags", "service-provider-config", no_color=True)
    assert "ERROR       service_provider_config_endpoint_methods" in output
    assert "\x1b[" not in output


@pytest.mark.slow
def test_the_reasons_stand_in_one_column(report_of):
    """The text report's columns line up."""
    lines = [line for line in report_of("text").splitlines() if RESULT.match(line)]
    starts = {len(line) - len(line[RESULT.match(line).end() :].lstrip()) for line in lines}
    assert len(lines) > 10 and len(starts) == 1, "each reason starts at the same column"
