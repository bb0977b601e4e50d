"""The HAR export: every exchange of a run as HTTP Archive 1.2, each entry commented with
its check, redacted like every output."""

from __future__ import annotations

import json
from datetime import UTC
from datetime import datetime
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from scim_tui.checker import CheckResult
from scim_tui.checker import Exchange
from scim_tui.checker import Status
from scim_tui.checker.pacing import STATUS_RULES
from scim_tui.demo import make_app
from scim_tui.reports import RunReport
from scim_tui.reports import write_report
from scim_tui.reports.har import RUN_OWN
from tests.reports.conftest import AWKWARD_SHOWN
from tests.support.command import scim_tui_here
from tests.support.secrets import echoing_server
from tests.support.servers import Busy

HAR_SCHEMA = json.loads((Path(__file__).parent / "har-1.2.schema.json").read_text())
TOKEN = "scim-tui-har-secret-0b9e77d4"


def validate(document: dict) -> None:
    Draft202012Validator.check_schema(HAR_SCHEMA)
    Draft202012Validator(HAR_SCHEMA).validate(document)


def test_a_run_written_as_har_is_http_archive_1_2_with_each_entry_commented_by_its_check(failing_url, tmp_path):
    har, report = tmp_path / "run.har", tmp_path / "run.json"
    process = scim_tui_here(
        "check", "--url", failing_url, "--include-tags", "service-provider-config", "--har", str(har), "--format", "json", "--every-exchange", "-o", str(report)
    )
    assert process.returncode == 1, process.stderr
    document = json.loads(har.read_text())
    validate(document)
    entries = document["log"]["entries"]
    saved = json.loads(report.read_text())
    results = saved["results"]
    distinct = {json.dumps(exchange, sort_keys=True) for exchange in [*saved["run_exchanges"], *(e for result in results for e in result["exchanges"])]}
    assert len(entries) == len(distinct) > 3, "every exchange, once"
    checks = {result["check_id"] for result in results}
    assert all(entry["comment"].split(" (")[0] in checks or entry["comment"].startswith(RUN_OWN) for entry in entries)
    [put] = [entry for entry in entries if entry["request"]["method"] == "PUT"]
    assert put["comment"] == "service_provider_config_endpoint_methods (ERROR) · the request judged"
    assert put["response"]["status"] == 200 and put["response"]["statusText"] == "OK"
    assert put["response"]["content"] == {"size": len(AWKWARD_SHOWN.encode()), "mimeType": "text/plain", "text": AWKWARD_SHOWN}
    sent_type = next(h["value"] for h in put["request"]["headers"] if h["name"].lower() == "content-type")
    assert put["request"]["postData"] == {"mimeType": sent_type, "text": "{}"}


class Counted:
    """A WSGI middleware that counts the requests the server received."""

    def __init__(self, app):
        self.app = app
        self.received = 0

    def __call__(self, environ, start_response):
        self.received += 1
        return self.app(environ, start_response)


@pytest.mark.slow  # every check
def test_the_har_and_the_json_report_hold_every_request_the_server_received_each_with_its_own_time(serve, tmp_path):
    """Once, a run's HAR held 249 of 396 requests (no fixture, no clean-up, some discovery),
    each starting at the run's start."""
    counted = Counted(make_app())
    server = serve(counted)
    har, report = tmp_path / "run.har", tmp_path / "run.json"
    process = scim_tui_here("check", "--url", server.url, "--har", str(har), "--format", "json", "--every-exchange", "-o", str(report))
    assert process.returncode == 1, process.stderr
    entries = json.loads(har.read_text())["log"]["entries"]
    assert len(entries) == counted.received, "every request the server received is an entry, once"
    started = [entry["startedDateTime"] for entry in entries]
    assert started == sorted(started) and len(set(started)) > len(started) / 2, "in the order they were sent, each at its own time"
    assert all(entry["time"] > 0 for entry in entries)
    own = [entry for entry in entries if entry["comment"].startswith(RUN_OWN)]
    assert {entry["request"]["method"] for entry in own} >= {"GET", "DELETE"}, "discovery, and the clean-up of the resources the checks share"
    assert any(entry["comment"] == f"{RUN_OWN} · clean-up: delete the User" for entry in own), "a clean-up says what it was for"
    saved = json.loads(report.read_text())
    sent = {(e["started"], e["method"], e["url"]) for e in [*saved["run_exchanges"], *(e for result in saved["results"] for e in result["exchanges"])]}
    assert len(sent) == counted.received, "the JSON report holds every request too, asked for them"


