"""A resource is the run's own only when a GET of its own URL shows the values the run gave it
(guard.py): whatever a creation's answer or a listing says, the run writes to and deletes nothing
else, leaves nothing of its own behind, and names what the server still holds.

Each test puts someone else's users and groups on a scim2-server that lies in one way, runs the
checks, and counts every foreign resource before and after (tests/support/bystanders.py).
"""

from __future__ import annotations

import json
import re
import threading
from datetime import UTC
from datetime import datetime
from functools import partial
from typing import Any
from urllib.parse import parse_qsl

import pytest
from scim2_models import PatchOp

from scim_tui.checker import CheckId
from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.checker.registry import _CHECKERS
from scim_tui.checker.registry import Checker
from scim_tui.demo import make_app
from scim_tui.reports import RunReport
from scim_tui.reports import write_report
from scim_tui.reports.text import told
from tests.support.bystanders import Bystanders
from tests.support.bystanders import run_leftovers
from tests.support.harmless import Logged
from tests.support.harmless import lists_then_patches
from tests.support.harmless import reported
from tests.support.harmless import run
from tests.support.servers import Broken
from tests.support.servers import Response
from tests.support.unlike import Middleware
from tests.support.unlike import SequentialIds

USERS = "/v2/Users"
USER = r"/v2/Users/[^/]+"


def _retold(answer: Response, change: Any) -> Response:
    """An answer whose JSON body `change` rewrote, its Location following meta.location."""
    status, headers, body = answer
    document = change(json.loads(body))
    location = (document.get("meta") or {}).get("location")
    headers = [(k, location or "" if k.lower() == "location" else v) for k, v in headers if k.lower() != "content-length"]
    return status, [(k, v) for k, v in headers if v], json.dumps(document).encode()


class Answering:
    """Creates each user where scim2-server puts it, but answers its POST with `retell`'s
    version of the created user (`others` holds the ids of someone else's users)."""

    def __init__(self, retell: Any):
        self.retell = retell
        self.others: list[str] = []
        self.created: list[str] = []

    def __call__(self, call_app: Any) -> Response:
        answer = call_app()
        if answer[0] != 201:
            return answer
        self.created.append(json.loads(answer[2])["id"])
        return _retold(answer, lambda user: self.retell(self, user))


def another_id(server: Answering, user: dict[str, Any]) -> dict[str, Any]:
    """The values sent, with the id (and location) of someone else's user: a sequence reset."""
    victim = server.others[len(server.created) % len(server.others)]
    return user | {"id": victim, "meta": user["meta"] | {"location": user["meta"]["location"].replace(user["id"], victim)}}


def no_id_elsewhere(server: Answering, user: dict[str, Any]) -> dict[str, Any]:
    """No id in the body, and a Location naming someone else's user."""
    victim = server.others[len(server.created) % len(server.others)]
    return {k: v for k, v in user.items() if k != "id"} | {"meta": user["meta"] | {"location": user["meta"]["location"].replace(user["id"], victim)}}


def the_first_id(server: Answering, user: dict[str, Any]) -> dict[str, Any]:
    """Every creation answered with the id of the first user the run created."""
    first = server.created[0]
    return user | {"id": first, "meta": user["meta"] | {"location": user["meta"]["location"].replace(user["id"], first)}}


def other_values(server: Answering, user: dict[str, Any]) -> dict[str, Any]:
    """The user stored as sent, answered with other values than those sent."""
    return user | {key: f"someone-{index}" for index, key in enumerate(("userName", "displayName", "externalId")) if key in user}


def unlocated(server: Answering, user: dict[str, Any]) -> dict[str, Any]:
    """Created, answered without its id or its location: looked for at clean-up by its markers."""
    return {k: v for k, v in user.items() if k not in ("id", "meta")}


