"""The CRUD checkers against scim2-server, and against servers that break one rule of RFC 7644 §3.3 to §3.6."""

from __future__ import annotations

import json
import re
import threading
from datetime import UTC
from datetime import datetime
from urllib.parse import unquote_plus
from urllib.parse import urlencode
from urllib.parse import urlsplit

import pytest
from scim2_models import Filter
from scim2_server.utils import load_default_service_provider_config

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.checker import lag
from scim_tui.checker.deletions import LEARNT
from scim_tui.checker.deletions import SAMPLED
from scim_tui.checker.exchanges import GONE_NOTE
from scim_tui.checker.exchanges import UNLISTED_NOTE
from scim_tui.checker.registry import _CHECKERS
from scim_tui.checker.registry import Checker
from scim_tui.demo import make_app
from scim_tui.reports import write_report
from scim_tui.reports.model import RunReport
from scim_tui.reports.text import LEFTOVERS_NAMED
from tests.support.bystanders import Bystanders
from tests.support.bystanders import run_leftovers
from tests.support.servers import SCIM_JSON
from tests.support.servers import Broken
from tests.support.servers import http_client
from tests.support.servers import make_client
from tests.support.servers import scim_error
from tests.support.servers import stored
from tests.support.unlike import Capped
from tests.support.unlike import Middleware
from tests.support.unlike import OthersLeaving
from tests.support.unlike import created_with_200

USER = r"/v2/Users/[^/]+"


def run(url: str, checker: str, resource_type: str = "User"):
    with make_client(url) as scim:
        return list(iter_checks(scim, CheckConfig(), only={CheckId(checker, resource_type)}))


@pytest.mark.parametrize("resource_type", ["User", "Group"])
@pytest.mark.parametrize(
    ("checker", "expected"),
    [
        ("object_creation", "answered 201 with the created"),
        ("object_query", "answered the"),
        ("object_query_without_id", "just created"),
        ("object_replacement", "answered 200 with the new values"),
        ("object_deletion", "no longer lists it."),
    ],
)
def test_each_crud_checker_succeeds_on_scim2_server_and_cleans_up(serve, checker, expected, resource_type):
    server = serve(make_app())
    [result, *least] = run(server.url, checker, resource_type)
    assert result.status is Status.SUCCESS, result.reason
    assert expected in result.reason
    assert result.exchanges and result.leftovers == []
    if checker == "object_creation":  # then a resource with only the attributes its /Schemas requires
        [least_creation] = least
        assert least_creation.status is Status.SUCCESS, least_creation.reason
        required = "userName" if resource_type == "User" else "displayName"
        assert f"with only the attributes its /Schemas requires ({required})." in least_creation.reason
        assert [(e.method, e.status_code) for e in least_creation.exchanges] == [("POST", 201)]
    else:
        assert least == []
    assert stored(server.url) == []


def status(code: int):
    """A rewrite that keeps scim2-server's answer but changes its status."""
    return lambda answer: (code, *answer[1:])


def empty_list(body):
    return body | {"totalResults": 0, "Resources": []}


@pytest.mark.parametrize(
    ("checker", "breaks", "expected"),
    [
        ("object_creation", lambda b: b.rewrite("POST", "/v2/Users", status(200)), r"^POST /v2/Users answered 200: "),
        ("object_query", lambda b: b.answer("GET", USER, 500, scim_error(500)), r"^GET /v2/Users/\w+ answered 500: "),
        ("object_query_without_id", lambda b: b.rewrite_json("GET", "/v2/Users", empty_list), r"^GET /v2/Users answered a list without the User"),
        (
            "object_replacement",
            lambda b: b.reroute("PUT", USER, REQUEST_METHOD="GET"),
            r'^PUT /v2/Users/\w+ answered 200, but .*displayName is "\S+" instead of ',
        ),
        ("object_replacement", lambda b: b.answer("PUT", USER, 400, scim_error(400)), r"^PUT /v2/Users/\w+ answered 400: "),
        ("object_deletion", lambda b: b.rewrite("DELETE", USER, status(200)), r"^DELETE /v2/Users/\w+ answered 200 instead of 204\.$"),
    ],
    ids=["POST answers 200", "GET fails", "list omits the resource", "PUT ignores changes", "PUT refused", "DELETE answers 200"],
)
def test_a_server_breaking_a_rule_gives_an_error_and_is_cleaned_up(serve, checker, breaks, expected):
    server = serve(breaks(Broken(make_app())))
    [result] = run(server.url, checker)
    assert result.status is Status.ERROR
    assert re.search(expected, result.reason), result.reason
    left = [user["id"] for user in stored(server.url, "/Users")]
    # A user whose GET fails is never proven the run's own, so never deleted: it is named instead.
    assert len(result.leftovers) == len(left) and all(any(user in item for item in result.leftovers) for user in left)
    assert bool(left) is (checker == "object_query")


