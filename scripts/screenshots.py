"""Regenerate the SVG screenshots of the README from the real app.

Run from the repository root: ``.venv/bin/python scripts/screenshots.py``. The app runs
headless against the embedded scim2-server, wrapped in the test suite's broken-server
middleware so the run has failures to show. Profiles and history go to a temporary
directory: the developer's own profiles never appear.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "screenshots"
SIZE = (130, 40)


def isolate() -> None:
    home = Path(tempfile.mkdtemp(prefix="scim-tui-screenshots-"))
    os.environ["XDG_CONFIG_HOME"] = str(home / "config")
    os.environ["XDG_DATA_HOME"] = str(home / "data")
    os.environ.pop("SCIM_TUI_CONFIG_DIR", None)


async def shoot() -> None:
    sys.path.insert(0, str(ROOT))
    from scim_tui.demo import DemoServer
    from scim_tui.demo import make_app
    from scim_tui.store.profiles import Auth
    from scim_tui.store.profiles import AuthKind
    from scim_tui.store.profiles import Profile
    from scim_tui.store.profiles import save_profile
    from scim_tui.tui.app import ScimTuiApp
    from scim_tui.tui.widgets.results_table import ResultsTable
    from tests.support.servers import Broken

    broken = Broken(make_app()).answer("GET", r"/v2/scim-tui-missing-.*", 200, {"schemas": []})
    broken.answer(
        "PATCH", r"/v2/Groups/.*", 500, {"schemas": ["urn:ietf:params:scim:api:messages:2.0:Error"], "status": "500", "detail": "PATCH is not implemented"}
    )
    with DemoServer(broken) as server:
        profile = Profile(name="Acme staging", url=server.url)
        save_profile(profile)
        save_profile(Profile(name="Acme production", url="https://scim.acme.example/v2", auth=Auth(kind=AuthKind.BEARER, token="env:ACME_SCIM_TOKEN")))

        app = ScimTuiApp()
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            write(app, "profiles.svg", "scim-tui: profiles")

        app = ScimTuiApp(profile)
        async with app.run_test(size=SIZE) as pilot:
            await app.workers.wait_for_complete()
            await pilot.press("r")
            await app.workers.wait_for_complete()
            await pilot.pause()
            table = app.screen.query_one(ResultsTable)
            table.focus()
            await pilot.press("1")  # hide the successes: the failures of every group fit on screen
            table.select_key(next(key for key in table.keys if key.startswith("random_url#")))
            await pilot.pause()
            write(app, "run.svg", "scim-tui: a run with failures")
            rows = app.screen.state.rows
            table.select_key(max((key for key in table.keys if key in rows), key=lambda key: telling(rows[key].result)))
            await pilot.press("enter", "t")  # the response judged
            await pilot.pause()
            write(app, "result.svg", "scim-tui: a failed check in the inspector")


def telling(result) -> tuple[int, int]:
    """How much a failure's exchanges show: the kinds of request (creation, proof, the request
    judged, clean-up), then how many there are."""
    return (len({exchange.role for exchange in result.exchanges}) if result.status.failed else -1, len(result.exchanges))


def write(app, name: str, title: str) -> None:
    path = OUTPUT / name
    path.write_text(app.export_screenshot(title=title), encoding="utf-8")
    print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    isolate()
    OUTPUT.mkdir(exist_ok=True)
    asyncio.run(shoot())
