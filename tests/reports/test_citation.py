"""Each result cites its RFC: 7644 (the protocol) or 7643 (the schema), in every report."""

from __future__ import annotations

import json
from datetime import UTC
from datetime import datetime
from importlib.resources import files

from jsonschema import Draft202012Validator

from scim_tui.checker import CheckConfig
from scim_tui.checker import iter_checks
from scim_tui.reports import RunReport
from scim_tui.reports import write_report
from scim_tui.reports.model import result_from_dict
from scim_tui.reports.model import result_to_dict

SCHEMA = json.loads((files("scim_tui.reports") / "report.schema.json").read_text())


def test_a_check_of_rfc_7643_cites_it_and_the_others_rfc_7644(client):
    # scim2-server's ServiceProviderConfig lacks authenticationSchemes: a real RFC 7643 §5 ERROR.
    results = list(iter_checks(client, CheckConfig(include_tags={"service-provider-config", "discovery:strict"}, jobs=1)))
    document = next(r for r in results if r.title == "service_provider_config_document")
    endpoint = next(r for r in results if r.title == "service_provider_config_endpoint")
    assert (document.status.name, document.rfc, document.section) == ("ERROR", 7643, "5")
    assert (endpoint.rfc, endpoint.section) == (7644, "4")

    report = RunReport.create(results, target="http://scim.example/v2", started_at=datetime(2026, 1, 1, tzinfo=UTC), duration=1.0)
    assert "RFC 7643 §5" in write_report(report, "markdown")
    data = json.loads(write_report(report, "json"))
    Draft202012Validator(SCHEMA).validate(data)
    assert {(item["title"], item["rfc"]) for item in data["results"]} >= {
        ("service_provider_config_document", 7643),
        ("service_provider_config_endpoint", 7644),
    }
    assert result_from_dict(result_to_dict(document)).rfc == 7643


def test_a_report_written_before_rfc_was_recorded_reads_as_rfc_7644(client):
    results = list(iter_checks(client, CheckConfig(include_tags={"misc"}, jobs=1)))
    saved = result_to_dict(next(r for r in results if r.title == "random_url"))
    del saved["rfc"]
    assert result_from_dict(saved).rfc == 7644