def test_a_paginated_list_is_followed_to_the_new_resource(serve):
    """scim2-server answering one resource a page: the list is read until the page holding the new user."""
    config = load_default_service_provider_config()
    server = serve(make_app(config=config.model_copy(update={"filter": Filter(supported=True, max_results=1)})))
    with http_client(server.url) as http:
        for number in range(10):
            http.post("/Users", json={"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "userName": f"other-{number}"})
    [result] = run(server.url, "object_query_without_id")
    assert result.status is Status.SUCCESS, result.reason
    pages = [exchange.url for exchange in result.exchanges if exchange.method == "GET" and not exchange.note]  # not the clean-up's own reads
    assert result.data.total_results > 10 and len(result.data.resources) == 1
    assert len(pages) == result.data.start_index  # one page a resource, up to the one holding it
    assert all(f"startIndex={index}" in url for index, url in enumerate(pages[1:], start=2))


def test_a_list_whose_pages_shift_while_read_is_read_again(serve):
    """Two users a page, oldest first, and another client deleting one of its four users before
    each page after the first: the run's new user moves onto a page already read. The list is read
    once more: a list whose pages shift is no proof the server leaves the user out."""
    server = serve(Capped(OthersLeaving(make_app()), cap=2))
    Bystanders.seed(server.url, users=4, groups=0)
    [result] = run(server.url, "object_query_without_id")
    assert result.status is Status.SUCCESS, result.reason
    firsts = [e for e in result.exchanges if e.method == "GET" and urlsplit(e.url).path == "/v2/Users" and "startIndex" not in e.url]
    assert len(firsts) == 2, "read twice"
    assert run_leftovers(server.url) == []


def test_a_deleted_resource_that_is_still_readable_is_an_error(serve):
    broken = Broken(make_app()).answer("DELETE", USER, 204, b"")
    server = serve(broken)
    [result] = run(server.url, "object_deletion")
    assert result.status is Status.ERROR
    assert "can still be read" in result.reason
    broken.repaired = True


def test_a_deleted_resource_answered_with_another_status_than_404_is_an_error(serve):
    deleted = threading.Event()

    def deleting_nothing(call_app):
        deleted.set()
        return 204, [], b""

    def reading(call_app):
        return (410, SCIM_JSON, scim_error(410)) if deleted.is_set() else call_app()

    broken = Broken(make_app())
    broken.rules += [("DELETE", USER, deleting_nothing), ("GET", USER, reading)]
    server = serve(broken)
    [result] = run(server.url, "object_deletion")
    assert result.status is Status.ERROR
    assert "answered 410 instead of 404" in result.reason


class HiddenNotDeleted(Middleware):
    """DELETE answers 204, and a GET of the user 404 from then on, but every list still shows it."""

    def __init__(self, app):
        super().__init__(app)
        self.hidden: set[str] = set()

    def intercept(self, environ):
        found = re.fullmatch(r"/v2/Users/([^/]+)", environ.get("PATH_INFO", ""))
        if found and environ["REQUEST_METHOD"] == "DELETE":
            self.hidden.add(found[1])
            return 204, [], b""
        if found and found[1] in self.hidden:
            return 404, SCIM_JSON, scim_error(404)
        return None


def test_a_deleted_resource_a_query_still_lists_is_an_error(serve):
    """RFC 7644 §3.6: a provider MAY keep the record, but MUST omit it from query results."""
    server = serve(HiddenNotDeleted(make_app()))
    [result] = run(server.url, "object_deletion")
    assert result.status is Status.ERROR
    assert re.fullmatch(
        r'DELETE /v2/Users/\w+ answered 204 and a GET then answered 404, but GET /v2/Users\?filter=userName eq "scim-tui-[\w-]+@example\.com" still lists it: '
        r"a deleted resource MUST be omitted from query results \(RFC 7644 §3\.6\)\.",
        result.reason,
    ), result.reason


@pytest.mark.parametrize("jobs", [1, 4])
def test_the_query_after_deleting_the_replaced_resource_asks_for_the_values_its_put_gave(serve, jobs):
    """object_deletion deletes the User object_replacement replaced: a query on the userName of its
    creation would list nothing (the PUT changed it) and hide a server that keeps listing it."""
    server = serve(HiddenNotDeleted(make_app()))
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(include_tags={"crud:create", "crud:update", "crud:delete"}, resource_types=["User"], jobs=jobs)))
    [replacement] = [r for r in results if r.title == "object_replacement" and r.resource_type == "User"]
    [deletion] = [r for r in results if r.title == "object_deletion" and r.resource_type == "User"]
    [put] = [e for e in replacement.exchanges if e.method == "PUT"]
    assert [e.method for e in deletion.exchanges][:1] == ["DELETE"], "it deleted the User handed over, and created none"
    assert deletion.status is Status.ERROR
    assert f'filter=userName eq "{json.loads(put.request_body or "{}")["userName"]}" still lists it' in (deletion.reason or ""), deletion.reason


