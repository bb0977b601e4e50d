"""The result screen as an inspector: the exchanges listed by what each was for, the request and
the response of the one highlighted, copies with the secrets masked, the attribute a reason names."""

from __future__ import annotations

import json

import pytest

from scim_tui.checker import CheckId
from scim_tui.checker import CheckResult
from scim_tui.checker import Exchange
from scim_tui.checker import Status
from scim_tui.checker.exchanges import Role
from scim_tui.checker.exchanges import request_line
from scim_tui.checker.limits import MIB
from scim_tui.demo import make_app
from scim_tui.store.profiles import Auth
from scim_tui.store.profiles import AuthKind
from scim_tui.store.profiles import Profile
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.run_state import Row
from scim_tui.tui.screens.result import ResultScreen
from scim_tui.tui.widgets.exchange_document import JSON_VIEW_LIMIT
from scim_tui.tui.widgets.exchange_document import body_lines
from scim_tui.tui.widgets.exchange_list import ExchangeList
from scim_tui.tui.widgets.exchange_list import first_shown
from scim_tui.tui.widgets.message_view import MessageView
from tests.support.servers import Broken
from tests.tui.conftest import SIZE
from tests.tui.conftest import open_key
from tests.tui.conftest import plain
from tests.tui.conftest import run_screen
from tests.tui.conftest import settle
from tests.tui.conftest import wait_until

pytestmark = pytest.mark.anyio
SECRET = "s3cret-inspector-token"
REPLACEMENT = CheckId("object_replacement", "User")


async def open_check(pilot, check: CheckId, reason_has: str = "") -> ResultScreen:
    """Run one check, and open its result (the one whose reason holds `reason_has`)."""
    screen = run_screen(pilot)
    await settle(pilot)
    screen.rerun(frozenset({check}))
    await settle(pilot)
    key = next(key for key, row in screen.state.rows.items() if row.result.check_id == check and reason_has in (row.result.reason or ""))
    return await open_key(pilot, key)


def labels(detail: ResultScreen) -> list[str]:
    listed = detail.query_one(ExchangeList)
    return [plain(listed.get_option_at_index(index).prompt).strip() for index in range(listed.option_count)]


def first_line(detail: ResultScreen, side: str) -> str:
    return detail.query_one(f"#{side}-view", MessageView).document.lines[0]


async def test_the_exchanges_are_listed_by_what_the_engine_sent_them_for(local):
    app = ScimTuiApp(local)
    async with app.run_test(size=(80, 24)) as pilot:
        detail = await open_check(pilot, REPLACEMENT)
        exchanges = detail.row.result.exchanges
        shown = labels(detail)
        assert shown[0] == "1. create the User it needs · 201 Created · POST /v2/Users"
        assert any(label.startswith(f"{number}. the request judged · 200 OK · PUT /v2/Users/") for number, label in enumerate(shown, start=1))
        # the clean-up comes last: the DELETE, then the GET that finds it gone
        cleanup = [label.partition(". ")[2] for label in shown if ". clean-up: " in label]
        assert [label.partition(". ")[2] for label in shown[-len(cleanup) :]] == cleanup
        assert cleanup[0].startswith("clean-up: delete the User · 204 No Content · DELETE /v2/Users/")
        assert cleanup[1].startswith("clean-up: check the User is gone · 404 Not Found · GET /v2/Users/")
        assert len(cleanup) == 2, "whether a query still lists it is the run's clean-up's to ask, last, for every resource at once"
        judged = detail.selected
        assert exchanges[judged].role is Role.JUDGED and detail.query_one(ExchangeList).highlighted == judged, "it opens on the request judged"

        # at 80x24 the first screen holds the list and the start of the request shown
        assert detail.query_one(ExchangeList).region.bottom <= 12
        request_view = detail.query_one("#request-view", MessageView)
        assert request_view.region.height >= 8 and first_line(detail, "request").startswith(exchanges[judged].method)

        # k and j move in the list, and the panes follow
        await pilot.press("k")
        assert first_line(detail, "request").startswith(exchanges[judged - 1].method + " ")
        await pilot.press("j", "j")
        assert detail.selected == judged + 1
        assert first_line(detail, "request").startswith(exchanges[judged + 1].method + " ")
        # the response tab shows the response of the same exchange
        await pilot.press("t")
        assert detail.tab == "response" and detail.query_one("#response-view", MessageView).display
        assert not request_view.display, "one side at a time below 160 columns"
        assert first_line(detail, "response").startswith(str(exchanges[judged + 1].status_code))


async def test_the_request_and_the_response_side_by_side_on_a_wide_terminal(local):
    app = ScimTuiApp(local)
    async with app.run_test(size=(200, 60)) as pilot:
        detail = await open_check(pilot, REPLACEMENT)
        request, response = (detail.query_one(f"#{side}-view", MessageView) for side in ("request", "response"))
        await wait_until(pilot, lambda: detail.has_class("-wide") and response.region.width > 0)  # the breakpoint's class, once laid out
        assert request.display and response.display and request.region.right <= response.region.x


