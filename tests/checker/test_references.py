"""The resources references point at (a manager, a group's members): made once and shared by
the checks of a run, never pointed at twice by one check, deleted when the run ends."""

from __future__ import annotations

import json
import threading
from typing import Any
from urllib.parse import urlsplit

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckContext
from scim_tui.checker import CheckId
from scim_tui.checker import iter_checks
from scim_tui.checker.filling import build_resource
from scim_tui.checker.recorder import recording
from scim_tui.checker.registry import verdict_names
from scim_tui.demo import make_app
from scim_tui.reports.text import told
from tests.support.pets import holdings
from tests.support.pets import pet_app
from tests.support.servers import Broken
from tests.support.servers import http_client
from tests.support.servers import make_client
from tests.support.servers import stored
from tests.support.unlike import LocationsByUserName
from tests.support.unlike import ReferencedKept


def body(text: str | None) -> dict:
    """A recorded JSON body; {} for one cut short in the record (long bodies are)."""
    try:
        return json.loads(text or "{}")
    except ValueError:
        return {}


def owner_and_vet(context: CheckContext) -> tuple[str, str]:
    """A Pet's owner (a User $ref) and vet (a complex value with its User id), as their User ids."""
    pet = build_resource(context, context.client.get_resource_model("Pet")).model_dump()
    return pet["owner"].rsplit("/", 1)[1], pet["vet"]["value"]


def test_the_checks_of_a_run_point_at_the_same_resources(described):
    root, _ = described
    first, second = root.fork(), root.fork()
    pointed = owner_and_vet(first)
    assert owner_and_vet(second) == pointed
    assert first.resource_manager.owned == [] and second.resource_manager.owned == []
    assert {item.id for item in root.references.manager.owned} == set(pointed)


def test_a_check_never_points_twice_at_the_same_resource(described):
    root, _ = described
    check = root.fork()
    owner, vet = owner_and_vet(check)
    again = owner_and_vet(check)
    assert owner != vet
    assert not {owner, vet} & set(again)
    assert len(root.references.manager.owned) == 4


def test_the_check_that_makes_a_shared_resource_shows_its_creation(described):
    root, _ = described
    with recording() as made:
        owner, _ = owner_and_vet(root.fork(made))
    with recording() as reused:
        owner_and_vet(root.fork(reused))
    assert owner in [body(e.response_body).get("id") for e in made if e.method == "POST"]
    assert [e for e in reused if e.method == "POST"] == []


def test_a_run_deletes_what_its_references_pointed_at(serve):
    server = serve(pet_app())
    before = holdings(server.url)
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(jobs=4, include_tags={"crud"})))
    assert holdings(server.url) == before
    assert all(r.leftovers == [] for r in results)
    exchanges = {id(e): e for r in results for e in r.exchanges}.values()  # a PATCH of several paths is in each one's result
    required_only = [
        e
        for e in exchanges
        if e.method == "POST"
        and e.status_code == 201
        and urlsplit(e.url).path == "/v2/Users"
        and set(body(e.request_body)) == {"schemas", "userName", "displayName", "externalId"}
    ]
    # Each made once, a handful in all: as many as one check points at, and object_creation's least one (32 without sharing).
    assert 1 <= len(required_only) == len({e.response_body for e in required_only}) <= 6


def test_what_a_run_could_not_delete_is_named_on_its_last_result(serve):
    server = serve(Broken(pet_app()).answer("DELETE", "/v2/Users/.*", 500, {"schemas": ["urn:ietf:params:scim:api:messages:2.0:Error"], "status": "500"}))
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(include_tags={"crud:create"})))
    pet = next(r for r in results if r.title == "object_creation" and r.resource_type == "Pet")
    # the verdicts, given after, judge idp checks only; a check the selection left out shows nothing
    last = [r for r in results if r.title not in verdict_names() and not r.deselected][-1]
    made = {body(e.response_body)["id"] for e in pet.exchanges if e.method == "POST" and urlsplit(e.url).path == "/v2/Users"}
    assert made and all(f"User/{user_id}" in last.leftovers for user_id in made)
    assert "Clean-up failed" not in told(last) and "left on the server" not in (last.reason or ""), (
        "told once for the run, from the data: never spliced into a result's reason"
    )


def test_a_member_value_is_the_id_the_server_gave_not_read_out_of_its_location(serve):
    """On a server whose locations end with the userName, a Group's member holds the user's id as
    its value and the user's location as its $ref (RFC 7643 §4.2: value is the member's id)."""
    server = serve(LocationsByUserName(make_app()))
    with make_client(server.url) as scim:
        list(iter_checks(scim, CheckConfig(include_tags={"discovery"})))
        context = CheckContext(scim)
        with recording() as made:
            [member] = build_resource(context, scim.get_resource_model("Group")).model_dump()["members"]
        user = body(next(e.response_body for e in made if e.method == "POST"))
        with http_client(server.url) as http:
            served = http.get(member["$ref"]).json()
        assert context.references.manager.cleanup() == []
    assert member["value"] == user["id"] == served["id"]
    assert member["$ref"] == user["meta"]["location"] and urlsplit(member["$ref"]).path == f"/v2/Users/{user['userName']}"
    assert stored(server.url) == []


class RefusedFirst(ReferencedKept):
    """ReferencedKept, whose DELETE of a resource that references another waits until the DELETE
    of a referenced one was refused (at most CEILING seconds): the clean-up deleting several
    resources side by side meets the refusal, whatever the machine's speed."""

    CEILING = 30

    def __init__(self, app: Any):
        super().__init__(app)
        self.refusal = threading.Event()

    def intercept(self, environ: dict[str, Any]) -> Any:
        answer = super().intercept(environ)
        if answer is not None:
            self.refusal.set()
        elif environ["REQUEST_METHOD"] == "DELETE" and self.references(environ):
            self.refusal.wait(self.CEILING)
        return answer

    def references(self, environ: dict[str, Any]) -> bool:
        """Whether the resource being deleted names another as its manager or a member."""
        status, _headers, served = self.call(environ, REQUEST_METHOD="GET", CONTENT_LENGTH="0")
        resource = json.loads(served or b"{}") if status == 200 else {}
        manager = resource.get("urn:ietf:params:scim:schemas:extension:enterprise:2.0:User", {}).get("manager")
        return bool(manager or resource.get("members"))


def test_a_resource_whose_deletion_was_refused_while_others_went_is_deleted_once_they_are_gone(serve):
    """Several jobs delete a check's resources side by side (here Entra's member step: its group, and
    the users the providers' groups point at, its own once it is the last check reading them): one a
    server refuses to delete while another still references it (409) is deleted once the others are
    gone."""
    broken = RefusedFirst(make_app())
    server = serve(broken)
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(jobs=4), only={CheckId("entra_add_members", "Group")}))
    assert broken.refusal.is_set(), "no deletion was refused: the test did not put the clean-up to the test"
    assert all(r.leftovers == [] for r in results)
    assert stored(server.url) == []