def test_a_request_without_an_answer_is_status_0_with_the_reason_in_its_comment():
    lost = Exchange(
        method="GET", url="http://127.0.0.1:9/v2/Users?count=1", request_headers={"Accept": "application/scim+json"}, elapsed=5.0, error="no answer within 5 s"
    )
    result = CheckResult(Status.ERROR, title="object_query", resource_type="User", exchanges=[lost], reason="lost")
    document = json.loads(write_report(RunReport("http://127.0.0.1:9/v2", datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), 5.0, [result]), "har"))
    validate(document)
    [entry] = document["log"]["entries"]
    assert entry["response"]["status"] == 0 and entry["response"]["bodySize"] == -1
    assert entry["comment"] == "User/object_query (ERROR) · the request judged · no response: no answer within 5 s"
    assert entry["request"]["queryString"] == [{"name": "count", "value": "1"}]
    assert entry["startedDateTime"] == "2026-01-02T03:04:05.000+00:00" and entry["time"] == 5000


@pytest.mark.slow
def test_no_secret_reaches_the_har(serve, tmp_path):
    har = tmp_path / "run.har"
    url = echoing_server(serve, TOKEN)
    process = scim_tui_here("check", "--url", url, "--bearer-token-env", "HAR_TOKEN", "--har", str(har), env={"HAR_TOKEN": TOKEN})
    text = har.read_text()
    assert TOKEN not in text and TOKEN not in process.stdout + process.stderr
    headers = [h for entry in json.loads(text)["log"]["entries"] for h in entry["request"]["headers"] if h["name"].lower() == "authorization"]
    assert headers and {h["value"] for h in headers} == {"***"}
    assert "Bearer ***" in text, "the echoed token was in a body, redacted"


@pytest.mark.parametrize("status", [429, 503])
def test_each_attempt_of_a_request_the_server_answered_busy_is_an_entry_of_its_own(serve, tmp_path, status):
    """A request answered 429 or 503 (Retry-After: 0) and sent again is two requests to the
    server: two entries, each with its own start and answer, the judged one last (RFC 6585 §4,
    RFC 7231 §7.1.3). Once, both were one entry with a note."""
    busy = Busy(make_app(), status, every=3, retry_after="0")
    server = serve(busy)
    har, report = tmp_path / "run.har", tmp_path / "run.json"
    # one job: a request sent again is the next one the server sees, never answered busy twice
    process = scim_tui_here(
        "check",
        "--url",
        server.url,
        "--include-tags",
        "crud",
        "--resource-type",
        "User",
        "--jobs",
        "1",
        "--har",
        str(har),
        "--format",
        "json",
        "--every-exchange",
        "-o",
        str(report),
    )
    assert process.returncode == 0, process.stdout + process.stderr
    entries = json.loads(har.read_text())["log"]["entries"]
    assert busy.answered > 2 and len(entries) == busy.requests, "every request the server received is an entry, busy answers included"
    assert sum(entry["response"]["status"] == status for entry in entries) == busy.answered
    saved = json.loads(report.read_text())
    exchanges = [*saved["run_exchanges"], *(e for result in saved["results"] for e in result["exchanges"])]
    assert len({(e["started"], e["method"], e["url"]) for e in exchanges}) == busy.requests, "the JSON report holds every attempt too"
    pairs = [(result["exchanges"][n], result["exchanges"][n + 1]) for result in saved["results"] for n, e in enumerate(result["exchanges"]) if e["resent"]]
    assert pairs, "a check's result holds the attempts of its requests"
    for first, again in pairs:
        assert (first["method"], first["url"], first["request_body"]) == (again["method"], again["url"], again["request_body"])
        assert first["status_code"] == status and again["status_code"] != status and not again["resent"]
        assert first["started"] < again["started"] and first["role"] == again["role"]
        assert f"answered {status} (Retry-After: 0 s): the server was too busy, so the request was sent again after 0 s" in first["note"]
        assert again["note"].endswith(f"sent again after the 0 s wait the {status} answer before it asked for ({STATUS_RULES[status]}, RFC 7231 §7.1.3)")