async def test_each_copy_key_copies_the_part_shown_with_the_secret_masked(serve):
    server = serve(make_app())
    app = ScimTuiApp(Profile(name="Token", url=server.url, auth=Auth(kind=AuthKind.BEARER, token=SECRET)))
    async with app.run_test(size=SIZE) as pilot:
        detail = await open_check(pilot, REPLACEMENT)
        exchange = detail.exchange
        assert exchange.method == "PUT"

        async def copied(key: str) -> str:
            app.copy_to_clipboard("")
            await pilot.press(key)
            await pilot.pause()
            return app.clipboard

        def told() -> str:
            return [notification.message for notification in app._notifications][-1]

        assert await copied("u") == exchange.url and told() == f"Copied the URL of {request_line(exchange)}."
        headers = await copied("h")
        assert "authorization: ***" in headers.lower() and "content-type: " in headers.lower() and told().startswith("Copied the request headers")
        assert await copied("b") == exchange.request_body and told().startswith("Copied the request body")
        await pilot.press("t")
        headers = await copied("h")
        assert headers == "\n".join(f"{name}: {value}" for name, value in exchange.response_headers.items()) and "Copied the response headers" in told()
        body = await copied("b")
        assert body == exchange.response_body and json.loads(body)["id"] in exchange.url
        curl = await copied("y")
        assert curl.startswith(f'curl -X PUT "{exchange.url}"') and "${SCIM_AUTHORIZATION}" in curl
        await pilot.press("escape")
        for copy in (headers, body, curl, exchange.url):
            assert SECRET not in copy


async def test_the_attribute_the_reason_names_is_highlighted_in_the_answer(serve):
    """A created User answered with meta.resourceType 'Person': that line of the answer is marked."""
    broken = Broken(make_app()).rewrite_json("POST", "/v2/Users", lambda body: body | {"meta": {**body["meta"], "resourceType": "Person"}})
    app = ScimTuiApp(Profile(name="Person", url=serve(broken).url))
    async with app.run_test(size=SIZE) as pilot:
        detail = await open_check(pilot, CheckId("resource_metadata", "User"), 'meta.resourceType is "Person"')
        await pilot.press("t")
        view = detail.query_one("#response-view", MessageView)
        await wait_until(pilot, lambda: view.display)
        lines = view.document.lines
        assert [lines[number].strip() for number in sorted(view.document.marked)] == ['"resourceType": "Person",']
        assert "Highlighted below: meta.resourceType" in "\n".join(lines)
        marked = sorted(view.document.marked)[0]
        style = view.get_component_rich_style("message-view--marked", partial=True)
        assert any(span.style == style for span in view.line_text(marked).spans), "drawn in the marked style"


async def test_a_megabyte_answer_is_highlighted_and_folds_at_the_cursor(local):
    """Only the lines on screen are drawn: a list of 8,000 users opens as JSON, and space folds
    the array the cursor is in, then unfolds it; a body past the limit is shown as its text."""
    users = [
        {
            "id": str(number),
            "userName": f"user{number}",
            "displayName": f"User number {number} of a list of a megabyte",
            "emails": [{"value": f"u{number}@example.com"}],
        }
        for number in range(8000)
    ]
    body = json.dumps({"totalResults": len(users), "Resources": users})
    assert len(body) > MIB
    exchange = Exchange("GET", f"{local.url}/Users", status_code=200, response_headers={"content-type": "application/scim+json"}, response_body=body)
    row = Row("users#0", 0, CheckResult(Status.ERROR, title="users", reason="GET /v2/Users answered totalResults 8000.", exchanges=[exchange]))
    app = ScimTuiApp(local)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(ResultScreen(row))
        detail = app.screen
        await pilot.press("t")
        view = detail.query_one("#response-view", MessageView)
        assert view.document.json and len(view.rows) == len(view.document) > len(users) * 10
        assert [view.document.lines[number].strip() for number in view.document.marked] == ['"totalResults": 8000,']
        view.focus()
        start = view.document.lines.index('  "Resources": [')
        await pilot.press(*["down"] * (start + 3))  # in the first user
        await pilot.press("space")
        assert view.line_at_cursor() == start + 1 and view.line_text(start + 1).plain == "    { … 8 lines … },", "the user the cursor was in"
        await pilot.press("up", "space")
        assert view.line_at_cursor() == start and len(view.rows) == len(view.document) - len(users) * 10 - 1
        assert view.line_text(start).plain == f'  "Resources": [ … {len(users) * 10} lines … ]'
        await pilot.press("space")
        assert view.line_at_cursor() == start and start not in view.folded and view.line_text(start).plain == '  "Resources": ['

    assert not body_lines(body.replace("8000", "8000" * (JSON_VIEW_LIMIT // 4)))[1], "past the limit: the text it is"


def test_a_result_opens_on_its_judged_answer_not_on_a_busy_one_sent_again():
    """An attempt answered 429 and sent again is in the list, but the result opens on the answer judged."""
    busy = Exchange("GET", "http://127.0.0.1/v2/Users", status_code=429, resent=True)
    judged = Exchange("GET", "http://127.0.0.1/v2/Users", status_code=200)
    assert first_shown([busy, judged]) == 1
    assert first_shown([judged, busy]) == 0
