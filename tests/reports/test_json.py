"""The JSON report: valid against the documented schema, and the one serialization of a run."""

from __future__ import annotations

import json
import re
from importlib.resources import files
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from scim_tui.reports import RunReport
from scim_tui.reports.saved import SavedExchange
from scim_tui.reports.saved import SavedReport
from scim_tui.reports.saved import SavedResult
from scim_tui.reports.saved import SavedTool
from scim_tui.reports.saved import SavedVerdict
from scim_tui.reports.saved import json_schema
from tests.support.command import scim_tui_here

SCHEMA = json.loads((files("scim_tui.reports") / "report.schema.json").read_text())
DOC = Path(__file__).parents[2] / "docs" / "report-format.md"


def validate(document: dict) -> None:
    Draft202012Validator.check_schema(SCHEMA)
    Draft202012Validator(SCHEMA, format_checker=Draft202012Validator.FORMAT_CHECKER).validate(document)


@pytest.mark.slow
def test_a_full_run_validates_against_the_schema(report_of):
    document = json.loads(report_of("json"))
    validate(document)
    assert document["schema_version"] == 1
    uncounted = [r for r in document["results"] if r["title"] == "resource_type_tests" or r["skip_cause"] == "deselected"]
    assert document["counts"]["ERROR"] >= 1 and sum(document["counts"].values()) == len(document["results"]) - len(uncounted)
    failed = next(r for r in document["results"] if r["status"] == "ERROR")
    assert failed["check_id"] == "service_provider_config_endpoint_methods"
    assert failed["exchanges"][0]["method"] == "PUT" and failed["exchanges"][0]["status_code"] == 200
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+\+00:00", document["started_at"])


def test_models_are_serialised_as_scim_json(report_of):
    document = json.loads(report_of("json", "--include-tags", "service-provider-config"))
    config = next(r["data"] for r in document["results"] if r["check_id"] == "service_provider_config_endpoint")
    assert "changePassword" in config and "change_password" not in config
    assert None not in _values(config)


@pytest.mark.slow
def test_the_writer_writes_every_field_the_models_declare_and_no_other(report_of):
    """The models are the report's one definition: the schema is made from them, and the writer
    writes exactly their fields (`accepted` only on a result a baseline accepts)."""
    document = json.loads(report_of("json"))
    exchange = next(e for r in document["results"] for e in r["exchanges"])
    written = {
        SavedReport: set(document),
        SavedTool: set(document["tool"]),
        SavedVerdict: {key for verdict in document["readiness"] for key in verdict},
        SavedResult: {key for result in document["results"] for key in result} | {"accepted"},
        SavedExchange: set(exchange),
    }
    assert {model.__name__: keys for model, keys in written.items()} == {model.__name__: set(model.model_fields) for model in written}


@pytest.mark.slow
def test_a_report_reads_back_as_it_was_written(report_of):
    document = json.loads(report_of("json"))
    again = RunReport.from_dict(document).to_dict()
    assert again == document


def test_the_target_never_carries_credentials(failing_url):
    with_userinfo = failing_url.replace("http://", "http://someone:hunter2secret@")
    process = scim_tui_here("check", "--url", with_userinfo, "--format", "json", "--include-tags", "misc")
    document = json.loads(process.stdout)
    assert "hunter2secret" not in process.stdout and "someone" not in document["target"]


def test_the_schema_file_is_the_one_the_models_make():
    """The pydantic models are the format's one definition: the file is generated from them."""
    written = (files("scim_tui.reports") / "report.schema.json").read_text()
    assert json.loads(written) == json_schema(), "the models changed: run scripts/report_schema.py"


def test_every_field_of_the_schema_is_documented():
    documented = DOC.read_text()
    fields = set(SCHEMA["properties"]) | set(SCHEMA["$defs"]["SavedResult"]["properties"]) | set(SCHEMA["$defs"]["SavedExchange"]["properties"])
    assert [name for name in sorted(fields) if f"`{name}`" not in documented] == []


def _values(data):
    if isinstance(data, dict):
        for value in data.values():
            yield from _values(value)
    elif isinstance(data, list):
        for value in data:
            yield from _values(value)
    else:
        yield data


def test_a_success_keeps_its_exchanges_only_when_asked(report_of):
    """The JSON report (and the run history) carries the exchanges of the results that are not a
    SUCCESS; a SUCCESS's are counted in `exchanges_left_out`, unless `--every-exchange` asks for
    them (the HAR holds them all)."""
    lean, every = (json.loads(report_of("json", "--include-tags", "service-provider-config", *extra)) for extra in ((), ("--every-exchange",)))
    for document in (lean, every):
        validate(document)
    success = "service_provider_config_endpoint"
    first = [{r["check_id"]: r for r in reversed(document["results"])}[success] for document in (lean, every)]
    failures = [[r for r in document["results"] if r["status"] == "ERROR"] for document in (lean, every)]
    assert first[0]["status"] == "SUCCESS" and len(failures[0]) == 1
    assert first[0]["exchanges"] == [] and first[0]["exchanges_left_out"] == len(first[1]["exchanges"]) == 1 and first[1]["exchanges_left_out"] == 0
    sent = [[(e["method"], e["url"], e["status_code"]) for e in failed[0]["exchanges"]] for failed in failures]
    assert sent[0] == sent[1] != [] and failures[0][0]["exchanges_left_out"] == 0
    read = RunReport.from_dict(lean)
    assert next(r for r in read.results if r.title == success).exchanges_left_out == 1
    assert read.to_dict() == lean, "a report read back is written as it was, its counts kept"


def test_every_exchange_goes_with_the_json_format_only():
    process = scim_tui_here("check", "--url", "http://127.0.0.1:9/v2", "--every-exchange")
    assert process.returncode == 2 and process.stderr.strip().splitlines() == [
        "scim-tui: error: --every-exchange keeps the exchanges of successes in the JSON report, not in --format text: "
        "add --format json, or --har FILE for the whole traffic."
    ], process.stderr
