"""The real `scim-tui` command against real scim2-servers on loopback: in a subprocess where
the process is the point (a whole run, signals, imports, secrets in every byte it prints),
else in the test's process through the same entry point (tests.support.command.scim_tui_here)."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys

import httpx2
import pytest

from scim_tui.checker import get_all_available_tags
from scim_tui.demo import make_app
from scim_tui.reports import FORMATS
from scim_tui.store import history
from scim_tui.store.profiles import Auth
from scim_tui.store.profiles import AuthKind
from scim_tui.store.profiles import Profile
from scim_tui.store.profiles import save_profile
from tests.support.command import one_line_error
from tests.support.command import scim_tui
from tests.support.command import scim_tui_here
from tests.support.command import spawn
from tests.support.servers import SCIM2_SERVER_BREAKS
from tests.support.servers import Broken
from tests.support.servers import Hanging
from tests.support.servers import scim_error

TOKEN = "scim-tui-test-token-5f0c2a9e71"
PASSING = ("--exclude-tags", ",".join(sorted(SCIM2_SERVER_BREAKS)))
"""Leaves out the checks scim2-server really fails, for a run that must pass."""
BROKEN_CHECKS = ("--include-tags", "service-provider-config")
"""The checks of /ServiceProviderConfig, where broken_url breaks a rule: a run of them fails."""
RESULT_LINE = re.compile(r"^(SUCCESS|COMPLIANT|ACCEPTABLE|DEVIATION|ERROR|CRITICAL|SKIPPED) +\S+ ", re.MULTILINE)


@pytest.fixture
def broken_url(serve):
    """A server that accepts PUT on /ServiceProviderConfig: one ERROR result."""
    return serve(Broken(make_app()).answer("PUT", "/v2/ServiceProviderConfig", 200, {"schemas": []})).url


@pytest.mark.slow
def test_a_conforming_server_passes(scim_server):
    process = scim_tui("check", "--url", scim_server.url, *PASSING)
    assert process.returncode == 0, process.stderr
    assert len(RESULT_LINE.findall(process.stdout)) > 20
    assert re.search(r"^\d+ checks · \d+ results · \d+ SUCCESS( · \d+ (COMPLIANT|ACCEPTABLE|SKIPPED))*$", process.stdout, re.MULTILINE)
    assert "Left on the server: nothing" in process.stdout
    assert "\x1b[" not in process.stdout, "colour on a pipe"
    assert process.stderr == ""


def test_a_broken_server_fails_with_exit_1(broken_url):
    process = scim_tui_here("check", "--url", broken_url, *BROKEN_CHECKS)
    assert process.returncode == 1
    assert re.search(r"^ERROR +service_provider_config_endpoint_methods +PUT /v2/ServiceProviderConfig answered 200", process.stdout, re.MULTILINE)
    assert " · 1 ERROR" in process.stdout


@pytest.mark.parametrize(("fail_on", "expected"), [("error", 1), ("deviation", 1), ("critical", 0)])
def test_fail_on_sets_the_worst_status_that_passes(broken_url, fail_on, expected):
    assert scim_tui_here("check", "--url", broken_url, *BROKEN_CHECKS, "--fail-on", fail_on).returncode == expected


def test_the_demo_target_runs_the_embedded_server():
    process = scim_tui_here("check", "--demo", "--include-tags", "discovery", *PASSING, "--format", "json")
    assert process.returncode == 0, process.stderr
    assert '"profile": "Demo"' in process.stdout


def test_selection_flags_follow_the_engine_rules(scim_server):
    selection = ("--include-tags", "schemas,misc", "--exclude-tags", "misc", "--resource-type", "Group")
    process = scim_tui_here("check", "--url", scim_server.url, *selection, "--format", "json")
    assert process.returncode == 0, process.stderr
    results = {(result["resource_type"], result["title"]): result for result in json.loads(process.stdout)["results"]}
    ran = {title for (_, title), result in results.items() if result["status"] == "SUCCESS"}
    assert ran and all(
        name in {"query_all_schemas", "access_schema_by_id", "access_invalid_schema", "core_schemas_validation", "schemas_endpoint_methods"} for name in ran
    )
    assert results[None, "random_url"]["reason"].startswith("Skipped: one of its tags matches exclude_tags")
    assert results["User", "query_resource_type_by_id"]["reason"].startswith("Skipped: resource type User is not in")


def test_the_report_goes_to_a_file_and_the_summary_to_stdout(broken_url, tmp_path):
    output = tmp_path / "report.xml"
    process = scim_tui_here("check", "--url", broken_url, *BROKEN_CHECKS, "--format", "junit", "--output", str(output))
    assert process.returncode == 1
    assert output.read_text().startswith("<?xml")
    failures, summary = process.stdout.split("\n", 2)[:2], process.stdout.split("\n", 2)[2]
    assert failures[0] == "Failing the run (1):", "the failures come first"
    assert re.match(r"^  ERROR +service_provider_config_endpoint_methods +PUT /v2/ServiceProviderConfig answered 200", failures[1])
    assert re.match(r"^\d+ checks · \d+ results · \d+ SUCCESS · (\d+ COMPLIANT · )?1 ERROR", summary)
    assert "<testsuite" not in process.stdout and "\x1b[" not in process.stdout, "no colour off a terminal"


def test_a_text_report_ends_with_the_failures_that_fail_the_run(broken_url, tmp_path):
    process = scim_tui_here("check", "--url", broken_url, *BROKEN_CHECKS, "--fail-on", "deviation")
    end = process.stdout[process.stdout.index("Left on the server") :].splitlines()[1:]
    assert end[0] == "Failing the run (1):" and "service_provider_config_endpoint_methods" in end[1] and len(end) == 2


def test_a_machine_format_on_stdout_keeps_the_summary_on_stderr(scim_server):
    process = scim_tui_here("check", "--url", scim_server.url, "--format", "json", "--include-tags", "misc")
    assert process.stdout.lstrip().startswith("{") and process.stdout.rstrip().endswith("}")
    assert re.match(r"^\d+ checks? · \d+ results? · ", process.stderr)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["check"], "one of the arguments --profile --url --demo is required"),
        (["check", "--demo", "--jobs", "0"], "'0' is not a whole number of checks run at once from 1 to 32: write e.g. --jobs 4"),
        (["check", "--demo", "--jobs", "33"], "'33' is not a whole number of checks run at once from 1 to 32: write e.g. --jobs 4"),
        (["check", "--demo", "--max-rate", "0"], "'0' is not a whole number of requests per second from 1 to 1000: write e.g. --max-rate 10"),
        (["check", "--demo", "--format", "pdf"], "invalid choice: 'pdf'"),
        (["check", "--demo", "--bogus"], "unrecognized arguments: --bogus"),
        (["check", "--demo", "--include-tags", "discovery,nope"], "Unknown tag nope in --include-tags: use one of auth, bodies, bodies:names"),
        (["check", "--demo", "--exclude-tags", "crud:nothing"], "Unknown tag crud:nothing in --exclude-tags"),
        (["check", "--demo", "--header", "X-A: b"], "--bearer-token-env and --header go with --url"),
        (["check", "--url", "http://127.0.0.1:9/v2", "--header", "no colon"], "--header 'no colon' is not 'Name: value'"),
        (["check", "--url", "ftp://example.com"], "is not an http(s) URL"),
        (["check", "--profile", "Nowhere"], "No profile named 'Nowhere'"),
        (["check", "--demo", "--output", "/nonexistent-dir/report.txt"], "the folder /nonexistent-dir does not exist"),
        (["demo-server", "--port", "70000"], "'70000' is not a port number"),
        (["--profile", "Nowhere"], "No profile named 'Nowhere'"),
        (["--demo", "--profile", "Demo"], "argument --profile: not allowed with argument --demo"),
    ],
)
def test_bad_usage_is_one_line_and_exit_2(args, message):
    assert message in one_line_error(scim_tui_here(*args))


def test_a_resource_type_the_server_lacks_is_bad_usage(scim_server):
    line = one_line_error(scim_tui_here("check", "--url", scim_server.url, "--resource-type", "Users", "--include-tags", "misc"))
    assert "The server has no resource type Users (--resource-type): use one of User, Group." in line


def test_an_unset_token_variable_is_bad_usage(scim_server):
    line = one_line_error(scim_tui_here("check", "--url", scim_server.url, "--bearer-token-env", "SCIM_TUI_TEST_UNSET"))
    assert line == "scim-tui: error: The environment variable SCIM_TUI_TEST_UNSET is not set: export it, or write the secret in the profile."


def test_an_unreachable_url_is_exit_2_without_traceback():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    line = one_line_error(scim_tui_here("check", "--url", f"http://someone:pa55word@127.0.0.1:{port}/v2"))
    assert f"Cannot reach http://***@127.0.0.1:{port}/v2: " in line


def test_refused_credentials_are_exit_2(serve):
    url = serve(Broken(make_app()).answer("GET", "/v2/ServiceProviderConfig", 401, scim_error(401))).url
    line = one_line_error(scim_tui_here("check", "--url", url, "--bearer-token-env", "WRONG_TOKEN", env={"WRONG_TOKEN": "not-the-token"}))
    assert f"{url} refused the credentials: 401 Unauthorized" in line
    assert line.endswith("send credentials with --url: --bearer-token-env VAR (a bearer token held in $VAR) or --header 'Name: value'."), line
    assert "profile" not in line  # there is none: --url names the target


def test_a_wrong_token_is_exit_2_though_the_server_config_needs_none(serve):
    url = serve(make_app(bearer_tokens=["the-token"])).url
    line = one_line_error(scim_tui_here("check", "--url", url, "--bearer-token-env", "WRONG_TOKEN", env={"WRONG_TOKEN": "not-the-token"}))
    assert f"{url} refused the credentials: GET /v2/ResourceTypes answered 401 Unauthorized" in line
    assert "not-the-token" not in line


def test_a_server_that_answers_discovery_badly_is_checked_not_refused(serve):
    url = serve(Broken(make_app()).answer("GET", "/v2/ServiceProviderConfig", 500, scim_error(500))).url
    process = scim_tui_here("check", "--url", url, "--include-tags", "service-provider-config")
    assert process.returncode == 1
    assert re.search(r"^ERROR +service_provider_config_endpoint +GET /v2/ServiceProviderConfig answered 500", process.stdout, re.MULTILINE)


@pytest.mark.slow
def test_the_token_is_in_no_output_and_no_history_file(serve):
    echo = scim_error(404, f"No such path; you sent Authorization: Bearer {TOKEN}")
    url = serve(Broken(make_app(bearer_tokens=[TOKEN])).answer("GET", "/v2/scim-tui-missing.*", 404, echo)).url
    save_profile(Profile(name="Secured", url=url, auth=Auth(kind=AuthKind.BEARER, token="env:SCIM_TUI_TEST_TOKEN")))
    env = {"SCIM_TUI_TEST_TOKEN": TOKEN}
    targets = (["--profile", "Secured"], ["--url", url, "--bearer-token-env", "SCIM_TUI_TEST_TOKEN"])
    printed = []
    for format in FORMATS:
        for target in targets:
            process = scim_tui_here("check", *target, "--format", format, "--include-tags", "misc,service-provider-config", env=env)
            assert process.returncode == 0, process.stderr
            printed += [process.stdout, process.stderr]
    full = scim_tui("check", "--profile", "Secured", *PASSING, "--format", "json", env=env)  # every check, in a new process
    assert full.returncode == 0, full.stderr + "\n".join(
        f"{r['status']} {r['title']} {r['reason']}" for r in json.loads(full.stdout)["results"] if r["status"] in ("ERROR", "CRITICAL")
    )
    saved = [history.run_json(path).decode() for path in history.runs("Secured")]
    assert len(saved) == len(FORMATS) + 1
    assert [text for text in [*printed, full.stdout, *saved] if TOKEN in text] == []
    assert "you sent Authorization: Bearer ***" in full.stdout, "the echoed token was in the data, redacted"


def test_tags_lists_every_tag_with_its_checks_and_what_it_selects():
    process = scim_tui_here("tags")
    assert process.returncode == 0
    lines = process.stdout.splitlines()
    assert [line.split()[0] for line in lines] == get_all_available_tags()
    assert all(re.match(r"^\S+ +\d+ checks? +\S", line) for line in lines), "a count and a description on every line"


@pytest.mark.slow
def test_the_checking_path_never_imports_textual():
    code = (
        "import sys, scim_tui.cli.main, scim_tui.cli.check, scim_tui.store.history, scim_tui.reports; assert 'textual' not in sys.modules, 'textual imported'"
    )
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False).returncode == 0


@pytest.mark.slow
def test_demo_server_serves_until_interrupted():
    server = spawn("demo-server")
    try:
        first = server.stdout.readline()
        url = re.search(r"at (http://127\.0\.0\.1:\d+/v2)", first).group(1)
        assert httpx2.get(f"{url}/ServiceProviderConfig").status_code == 200
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=10) == 0
        assert "Traceback" not in server.stderr.read()
    finally:
        server.kill()
        server.wait()


def test_demo_server_on_a_busy_port_is_bad_usage():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        line = one_line_error(scim_tui_here("demo-server", "--port", str(port)))
    assert f"cannot serve on port {port}: Address already in use: choose another --port." in line


@pytest.mark.slow
@pytest.mark.parametrize("jobs", ["1", "4"])
def test_ctrl_c_deletes_what_the_run_created_then_exits_130(serve, jobs):
    reading = Hanging()  # the read of a created resource is answered once Ctrl-C was pressed: the run is under way
    server = serve(Broken(make_app()).rewrite("GET", "/v2/(Users|Groups)/[^/]+", reading))
    run = spawn("check", "--url", server.url, "--jobs", jobs)
    try:
        assert reading.reached.wait(timeout=60), "the run never read a resource it created"
        run.send_signal(signal.SIGINT)
        reading.release()
        out, err = run.communicate(timeout=60)
    finally:
        reading.release()
        run.kill()
    assert run.returncode == 130, (out, err)
    assert re.fullmatch(r"scim-tui: Interrupted after \d+ results: the checks deleted what they had created\.\n", err)
    for endpoint in ("Users", "Groups"):
        assert httpx2.get(f"{server.url}/{endpoint}").json()["totalResults"] == 0, f"the run left {endpoint} behind"


def test_a_run_that_could_check_nothing_is_exit_2_saying_why_its_report_kept(serve, tmp_path):
    """The server cannot be described: every check is SKIPPED, and a CI gate must not pass."""
    server = serve(Broken(make_app()).answer("GET", "/v2/(ResourceTypes|Schemas)", 500, scim_error(500)))
    report = tmp_path / "report.json"
    process = scim_tui_here("check", "--url", server.url, "--include-tags", "crud", "--format", "json", "--output", str(report))
    line = one_line_error(process)
    assert line.startswith(f"scim-tui: error: No check could run on {server.url}: the server could not be described (GET /v2/ResourceTypes answered 500")
    assert {result["status"] for result in json.loads(report.read_text())["results"]} == {"SKIPPED"}
