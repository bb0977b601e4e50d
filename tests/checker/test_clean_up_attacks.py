"""The clean-up's shortcuts against servers that behave otherwise than they promise (context.py,
deletions.py, guard.py): a DELETE taken at its word once its endpoint was seen deleting for good,
then asked about by the run's last query (RFC 7644 §3.6), and lists, which never prove a resource
the run's own. Whatever the server does, the run writes to nothing it did not create, and names
each resource of its own it leaves, and nothing it does not.
"""

from __future__ import annotations

import io
import json
import re
import threading
from functools import partial
from typing import Any
from urllib.parse import parse_qsl
from urllib.parse import urlencode

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.checker.exchanges import GONE_NOTE
from scim_tui.checker.exchanges import UNLISTED_NOTE
from scim_tui.checker.registry import _CHECKERS
from scim_tui.checker.registry import Checker
from scim_tui.demo import make_app
from tests.support.bystanders import Bystanders
from tests.support.harmless import Logged
from tests.support.harmless import lists_then_patches
from tests.support.harmless import run
from tests.support.servers import Response
from tests.support.servers import http_client
from tests.support.servers import make_client
from tests.support.unlike import FilterRefused
from tests.support.unlike import Middleware

USERS = "/v2/Users"
USER = r"/v2/Users/([^/]+)"
CREATED = 4
"""How many users the check below creates: enough for the run's last query to ask about several."""


def creates_users(context, model) -> list[CheckResult]:
    """Creates CREATED users and leaves them to the clean-up."""
    for _ in range(CREATED):
        context.resource_manager.create_and_register(model, fill_all=False)
    return [CheckResult(Status.SUCCESS, reason="created")]


def cleaned_up(serve, monkeypatch, app, jobs: int = 1) -> tuple[list[str], list]:
    """Run the check creating users on `app`: what the results name as left, and the run's log;
    every user the run leaves is one the server kept (`kept`)."""
    server = serve(app)
    monkeypatch.setitem(_CHECKERS, "creates_users", Checker("creates_users", creates_users, frozenset({"rogue"}), "3", "model"))
    log: list = []
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(jobs=jobs), only={CheckId("creates_users", "User")}, exchanges=log))
    with http_client(server.url) as http:
        assert all(http.get(f"/Users/{user}").status_code == 200 for user in getattr(app, "archived", ())), "what the server kept is there"
    return [item for result in results for item in result.leftovers], log


def _listed(answer: Response, keep: Any) -> Response:
    """A list answer holding only the resources `keep` keeps, its totalResults following."""
    status, headers, body = answer
    if status != 200:
        return answer
    listed = json.loads(body)
    resources = [resource for resource in listed.get("Resources", []) if keep(resource)]
    listed = listed | {"totalResults": len(resources), "itemsPerPage": len(resources), "Resources": resources}
    return status, [(k, v) for k, v in headers if k.lower() != "content-length"], json.dumps(listed).encode()


class ArchivesAfterTheFirst(Middleware):
    """Deletes the first user it is asked to delete for good; from then on (an archive switched
    on) answers a DELETE 204 and keeps the user, served by a GET of its URL. With `hidden`, its
    lists show active users only, as a directory hiding what it archived does; else they show it."""

    def __init__(self, app: Any, hidden: bool):
        super().__init__(app)
        self.hidden = hidden
        self.archived: set[str] = set()
        self.deleted_one = False
        self.lock = threading.Lock()

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        path, method = environ.get("PATH_INFO", ""), environ["REQUEST_METHOD"]
        user = re.fullmatch(USER, path)
        if method == "DELETE" and user:
            with self.lock:
                first, self.deleted_one = not self.deleted_one, True
                if not first:
                    self.archived.add(user[1])
            return None if first else (204, [], b"")
        if method == "GET" and path == USERS and self.hidden:
            return _listed(self.call(environ), lambda resource: resource.get("id") not in self.archived)
        return None


class FirstClauseOnly(Middleware):
    """Reads a filter's first attribute expression and ignores the rest (`id eq "a" or id eq "b"`
    lists what `id eq "a"` lists), as a filter parser that stops where its grammar ends does."""

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        query = dict(parse_qsl(environ.get("QUERY_STRING", "")))
        if environ["REQUEST_METHOD"] != "GET" or " or " not in query.get("filter", ""):
            return None
        first = query["filter"].split(" or ")[0]
        return self.call(environ, QUERY_STRING=urlencode(query | {"filter": first}))


def still_there(ids: set[str]) -> list[str]:
    return sorted(f"User/{user} (still there: its DELETE answered 204, yet a GET still serves it)" for user in ids)


@pytest.mark.parametrize("jobs", [1, 4])
def test_deletions_kept_after_the_first_and_still_listed_are_named_at_one_and_four_jobs(serve, monkeypatch, jobs):
    """RFC 7644 §3.6: a deleted resource answers 404 and is omitted from queries. A server that
    deletes the first user for good and archives the others (still listed, still served): the
    run's last query lists those, and each is named still there, the same at --jobs 1 and 4."""
    app = ArchivesAfterTheFirst(make_app(), hidden=False)
    named, _log = cleaned_up(serve, monkeypatch, app, jobs)
    assert len(app.archived) == CREATED - 1
    assert sorted(named) == still_there(app.archived)


