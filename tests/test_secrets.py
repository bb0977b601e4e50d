"""A known secret is searched for in every output scim-tui makes, and never found.

The server demands the bearer token and echoes it back in an error body, so the token
travels in the requests and comes back in a response. Two profiles carry it, each in a test
of its own: one as ``env:NAME``, one written literally.
"""

from __future__ import annotations

import pytest

from scim_tui.reports import FORMATS
from scim_tui.selection import Selection
from scim_tui.store import history
from scim_tui.store.profiles import Auth
from scim_tui.store.profiles import AuthKind
from scim_tui.store.profiles import Profile
from scim_tui.store.profiles import save_profile
from scim_tui.tui.export import exports_dir
from tests.support.command import scim_tui_here
from tests.support.secrets import app_outputs
from tests.support.secrets import echoing_server

pytestmark = pytest.mark.anyio
VARIABLE = "SCIM_TUI_SECRET_TOKEN"
SECRETS = {"env": "scim-tui-env-secret-7d1c9b3e", "literal": "scim-tui-literal-secret-a4e02f91"}
CHECKS = Selection(include_tags=["misc", "service-provider-config", "crud:create"])
"""What the app runs: the echo (random_url), discovery, and resources created and deleted."""


def command_outputs(profile: Profile) -> dict[str, str]:
    """``scim-tui check`` on the profile, in every format: what it prints and writes. (A whole
    run of the command in a new process is searched by tests/test_cli.py.)"""
    outputs = {}
    for format in FORMATS:
        process = scim_tui_here("check", "--profile", profile.name, "--format", format, "--include-tags", "misc,service-provider-config")
        assert process.returncode == 0, process.stderr
        outputs[f"{profile.name}: check --format {format}"] = process.stdout + process.stderr
    return outputs


def secured_profile(serve, written: str) -> Profile:
    """A profile of a server demanding a secret token, which the profile holds as written:
    ``env`` (a reference to VARIABLE) or ``literal``."""
    token = f"env:{VARIABLE}" if written == "env" else SECRETS["literal"]
    name = "From env" if written == "env" else "Literal"
    return Profile(name=name, url=echoing_server(serve, SECRETS[written]), auth=Auth(kind=AuthKind.BEARER, token=token), selection=CHECKS)


@pytest.mark.parametrize("written", ["env", "literal"])
async def test_no_secret_reaches_any_output(serve, monkeypatch, tmp_path, written):
    monkeypatch.setenv(VARIABLE, SECRETS["env"])
    monkeypatch.chdir(tmp_path)
    profile = secured_profile(serve, written)
    save_profile(profile)
    outputs = await app_outputs(profile)
    outputs |= command_outputs(profile)
    runs = history.runs(profile.name)
    assert len(runs) == 1 + len(FORMATS), "the app's run and each command's run are in the history"
    outputs |= {f"history {path.name}": history.run_json(path).decode() for path in runs}
    exports = sorted(exports_dir().glob("scim-tui-*.*"))
    assert len(exports) == len(FORMATS)
    outputs |= {f"export {path.name}": path.read_text() for path in exports}

    leaks = sorted(where for where, text in outputs.items() for secret in SECRETS.values() if secret in text)
    assert leaks == []