class LyingListing(Middleware):
    """Shows, in a filtered list of users, someone else's users (`victims`) carrying the value filtered on."""

    def __init__(self, app: Any):
        super().__init__(app)
        self.victims: list[dict[str, Any]] = []

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        asked = re.fullmatch(r'(\w+) eq "(.*)"', dict(parse_qsl(environ.get("QUERY_STRING", ""))).get("filter", ""))
        if environ["REQUEST_METHOD"] != "GET" or environ.get("PATH_INFO") != USERS or not asked or not self.victims:
            return None
        status, headers, body = self.call(environ)
        listed = json.loads(body)
        forged = [victim | {asked[1]: asked[2]} for victim in self.victims]
        listed = listed | {"totalResults": listed["totalResults"] + len(forged), "Resources": [*forged, *listed.get("Resources", [])]}
        return status, [(k, v) for k, v in headers if k.lower() != "content-length"], json.dumps(listed).encode()


def one_past(server: Answering, user: dict[str, Any]) -> dict[str, Any]:
    """The values sent, with the id one past the one given (a sequence read after its increment):
    the next creation's."""
    following = str(int(user["id"]) + 1)
    location = user["meta"]["location"].rsplit("/", 1)[0]
    return user | {"id": following, "meta": user["meta"] | {"location": f"{location}/{following}"}}


def lied_to(serve: Any, retell: Any, listing: bool = False, app: Any = None) -> tuple[Logged, str, Bystanders, Answering]:
    """A scim2-server (or `app`) whose user creations are answered by `retell` (and whose filtered
    lists of users lie, with `listing`), with someone else's users and groups on it, the log cleared."""
    answering = Answering(retell)
    broken = Broken(app or make_app())
    broken.rules.append(("POST", USERS, answering))
    lying = LyingListing(broken)
    logged = Logged(lying)
    server = serve(logged)
    broken.repaired = True
    bystanders = Bystanders.seed(server.url)
    broken.repaired = False
    answering.others = bystanders.users
    if listing:
        lying.victims = [json.loads(bystanders.before[victim]) for victim in bystanders.users[:2]]
    logged.requests.clear()
    return logged, server.url, bystanders, answering


def assert_harmless(logged: Logged, url: str, bystanders: Bystanders, results: list[CheckResult], listing_lies: bool = False) -> None:
    """Not one foreign resource was written to or changed; nothing of the run's is left, and the
    report says so. When the listings lie, the report may name as "may remain" a creation whose
    search listed only resources their own URL does not show with the run's values."""
    foreign = bystanders.users + bystanders.groups
    assert logged.writes_to(foreign) == [], "no write was sent to a resource the run did not create"
    assert bystanders.untouched(), "every foreign resource is as it was"
    assert run_leftovers(url) == [], "each user created was found by the values the run gave it, and deleted"
    told = reported(results)
    assert (told == []) if not listing_lies else all("(may remain: " in item for item in told), "and the report says nothing was left"


@pytest.mark.slow  # every check of the User resource type
@pytest.mark.parametrize(
    ("retell", "listing"),
    [(another_id, False), (no_id_elsewhere, False), (another_id, True)],
    ids=["an existing user's id", "no id, a Location elsewhere", "an existing user's id, listed with the values filtered on"],
)
def test_a_creation_answered_with_someone_elses_resource_never_touches_it(serve, retell, listing):
    """A server retelling creations: once 160 PATCH, 6 PUT and 10 DELETE went to 7 foreign users, all
    deleted. Its filtered lists may show those users with the values filtered on: a listing proves
    a resource the run's own only by a value its request did not name."""
    logged, url, bystanders, answering = lied_to(serve, retell, listing)
    results = run(url, resource_types=["User"])
    assert answering.created, "the run created users"
    assert_harmless(logged, url, bystanders, results, listing_lies=listing)
    proofs = [path for method, path in logged.requests if method == "GET" and any(path.endswith(f"/{victim}") for victim in bystanders.users)]
    assert proofs, "each answered id was read (a GET of its URL) before anything else, and proved none of the run's"


def test_a_listing_showing_the_runs_marker_on_someone_elses_resource_gets_it_proven_first(serve):
    """Once, the clean-up's search was trusted on the listing's word, and deleted what it showed."""
    logged, url, bystanders, answering = lied_to(serve, unlocated, listing=True)
    results = run(url, resource_types=["User"], include_tags={"crud"})
    assert answering.created
    assert_harmless(logged, url, bystanders, results)


