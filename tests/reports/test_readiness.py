"""The identity providers' readiness (issue 18) in every report format, and `scim-tui check
--include-tags idp:entra` as a CI gate: exit 1 when Entra ID is NOT READY, 0 when it is READY."""

from __future__ import annotations

import json
import re
from xml.etree import ElementTree as ET

import pytest

from scim_tui.demo import make_app
from tests.command import scim_tui_here
from tests.servers import Broken
from tests.servers import stored

ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"
NOT_READY = "NOT READY for Entra ID: 3 of 14 steps block: entra_set_manager (User) failed, entra_create_group (Group) failed, entra_remove_member (Group) failed."
READY = "READY for Entra ID: all 14 steps passed."


def _as_the_rfc_spells_it(operation: dict) -> list[dict]:
    """Entra's PATCH shapes scim2-server refuses, turned into the RFC's: a server speaking Entra's dialect."""
    if operation.get("path") == "manager":
        return [{"op": "add", "path": f"{ENTERPRISE}:manager", "value": {"value": operation["value"][0]["value"]}}]
    if operation["op"] == "Remove" and operation.get("path") == "members" and "value" in operation:
        return [{"op": "remove", "path": f'members[value eq "{member["value"]}"]'} for member in operation["value"]]
    return [operation]


def _core_schemas_only(body: dict) -> dict:
    return {**body, "schemas": [urn for urn in body["schemas"] if urn.startswith("urn:ietf:params:scim:schemas:")]}


def entra_speaking(app):
    rewrite = lambda body: {**body, "Operations": [new for op in body["Operations"] for new in _as_the_rfc_spells_it(op)]}  # noqa: E731
    return Broken(app).rewrite_request_json("PATCH", r"/v2/(Users|Groups)/[^/]+", rewrite).rewrite_request_json("POST", "/v2/Groups", _core_schemas_only)


@pytest.mark.parametrize(("speaks_entra", "status", "verdict"), [(False, 1, NOT_READY), (True, 0, READY)], ids=["scim2-server", "entra-dialect"])
def test_include_tags_idp_entra_is_a_ci_gate(serve, speaks_entra, status, verdict):
    app = make_app()
    server = serve(entra_speaking(app) if speaks_entra else app)
    process = scim_tui_here("check", "--url", server.url, "--include-tags", "idp:entra")
    assert process.returncode == status, process.stdout[-3000:]
    assert f"Readiness: {verdict}" in process.stdout.splitlines()
    # Okta's verdict is left out by the selection, so it is not shown as a readiness.
    assert not re.search(r"^Readiness: .*Okta", process.stdout, re.MULTILINE)
    assert stored(server.url) == []


def test_every_format_shows_the_verdicts(serve, tmp_path):
    server = serve(make_app())
    outputs = {}
    for format in ("json", "junit", "markdown", "text"):  # noqa: A001
        path = tmp_path / f"report.{format}"
        process = scim_tui_here("check", "--url", server.url, "--include-tags", "idp", "--format", format, "--output", str(path))
        assert process.returncode == 1, process.stderr
        outputs[format] = path.read_text()
    okta = "READY for Okta: all 10 steps passed."
    readiness = json.loads(outputs["json"])["readiness"]
    assert readiness == [
        {"check_id": "entra_readiness", "status": "ERROR", "reason": NOT_READY},
        {"check_id": "okta_readiness", "status": "SUCCESS", "reason": okta},
    ]
    cases = {case.get("name"): case for suite in ET.fromstring(outputs["junit"]).iter("testsuite") if suite.get("name") == "idp" for case in suite.iter("testcase")}
    assert cases["entra_readiness"].find("failure").get("message") == NOT_READY
    assert okta in cases["okta_readiness"].find("system-out").text
    markdown = outputs["markdown"]
    section = markdown.index("## Identity provider readiness")
    escaped = NOT_READY.replace("_", r"\_")  # Markdown's emphasis character, escaped in reasons
    assert markdown.index(f"- **ERROR** `entra_readiness`: {escaped}") > section
    assert markdown.index(f"- **SUCCESS** `okta_readiness`: {okta}") > section
    assert f"Readiness: {NOT_READY}\nReadiness: {okta}\n" in outputs["text"]
    assert stored(server.url) == []
