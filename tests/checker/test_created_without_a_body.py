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


def test_a_provider_reading_the_new_id_in_the_body_is_not_ready(serve):
    server = serve(created_without_a_body(make_app()))
    only = {CheckId("entra_create_user", "User"), CheckId("entra_readiness")}
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(jobs=1), only=only))
    created = next(r for r in results if r.title == "entra_create_user")  # its first step: the creation
    assert created.status is Status.DEVIATION and created.blocks, created.reason
    assert "Entra ID gets no id" in created.reason and "§3.3" in created.reason
    [verdict] = [r for r in results if r.title == "entra_readiness"]
    assert verdict.reason.startswith("NOT READY") and "entra_create_user" in verdict.reason, verdict.reason
    assert run_leftovers(server.url) == []


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