@pytest.mark.parametrize("retell", [the_first_id, other_values], ids=["the same id twice", "other values than stored"])
def test_a_creation_not_proven_the_runs_stays_pending_and_is_found(serve, retell):
    """Once, the second creation answered with an id the run had (66 left), and a
    creation answered with other values (22 left), were forgotten, and the report said nothing was left."""
    logged, url, bystanders, answering = lied_to(serve, retell)
    results = run(url, resource_types=["User"], include_tags={"crud"})
    assert len(answering.created) > 2
    assert_harmless(logged, url, bystanders, results)


def test_a_search_answered_with_no_list_cannot_tell_a_creation_gone(serve):
    """A user created without its id or location is looked for by its values at clean-up; the
    searches answer 200 with `{"foo": 1}`, no ListResponse. Once read as "no user holds them":
    the report said nothing was left, and the user remained."""
    answering = Answering(unlocated)
    broken = Broken(make_app()).rewrite("GET", USERS, lambda answer: (answer[0], answer[1], b'{"foo": 1}'))
    broken.rules.append(("POST", USERS, answering))
    server = serve(broken)
    results = run(server.url, only={CheckId("object_creation", "User")})
    broken.repaired = True
    left = run_leftovers(server.url)
    assert answering.created and left, "the run created users the server still holds"
    told = reported(results)
    assert len(told) == len(left) and all("(may remain: " in item for item in told), told


def lists_then_writes(context, model) -> list[CheckResult]:
    """Lists the users (seeing every id there is), creates one, then writes to the id answered."""
    context.client.request("GET", "/Users")
    created = context.resource_manager.create_and_register(model, fill_all=False)
    patch = {"schemas": [str(PatchOp.__schema__)], "Operations": [{"op": "replace", "path": "displayName", "value": "changed"}]}
    context.client.request("PATCH", f"/Users/{created.id}", json=patch)
    return [CheckResult(Status.SUCCESS, reason="written")]


def test_an_id_an_answer_showed_before_the_creation_is_no_creation_of_the_run(serve, monkeypatch):
    """A creation answered with an id the run saw listed before it was sent: not even read as the run's."""
    logged, url, bystanders, _answering = lied_to(serve, another_id)
    monkeypatch.setitem(_CHECKERS, "lists_then_writes", Checker("lists_then_writes", lists_then_writes, frozenset({"rogue"}), "3", "model"))
    [result] = run(url, only={CheckId("lists_then_writes", "User")})
    assert result.status is Status.ERROR
    assert "not sent: it names a resource this run did not create" in result.reason
    assert [request for request in logged.requests if any(victim in request[1] for victim in bystanders.users)] == []
    assert_harmless(logged, url, bystanders, [result])


def test_a_clean_up_delete_that_deletes_nothing_names_what_is_still_there(serve):
    """A DELETE answered 204 was once trusted; one GET after it tells what the server still holds."""
    broken = Broken(make_app()).answer("DELETE", USER, 204, b"")
    server = serve(broken)
    *_, result = run(server.url, only={CheckId("object_creation", "User")})  # the check's last result names what it left
    broken.repaired = True
    left = run_leftovers(server.url)
    assert left and sorted(result.leftovers) == sorted(f"User/{user['id']} (still there: its DELETE answered 204, yet a GET still serves it)" for user in left)
    assert told(result) == result.reason, "what it left is told once for the run, not on each result"
    report = RunReport.create([result], target=server.url, started_at=datetime.now(UTC), duration=1.0)
    text = next(line for line in write_report(report, "text").splitlines() if line.startswith("Left on the server: "))
    markdown = next(line for line in write_report(report, "markdown").splitlines() if line.startswith("**Left on the server**"))
    listed = json.dumps(json.loads(write_report(report, "json"))["leftovers"])
    for written in (text, markdown, listed):
        assert all(written.count(f"User/{user['id']} (still there") == 1 for user in left), f"named once in every report's list: {written}"


