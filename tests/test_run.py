"""The one run pipeline (scim_tui.run): the command and the app make the same run of one server,
and a target that is not a SCIM server stops before any check, in one line."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from scim_tui.checker import CheckResult
from scim_tui.demo import make_app
from scim_tui.run import RunOptions
from scim_tui.run import Stage
from scim_tui.run import run
from scim_tui.selection import Selection
from scim_tui.store import history
from scim_tui.store.profiles import Auth
from scim_tui.store.profiles import AuthKind
from scim_tui.store.profiles import Profile
from scim_tui.store.profiles import save_profile
from scim_tui.tui.messages import ResultsBatch
from scim_tui.tui.messages import RunFinished
from scim_tui.tui.runner import Runner
from scim_tui.tui.runner import RunRequest
from tests.support.command import one_line_error
from tests.support.command import scim_tui_here
from tests.support.servers import Broken
from tests.support.servers import http_client
from tests.support.servers import stored

TAGS = ["discovery", "crud:create"]
"""Checks of discovery and of creation: results with reasons, resources created and deleted."""
RUN_IDS = re.compile(r"[0-9a-f]{8}[0-9a-f-]*")
NOT_SCIM = "is not a SCIM server ("
HTML = [("Content-Type", "text/html; charset=utf-8")]


def app_run(profile: Profile, selection: Selection) -> tuple[list[Any], RunFinished]:
    """A run as the app makes it: the run screen's worker (Runner), its messages kept."""
    messages: list[Any] = []
    Runner(messages.append, lambda: False).run(RunRequest(1, profile, selection))
    finished = messages[-1]
    assert isinstance(finished, RunFinished), messages
    return messages, finished


def outcomes(results: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """Each result's check, status and reason, the ids the run made up (or the server gave) left out."""
    return [(result["check_id"], result["status"], RUN_IDS.sub("…", result["reason"] or "")) for result in results]


def test_the_command_and_the_app_give_the_same_report_for_one_server(scim_server, tmp_path):
    profile = Profile(name="Same", url=scim_server.url)
    save_profile(profile)
    output = tmp_path / "report.json"
    process = scim_tui_here("check", "--profile", "Same", "--format", "json", "--output", str(output), *(f"--include-tags={tag}" for tag in TAGS))
    assert process.returncode in (0, 1), process.stderr
    command = json.loads(output.read_text())

    messages, finished = app_run(profile, Selection(include_tags=TAGS))
    assert finished.error is None and finished.report is not None
    app = finished.report.to_dict()
    assert outcomes(app["results"]) == outcomes(command["results"])
    assert [result for message in messages if isinstance(message, ResultsBatch) for result in message.results] == finished.report.results
    assert {key: app[key] for key in ("target", "profile", "selection", "counts", "leftovers")} == {
        key: command[key] for key in ("target", "profile", "selection", "counts", "leftovers")
    }
    assert len(history.runs("Same")) == 2, "both runs are kept in the history"
    assert finished.changes is not None and not finished.changes, "the app's run compared with the command's: nothing changed"
    assert stored(scim_server.url) == []


@pytest.fixture(params=["one level off", "an HTML site"])
def not_scim(request, serve) -> str:
    """A base URL that reaches no SCIM server: a level below the SCIM endpoints, or a web site."""
    if request.param == "one level off":
        return serve(make_app()).url + "/scim"
    return serve(Broken(make_app()).answer(None, "/.*", 200, b"<!doctype html><html><body>Welcome</body></html>", HTML)).url


def test_a_base_url_that_is_no_scim_server_stops_the_command_before_the_checks(not_scim, tmp_path):
    output = tmp_path / "report.json"
    process = scim_tui_here("check", "--url", not_scim, "--output", str(output), "--format", "json")
    line = one_line_error(process)
    assert process.returncode == 2
    assert line.startswith(f"scim-tui: error: {not_scim} {NOT_SCIM}GET /"), line
    assert "/ServiceProviderConfig answered " in line and "/ResourceTypes answered " in line
    assert line.endswith("check the URL, it should be the base of the SCIM endpoints (e.g. https://example.com/scim/v2).")
    assert not output.exists(), "no report of checks that never ran"


def test_a_base_url_that_is_no_scim_server_is_one_line_in_the_app(not_scim):
    messages, finished = app_run(Profile(name="Off", url=not_scim), Selection())
    assert finished.report is None and not any(isinstance(message, ResultsBatch) for message in messages)
    assert finished.error is not None and finished.error.startswith(f"{not_scim} {NOT_SCIM}")
    assert "\n" not in finished.error


def test_a_server_serving_one_discovery_document_is_for_the_checks_to_judge(serve, tmp_path):
    server = serve(Broken(make_app()).answer("GET", "/v2/ServiceProviderConfig", 404, b""))
    output = tmp_path / "report.json"
    process = scim_tui_here("check", "--url", server.url, "--include-tags", "service-provider-config", "--format", "json", "--output", str(output))
    assert process.returncode == 1, process.stderr
    assert any(result["status"] == "ERROR" for result in json.loads(output.read_text())["results"])


def test_discovery_documents_supplied_stand_in_for_those_the_server_does_not_serve(serve, scim_server, tmp_path):
    server = serve(Broken(make_app()).answer("GET", r"/v2/(ServiceProviderConfig|ResourceTypes)", 404, b""))
    path = tmp_path / "resource_types.json"
    with http_client(scim_server.url) as http:
        path.write_text(http.get("/ResourceTypes").text)
    output = tmp_path / "report.json"
    process = scim_tui_here(
        "check", "--url", server.url, "--resource-types", str(path), "--include-tags", "crud:create", "--format", "json", "--output", str(output)
    )
    assert process.returncode == 0, process.stderr
    assert {result["status"] for result in json.loads(output.read_text())["results"]} >= {"SUCCESS"}


class Kept:
    """An observer that keeps the results it is told of."""

    def __init__(self) -> None:
        self.results: list[CheckResult] = []

    def stage(self, stage: Stage) -> None:
        pass

    def planned(self, total: int, whole: bool) -> None:
        pass

    def result(self, result: CheckResult) -> None:
        self.results.append(result)

    def waiting(self, line: str | None) -> None:
        pass

    def note(self, line: str) -> None:
        pass

    def cancelled(self) -> bool:
        return False


def test_a_results_data_is_json_whether_or_not_the_profile_has_secrets(scim_server):
    """Redacted once, as each result comes: the same form of data with secrets to take out or without."""
    keyed = Profile(name="Keyed", url=scim_server.url, auth=Auth(kind=AuthKind.HEADERS, headers={"X-Api-Key": "scim-tui-test-key-93b1"}))
    kinds = []
    for profile in (Profile(name="Open", url=scim_server.url), keyed):
        observer = Kept()
        outcome = run(profile, Selection(include_tags=["service-provider-config", "crud:read"]), observer, RunOptions(record=False))
        assert outcome is not None and outcome.report.results == observer.results
        assert any(isinstance(result.data, dict) for result in observer.results)
        kinds.append({str(result.check_id): type(result.data) for result in observer.results})
        assert all(kind in (dict, list, str, type(None)) for kind in kinds[-1].values()), kinds[-1]
    assert kinds[0] == kinds[1]
