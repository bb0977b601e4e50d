"""The detail of a result: its facts, its exchanges, copy as curl, rerun, and back to the same row."""

from __future__ import annotations

import subprocess

import pytest
from textual.widgets import Static
from textual.widgets import TextArea

from scim_tui.checker import Exchange
from scim_tui.checker import Status
from scim_tui.checker.registry import all_checkers
from scim_tui.profiles import Auth
from scim_tui.profiles import AuthKind
from scim_tui.profiles import Profile
from scim_tui.profiles import Selection
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.curl import curl_command
from scim_tui.tui.run_state import Mark
from scim_tui.tui.screens.curl import CurlScreen
from scim_tui.tui.screens.curl import curl_file
from scim_tui.tui.screens.result import ResultScreen
from scim_tui.tui.screens.result import unwrapped
from scim_tui.tui.screens.run import RunScreen
from scim_tui.tui.widgets.exchange_view import ExchangeView
from tests.tui.conftest import FEW
from tests.tui.conftest import SIZE
from tests.tui.conftest import broken_random_url
from tests.tui.conftest import plain
from tests.tui.conftest import run_checks
from tests.tui.conftest import settle
from tests.tui.conftest import table_of

pytestmark = pytest.mark.anyio
SECRET = "s3cret-bearer-value"


def shown_text(screen: ResultScreen) -> str:
    return "\n".join(plain(static.content) for static in screen.query(Static))


async def open_row(pilot, title: str) -> ResultScreen:
    table = table_of(pilot)
    key = next(key for key in table.keys if key.startswith(f"{title}#"))
    table.focus()
    table.select_key(key)
    await pilot.press("enter")
    await pilot.pause()
    assert isinstance(pilot.app.screen, ResultScreen)
    return pilot.app.screen


async def test_the_detail_shows_the_result_and_every_exchange(serve):
    broken = broken_random_url()
    server = serve(broken)
    profile = Profile(name="Broken", url=server.url, auth=Auth(kind=AuthKind.BEARER, token=SECRET), selection=FEW)
    app = ScimTuiApp(profile)
    async with app.run_test(size=SIZE) as pilot:
        await run_checks(pilot)
        detail = await open_row(pilot, "random_url")
        result = detail.row.result
        assert result.status.failed
        text = shown_text(detail)
        for fact in ("random_url", result.status.name, "(server)", "misc", f"section {result.section}", result.reason):
            assert fact in text
        views = list(detail.query(ExchangeView))
        assert len(views) == len(result.exchanges) >= 1
        assert not views[0].collapsed
        body = plain(views[0].query_one(".exchange-body", Static).content)
        assert "GET /scim-tui-missing-" in body and "200 OK" in body and "authorization: ***" in body
        assert SECRET not in text + body

        await pilot.press("y")
        await pilot.pause()
        copied = app.clipboard
        assert copied.startswith("curl -X GET") and f'"{server.url}/scim-tui-missing-' in copied
        assert '"authorization: ${SCIM_AUTHORIZATION}"' in copied and SECRET not in copied
        # issue 19, bug 7: the copy may not reach the clipboard (no OSC 52), so the command is
        # shown to select, saved in a file named on screen, and its variable explained
        assert isinstance(app.screen, CurlScreen) and app.screen.query_one(TextArea).text == copied
        assert curl_file().read_text() == copied + "\n"
        notes = " ".join(str(label.content) for label in app.screen.query(".curl-note"))
        assert str(curl_file()) in notes and "tmux" in notes and "Copied" not in notes
        assert "${SCIM_AUTHORIZATION}: the whole Authorization header value" in notes
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is detail

        broken.repaired = True
        await pilot.press("r")
        await settle(pilot)
        assert app.screen is detail
        assert detail.row.result.status is Status.SUCCESS and detail.row.mark is Mark.FIXED
        assert "fixed" in shown_text(detail)