def test_deletions_kept_after_the_first_and_hidden_from_lists_are_named(serve, monkeypatch):
    """A server that deletes the first user for good, then archives the others, serving them at
    their URL but hiding them from its lists (RFC 7644 §3.6: a deleted resource answers 404): the
    run leaves them, and must name each still there."""
    app = ArchivesAfterTheFirst(make_app(), hidden=True)
    named, _log = cleaned_up(serve, monkeypatch, app)
    assert len(app.archived) == CREATED - 1
    assert sorted(named) == still_there(app.archived)


def test_deletions_kept_after_the_first_on_a_server_reading_one_filter_expression_are_named(serve, monkeypatch):
    """A server that deletes the first user for good, then archives the others (still listed, still
    served), and reads only the first expression of a filter: the run's last query, asking first
    about the user deleted for good, lists nothing; the users archived must be named all the same."""
    app = ArchivesAfterTheFirst(FirstClauseOnly(make_app()), hidden=False)
    named, _log = cleaned_up(serve, monkeypatch, app)
    assert len(app.archived) == CREATED - 1
    assert sorted(named) == still_there(app.archived)


class DeletesLater(Middleware):
    """Answers a user's DELETE 204 and deletes it `lag` requests later (a queue working behind the
    answer): a GET right after still serves it, a GET a moment later answers 404."""

    def __init__(self, app: Any, lag: int):
        super().__init__(app)
        self.lag = lag
        self.queued: dict[str, int] = {}
        self.lock = threading.Lock()

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        with self.lock:
            due = [path for path, left in self.queued.items() if left <= 1]
            self.queued = {path: left - 1 for path, left in self.queued.items() if left > 1}
        for path in due:
            self.call(environ, REQUEST_METHOD="DELETE", PATH_INFO=path, QUERY_STRING="", CONTENT_LENGTH="0", **{"wsgi.input": io.BytesIO(b"")})
        path = environ.get("PATH_INFO", "")
        if environ["REQUEST_METHOD"] != "DELETE" or not re.fullmatch(USER, path):
            return None
        with self.lock:
            self.queued[path] = self.lag
        return 204, [], b""


@pytest.mark.parametrize("jobs", [1, 4])
def test_deletions_done_a_moment_later_are_not_named_as_left(serve, monkeypatch, jobs):
    """A server deleting each user two requests after answering its DELETE 204 (RFC 7644 §3.6
    wants a 404 at once): everything is gone when the run ends, so nothing is named as left."""
    app = DeletesLater(make_app(), lag=2)
    named, log = cleaned_up(serve, monkeypatch, app, jobs)
    assert app.queued == {}, "every user was deleted before the run ended"
    reads = [exchange for exchange in log if exchange.note == GONE_NOTE]
    assert jobs > 1 or any(read.status_code == 200 for read in reads), "a GET right after a DELETE still served the user"
    assert named == []


class SharedIds(Middleware):
    """A sequence reset on a store without a unique key: each user created gets the id of an
    existing user (`victim`), and both rows carry it. A GET, PATCH, PUT or DELETE of that id finds
    the older row, someone else's; a list shows both rows, each with that id."""

    def __init__(self, app: Any):
        super().__init__(app)
        self.victim: str | None = None
        self.created: list[str] = []

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        if self.victim is None or environ.get("PATH_INFO") != USERS or environ["REQUEST_METHOD"] not in ("GET", "POST"):
            return None
        status, headers, body = self.call(environ)
        if environ["REQUEST_METHOD"] == "POST" and status == 201:
            self.created.append(json.loads(body)["id"])
        for real in self.created:
            body = body.replace(real.encode(), self.victim.encode())
        return status, [(k, v) for k, v in headers if k.lower() != "content-length"], body


def test_a_listing_showing_the_runs_values_at_an_id_shared_with_someone_else_proves_nothing(serve, monkeypatch):
    """A creation answered with an id someone else's user holds too, and a list showing the run's
    user at that id: a GET of that id serves the other user, so the run writes nothing there."""
    shared = SharedIds(make_app())
    logged = Logged(shared)
    server = serve(logged)
    bystanders = Bystanders.seed(server.url)
    shared.victim = bystanders.users[0]
    with http_client(server.url) as http:
        before = http.get(f"/Users/{shared.victim}").json()
    logged.requests.clear()
    by_user_name = lambda user: {"filter": f'userName eq "{user.user_name}"'}  # noqa: E731
    check = Checker("lists_then_patches", partial(lists_then_patches, by_user_name), frozenset({"rogue"}), "3", "model")
    monkeypatch.setitem(_CHECKERS, "lists_then_patches", check)
    [result] = run(server.url, only={CheckId("lists_then_patches", "User")})
    assert shared.created, "the run created a user"
    assert logged.writes_to([shared.victim]) == [], "nothing was written to someone else's user"
    with http_client(server.url) as http:
        assert http.get(f"/Users/{shared.victim}").json() == before


def test_a_server_with_no_filter_is_asked_once_whether_it_still_lists_a_deletion(serve):
    """Filtering answered 501 (the server filters on nothing): the run's last query about each
    deleted resource (RFC 7644 §3.6) stops at its first 501, on the id, instead of asking again on
    each value the run gave it; the results and what is left stay the same (nothing)."""
    server = serve(FilterRefused(make_app()))
    log: list = []
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(jobs=1, include_tags={"crud"}, resource_types=["User"]), exchanges=log))
    asked = [dict(parse_qsl(e.url.split("?", 1)[1]))["filter"] for e in log if e.note == UNLISTED_NOTE and e.status_code == 501]
    assert asked, "no deleted resource was asked about: the test did not put the clean-up to the test"
    assert all(query.startswith("id eq ") for query in asked), asked
    assert [item for result in results for item in result.leftovers] == []
