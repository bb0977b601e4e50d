"""Lists that lag behind writes (lag.py): a list lacking what the run just created, or still
holding what it just deleted, is asked again after a pause before it is judged, so that a
server answering queries from an index kept apart from its store is not read as one whose lists
miss resources or keep deleted ones. The lag is counted in lists (tests/support/unlike.py's
ListsLag), so these tests wait on the server's answers, not on the clock."""

from __future__ import annotations

import threading
from types import SimpleNamespace
from urllib.parse import urlsplit

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.checker import lag
from scim_tui.demo import make_app
from tests.support.servers import make_client
from tests.support.servers import stored
from tests.support.unlike import ListsLag

LISTING = ("object_query_without_id", "object_deletion", "filter_operators", "gallery_create_user")


def listed(results: list, check: str) -> list[str]:
    """The lists a check's results asked for (GET of the endpoint itself), in order."""
    seen = {id(e): e for r in results if r.title == check for e in r.exchanges}
    return [e.url for e in seen.values() if e.method == "GET" and urlsplit(e.url).path == "/v2/Users"]


def test_lists_lagging_behind_the_runs_writes_are_asked_again_until_they_show_them(serve):
    server = serve(ListsLag(make_app(), lag=3))
    with make_client(server.url) as scim:
        only = {CheckId(name, "User") for name in LISTING}
        results = [r for r in iter_checks(scim, CheckConfig(jobs=1), only=only) if r.title in LISTING]
    assert {r.title for r in results} == set(LISTING)
    assert [(r.title, r.reason) for r in results if r.status is not Status.SUCCESS] == []
    assert len(listed(results, "object_query_without_id")) > 1, "the list without the new user was asked again"
    assert len([url for url in listed(results, "object_deletion") if "filter" in url]) > 1, "the list still holding the deleted user too"
    assert stored(server.url) == []


@pytest.mark.parametrize(
    ("check", "resource_type"),
    [
        ("pingfederate_groups_listed", "Group"),  # two readings in a row of a list that stood still missed the group
        ("okta_spec_test", "User"),  # its first page held no user yet
    ],
)
def test_the_providers_listings_wait_for_a_lagging_list(serve, check, resource_type):
    server = serve(ListsLag(make_app(), lag=3))
    with make_client(server.url) as scim:
        results = [r for r in iter_checks(scim, CheckConfig(jobs=1), only={CheckId(check, resource_type)}) if r.title == check]
    assert results and [r.reason for r in results if r.status.failed] == []
    assert stored(server.url) == []


class Unlisted(ListsLag):
    """A server whose lists never show what it creates (nothing is ever indexed)."""

    def __init__(self, app):
        super().__init__(app, lag=10**9)


def test_a_list_that_never_shows_the_resource_is_judged_after_the_last_pause(serve, monkeypatch):
    monkeypatch.setattr(lag, "PAUSES", (0.0, 0.0, 0.0))
    server = serve(Unlisted(make_app()))
    with make_client(server.url) as scim:
        results = [r for r in iter_checks(scim, CheckConfig(jobs=1), only={CheckId("object_query_without_id", "User")}) if r.title == "object_query_without_id"]
    [result] = results
    assert result.status is Status.ERROR and "answered a list without the User" in result.reason
    assert len(listed(results, "object_query_without_id")) == 4, "asked once, then after each pause"


class Stopping:
    """What settled reads of a context: its `stopping` event, whether its recorder was
    interrupted (the run cancelled), what the run learnt of its lists."""

    def __init__(self) -> None:
        self.stopping = threading.Event()
        self.cancelled = False
        self.recorder = SimpleNamespace(interrupted=lambda: self.cancelled)
        self.lists = lag.Lists()


@pytest.mark.parametrize("stopped", [None, "stopping", "cancelled"])
def test_a_stopping_or_cancelled_run_ends_the_pauses(stopped):
    context = Stopping()
    asked: list[int] = []

    def ask() -> int:
        asked.append(len(asked))
        if stopped == "stopping" and len(asked) == 2:
            context.stopping.set()
        if stopped == "cancelled" and len(asked) == 2:
            context.cancelled = True
        return len(asked)

    assert lag.settled(context, ask, lambda answer: answer == 3) == (2 if stopped else 3)  # type: ignore[arg-type]
    assert len(asked) == (2 if stopped else 3)


class Never:
    """A list that never shows the write, counting how often it was asked."""

    def __init__(self) -> None:
        self.asked = 0

    def __call__(self) -> bool:
        self.asked += 1
        return False


@pytest.fixture
def quick(monkeypatch) -> Stopping:
    """A context whose waits are two pauses of no time."""
    monkeypatch.setattr(lag, "PAUSES", (0.0, 0.0))
    return Stopping()


def test_once_a_whole_wait_showed_nothing_and_no_list_caught_up_lists_are_asked_once(quick):
    """A server keeping deleted resources listed costs the run one wait, not one per resource."""
    never = Never()
    assert lag.settled(quick, never, bool) is False  # type: ignore[arg-type]
    assert lag.settled(quick, never, bool) is False  # type: ignore[arg-type]
    assert never.asked == 3 + 1, "the whole wait once, then asked once"


def test_once_a_list_caught_up_every_list_is_waited_for(quick):
    """The server lags: a list that shows nothing after the whole wait does not make the next unwaited."""
    answers = iter([False, True])
    assert lag.settled(quick, lambda: next(answers), bool) is True  # type: ignore[arg-type]
    never = Never()
    for _ in range(2):
        assert lag.settled(quick, never, bool) is False  # type: ignore[arg-type]
    assert never.asked == 2 * 3, "each waited for"


def test_a_list_that_may_rightly_never_show_the_write_teaches_nothing(quick):
    """A disabled user a server hides from its lists (RFC 7644 lets it) does not make the next lists unwaited."""
    never = Never()
    assert lag.settled(quick, never, bool, teaches=False) is False  # type: ignore[arg-type]
    assert lag.settled(quick, never, bool) is False  # type: ignore[arg-type]
    assert never.asked == 2 * 3, "both waited for"
