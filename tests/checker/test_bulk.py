"""The bulk checkers (RFC 7644 §3.7) against scim2-server, and against servers that break one rule of it."""

from __future__ import annotations

import re

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.demo import make_app
from tests.support.servers import Broken
from tests.support.servers import make_client
from tests.support.servers import stored

BULK = "/v2/Bulk"
SPC = "/v2/ServiceProviderConfig"
CHECKERS = ["bulk_operations", "bulk_fail_on_errors", "bulk_max_operations"]


def run(url: str, checker: str, resource_type: str = "User"):
    with make_client(url) as scim:
        return list(iter_checks(scim, CheckConfig(), only={CheckId(checker, resource_type)}))


def left_nothing(url: str) -> bool:
    return stored(url) == []


def drop(method: str):
    """A request rewrite: the bulk request without its operations of this method."""
    return lambda body: body | {"Operations": [op for op in body["Operations"] if op["method"] != method]}


def outcome(method: str, change):
    """A response rewrite: the BulkResponse with the outcome of one method changed."""

    def apply(body):
        return body | {"Operations": [change(op) if op["method"] == method else op for op in body["Operations"]]}

    return apply


def spc(change):
    return lambda body: body | {"bulk": change(body["bulk"])}


@pytest.mark.parametrize("resource_type", ["User", "Group"])
def test_bulk_operations_succeed_one_by_one_on_scim2_server(serve, resource_type):
    server = serve(make_app())
    results = run(server.url, "bulk_operations", resource_type)
    assert [r.status for r in results[:3]] == [Status.SUCCESS] * 3, [r.reason for r in results]
    endpoint = f"/{resource_type}s"
    assert re.match(rf"^Bulk operation POST {endpoint} \(bulkId scim-tui-\w+\) answered 201 with the location http://\S+{endpoint}/\w+\.$", results[0].reason)
    assert re.match(rf"^Bulk operation PUT {endpoint}/bulkId:scim-tui-\w+ answered 200 with the location ", results[1].reason)
    assert results[2].reason.endswith("then answered 404.")
    assert [e.method for e in results[0].exchanges][-2:] == ["POST", "GET"]  # after the run's first least creation (creations.py)
    assert all(r.leftovers == [] for r in results) and left_nothing(server.url)


@pytest.mark.parametrize("checker", CHECKERS[1:])
def test_bulk_limits_are_honoured_by_scim2_server(serve, checker):
    server = serve(make_app())
    [result] = run(server.url, checker)
    assert result.status is Status.SUCCESS, result.reason
    assert re.search(r"stopped after the first failed operation \(404\)|1001 operations \(maxOperations is 1000\) answered 413", result.reason)


@pytest.mark.parametrize("checker", CHECKERS)
def test_bulk_is_skipped_when_the_server_does_not_claim_it(serve, checker):
    server = serve(Broken(make_app()).rewrite_json("GET", SPC, spc(lambda bulk: bulk | {"supported": False})))
    results = run(server.url, checker)
    assert [r.status for r in results] == [Status.SKIPPED]
    assert "does not claim bulk support" in results[0].reason
    assert results[0].exchanges == []


def test_an_unreported_delete_is_an_error_and_its_resource_is_deleted_all_the_same(serve):
    server = serve(Broken(make_app()).rewrite_request_json("POST", BULK, drop("DELETE")))
    results = run(server.url, "bulk_operations")
    assert [r.status for r in results[:3]] == [Status.SUCCESS, Status.SUCCESS, Status.ERROR]
    assert re.match(r"^The BulkResponse holds no result for the operation DELETE /Users/bulkId:scim-tui-\w+ ", results[2].reason)
    assert results[2].leftovers == [] and left_nothing(server.url)


def test_a_post_without_location_is_an_error_and_what_it_created_is_found_and_deleted(serve):
    no_location = outcome("POST", lambda op: {k: v for k, v in op.items() if k != "location"})
    server = serve(Broken(make_app()).rewrite_request_json("POST", BULK, drop("DELETE")).rewrite_json("POST", BULK, no_location))
    results = run(server.url, "bulk_operations")
    assert results[0].status is Status.ERROR
    assert "answered 201 without a location, which every operation but a failed POST MUST have" in results[0].reason
    assert results[0].leftovers == [] and left_nothing(server.url), "found by the values the run gave it, and deleted"


def test_a_bulk_answering_an_error_after_creating_is_an_error_and_cleaned_up(serve):
    failing = lambda answer: (500, answer[1], b'{"detail": "oops"}')  # noqa: E731
    server = serve(Broken(make_app()).rewrite_request_json("POST", BULK, drop("DELETE")).rewrite("POST", BULK, failing))
    [result] = run(server.url, "bulk_operations")
    assert result.status is Status.ERROR
    assert result.reason.startswith("POST /v2/Bulk answered 500 instead of 200 with a BulkResponse")
    assert left_nothing(server.url)


def test_a_wrong_status_in_an_outcome_is_an_error(serve):
    server = serve(Broken(make_app()).rewrite_json("POST", BULK, outcome("PUT", lambda op: op | {"status": "204"})))
    results = run(server.url, "bulk_operations")
    assert [r.status for r in results[:3]] == [Status.SUCCESS, Status.ERROR, Status.SUCCESS]
    assert "answered 204 instead of 200, the status of a successful PUT" in results[1].reason
    assert left_nothing(server.url)