async def test_escape_returns_to_the_results_with_the_cursor_where_it_was(local):
    app = ScimTuiApp(local.model_copy(update={"selection": FEW}))
    async with app.run_test(size=SIZE) as pilot:
        await run_checks(pilot)
        table = table_of(pilot)
        table.focus()
        await pilot.press("down", "down", "down", "down", "down")
        row = table.cursor_row
        key = table.selected_key
        assert key is not None
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ResultScreen) and app.screen.row.key == key
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, RunScreen)
        assert table.cursor_row == row and table.selected_key == key and table.has_focus


async def test_enter_on_a_group_heading_opens_nothing(local):
    app = ScimTuiApp(local.model_copy(update={"selection": FEW}))
    async with app.run_test(size=SIZE) as pilot:
        await run_checks(pilot)
        table = table_of(pilot)
        table.focus()
        table.move_cursor(row=0)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, RunScreen)


def test_curl_quotes_for_the_shell_and_turns_redacted_values_into_variables():
    exchange = Exchange(
        method="POST",
        url="https://scim.example.test/v2/Users?token=***",
        request_headers={"Host": "scim.example.test", "Authorization": "***", "X-Api-Key": "***", "Content-Type": "application/scim+json"},
        request_body='{"userName": "a$b`c\\\\d\\"e"}',
    )
    command = curl_command(exchange)
    assert command == (
        'curl -X POST "https://scim.example.test/v2/Users?token=${SCIM_SECRET}"'
        ' -H "Authorization: ${SCIM_AUTHORIZATION}" -H "X-Api-Key: ${SCIM_X_API_KEY}"'
        ' -H "Content-Type: application/scim+json"'
        ' --data-raw "{\\"userName\\": \\"a\\$b\\`c\\\\\\\\d\\\\\\"e\\"}"'
    )
    shell = subprocess.run(["sh", "-c", f"printf %s {command.split('--data-raw ')[1]}"], capture_output=True, text=True, check=True)
    assert shell.stdout == exchange.request_body


async def test_the_detail_cites_the_rfc_of_the_check(scim_server):
    profile = Profile(name="Local", url=scim_server.url, selection=Selection(include_tags=["discovery:strict"]))
    async with ScimTuiApp(profile).run_test(size=SIZE) as pilot:
        await run_checks(pilot)
        text = shown_text(await open_row(pilot, "service_provider_config_document"))
    assert "RFC 7643" in text and "section 5" in text and "RFC 7644" not in text.split("Reason")[0]


async def test_rerunning_a_suite_summary_reruns_its_suite(scim_server):
    """Issue 19, bug 4: the summary rerun alone summed up nothing and was marked fixed."""
    selection = Selection(include_tags=["crud", "projection"], resource_types=["User"])
    app = ScimTuiApp(Profile(name="Local", url=scim_server.url, selection=selection))
    async with app.run_test(size=SIZE) as pilot:
        screen = await run_checks(pilot)
        key = "User/resource_type_tests#0"
        assert screen.state.rows[key].result.status is Status.ERROR  # scim2-server ignores attributes on POST
        table = table_of(pilot)
        table.focus()
        table.select_key(key)
        await pilot.press("enter")
        await pilot.pause()
        detail = app.screen
        assert isinstance(detail, ResultScreen)
        await pilot.press("r")
        await settle(pilot)
        assert detail.row.result.status is Status.ERROR and detail.row.mark is Mark.STILL_FAILING
        assert screen.progress.done == screen.progress.planned > 1, "the suite ran again, and the plan said so"


def test_a_description_wraps_to_the_screen_not_to_the_docstrings_lines():
    doc = "First line of the check.\n\n    SUCCESS when it works. ERROR on another\n    status, or on a\n    404 body.\n"
    assert unwrapped(doc) == "First line of the check.\n\nSUCCESS when it works. ERROR on another status, or on a 404 body."


def test_no_description_a_user_reads_names_spec_md():
    """Issue 19: SPEC.md is the developers' file; users do not have it."""
    assert not [checker.name for checker in all_checkers() if "SPEC" in (checker.description or "")]
