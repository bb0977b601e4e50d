"""Checks running at once (CheckConfig.jobs): the same results, kept apart, and cleaned up when cancelled."""

from __future__ import annotations

import json
import re
import threading
from collections import defaultdict
from urllib.parse import urlsplit

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import iter_checks
from scim_tui.checker.exchanges import Exchange
from scim_tui.demo import DemoServer
from tests.support.pets import holdings
from tests.support.pets import pet_app
from tests.support.pets import seed
from tests.support.servers import Broken
from tests.support.servers import Hanging
from tests.support.servers import make_client

pytestmark = pytest.mark.slow  # whole runs, and runs closed early

RESOURCE_ENDPOINTS = ("Users", "Groups", "Pets")
RESOURCE_PATH = re.compile(rf"/v2/({'|'.join(RESOURCE_ENDPOINTS)})/(?!\.search$)([^/?]+)")
"""A resource's URL (a search on an endpoint, /Users/.search, names none)."""
MISSING = "scim-tui-missing-"


def run(url: str, jobs: int) -> list:
    with make_client(url) as scim:
        return list(iter_checks(scim, CheckConfig(jobs=jobs)))


@pytest.fixture(scope="module")
def pet_runs() -> dict[int, list]:
    """Full runs with one, two, four and eight jobs, one after the other on a Pet server of their
    own: the tests below only read them."""
    with DemoServer(pet_app()) as server:
        return {jobs: run(server.url, jobs) for jobs in (1, 2, 4, 8)}


@pytest.mark.parametrize("jobs", [2, 4, 8])
def test_any_number_of_jobs_gives_the_same_checks_statuses_and_order_as_one(pet_runs, jobs):
    one = pet_runs[1]
    assert len(one) > 100
    assert [(r.title, r.resource_type, r.status) for r in pet_runs[jobs]] == [(r.title, r.resource_type, r.status) for r in one]


def exchanges_by_check(results: list) -> dict[CheckId, list[Exchange]]:
    """Each check's exchanges, once each (the results of one check may share them)."""
    by_check: dict[CheckId, dict[int, Exchange]] = defaultdict(dict)
    for result in results:
        for exchange in result.exchanges:
            by_check[result.check_id][id(exchange)] = exchange
    return {check: list(exchanges.values()) for check, exchanges in by_check.items()}


def created_ids(exchanges: list[Exchange]) -> set[str]:
    return {json.loads(e.response_body)["id"] for e in exchanges if e.method == "POST" and e.status_code == 201 and e.response_body}


def touched_ids(exchanges: list[Exchange]) -> set[str]:
    return {m.group(2) for e in exchanges if (m := RESOURCE_PATH.fullmatch(urlsplit(e.url).path))}


def resource_ids(exchanges: list[Exchange]) -> set[str]:
    """The ids of the resources these exchanges created or addressed (not the unknown ids of probes)."""
    return {i for i in created_ids(exchanges) | touched_ids(exchanges) if not i.startswith(MISSING)}


def on_its_own(resource_type: str, exchange: Exchange) -> bool:
    """Whether an exchange is one a check of this resource type makes: on its endpoint, a search,
    a bulk request (its operations name their own paths), its ResourceType (and the list it is
    compared with), or on a resource of its own (another resource type's, which one of its
    attributes references)."""
    path = urlsplit(exchange.url).path
    own = ("/v2/.search", "/v2/Bulk", f"/v2/ResourceTypes/{resource_type}", f"/v2/{resource_type}s")
    return path.startswith(own) or path == "/v2/ResourceTypes" or bool(resource_ids([exchange]))


def written_ids(exchanges: list[Exchange]) -> set[str]:
    """The ids of the resources these exchanges wrote to (PUT, PATCH, DELETE): the checks that only
    read a resource share one (context.References.read_only), object_creation hands the
    resources it judged to the checks writing to a fresh one (context.References.fresh), and
    object_replacement the one it replaced to object_deletion (context.References.replaced)."""
    return {i for i in touched_ids([e for e in exchanges if e.method in ("PUT", "PATCH", "DELETE")]) if not i.startswith(MISSING)}


def test_no_check_sees_another_checks_exchanges(pet_runs):
    results = pet_runs[4]
    owner: dict[str, CheckId] = {}
    for check, exchanges in exchanges_by_check(results).items():
        for resource_id in written_ids(exchanges):
            handed = check.checker == "object_deletion" and owner.get(resource_id) == CheckId("object_replacement", check.resource_type)
            assert handed or owner.setdefault(resource_id, check) == check, f"{resource_id} is in the exchanges of {owner[resource_id]} and {check}"
        if check.resource_type:
            elsewhere = [f"{e.method} {e.url}" for e in exchanges if not on_its_own(check.resource_type, e)]
            assert elsewhere == [], f"{check} holds exchanges of other resource types: {elsewhere}"
    assert len(owner) > 40  # the resources of many checks were told apart


def test_cancelling_four_jobs_leaves_nothing_on_the_server(serve):
    created: list[int] = []

    def count(response):
        created.append(response[0])
        return response

    # A check listing what it created waits there until the run is being closed (the clean-up reads
    # each resource at its own URL, to prove it the run's, before it deletes it: those reads are answered).
    reading = Hanging()
    endpoints = "|".join(RESOURCE_ENDPOINTS)
    broken = Broken(pet_app()).rewrite("POST", rf"/v2/({endpoints})", count).rewrite("GET", rf"/v2/({endpoints})", reading)
    server = serve(broken)
    broken.repaired = True
    seed(server.url)
    before = holdings(server.url)
    broken.repaired = False
    yielded = []
    with make_client(server.url) as scim:
        run = iter_checks(scim, CheckConfig(jobs=4))
        for result in run:
            yielded.append(result)
            if result.title == "object_creation":
                break
        assert reading.reached.wait(60), "no check still running had created a resource"
        closing = threading.Thread(target=run.close)
        closing.start()
        reading.release()
        closing.join(60)
        assert not closing.is_alive()
    assert holdings(server.url) == before
    assert all(r.leftovers == [] for r in yielded)
    created_by_yielded = sum(len(created_ids(exchanges)) for exchanges in exchanges_by_check(yielded).values())
    assert created.count(201) > created_by_yielded  # checks still running when the run was closed created resources too


def test_closing_a_run_stops_the_checks_still_running_at_their_next_request(serve):
    """A Ctrl-C or a cancel must not wait for four long PATCH checks to send all their requests."""
    patching = Hanging(ceiling=1.0)  # never released: each PATCH is answered after a second
    server = serve(Broken(pet_app()).rewrite("PATCH", r"/v2/.*", patching))
    before = holdings(server.url)
    with make_client(server.url) as scim:
        run = iter_checks(scim, CheckConfig(jobs=4, include_tags={"crud:update"}, resource_types=["User"]))
        next(result for result in run if result.resource_type == "User")
        assert patching.reached.wait(10)
        sent = patching.arrived
        run.close()
    # Each running PATCH check would otherwise send some 30 more PATCHes (a second each).
    assert patching.arrived - sent <= 4, "a running check sent no PATCH after the one it was sending"
    assert holdings(server.url) == before