def test_what_a_query_still_lists_after_its_deletion_is_named_left_on_the_server_once(serve):
    """RFC 7644 §3.6: the clean-up's GET answering 404 is not enough; a resource a query on its
    marker still lists is left on the server, named once for the run (a count and the first few)."""
    middleware = HiddenNotDeleted(make_app())
    server = serve(middleware)
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(include_tags={"crud"}, resource_types=["User"])))
    listed = stored(server.url, "/Users")
    assert len(listed) > LEFTOVERS_NAMED and {user["id"] for user in listed} <= middleware.hidden
    report = RunReport.create(results, target=server.url, started_at=datetime.now(UTC), duration=1.0)
    told = [
        re.fullmatch(r'User/(\w+) \(still listed: deleted, and a GET of it answers 404, yet GET /v2/Users\?filter=\w+ eq "[^"]+" still lists it\)', item)
        for item in report.leftovers
    ]
    assert all(told), report.leftovers
    assert sorted(found[1] for found in told) == sorted(user["id"] for user in listed), "exactly the ones still listed, each once"
    text = write_report(report, "text")
    [line] = [line for line in text.splitlines() if line.startswith("Left on the server: ")]
    assert line.startswith(f"Left on the server: {len(listed)} resources (delete them by hand): {', '.join(report.leftovers[:LEFTOVERS_NAMED])} and ")
    assert line.endswith(f"and {len(listed) - LEFTOVERS_NAMED} more (the JSON report names them all)")
    assert "Clean-up failed" not in text and "still listed" not in text.replace(line, ""), "named once, for the run"
    assert json.loads(write_report(report, "json"))["leftovers"] == report.leftovers


class FirstStillListed(HiddenNotDeleted):
    """Only the first User deleted of those never replaced stays in the lists (a GET of it answers
    404): one the clean-up deletes (object_deletion deletes the one object_replacement replaced). A
    filter joining clauses with `or` is "honoured", "refused" with 400, or "ignored": answered with
    what the server reads of it, here the User named "theirs" alone (as a server answers that drops
    what it cannot read of a filter, or the filter itself, listing a page of Users that were not
    asked about)."""

    def __init__(self, app, or_filter: str):
        super().__init__(app)
        self.or_filter = or_filter
        self.replaced: set[str] = set()

    def intercept(self, environ):
        if self.or_filter != "honoured" and " or " in unquote_plus(environ.get("QUERY_STRING", "")):
            if self.or_filter == "refused":
                return 400, SCIM_JSON, scim_error(400, "or is not supported")
            environ["QUERY_STRING"] = urlencode({"filter": 'userName eq "theirs"'})
        found = re.fullmatch(r"/v2/Users/([^/]+)", environ.get("PATH_INFO", ""))
        if found and environ["REQUEST_METHOD"] == "PUT":
            self.replaced.add(found[1])
        if found and environ["REQUEST_METHOD"] == "DELETE" and ((self.hidden and found[1] not in self.hidden) or found[1] in self.replaced):
            return None
        return super().intercept(environ)


