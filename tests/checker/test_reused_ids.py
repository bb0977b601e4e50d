"""Servers whose ids the run cannot take at face value: a store that gives a deleted resource's id to
the next creation (another client's), and one whose ids hold a slash. The run writes to nothing it
did not create, names as left exactly what it left, and blames the server only for what it did."""

from __future__ import annotations

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.checker.exchanges import Role
from scim_tui.checker.registry import _CHECKERS
from scim_tui.checker.registry import Checker
from scim_tui.demo import make_app
from tests.support.bystanders import remove_run_leftovers
from tests.support.bystanders import run_leftovers
from tests.support.harmless import reported
from tests.support.servers import make_client
from tests.support.unlike import RecycledIds
from tests.support.unlike import SlashIds

DELETING = ("object_deletion", "not_found_writes", "gallery_delete_user", "gallery_restore_user", "okta_crud_lifecycle", "google_setup_and_deprovisioning")
"""Checks that delete a user, then read or write its URL again (and clean up after it)."""


@pytest.mark.parametrize("jobs", [1, 4])
def test_an_id_given_to_someone_else_after_the_runs_delete_is_never_written_to(serve, jobs):
    """Right after each DELETE another client creates a user, which takes the id just freed: the
    run's later writes to that URL (a second DELETE, its clean-up) are proven first by a GET, which
    shows another's values, so nothing is sent; nothing of the other client's is named left; and
    object_deletion says what happened (an id reassigned, RFC 7643 §3.1)."""
    server_app = RecycledIds(make_app())
    server = serve(server_app)
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(jobs=jobs), only={CheckId(name, "User") for name in DELETING}))
    assert server_app.theirs, "no id was reused: the test did not put the run to the test"
    assert server_app.written == []
    assert reported(results) == []
    assert run_leftovers(server.url) == []
    [deletion] = [result for result in results if result.title == "object_deletion"]
    assert deletion.status is Status.ERROR and "served another resource" in deletion.reason and "non-reassignable" in deletion.reason


def test_a_resource_listed_at_an_id_the_run_cannot_address_is_named_left(serve):
    """ids holding a slash: each creation is an ERROR saying its id cannot be addressed safely, no
    URL with it is written to, and what the clean-up then finds by the run's values at such ids is
    named "may remain", never "nothing left"."""
    server = serve(SlashIds(make_app()))
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(jobs=1), only={CheckId("object_creation", "User")}))
    left = run_leftovers(server.url)
    try:
        assert left, "the server kept nothing: the test did not put the clean-up to the test"
        assert [result.status for result in results] == [Status.ERROR]
        assert "cannot be addressed safely" in results[0].reason
        names = reported(results)
        for resource in left:
            assert any(resource["userName"] in name and "may remain" in name for name in names), (resource["userName"], names)
    finally:
        remove_run_leftovers(server.url)


def _bulk_deletes_then_patches(context, model):
    """Creates a user, deletes it in a bulk request, then PATCHes its URL."""
    created = context.resource_manager.create_and_register(model, fill_all=False)
    path = f"/Users/{created.id}"
    bulk = {"schemas": ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"], "Operations": [{"method": "DELETE", "path": path}]}
    context.client.request("POST", "/Bulk", json=bulk)
    patch = {"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations": [{"op": "replace", "path": "nickName", "value": "x"}]}
    context.client.request("PATCH", path, json=patch)
    return [CheckResult(Status.SUCCESS, reason="sent")]


def test_a_resource_a_bulk_request_deleted_is_proven_again_before_a_write(serve, monkeypatch):
    """A bulk DELETE of a resource of the run's may free its id like a DELETE does: the PATCH after
    it is preceded by a GET of its URL (404 here: the PATCH meets nothing)."""
    monkeypatch.setitem(_CHECKERS, "bulk_then_patch", Checker("bulk_then_patch", _bulk_deletes_then_patches, frozenset({"rogue"}), "3", "model"))
    server = serve(make_app())
    log: list = []
    with make_client(server.url) as scim:
        list(iter_checks(scim, CheckConfig(jobs=1), only={CheckId("bulk_then_patch", "User")}, exchanges=log))
    sent = [(e.method, e.role, e.status_code) for e in log if "/Users/" in e.url or e.url.endswith("/Bulk")]
    bulk = sent.index(("POST", Role.JUDGED, 200))
    assert sent[bulk + 1 : bulk + 3] == [("GET", Role.PROOF, 404), ("PATCH", Role.JUDGED, 404)], sent


def _deletes_then_makes_another(context, model):
    """Creates a user and deletes it, then creates another (which the server gives the freed id)
    and PATCHes it."""
    first = context.resource_manager.create_and_register(model, fill_all=False)
    context.client.request("DELETE", f"/Users/{first.id}")
    second = context.resource_manager.create_and_register(model, fill_all=False)
    patch = {"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations": [{"op": "replace", "path": "nickName", "value": "x"}]}
    answer = context.client.request("PATCH", f"/Users/{second.id}", json=patch)
    reused = "the same id" if second.id == first.id else "another id"
    return [CheckResult(Status.SUCCESS, reason=f"{reused}: PATCH answered {answer.status_code}")]


def test_the_id_of_a_resource_the_run_deleted_may_be_its_next_creations(serve, monkeypatch):
    """A store giving the run's next creation the id of the resource the run just deleted: that is
    the new resource (proven by its own values before the PATCH), written to and deleted, nothing
    left."""
    monkeypatch.setitem(_CHECKERS, "reuse", Checker("reuse", _deletes_then_makes_another, frozenset({"rogue"}), "3", "model"))
    server = serve(RecycledIds(make_app(), others=False))
    with make_client(server.url) as scim:
        [result] = list(iter_checks(scim, CheckConfig(jobs=1), only={CheckId("reuse", "User")}))
    assert (result.status, result.reason) == (Status.SUCCESS, "the same id: PATCH answered 204"), result.reason
    assert run_leftovers(server.url) == [] and result.leftovers == []
