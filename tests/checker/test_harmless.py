"""A run is harmless on any server (docs/safety.md): it writes only to what it created, leaves nothing,
and ends early when the server stops answering. Each test puts someone else's resources on a
scim2-server broken in one way, runs the checks, and holds the outcome to that."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from scim2_models import PatchOp
from scim2_models import User

from scim_tui.checker import CheckId
from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.checker.causes import cause_of
from scim_tui.checker.checks.probes import send_json
from scim_tui.checker.guard import WriteRefused
from scim_tui.checker.recorder import SILENT_AFTER
from scim_tui.checker.registry import _CHECKERS
from scim_tui.checker.registry import Checker
from scim_tui.demo import make_app
from tests.support.bystanders import Bystanders
from tests.support.bystanders import remove_run_leftovers
from tests.support.bystanders import run_leftovers
from tests.support.harmless import WRITES
from tests.support.harmless import Logged
from tests.support.harmless import reported
from tests.support.harmless import run
from tests.support.servers import Broken
from tests.support.servers import make_client
from tests.support.unlike import IfMatchRequired
from tests.support.unlike import ScimMediaTypeRefused


def without_filter(query: dict[str, str]) -> dict[str, str]:
    return {key: value for key, value in query.items() if key != "filter"}


def without_locations(body: dict) -> dict:
    return body | {"Operations": [{k: v for k, v in op.items() if k != "location"} for op in body.get("Operations", [])]}


@pytest.mark.parametrize("deleted_by_the_bulk", [True, False], ids=["bulk deletes", "bulk leaves it"])
def test_a_server_ignoring_filter_and_bulk_locations_loses_nothing(serve, deleted_by_the_bulk):
    """The clean-up of a bulk without locations once deleted every user a filter-less search returned."""
    broken = Broken(make_app()).rewrite_query("GET", "/v2/(Users|Groups)", without_filter).rewrite_json("POST", "/v2/Bulk", without_locations)
    if not deleted_by_the_bulk:
        broken.rewrite_request_json("POST", "/v2/Bulk", lambda body: body | {"Operations": [op for op in body["Operations"] if op["method"] != "DELETE"]})
    server = serve(broken)
    bystanders = Bystanders.seed(server.url)
    results = run(server.url, include_tags={"bulk"})
    assert any(r.title == "bulk_operations" and r.status is Status.ERROR and "without a location" in r.reason for r in results)
    assert bystanders.untouched(), "no resource the run did not create was changed or deleted"
    assert run_leftovers(server.url) == []
    assert reported(results) == [], "the whole list showed nothing of the run's was left"


@pytest.mark.parametrize("unsafe", ["../Groups/{group}", "x?y", "a#b", "..", "%2e%2e", "a/b"])
def test_an_id_that_is_not_a_safe_path_segment_is_never_written_to(serve, unsafe):
    """An answered id of "../Groups/<id>" once made the run PATCH and DELETE that group."""
    holder: dict[str, str] = {}
    broken = Broken(make_app()).rewrite_json("POST", "/v2/Users", lambda body: body | {"id": unsafe.format(**holder)})
    logged = Logged(broken)
    server = serve(logged)
    broken.repaired = True
    bystanders = Bystanders.seed(server.url)
    broken.repaired = False
    holder["group"] = bystanders.groups[0]
    logged.requests.clear()
    results = run(server.url, resource_types=["User"], include_tags={"crud"})
    creations = [r for r in results if r.title == "object_creation" and r.resource_type == "User"]
    assert creations and all(r.status is Status.ERROR and "cannot be addressed safely and was never written to" in r.reason for r in creations)
    assert logged.writes_to(bystanders.groups + bystanders.users) == []
    assert not [path for method, path in logged.requests if method in ("PUT", "PATCH", "DELETE") and "/Groups" in path]
    assert bystanders.untouched()
    assert run_leftovers(server.url) == [], "each user created was found by the values the run gave it, and deleted at its real id"
    assert reported(results) == []


class Held:
    """Holds matching requests until released (the server answers late, or creates late)."""

    def __init__(self, create_first: bool):
        self.create_first = create_first
        self.released = threading.Event()
        self.arrived = 0

    def __call__(self, call_app: Any) -> Any:
        self.arrived += 1
        answer = call_app() if self.create_first else None
        self.released.wait(60)
        return answer or call_app()


@pytest.fixture
def held_posts(serve):
    """A server whose POST /Users is held until the test releases it: created at once, or only then."""

    def make(create_first: bool) -> tuple[Held, str, Bystanders]:
        held = Held(create_first)
        broken = Broken(make_app())
        broken.rules.append(("POST", "/v2/Users", held))
        servers.append(held)
        url = serve(broken).url
        broken.repaired = True
        bystanders = Bystanders.seed(url)
        broken.repaired = False
        return held, url, bystanders

    servers: list[Held] = []
    yield make
    for held in servers:
        held.released.set()


def test_a_creation_answered_too_late_is_found_at_the_end_of_the_run_and_deleted(held_posts):
    """Creations whose POST timed out were left, and the report said nothing was."""
    held, url, bystanders = held_posts(create_first=True)
    [result] = run(url, timeout=2, only={CheckId("object_creation", "User")})
    assert result.status is Status.ERROR and result.reason.startswith("POST /v2/Users failed: ")
    assert held.arrived == 1
    assert run_leftovers(url) == [], "found by its userName at the end of the run, and deleted"
    assert result.leftovers == []
    assert bystanders.untouched()


def test_a_creation_that_may_still_happen_is_named_as_may_remain(held_posts):
    held, url, bystanders = held_posts(create_first=False)
    [result] = run(url, timeout=2, only={CheckId("object_creation", "User")})
    [left] = result.leftovers
    assert left.startswith('User with userName "scim-tui-') and left.endswith("(may remain: its POST got no answer in time)")
    held.released.set()  # the server creates it now, after the run
    with make_client(url) as scim:
        scim.discover()
        user_name = left.split('"')[1]
        deadline = threading.Event()
        for _ in range(600):
            if scim.query(User).total_results > len(bystanders.users):
                break
            deadline.wait(0.05)
        [created] = [user for user in scim.query(User).resources if user.user_name.startswith("scim-tui-")]
    assert created.user_name == user_name, "the may-remain line names the user the server created late"
    remove_run_leftovers(url)
    assert bystanders.untouched()


def test_a_server_that_hangs_on_every_write_ends_the_run_early(serve):
    """Once, 64 requests each waited a whole timeout; the run now stops after a few."""
    hangs = threading.Event()
    hung: list[str] = []

    def hang(call_app: Any) -> Any:
        hung.append("")
        hangs.wait(60)
        return 503, [("Content-Type", "application/scim+json")], b""

    broken = Broken(make_app())
    for method in WRITES:
        broken.rules.append((method, "/v2/(Users|Groups|Bulk).*", hang))
    server = serve(broken)
    broken.repaired = True  # someone else's resources, put there while it still answered
    bystanders = Bystanders.seed(server.url)
    broken.repaired = False
    try:
        results = run(server.url, timeout=0.5, jobs=4)
    finally:
        hangs.set()
    stopped = [r for r in results if r.status is Status.SKIPPED and "the server stopped answering writes" in (r.reason or "")]
    assert stopped, "the checks left were skipped, saying why"
    assert len(hung) <= SILENT_AFTER + 4 + 4, f"{len(hung)} requests waited a timeout"
    assert run_leftovers(server.url) == []
    assert bystanders.untouched()


VICTIM_PATCH = {"schemas": [str(PatchOp.__schema__)], "Operations": [{"op": "replace", "path": "displayName", "value": "hacked"}]}


def rogue_writes(context, model) -> list[CheckResult]:
    """Tries every way a check could write to a resource the run did not create."""
    user, group = VICTIMS["user"], VICTIMS["group"]
    base = str(context.client.client.base_url).rstrip("/")
    attempts = {
        "request DELETE": lambda: context.client.request("DELETE", f"/Users/{user}"),
        "request PATCH": lambda: context.client.request("PATCH", f"/Users/{user}", json=VICTIM_PATCH),
        "absolute URL": lambda: context.client.request("PUT", f"{base}/Users/{user}", json={"userName": "hacked"}),
        "dot segments": lambda: context.client.request("DELETE", f"/Users/x/../../Groups/{group}"),
        "encoded dots": lambda: context.client.request("DELETE", f"/Users/%2e%2e/Groups/{group}"),
        "the collection": lambda: context.client.request("DELETE", "/Users"),
        "another host": lambda: context.client.request("DELETE", f"http://example.com/v2/Users/{user}"),
        "client.delete": lambda: context.client.delete(User, user),
        "client.replace": lambda: context.client.replace(User(id=user, user_name="hacked")),
        "client.modify": lambda: context.client.modify(User, user, VICTIM_PATCH, check_request_payload=False),
        "send_json": lambda: send_json(context, "PATCH", f"/Groups/{group}", VICTIM_PATCH),
        "bulk": lambda: send_json(
            context,
            "POST",
            "/Bulk",
            {"schemas": ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"], "Operations": [{"method": "DELETE", "path": f"/Groups/{group}"}]},
        ),
        "POST on a resource": lambda: send_json(context, "POST", f"/Users/{user}", {}),
    }
    results = []
    for label, attempt in attempts.items():
        try:
            attempt()
        except WriteRefused as refused:
            results.append(CheckResult(Status.SUCCESS, reason=f"{label}: {refused}"))
        except Exception as other:
            results.append(CheckResult(Status.ERROR, reason=f"{label}: {type(other).__name__}: {other}"))
        else:
            results.append(CheckResult(Status.ERROR, reason=f"{label}: sent"))
    return results


VICTIMS: dict[str, str] = {}


def test_no_check_gets_around_the_guard(serve, monkeypatch):
    """Whatever a check calls, a write to what the run did not create is not sent."""
    logged = Logged(make_app())
    server = serve(logged)
    bystanders = Bystanders.seed(server.url)
    monkeypatch.setitem(VICTIMS, "user", bystanders.users[0])
    monkeypatch.setitem(VICTIMS, "group", bystanders.groups[0])
    monkeypatch.setitem(_CHECKERS, "rogue_writes", Checker("rogue_writes", rogue_writes, frozenset({"rogue"}), "3", "model"))
    logged.requests.clear()
    results = run(server.url, only={CheckId("rogue_writes", "User")})
    assert [r.status for r in results] == [Status.SUCCESS] * 13, [r.reason for r in results if r.status is not Status.SUCCESS]
    assert all("not sent" in r.reason for r in results)
    assert [request for request in logged.requests if request[0] in WRITES] == []
    assert bystanders.untouched()


def test_a_refused_write_is_an_error_of_the_check_never_a_request(serve, monkeypatch):
    def rogue(context, model):
        context.client.request("DELETE", "/Users/someone-elses")
        return []

    logged = Logged(make_app())
    server = serve(logged)
    monkeypatch.setitem(_CHECKERS, "rogue", Checker("rogue", rogue, frozenset({"rogue"}), "3", "model"))
    [result] = run(server.url, only={CheckId("rogue", "User")})
    assert result.status is Status.ERROR
    assert result.reason == "DELETE /v2/Users/someone-elses failed: not sent: it names a resource this run did not create, and the run writes only to its own"
    assert not [r for r in logged.requests if r[0] == "DELETE"]


def test_bystanders_survive_a_full_run(serve):
    server = serve(make_app())
    bystanders = Bystanders.seed(server.url)
    results = run(server.url)
    assert bystanders.untouched()
    assert run_leftovers(server.url) == [] and reported(results) == []
    json.dumps([r.reason for r in results])  # every reason is text


def test_a_server_taking_only_conditional_writes_is_left_nothing(serve):
    """A server answering 428 to a write without If-Match (RFC 6585 §3): the clean-up sends its
    DELETE again with the version a GET of the resource answers, so nothing of the run's is left,
    and nothing is named left; the checks the policy fails read as one cause each (a write
    refused as a whole), not as rules broken."""
    logged = Logged(IfMatchRequired(make_app()))
    server = serve(logged)
    results = run(server.url, resource_types=["User"], include_tags={"crud"})
    assert any(method == "DELETE" for method, _ in logged.requests)
    assert run_leftovers(server.url) == []
    assert reported(results) == []
    refused = [r for r in results if r.status.failed and any(e.status_code == 428 for e in r.exchanges)]
    assert refused and all((cause_of(r) or "").endswith("answered 428") for r in refused), [(r.title, r.reason) for r in refused if not cause_of(r)]


def test_bodies_refused_for_their_media_type_read_as_one_cause_each(serve):
    """A server taking bodies as application/json only answers 415 to each one the run sends as
    application/scim+json: a write refused as a whole (whatever it asks), so the checks it fails
    read as one cause per request, not as rules broken; and nothing is left."""
    server = serve(ScimMediaTypeRefused(make_app()))
    results = run(server.url, resource_types=["User"], include_tags={"crud", "errors"})
    refused = [r for r in results if r.status.failed and any(e.status_code == 415 for e in r.exchanges)]
    assert refused and all((cause_of(r) or "").endswith("answered 415") for r in refused), [(r.title, r.reason) for r in refused if not cause_of(r)]
    assert run_leftovers(server.url) == [] and reported(results) == []