@pytest.mark.parametrize("or_filter", ["honoured", "refused", "ignored"])
def test_the_deleted_resources_are_asked_about_together_and_the_one_still_listed_is_named(serve, or_filter, monkeypatch):
    """RFC 7644 §3.6: the run's clean-up asks, last, whether queries still list what it deleted: one
    filter on several ids (`id eq "…" or id eq "…"`), then each one it lists on its own, again after
    a pause while it lists it (lag.py); a server refusing `or`, or answering with resources it was
    not asked about (a filter dropped, a page of everything), is asked about each."""
    monkeypatch.setattr(lag, "PAUSES", (0.0,))
    middleware = FirstStillListed(make_app(), or_filter)
    server = serve(middleware)
    theirs = None
    if or_filter == "ignored":  # someone else's User comes first in every list
        with http_client(server.url) as http:
            theirs = http.post("/Users", json={"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "userName": "theirs"}).json()
    log: list = []
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(include_tags={"crud"}, resource_types=["User"], jobs=1), exchanges=log))
    [hidden] = middleware.hidden
    assert sorted(user["id"] for user in stored(server.url, "/Users")) == sorted([hidden, *([theirs["id"]] if theirs else [])])
    named = [item for result in results for item in result.leftovers]
    assert len(named) == 1 and named[0].startswith(f"User/{hidden} (still listed: "), named
    asked = [unquote_plus(urlsplit(e.url).query) for e in log if e.note == UNLISTED_NOTE]
    deleted = {e.url.rsplit("/", 1)[-1] for e in log if e.method == "DELETE" and e.status_code == 204}
    assert len(deleted) > 3
    together = [query for query in asked if " or " in query]
    alone = [query for query in asked if " or " not in query]
    [deletion] = [r for r in results if r.title == "object_deletion" and r.resource_type == "User"]
    assert deletion.status is Status.SUCCESS, "the check saw it gone from queries: not asked again"
    verified = {e.url.rsplit("/", 1)[-1] for e in deletion.exchanges if e.method == "DELETE"}
    assert {found for query in together for found in re.findall(r'id eq "(\w+)"', query)} == deleted - verified
    assert len(together) == 1 and len(alone) == (1 if or_filter == "honoured" else len(deleted - verified)) + len(lag.PAUSES), asked
    assert alone.count(f'filter=id eq "{hidden}"') == 1 + len(lag.PAUSES), "the one still listed, asked again after the pause"


def test_nothing_is_claimed_left_when_the_deletion_really_removed_it(serve):
    server = serve(make_app())
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(include_tags={"crud"}, resource_types=["User"])))
    assert [item for result in results for item in result.leftovers] == []
    assert stored(server.url) == []


def test_the_engine_deletes_only_what_it_created(serve):
    server = serve(make_app())
    with http_client(server.url) as http:
        theirs = http.post("/Users", json={"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "userName": "theirs"}).json()
    results = [r for checker in ("object_creation", "object_replacement", "object_deletion") for r in run(server.url, checker)]
    assert all(r.status is Status.SUCCESS for r in results)
    assert stored(server.url, "/Users") == [theirs]
    assert not any(theirs["id"] in exchange.url for r in results for exchange in r.exchanges)


def test_a_creation_answered_200_is_one_error_and_the_checks_needing_a_resource_use_it(serve):
    """RFC 7644 §3.3: a created resource is answered with 201. A server answering 200 with the
    resource fails object_creation, once; a check that only needs a resource uses it."""
    server = serve(created_with_200(make_app()))
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(include_tags={"crud"}, resource_types=["User"])))
    by_title = {r.title: r for r in results if r.resource_type == "User"}
    creation = by_title["object_creation"]
    assert creation.status is Status.ERROR
    assert creation.reason == (
        'POST /v2/Users answered 200: a created resource is answered with 201 Created ("an HTTP response SHALL be returned '
        'with HTTP status code 201 (Created)", RFC 7644 §3.3)'
    )
    assert [r.title for r in by_title.values() if r.status.failed] == ["object_creation", "resource_type_tests"], "the User suite's summary follows"
    assert by_title["object_query"].status is Status.SUCCESS and by_title["object_replacement"].status is Status.SUCCESS
    assert stored(server.url, "/Users") == []