@pytest.mark.parametrize(
    "listing",
    [lambda user: {"count": "100"}, lambda user: {"filter": f'userName eq "{user.user_name}"'}],
    ids=["every user listed", "listed by its userName"],
)
def test_a_listing_proves_nothing_the_get_of_its_url_is_sent_before_a_write(serve, monkeypatch, listing):
    """A list showing the user at its id with the values the run gave it says nothing of what that
    id's URL addresses (a store holding two rows with one id lists both and serves the older): the
    GET of its URL is sent before the PATCH, whatever the list showed."""
    logged = Logged(make_app())
    server = serve(logged)
    check = Checker("lists_then_patches", partial(lists_then_patches, listing), frozenset({"rogue"}), "3", "model")
    monkeypatch.setitem(_CHECKERS, "lists_then_patches", check)
    [result] = run(server.url, only={CheckId("lists_then_patches", "User")})
    assert result.status is Status.SUCCESS, result.reason
    patched = next(index for index, (method, _path) in enumerate(logged.requests) if method == "PATCH")
    reads = [path for method, path in logged.requests[:patched] if method == "GET" and re.fullmatch(USER, path)]
    assert len(reads) == 1, reads
    assert run_leftovers(server.url) == []


def test_a_listing_echoing_the_value_filtered_on_proves_nothing(serve, monkeypatch):
    """A creation answered with someone else's id, then a filter on the run's userName listing that
    user with it (a server echoing the filter): the user is not proven the run's own by that
    value, so the GET of its URL is sent, shows another user, and nothing is written to it."""
    logged, url, bystanders, answering = lied_to(serve, another_id, listing=True)
    by_user_name = lambda user: {"filter": f'userName eq "{user.user_name}"'}  # noqa: E731
    check = Checker("lists_then_patches", partial(lists_then_patches, by_user_name), frozenset({"rogue"}), "3", "model")
    monkeypatch.setitem(_CHECKERS, "lists_then_patches", check)
    [result] = run(url, only={CheckId("lists_then_patches", "User")})
    assert answering.created and bystanders.users[1] in json.dumps(result.exchanges[0].response_body), "the creation was answered with a listed user's id"
    assert result.status is Status.SKIPPED and "not proven the run's own" in result.reason, result.reason
    assert_harmless(logged, url, bystanders, [result], listing_lies=True)


def _forgets_the_deleted(context, model) -> list[CheckResult]:
    """Creates a user and deletes it; the server answers the next creation with the deleted one's
    id (the id may be reused: it is taken as that creation's), then, the deleted one's URL read 404,
    the check forgets it (as object_deletion does), and creates a third."""
    first = context.resource_manager.create_and_register(model, fill_all=False)
    path = f"/Users/{first.id}"
    context.client.request("DELETE", path)
    context.resource_manager.create_and_register(model, fill_all=False)
    context.client.request("GET", path)
    context.resource_manager.forget(str(first.id))
    context.resource_manager.create_and_register(model, fill_all=False)
    return [CheckResult(Status.SUCCESS, reason="created three")]


def _settles_the_deleted(context, model) -> list[CheckResult]:
    """As `_forgets_the_deleted`, but the deleted one is settled (`Guard.gone`) only once the second
    creation took its id: a check's clean-up does so when another check creates meanwhile."""
    first = context.resource_manager.create_and_register(model, fill_all=False)
    [deleted] = [item for item in context.resource_manager.owned if item.id == first.id]
    context.client.request("DELETE", f"/Users/{first.id}")
    context.resource_manager.create_and_register(model, fill_all=False)
    context.guard.gone(deleted)
    context.resource_manager.create_and_register(model, fill_all=False)
    return [CheckResult(Status.SUCCESS, reason="created three")]


