"""`scim-tui check --format entra-gallery`: the outcome of Microsoft's gallery validation replayed,
shaped like the result file of Microsoft's own run, valid against its documented schema."""

from __future__ import annotations

import json
from importlib.resources import files

from jsonschema import Draft202012Validator

from scim_tui.checker.checks.idp_gallery import GALLERY_TESTS
from scim_tui.demo import make_app
from tests.support.command import scim_tui_here
from tests.support.servers import stored

SCHEMA = json.loads((files("scim_tui.reports") / "entra_gallery.schema.json").read_text())


def validate(document: dict) -> None:
    Draft202012Validator.check_schema(SCHEMA)
    Draft202012Validator(SCHEMA, format_checker=Draft202012Validator.FORMAT_CHECKER).validate(document)


def test_the_gallery_result_file_validates_and_says_what_microsofts_would(serve, tmp_path):
    server = serve(make_app())
    output = tmp_path / "validation-result.json"
    process = scim_tui_here("check", "--url", server.url, "--include-tags", "idp:entra:gallery", "--format", "entra-gallery", "--output", str(output))
    assert process.returncode == 0, process.stdout[-2000:]  # NOT READY for the gallery fails no RFC rule
    document = json.loads(output.read_text())
    validate(document)
    assert [test["testName"] for test in document["testResults"]] == [test.name for test in GALLERY_TESTS]
    assert document["validationResult"] == "FAILED" and document["overallResultFromTests"] == "Failed"
    assert document["testSummary"] == {"total": 25, "success": 17, "skipped": 4, "failed": 4, "warning": 0}
    results = {test["testName"]: test["testResult"] for test in document["testResults"]}
    assert results["Create_Group_Test"].startswith("FAILED - create: POST /v2/Groups answered 400: Unknown extension schemas")
    assert results["Delete_User_Test"] == "success" and document["message"].startswith("NOT READY for the Entra app gallery: 4 mandatory tests fail")
    required = scim_tui_here("check", "--url", server.url, "--include-tags", "idp:entra:gallery", "--require-ready", "entra_gallery")
    assert required.returncode == 1
    assert stored(server.url) == []


def test_a_run_without_the_gallery_tests_writes_a_file_saying_so(serve):
    server = serve(make_app())
    process = scim_tui_here("check", "--url", server.url, "--include-tags", "service-provider-config", "--format", "entra-gallery")
    document = json.loads(process.stdout[: process.stdout.rindex("}") + 1])
    validate(document)
    assert document["validationResult"] == "NOT RUN" and document["testResults"] == []
    assert document["message"] == "The run did not replay Microsoft's gallery validation: select the tag idp:entra:gallery."
