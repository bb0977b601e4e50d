"""The detail of a result: its facts, its exchanges, copy as curl, rerun, and back to the same row."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from textual.widgets import Input
from textual.widgets import Static
from textual.widgets import TextArea

from scim_tui.checker import CheckResult
from scim_tui.checker import Exchange
from scim_tui.checker import Status
from scim_tui.checker.exchanges import request_line
from scim_tui.checker.registry import all_checkers
from scim_tui.reports.transcript import exchange_text
from scim_tui.selection import Selection
from scim_tui.store.profiles import Auth
from scim_tui.store.profiles import AuthKind
from scim_tui.store.profiles import Profile
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.curl import curl_command
from scim_tui.tui.run_state import Mark
from scim_tui.tui.run_state import Row
from scim_tui.tui.screens import result as result_module
from scim_tui.tui.screens import run as run_module
from scim_tui.tui.screens.curl import CurlScreen
from scim_tui.tui.screens.curl import curl_file
from scim_tui.tui.screens.result import ResultScreen
from scim_tui.tui.screens.result import unwrapped
from scim_tui.tui.screens.run import RunScreen
from scim_tui.tui.tools import EDITOR
from scim_tui.tui.tools import PAGER
from scim_tui.tui.tools import ToolError
from scim_tui.tui.tools import tool_command
from scim_tui.tui.widgets.exchange_list import ExchangeList
from scim_tui.tui.widgets.find_bar import FindBar
from scim_tui.tui.widgets.message_view import MessageView
from tests.tui.conftest import FEW
from tests.tui.conftest import SIZE
from tests.tui.conftest import broken_random_url
from tests.tui.conftest import open_row
from tests.tui.conftest import plain
from tests.tui.conftest import run_checks
from tests.tui.conftest import settle
from tests.tui.conftest import table_of
from tests.tui.conftest import wait_until

pytestmark = pytest.mark.anyio
SECRET = "s3cret-bearer-value"


def holds(owner: object, other: object) -> bool:
    """Whether one of an object's own attributes (Textual's are private) is the other, or a
    method or a partial of it."""
    own = [value for name, value in vars(owner).items() if not name.startswith("_")]
    return any(other in (value, getattr(value, "__self__", None), *getattr(value, "args", ())) for value in own)


def test_neither_screen_module_calls_the_other():
    """The result screen knows nothing of the run screen; the run screen only makes result screens."""
    result_tree = ast.parse(Path(result_module.__file__).read_text())
    imported = {node.module for node in ast.walk(result_tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(result_tree) if isinstance(node, ast.Import) for alias in node.names}
    assert run_module.__name__ not in imported
    assert "RunScreen" not in {node.id for node in ast.walk(result_tree) if isinstance(node, ast.Name)}
    run_tree = ast.parse(Path(run_module.__file__).read_text())
    made = {id(node.func) for node in ast.walk(run_tree) if isinstance(node, ast.Call)}
    named = [node for node in ast.walk(run_tree) if isinstance(node, ast.Name) and node.id == ResultScreen.__name__]
    assert named and all(id(node) in made for node in named), "ResultScreen is only constructed, never looked for nor called"


def shown_text(screen: ResultScreen) -> str:
    return "\n".join(plain(static.content) for static in screen.query(Static))


def side_text(screen: ResultScreen, side: str) -> str:
    """The request or the response of the exchange shown, as its view holds it."""
    return "\n".join(screen.query_one(f"#{side}-view", MessageView).document.lines)


async def test_the_detail_shows_the_result_and_every_exchange(serve, tmp_path, monkeypatch):
    broken = broken_random_url()
    server = serve(broken)
    profile = Profile(name="Broken", url=server.url, auth=Auth(kind=AuthKind.BEARER, token=SECRET), selection=FEW)
    app = ScimTuiApp(profile)
    async with app.run_test(size=SIZE) as pilot:
        screen = await run_checks(pilot)
        detail = await open_row(pilot, "random_url")
        assert not holds(detail, screen) and not holds(screen, detail), "the screens talk by messages"
        result = detail.row.result
        assert result.status.failed
        text = shown_text(detail)
        for fact in ("random_url", result.status.name, "(server)", "misc", f"section {result.section}", result.reason):
            assert fact in text
        listed = detail.query_one(ExchangeList)
        assert listed.option_count == len(result.exchanges) >= 1 and listed.highlighted == 0
        shown = side_text(detail, "request") + side_text(detail, "response")
        assert "GET /v2/scim-tui-missing-" in shown and "200 OK" in shown and "authorization: ***" in shown
        assert SECRET not in text + shown
        # the exchange names its request as the reason does, from the server's root
        request = request_line(result.exchanges[0])
        assert request.startswith("GET /v2/scim-tui-missing-") and result.reason.startswith(f"{request} answered 200")
        assert plain(listed.get_option_at_index(0).prompt).strip() == f"1. the request judged · 200 OK · {request}"

        # the exchange in the user's pager, as recorded (redacted); the test's app
        # cannot hand the terminal over, and says so
        monkeypatch.setenv("PAGER", str(copying_pager(tmp_path)))
        await pilot.press("p")
        await wait_until(pilot, lambda: any("cannot be handed over" in n.message for n in app._notifications))
        assert not (tmp_path / "seen.txt").exists()
        assert detail.open_selected(tool_command(PAGER, os.environ)) == 0
        seen = (tmp_path / "seen.txt").read_text()
        assert seen == exchange_text(result.exchanges[0]) and SECRET not in seen
        assert seen.startswith(f"{request} HTTP/1.1\n") and "authorization: ***" in seen and '{\n  "schemas": []\n}' in seen
        assert (tmp_path / "mode.txt").read_text() == "0o400", "the file is read-only"
        assert not list(Path(tempfile.gettempdir()).glob("scim-tui-exchange-*")), "and deleted afterwards"

        await pilot.press("y")
        await pilot.pause()
        copied = app.clipboard
        assert copied.startswith("curl -X GET") and f'"{server.url}/scim-tui-missing-' in copied
        assert '"authorization: ${SCIM_AUTHORIZATION}"' in copied and SECRET not in copied
        # the copy may not reach the clipboard (no OSC 52), so the command is
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
        assert detail.row is screen.state.rows[detail.row.key], "the detail follows the run screen's row"
        assert "fixed" in shown_text(detail)


async def test_the_detail_shows_the_answer_the_check_examined(local):
    """The answer a result keeps packed (checker/packing.py) shows as the SCIM JSON it was."""
    app = ScimTuiApp(local.model_copy(update={"selection": FEW}))
    async with app.run_test(size=SIZE) as pilot:
        await run_checks(pilot)
        detail = await open_row(pilot, "service_provider_config_endpoint")
        data = plain(detail.query_one("#result-data", Static).content)
        assert detail.row.result.data["patch"] == {"supported": True}
        assert '"patch": {' in data and '"changePassword": {' in data and '"supported": true' in data


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


def copying_pager(folder: Path) -> Path:
    """A pager that copies the file it is given, and its mode, into the folder."""
    script = folder / "pager.sh"
    script.write_text(
        f"#!{sys.executable}\nimport os, pathlib, shutil, sys\n"
        f"shutil.copy(sys.argv[1], {str(folder / 'seen.txt')!r})\n"
        f"pathlib.Path({str(folder / 'mode.txt')!r}).write_text(oct(os.stat(sys.argv[1]).st_mode & 0o777))\n"
    )
    script.chmod(0o755)
    return script


def test_a_missing_pager_or_editor_is_told_in_one_line_naming_what_to_set(tmp_path):
    assert tool_command(PAGER, {"PAGER": "sh -c", "PATH": os.defpath}) == ["sh", "-c"]
    with pytest.raises(ToolError, match=r"^\$PAGER names nopager, which is not installed here: set \$PAGER to your pager\.$"):
        tool_command(PAGER, {"PAGER": "nopager -R", "PATH": str(tmp_path)})
    with pytest.raises(ToolError, match=r"^No pager found: set \$PAGER to one \(less is not installed either\)\.$"):
        tool_command(PAGER, {"PATH": str(tmp_path)})
    with pytest.raises(ToolError, match=r"^No editor found: set \$VISUAL or \$EDITOR to one\.$"):
        tool_command(EDITOR, {"EDITOR": " ", "PATH": str(tmp_path)})
    with pytest.raises(ToolError, match=r"fix its quotes"):
        tool_command(EDITOR, {"VISUAL": "'vi", "PATH": str(tmp_path)})
    assert tool_command(EDITOR, {"VISUAL": "sh -c", "EDITOR": "nano", "PATH": os.defpath}) == ["sh", "-c"], "$VISUAL first"


async def test_find_highlights_each_match_counts_them_and_moves_between_them(local):
    """Find inside an exchange, its request then its response, case ignored; escape closes the
    find, then the screen."""
    users = {"Resources": [{"userName": "bjensen"}, {"userName": "BJensen2", "displayName": "Babs"}]}
    exchange = Exchange("GET", f"{local.url}/Users?filter=userName+eq+%22bjensen%22", status_code=200, response_body=json.dumps(users))
    row = Row("users#0", 0, CheckResult(Status.ERROR, title="users", reason="made up", exchanges=[exchange]))
    app = ScimTuiApp(local)
    async with app.run_test(size=SIZE) as pilot:
        await app.push_screen(ResultScreen(row))
        detail = app.screen
        bar = detail.query_one(FindBar)
        await pilot.press("f1")
        keys = plain(app.screen.query_one("#help-keys", Static).content)
        for meaning in ("Open the exchange in $PAGER", "$VISUAL or $EDITOR, read-only", "Find text in the exchange", "Next match", "Previous match"):
            assert meaning in keys, "the help shows the keys"
        await pilot.press("escape")
        assert not bar.display
        await pilot.press("slash", *"BJENSEN")
        assert bar.display and bar.query_one(Input).has_focus

        def count() -> str:
            return str(bar.query_one("#find-count", Static).content)

        def highlighted() -> list[tuple[str, str, bool]]:
            """Each highlighted piece, its side, and whether it is the current match."""
            pieces = []
            for view in detail.query(MessageView):
                for index, (line, start, end) in enumerate(view.matches):
                    pieces.append((view.id.removesuffix("-view"), view.document.lines[line][start:end], index == view.current))
            return pieces

        await wait_until(pilot, lambda: count() == "1 of 3")
        assert highlighted() == [("request", "bjensen", True), ("response", "bjensen", False), ("response", "BJensen", False)]
        assert detail.tab == "request"
        await pilot.press("enter")
        assert count() == "2 of 3" and highlighted()[1] == ("response", "bjensen", True) and detail.tab == "response", "the match's side is shown"
        await pilot.press("down", "down")
        assert count() == "1 of 3", "past the last match, the first"
        await pilot.press("up")
        assert count() == "3 of 3" and highlighted()[2] == ("response", "BJensen", True)
        detail.query_one("#response-view").focus()  # out of the find bar: n and N move
        await pilot.press("n")
        assert count() == "1 of 3"
        await pilot.press("N")
        assert count() == "3 of 3"
        bar.query_one(Input).focus()
        await pilot.press(*["backspace"] * 7, *"babs")
        assert count() == "1 of 1" and highlighted() == [("response", "Babs", True)]
        await pilot.press(*["backspace"] * 4, *"nowhere")
        assert count() == "no match" and highlighted() == []
        await pilot.press("escape")
        assert not bar.display and app.screen is detail and highlighted() == []
        await pilot.press("escape")
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
    """Once, the summary rerun alone summed up nothing and was marked fixed."""
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
    """SPEC.md is the developers' file; users do not have it."""
    assert not [checker.name for checker in all_checkers() if "SPEC" in (checker.description or "")]