@pytest.mark.parametrize("creates", [_forgets_the_deleted, _settles_the_deleted], ids=["forgotten by the check", "settled by another's clean-up"])
def test_creations_answered_with_the_id_of_one_the_run_deleted_are_each_found(serve, monkeypatch, creates):
    """Every creation answered with the id of the run's first user, which the run deleted: the
    second was taken at that id (a server may reuse it), and settling the first forgot it, then the
    third was taken there too and the clean-up looked for it twice. Once, under a full test suite's
    load, the second was left and the report said nothing was."""
    logged, url, bystanders, answering = lied_to(serve, the_first_id)
    monkeypatch.setitem(_CHECKERS, "id_once_more", Checker("id_once_more", creates, frozenset({"rogue"}), "3", "model"))
    [result] = run(url, only={CheckId("id_once_more", "User")})
    assert result.status is Status.SUCCESS, result.reason
    assert len(answering.created) == 3
    assert_harmless(logged, url, bystanders, [result])


def _creates_two(context, model) -> list[CheckResult]:
    context.resource_manager.create_and_register(model, fill_all=False)
    context.resource_manager.create_and_register(model, fill_all=False)
    return [CheckResult(Status.SUCCESS, reason="created two")]


def test_a_creation_found_at_the_id_another_was_answered_is_proven_by_its_own_values(serve, monkeypatch):
    """Sequential ids, each creation answered with the next one's: the first is taken at the
    second's URL (its GET shows the second's values: not proven), so the clean-up looks for each by
    its values. Once the second, found at that URL, was judged by the first's values there and
    named "may remain"."""
    logged, url, bystanders, answering = lied_to(serve, one_past, app=SequentialIds(make_app()))
    monkeypatch.setitem(_CHECKERS, "creates_two", Checker("creates_two", _creates_two, frozenset({"rogue"}), "3", "model"))
    [result] = run(url, only={CheckId("creates_two", "User")})
    assert len(answering.created) == 2
    assert_harmless(logged, url, bystanders, [result])


class ReadHeld(Middleware):
    """Holds the first GET of a user's URL until a PATCH of it was answered: that GET shows the
    values the PATCH wrote."""

    WAIT = 30  # seconds: a bound on a test that went wrong, never reached when it goes right

    def __init__(self, app: Any):
        super().__init__(app)
        self.arrived = threading.Event()
        self.written = threading.Event()

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        method, path = environ["REQUEST_METHOD"], environ.get("PATH_INFO", "")
        if not re.fullmatch(USER, path):
            return None
        if method == "PATCH":
            answer = self.call(environ)
            self.written.set()
            return answer
        if method == "GET" and not self.arrived.is_set():
            self.arrived.set()
            self.written.wait(self.WAIT)
        return None


def _proves_twice_at_once(held: ReadHeld, context, model) -> list[CheckResult]:
    """Two writes to the user it created, side by side: the first one's proof (a GET) is answered
    only once the second was proven and sent, with other values of the run's."""
    created = context.resource_manager.create_and_register(model, fill_all=False)
    path = f"/Users/{created.id}"
    answers: list[Any] = []

    def write(values: dict[str, str]) -> None:
        operations = [{"op": "replace", "path": name, "value": value} for name, value in values.items()]
        answers.append(context.client.request("PATCH", path, json={"schemas": [str(PatchOp.__schema__)], "Operations": operations}))

    first = threading.Thread(target=write, args=({"nickName": "scim-tui-nickName-first"},))
    first.start()
    held.arrived.wait(held.WAIT)
    write({key: f"scim-tui-{key}-second" for key in ("userName", "displayName", "externalId")})
    first.join()
    return [CheckResult(Status.SUCCESS, reason=" ".join(str(answer.status_code) for answer in answers))]


def test_a_proof_answered_after_another_checks_write_does_not_refuse_the_resource(serve, monkeypatch):
    """A GET proving a user the run's, answered after another check proved the user and wrote
    other values of the run's to it, shows none of those the first knew: once, the user was
    refused for the rest of the run (every later write not sent) and named "may remain"."""
    held = ReadHeld(make_app())
    server = serve(held)
    monkeypatch.setitem(_CHECKERS, "proves_twice", Checker("proves_twice", partial(_proves_twice_at_once, held), frozenset({"rogue"}), "3", "model"))
    [result] = run(server.url, only={CheckId("proves_twice", "User")})
    assert held.written.is_set()
    assert result.reason == "204 204", result.reason
    assert run_leftovers(server.url) == [] and reported([result]) == []