def test_an_unresolved_bulk_id_reference_is_an_error(serve):
    def unresolved(op):
        return op | {"location": re.sub(r"/Users/\w+$", "/Users/bulkId:x", op["location"])}

    server = serve(Broken(make_app()).rewrite_json("POST", BULK, outcome("PUT", unresolved)))
    results = run(server.url, "bulk_operations")
    assert results[1].status is Status.ERROR
    assert re.search(r"with the location \S+/Users/bulkId:x, not \S+/Users/\w+, the location of the resource the POST created", results[1].reason)


def test_a_delete_reported_done_but_not_done_is_an_error(serve):
    def fake_delete(body):
        put = next(op for op in body["Operations"] if op["method"] == "PUT")
        return body | {"Operations": [*body["Operations"], {"method": "DELETE", "location": put["location"], "status": "204"}]}

    server = serve(Broken(make_app()).rewrite_request_json("POST", BULK, drop("DELETE")).rewrite_json("POST", BULK, fake_delete))
    results = run(server.url, "bulk_operations")
    assert results[2].status is Status.ERROR
    assert re.search(r"Yet GET /v2/Users/\w+ then answered 200 instead of 404: the resource was not deleted\.", results[2].reason)
    assert results[2].leftovers == [] and left_nothing(server.url)


def test_ignoring_fail_on_errors_is_an_error(serve):
    server = serve(Broken(make_app()).rewrite_request_json("POST", BULK, lambda body: {k: v for k, v in body.items() if k != "failOnErrors"}))
    [result] = run(server.url, "bulk_fail_on_errors")
    assert result.status is Status.ERROR
    assert result.reason == "POST /v2/Bulk with failOnErrors 1 went on after the first error: the BulkResponse reports 2 operations performed instead of 1."


def test_exceeding_max_operations_without_413_is_an_error(serve):
    # The server claims 2 operations at most, but applies scim2-server's limit of 1000.
    server = serve(Broken(make_app()).rewrite_json("GET", SPC, spc(lambda bulk: bulk | {"maxOperations": 2})))
    [result] = run(server.url, "bulk_max_operations")
    assert result.status is Status.ERROR
    assert (
        result.reason
        == "POST /v2/Bulk with 3 operations (maxOperations is 2) answered 200 instead of 413 Payload Too Large, which RFC 7644 §3.7.4 requires (MUST)."
    )
    assert left_nothing(server.url)


@pytest.mark.parametrize(
    ("bulk", "expected"),
    [
        ({"maxPayloadSize": 1000}, r"^Skipped: 1001 operations take \d+ bytes, more than bulk.maxPayloadSize \(1000\)"),
        ({"maxOperations": 50000}, r"^Skipped: bulk.maxOperations is 50000; requests of more than 10000 operations are not sent\.$"),
    ],
)
def test_max_operations_is_skipped_when_it_cannot_be_exceeded_alone(serve, bulk, expected):
    server = serve(Broken(make_app()).rewrite_json("GET", SPC, spc(lambda claimed: claimed | bulk)))
    [result] = run(server.url, "bulk_max_operations")
    assert result.status is Status.SKIPPED
    assert re.search(expected, result.reason), result.reason
    assert not [e for e in result.exchanges if e.url.endswith("/Bulk")]


def test_a_bulk_id_in_the_data_of_an_operation_is_resolved_by_scim2_server(serve):
    server = serve(make_app())
    reference = run(server.url, "bulk_operations", "Group")[3]
    assert reference.status is Status.SUCCESS, reference.reason
    assert re.match(
        r'^data reference: GET /v2/Groups/\w+ answers members \["\w+"\]: bulkId:scim-tui-\w+ became the id of the resource created with it\.$', reference.reason
    )
    assert [e.method for e in reference.exchanges][-3:] == ["POST", "GET", "GET"]
    assert left_nothing(server.url)


def test_a_user_holds_no_reference_to_put_a_bulk_id_in(serve):
    reference = run(serve(make_app()).url, "bulk_operations")[3]
    assert reference.status is Status.SKIPPED
    assert reference.reason == "data reference: Skipped: User[EnterpriseUser] has no attribute referencing other resources (such as members) to hold a bulkId."


def _unresolving(body):
    """A server that resolves bulkId references in paths only: those in an operation's data are kept as sent."""
    for operation in body.get("Operations", []):
        for item in (operation.get("data") or {}).get("members") or []:
            if str(item.get("value", "")).startswith("bulkId:"):
                item["value"] = item["value"].replace("bulkId:", "kept:bulkId:", 1)
    return body


def _kept_as_sent(body):
    return {**body, "members": [{**item, "value": item["value"].removeprefix("kept:")} for item in body.get("members", [])]} if "members" in body else body


def test_a_bulk_id_left_unresolved_in_the_data_is_an_error(serve):
    """RFC 7644 §3.7.2: a "bulkId:" reference in data names the resource the same request created."""
    broken = Broken(make_app()).rewrite_request_json("POST", BULK, _unresolving).rewrite_json("GET", r"/v2/Groups/[^/]+", _kept_as_sent)
    server = serve(broken)
    results = run(server.url, "bulk_operations", "Group")
    assert [r.status for r in results] == [Status.SUCCESS] * 3 + [Status.ERROR]
    assert re.match(r'^data reference: GET /v2/Groups/\w+ answers members \["bulkId:scim-tui-\w+"\]: bulkId:scim-tui-\w+ was left as sent, ', results[3].reason)
    assert results[3].reason.endswith("where the service provider replaces a bulkId reference with the id of the resource created (RFC 7644 §3.7.2).")
    assert left_nothing(server.url)
