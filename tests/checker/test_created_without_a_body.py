"""A server answering a creation 201 without a body (RFC 7644 §3.3: the body SHOULD hold the created
resource, its Location SHALL name it): the run reads the resource at its Location, so one finding
(a DEVIATION of object_creation) and no check blinded; the identity providers that read the new id
in the body are told not ready; and a Location naming someone else's resource is never written to."""

from __future__ import annotations

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.checker.registry import verdict_names
from scim_tui.demo import make_app
from tests.support.bystanders import Bystanders
from tests.support.bystanders import run_leftovers
from tests.support.harmless import reported
from tests.support.servers import make_client
from tests.support.unlike import LocationElsewhere
from tests.support.unlike import created_without_a_body

READING_THE_CREATION = ("object_creation", "http_headers", "attribute_name_case", "never_returned", "object_replacement")
"""Checks that judge what a creation answered, or write to a resource they create."""


@pytest.mark.parametrize("relative", [False, True], ids=["absolute Location", "relative Location"])
def test_a_creation_without_a_body_is_read_at_its_location(serve, relative):
    server = serve(created_without_a_body(make_app(), relative))
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(jobs=1), only={CheckId(name, "User") for name in READING_THE_CREATION}))
    by_title = {title: [r for r in results if r.title == title] for title in READING_THE_CREATION}
    full, least = by_title["object_creation"]
    assert full.status is Status.DEVIATION, full.reason
    assert "without a body" in full.reason and "SHOULD" in full.reason and "§3.3" in full.reason and "Location" in full.reason
    assert least.status is Status.SUCCESS and "read at its Location" in least.reason, least.reason
    location = by_title["http_headers"][-1]
    assert location.status is Status.SUCCESS and "meta.location of the resource read there" in location.reason, location.reason
    for title in ("attribute_name_case", "never_returned", "object_replacement"):
        assert all(r.status is Status.SUCCESS for r in by_title[title]), [(r.status, r.reason) for r in by_title[title]]
    assert reported(results) == [] and run_leftovers(server.url) == []


def test_every_provider_reading_the_new_id_in_the_body_is_not_ready(serve):
    """Each provider creates users (Entra ID and Okta judge their own creation steps; Google,
    SailPoint and PingFederate create the user they then suspend, disable or replace): each reads
    the new id in the answer's body, so each is told not ready, naming the creation."""
    server = serve(created_without_a_body(make_app()))
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(include_tags={"idp"})))
    verdicts = {r.title: r for r in results if r.title in verdict_names()}
    assert set(verdicts) == set(verdict_names())
    assert all(r.reason.startswith("NOT READY") for r in verdicts.values()), {title: r.reason for title, r in verdicts.items()}
    unread = {r.title for r in results if r.status is Status.DEVIATION and r.blocks and "gets no id" in (r.reason or "")}
    for check in ("entra_create_user", "google_setup_and_deprovisioning", "sailpoint_disable_enable", "pingfederate_update_user_put"):
        assert check in unread, check
        verdict = verdicts[f"{check.split('_')[0]}_readiness"].reason
        assert f"{check} (" in verdict, verdict
    assert reported(results) == [] and run_leftovers(server.url) == []


def test_a_location_naming_someone_elses_resource_is_never_written_to(serve):
    """The Location of each bodiless 201 names another client's user: the GET there shows other
    values, so the creation is the server's fault (an ERROR naming it), nothing is written to that
    user, and the user the run did create is found by its values and deleted."""
    server_app = LocationElsewhere(make_app())
    server = serve(server_app)
    bystanders = Bystanders.seed(server.url)
    server_app.elsewhere = bystanders.users[0]
    only = {CheckId(name, "User") for name in ("object_creation", "object_replacement", "not_found_writes")}
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(jobs=1), only=only))
    assert server_app.written == []
    assert bystanders.untouched()
    [full, *_] = [r for r in results if r.title == "object_creation"]
    assert full.status is Status.ERROR and "does not hold the values sent" in full.reason, full.reason
    assert all(r.status is Status.SKIPPED for r in results if r.title != "object_creation"), [(r.title, r.status, r.reason) for r in results]
    assert reported(results) == [] and run_leftovers(server.url) == []
