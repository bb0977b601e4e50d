"""What `scim-tui check` prints at the end of a run: counts that agree with the lines listed,
and no line for each check the selection left out."""

from __future__ import annotations

import re

from scim_tui.demo import make_app
from tests.support.command import scim_tui_here
from tests.support.servers import Broken
from tests.support.servers import scim_error

RESULT = re.compile(r"^(SUCCESS|COMPLIANT|ACCEPTABLE|DEVIATION|ERROR|CRITICAL|SKIPPED) +\S+ ", re.MULTILINE)


def test_the_failing_lines_agree_with_the_counts(serve):
    """A suite's summary restates its suite's failures: counted apart, as the counts leave it out."""
    server = serve(Broken(make_app()).answer("GET", "/v2/Users", 500, scim_error(500)))
    process = scim_tui_here("check", "--url", server.url, "--include-tags", "crud", "--resource-type", "User")
    assert process.returncode == 1
    errors = int(re.search(r"^\d+ checks · \d+ results · .*\b(\d+) ERROR\b", process.stdout, re.MULTILINE).group(1))
    heading = re.search(r"^Failing the run \((.*)\):$", process.stdout, re.MULTILINE).group(1)
    assert heading == f"{errors}, and 1 suite summary"
    listed = process.stdout.split("Failing the run", 1)[1].splitlines()[1:]
    assert sum(line.startswith("  ERROR") for line in listed) == errors + 1


def test_checks_left_out_by_the_selection_get_one_line_not_one_each(scim_server):
    process = scim_tui_here("check", "--url", scim_server.url, "--include-tags", "misc")
    assert process.returncode == 0, process.stderr
    assert "none of its tags matches" not in process.stdout
    assert len(RESULT.findall(process.stdout)) == 1, "random_url, the one check of misc"
    left_out = re.search(r"^\((\d+) checks left out by the selection, not run\)$", process.stdout, re.MULTILINE)
    assert left_out and int(left_out.group(1)) > 50
