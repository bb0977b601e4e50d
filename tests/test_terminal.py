"""Whatever a server sends, nothing it wrote reaches a terminal or a file as it came: control
characters (C0 and C1: OSC 52 would fill the clipboard, OSC 0 retitle the window), bidi controls
(a right-to-left override reorders what is shown) and lone surrogates (no encoding holds them,
so writing them would lose the report) are made visible by one function, exchanges.printable,
in reasons, exchanges, the JSON `data` of reports, the history and the app's screen."""

from __future__ import annotations

import json
import re

import pytest

from scim_tui.demo import make_app
from scim_tui.reports import FORMATS
from scim_tui.selection import Selection
from scim_tui.store import history
from scim_tui.store.profiles import Profile
from scim_tui.store.profiles import save_profile
from scim_tui.tui.app import ScimTuiApp
from tests.support.command import scim_tui_here
from tests.support.servers import Broken
from tests.support.servers import scim_error
from tests.tui.conftest import SIZE
from tests.tui.conftest import run_checks
from tests.tui.conftest import run_screen
from tests.tui.conftest import wait_until

HOSTILE = "Us\x1b]52;c;b3duZWQ=\x07er\x1b]0;pwned\x07\u202egnp.exe\x9b31m\ud800"
"""OSC 52 (the clipboard), OSC 0 (the window's title), a right-to-left override, a raw C1 CSI
and a lone surrogate."""
UNSAFE = re.compile("[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
TAGS = "misc,resource-types"


def hostile_server(serve) -> str:
    """scim2-server whose User resource type is named HOSTILE, and whose SCIM 404 says it."""

    def renamed(listing: dict) -> dict:
        for resource_type in listing["Resources"]:
            if resource_type["name"] == "User":
                resource_type["name"] = HOSTILE
        return listing

    app = Broken(make_app()).rewrite_json("GET", "/v2/ResourceTypes", renamed)
    return serve(app.answer("GET", "/v2/scim-tui-missing-.*", 404, scim_error(404, f"nothing at {HOSTILE}"))).url


def unsafe_in(outputs: dict[str, str]) -> dict[str, list[str]]:
    return {where: sorted(set(UNSAFE.findall(text))) for where, text in outputs.items() if UNSAFE.search(text)}


def test_no_report_holds_what_a_server_sent_as_it_came(serve, tmp_path):
    save_profile(Profile(name="Hostile", url=hostile_server(serve)))
    outputs = {}
    for format in FORMATS:
        report = tmp_path / f"report.{format}"
        process = scim_tui_here("check", "--profile", "Hostile", "--include-tags", TAGS, "--format", format, "--output", str(report))
        assert process.returncode in (0, 1) and "Traceback" not in process.stderr, process.stderr
        outputs[f"check {format}"] = process.stdout + process.stderr
        outputs[f"report {format}"] = report.read_text(encoding="utf-8")
    outputs |= {path.name: json.dumps(history.load(path).to_dict(), ensure_ascii=False) for path in history.runs("Hostile")}
    assert unsafe_in(outputs) == {}
    data = json.loads(outputs["report json"])
    assert any("␛]52;c;b3duZWQ=␇" in json.dumps(result["data"], ensure_ascii=False) for result in data["results"]), "the JSON data holds the 404, made visible"
    assert any("␛]0;pwned␇" in (result["reason"] or "") for result in data["results"]), "a reason names the resource type, made visible"


@pytest.mark.anyio
async def test_the_app_shows_what_a_server_sent_made_visible(serve):
    profile = Profile(name="Hostile", url=hostile_server(serve), selection=Selection(include_tags=TAGS.split(",")))
    app = ScimTuiApp(profile)
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(pilot)
        options = screen.query_one("#resource-types")
        await wait_until(pilot, lambda: options.option_count > 0)
        prompts = [str(options.get_option_at_index(index).prompt) for index in range(options.option_count)]
        await run_checks(pilot)
        screenshot = app.export_screenshot()
        reasons = [result.reason or "" for result in screen.state.results()]
    assert unsafe_in({"resource types": "\n".join(prompts), "screen": screenshot, "reasons": "\n".join(reasons)}) == {}
    assert any("␛]52;c;b3duZWQ=␇" in prompt for prompt in prompts)
    assert any("␛]0;pwned␇" in reason for reason in reasons)