MADE = LEARNT + SAMPLED
"""Users the check below makes: LEARNT read back, then SAMPLED taken at their word, the last read back."""


def creates_users(context, model) -> list[CheckResult]:
    """Creates MADE users and leaves them to the clean-up (which deletes the newest first)."""
    for _ in range(MADE):
        context.resource_manager.create_and_register(model, fill_all=False)
    return [CheckResult(Status.SUCCESS, reason="created")]


class SoftDeletesLater(Middleware):
    """Deletes the first `first` users it is asked to delete for good; answers each later DELETE
    204 and keeps the user (an archive switched on), served by a GET and listed."""

    def __init__(self, app, first: int):
        super().__init__(app)
        self.first = first
        self.deleted = 0
        self.kept: list[str] = []

    def intercept(self, environ):
        path = environ.get("PATH_INFO", "")
        if environ["REQUEST_METHOD"] != "DELETE" or not re.fullmatch(USER, path):
            return None
        self.deleted += 1
        if self.deleted <= self.first:
            return None
        self.kept.append(path.rsplit("/", 1)[-1])
        return 204, [], b""


class Held:
    """A run's journal kept in memory: the creations not yet settled."""

    def __init__(self) -> None:
        self.held: list = []

    def add(self, creation) -> None:
        self.held.append(creation)

    def remove(self, creation) -> None:
        self.held.remove(creation)

    def earlier(self) -> list:
        return []

    def recovered(self, deleted, remaining) -> None:
        pass


@pytest.mark.parametrize("soft_later", [False, True], ids=["deletes for good", "keeps what it deletes after the learning"])
def test_deletions_are_read_back_until_the_endpoint_is_seen_deleting_for_good_then_sampled(serve, monkeypatch, soft_later):
    """RFC 7644 §3.6: a deleted resource answers 404. Once LEARNT GETs after a DELETE of the clean-up
    answered 404 on /Users, later DELETEs answered 204 there are taken at their word, one in SAMPLED
    still read back, until the run's last query, which asks whether any is still listed. A server
    that stops deleting for good once learnt is caught by the sample: then each DELETE taken at its
    word is read again last, and named still there when its GET serves it (the run's journal keeps
    it, for the next run to look for)."""
    app = SoftDeletesLater(make_app(), first=LEARNT + 1) if soft_later else make_app()
    server = serve(app)
    monkeypatch.setitem(_CHECKERS, "creates_users", Checker("creates_users", creates_users, frozenset({"rogue"}), "3", "model"))
    log: list = []
    journal = Held()
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(jobs=1), only={CheckId("creates_users", "User")}, exchanges=log, journal=journal))
    deletions = [i for i, e in enumerate(log) if e.method == "DELETE"]
    read_back = [i for i, e in enumerate(log) if e.note == GONE_NOTE]
    [query] = [i for i, e in enumerate(log) if e.note == UNLISTED_NOTE and " or " in unquote_plus(e.url)]
    assert len(deletions) == MADE and query > deletions[-1]
    sampled = [deletions[index] + 1 for index in (*range(LEARNT), MADE - 1)]
    assert [i for i in read_back if i < query] == sampled, "LEARNT read back, then one in SAMPLED"
    assert [log[i].status_code for i in sampled] == [404] * LEARNT + [200 if soft_later else 404]
    kept = app.kept if soft_later else []
    assert len(kept) == (MADE - LEARNT - 1 if soft_later else 0)
    assert sorted(user["id"] for user in stored(server.url, "/Users")) == sorted(kept)
    read_last = [log[i].url.rsplit("/", 1)[-1] for i in read_back if i > query]
    # on an unsure endpoint, every deletion after the learning is read again last, listed or not
    assert len(read_last) == (MADE - LEARNT if soft_later else 0) and set(kept) <= set(read_last), read_last
    named = [item for result in results for item in result.leftovers]
    assert sorted(named) == sorted(f"User/{user} (still there: its DELETE answered 204, yet a GET still serves it)" for user in kept)
    users = {user["id"]: user["userName"] for user in stored(server.url, "/Users")}
    assert sorted(marker.value for creation in journal.held for marker in creation.markers if marker.attribute == "userName") == sorted(
        users[user] for user in kept
    ), "the journal forgets a user its DELETE was taken at its word for once the last query saw it gone, not before"
