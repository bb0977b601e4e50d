"""The identity providers' readiness in every report format, and `scim-tui check --require-ready
entra` as a CI gate: exit 1 when Entra ID is NOT READY, 0 when it is READY; without it, the exit
status follows the RFC statuses alone."""

from __future__ import annotations

import json
import re
from xml.etree import ElementTree as ET

import pytest

from scim_tui.demo import make_app
from scim_tui.store.profiles import profiles_dir
from tests.support.command import scim_tui_here
from tests.support.servers import stored
from tests.support.unlike import entra_speaking

NOT_READY = (
    "NOT READY for Entra ID: 3 of 14 steps block: entra_set_manager (User) refused, entra_create_group (Group) refused, entra_remove_member (Group) refused."
)
READY = "READY for Entra ID: all 14 steps passed."


@pytest.mark.parametrize(
    ("speaks_entra", "required", "status", "verdict"),
    [(False, False, 0, NOT_READY), (False, True, 1, NOT_READY), (True, True, 0, READY)],
    ids=["scim2-server", "scim2-server-required", "entra-dialect-required"],
)
def test_require_ready_entra_is_a_ci_gate(serve, speaks_entra, required, status, verdict):
    """A plain run's exit status follows the RFC statuses: Entra's shapes refused are DEVIATIONs. With
    --require-ready entra, NOT READY fails the run, and the verdict is among what fails it."""
    app = make_app()
    server = serve(entra_speaking(app) if speaks_entra else app)
    process = scim_tui_here("check", "--url", server.url, "--include-tags", "idp:entra", *(["--require-ready", "entra"] if required else []))
    assert process.returncode == status, process.stdout[-3000:]
    assert f"Readiness: {verdict}" in process.stdout.splitlines()
    assert (f"  ERROR       entra_readiness  {verdict}" in process.stdout.splitlines()) is (status == 1), process.stdout[-2000:]
    # Okta's verdict is left out by the selection, so it is not shown as a readiness.
    assert not re.search(r"^Readiness: .*Okta", process.stdout, re.MULTILINE)
    assert stored(server.url) == []


def test_a_profile_requires_providers_and_a_bad_provider_is_bad_usage(serve):
    server = serve(make_app())
    profiles = profiles_dir()
    profiles.mkdir(parents=True, exist_ok=True)
    (profiles / "local.toml").write_text(f'name = "Local"\nurl = "{server.url}"\nrequire_ready = ["okta", "entra"]\n')
    process = scim_tui_here("check", "--profile", "Local", "--include-tags", "idp", "--no-history")
    assert process.returncode == 1 and f"Readiness: {NOT_READY}" in process.stdout.splitlines()
    unknown = scim_tui_here("check", "--url", server.url, "--require-ready", "entra,azure")
    assert (
        unknown.returncode == 2
        and "Unknown identity provider azure in --require-ready: use some of entra, entra_gallery, google, "
        "jumpcloud, okta, onelogin, pingfederate, rippling, sailpoint."
        in unknown.stderr
    )
    left_out = scim_tui_here("check", "--url", server.url, "--include-tags", "discovery", "--require-ready", "okta")
    assert left_out.returncode == 2 and "--require-ready okta, but the selection leaves out its readiness: select the tag idp:okta too." in left_out.stderr
    (profiles / "bad.toml").write_text(f'name = "Bad"\nurl = "{server.url}"\nrequire_ready = ["azure"]\n')
    broken = scim_tui_here("check", "--profile", "Bad")
    assert (
        broken.returncode == 2
        and "unknown identity provider 'azure': use some of entra, entra_gallery, google, jumpcloud, okta, onelogin, pingfederate, rippling, sailpoint"
        in broken.stderr
    )
    assert stored(server.url) == []


def test_every_format_shows_the_verdicts(serve, tmp_path):
    server = serve(make_app())
    outputs = {}
    for format in ("json", "junit", "markdown", "text"):  # noqa: A001
        path = tmp_path / f"report.{format}"
        process = scim_tui_here(
            "check",
            "--url",
            server.url,
            "--include-tags",
            "idp:entra,idp:okta",
            "--exclude-tags",
            "idp:entra:gallery,idp:okta:oin",
            "--format",
            format,
            "--output",
            str(path),
        )
        assert process.returncode == 0, process.stderr
        outputs[format] = path.read_text()
    okta = "READY for Okta: all 10 steps passed (7 left out by the run's selection)."
    readiness = json.loads(outputs["json"])["readiness"]
    assert readiness == [
        {"check_id": "entra_readiness", "status": "DEVIATION", "reason": NOT_READY},
        {"check_id": "okta_readiness", "status": "SUCCESS", "reason": okta},
    ]
    cases = {
        case.get("name"): case for suite in ET.fromstring(outputs["junit"]).iter("testsuite") if suite.get("name") == "idp" for case in suite.iter("testcase")
    }
    assert cases["entra_readiness"].find("failure") is None and NOT_READY in cases["entra_readiness"].find("system-out").text
    assert okta in cases["okta_readiness"].find("system-out").text
    markdown = outputs["markdown"]
    section = markdown.index("## Identity provider readiness")
    escaped = NOT_READY.replace("_", r"\_")  # Markdown's emphasis character, escaped in reasons
    assert markdown.index(f"- **DEVIATION** `entra_readiness`: {escaped}") > section
    assert markdown.index(f"- **SUCCESS** `okta_readiness`: {okta}") > section
    assert f"Readiness: {NOT_READY}\nReadiness: {okta}\n" in outputs["text"]
    assert stored(server.url) == []
