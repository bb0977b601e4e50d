"""Where a secret could leak: every output of the app and of the command, and a search of them."""

from __future__ import annotations

import json
from typing import Any

from scim_tui.demo import make_app
from scim_tui.reports import FORMATS
from scim_tui.store.profiles import Profile
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.screens.curl import curl_file
from scim_tui.tui.screens.profiles import ProfilesScreen
from tests.support.command import scim_tui_here
from tests.support.servers import Broken
from tests.support.servers import scim_error
from tests.tui.conftest import SIZE
from tests.tui.conftest import open_row
from tests.tui.conftest import run_checks


def echoing_server(serve, secret: str) -> str:
    """A server demanding this token, whose 404 for an unknown URL repeats the token it was sent."""
    echo = scim_error(404, f"No such path; you sent Authorization: Bearer {secret}")
    return serve(Broken(make_app(bearer_tokens=[secret])).answer("GET", "/v2/scim-tui-missing-.*", 404, echo)).url


async def app_outputs(profile: Profile) -> dict[str, str]:
    """A run in the app: its results with their exchanges, each export, the copied curl command, screenshots."""
    outputs: dict[str, str] = {}
    app = ScimTuiApp(profile)
    async with app.run_test(size=SIZE) as pilot:
        screen = await run_checks(pilot)
        results = screen.state.results()
        outputs["results"] = json.dumps([[r.title, r.reason, repr(r.data), [e.to_dict() for e in r.exchanges]] for r in results])
        outputs["run screenshot"] = app.export_screenshot()
        for index in range(len(FORMATS)):
            await pilot.press("e", *["down"] * index, "enter")
            await pilot.pause()
        detail = await open_row(pilot, "random_url")
        outputs["result screenshot"] = app.export_screenshot()
        await pilot.press("y")
        await pilot.pause()
        outputs["clipboard"] = app.clipboard
        outputs["curl dialog screenshot"] = app.export_screenshot()
        outputs["curl file"] = curl_file().read_text()
        await pilot.press("escape", "escape", "escape")  # the curl dialog, the result, the run screen
        await pilot.pause()
        assert isinstance(app.screen, ProfilesScreen)
        app.screen.reload(profile.name)
        await pilot.pause()
        outputs["profiles screenshot"] = app.export_screenshot()
    assert "Bearer ***" in json.dumps(detail.row.result.data), "the echoed token was in the data, redacted"
    assert "${SCIM_AUTHORIZATION}" in outputs["clipboard"], "the copied command carries the header, as a variable"
    return {f"{profile.name}: {where}": text for where, text in outputs.items()}


TAGS = "misc,service-provider-config,crud:create"


class Echo:
    """Answers with every request header echoed (X-Echo, and in the 404 of an unknown URL); with
    `revoke_every`, revokes the bearer token every that many requests, so that the client fetches
    new ones during its run."""

    def __init__(self, app: Any, revoke_every: int | None = None):
        self.app = app
        self.revoke_every = revoke_every
        self.count = 0

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        self.count += 1
        if self.revoke_every and self.count % self.revoke_every == 0:
            self.app.bearer_tokens.clear()
            self.app.bearer_tokens.add("revoked-them-all")  # an empty set would let anyone in
        sent = json.dumps({key: value for key, value in environ.items() if key.startswith("HTTP_")})
        if "/scim-tui-missing-" in environ.get("PATH_INFO", ""):
            start_response("404 Not Found", [("Content-Type", "application/scim+json"), ("X-Echo", sent)])
            return [scim_error(404, f"No such path; you sent {sent}")]

        def echoing(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            return start_response(status, [*headers, ("X-Echo", sent)], exc_info)

        return self.app(environ, echoing)


def check_outputs(*target: str, env: dict[str, str] | None = None, code: int = 0, tmp_path: Any) -> dict[str, str]:
    """`scim-tui check` in every format: what it prints, and the report file it writes."""
    outputs = {}
    for format in FORMATS:
        report = tmp_path / f"report.{format}"
        process = scim_tui_here("check", *target, "--include-tags", TAGS, "--format", format, "--output", str(report), env=env)
        assert process.returncode == code, process.stderr
        outputs[f"check {format}"] = process.stdout + process.stderr + report.read_text()
    return outputs


def leaks(outputs: dict[str, str], secrets: list[str]) -> list[str]:
    return sorted(where for where, text in outputs.items() for secret in secrets if secret in text)
