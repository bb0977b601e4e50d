"""The attribute projection checker (RFC 7644 §3.9) against scim2-server and servers that break one rule."""

from __future__ import annotations

import json
import re
from typing import Annotated
from typing import Any

import pytest
from scim2_models import Filter
from scim2_models import Mutability
from scim2_models import Patch
from scim2_models import Required
from scim2_models import Resource
from scim2_server.utils import load_default_service_provider_config

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckContext
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.checker.checks.projection import attribute_projection
from scim_tui.demo import make_app
from tests.support.schemas import declaring_external_id
from tests.support.servers import SCIM_JSON
from tests.support.servers import Broken
from tests.support.servers import Response
from tests.support.servers import make_client
from tests.support.servers import scim_error
from tests.support.servers import stored
from tests.support.unlike import USER as SCHEMA_USER
from tests.support.unlike import Immutable
from tests.support.unlike import Middleware
from tests.support.unlike import _body
from tests.support.unlike import _schema_change

USER = r"/v2/Users/[^/]+"
STEPS = [
    "POST attributes",
    "GET attributes",
    "GET excludedAttributes",
    "SEARCH attributes",
    "SEARCH excludedAttributes",
    "PUT excludedAttributes",
    "PATCH attributes",
]


def run(url: str, resource_type: str = "User") -> dict:
    """The results of attribute_projection, by step: "GET attributes", "SEARCH excludedAttributes" ..."""
    with make_client(url) as scim:
        results = list(iter_checks(scim, CheckConfig(), only={CheckId("attribute_projection", resource_type)}))
    return {step(result.reason): result for result in results}


def step(reason: str) -> str:
    label = re.split(r": | not tried| answered| kept", reason, maxsplit=1)[0]
    method = "SEARCH" if "/.search" in label else label.split()[0]
    return f"{method} {'excludedAttributes' if 'excludedAttributes=' in label else 'attributes'}"


def projected(body: dict) -> dict:
    """What a server honouring attributes=externalId answers."""
    return {key: body[key] for key in ("schemas", "id", "externalId") if key in body}


def test_scim2_server_honours_projection_except_on_post(serve):
    """scim2-server ignores attributes on POST (RFC 7644 §3.9 SHALL); every other answer is projected."""
    server = serve(make_app())
    for resource_type, kept in (("User", "userName, displayName"), ("Group", "displayName")):
        results = run(server.url, resource_type)
        assert list(results) == STEPS
        post = results.pop("POST attributes")
        assert post.status is Status.ERROR
        assert f"also holds meta, {kept}, not asked for, though the default list of attributes SHALL be overridden (RFC 7644 §3.9)" in post.reason
        assert {r.status for r in results.values()} == {Status.SUCCESS}, [r.reason for r in results.values()]
        assert 'answered only externalId, with id (returned "always") and schemas' in results["GET attributes"].reason
        assert 'kept id, returned "always"' in results["PUT excludedAttributes"].reason
    assert stored(server.url) == []


def test_a_server_projecting_every_answer_succeeds_and_each_step_makes_one_request(serve):
    server = serve(Broken(make_app()).rewrite_json("POST", "/v2/Users", projected))
    results = run(server.url)
    assert {r.status for r in results.values()} == {Status.SUCCESS}, [r.reason for r in results.values()]
    judged = [[e.method for e in r.exchanges if not (e.note or "").startswith("sent by scim-tui")] for r in results.values()]
    assert judged == [["POST"], ["GET"], ["GET"], ["POST"], ["POST"], ["PUT"], ["PATCH"]], "one request a step, beside the read proving the user the run's"
    search = json.loads(results["SEARCH attributes"].exchanges[0].request_body)
    assert search["attributes"] == ["externalId"] and search["filter"].startswith('id eq "')
    assert all(r.leftovers == [] for r in results.values())
    assert stored(server.url) == []


def with_meta(body: dict) -> dict:
    return body | {"meta": {"resourceType": "User"}}


@pytest.mark.parametrize(
    ("breaks", "broken_step", "expected"),
    [
        (lambda b: b.reroute("GET", USER, QUERY_STRING=""), "GET attributes", r"also holds meta, userName, displayName, not asked for"),
        (
            lambda b: b.rewrite_json("GET", USER, lambda body: {k: v for k, v in body.items() if k != "id"}),
            "GET excludedAttributes",
            r"lacks id, returned \"always\"",
        ),
        (
            lambda b: b.rewrite_json("POST", "/v2/Users/.search", lambda body: body | {"Resources": [with_meta(r) for r in body["Resources"]]}),
            "SEARCH attributes",
            r"also holds meta, not asked for",
        ),
        (
            lambda b: b.rewrite_json("PUT", USER, lambda body: {k: v for k, v in body.items() if k != "id"}),
            "PUT excludedAttributes",
            r"lacks id, returned \"always\"",
        ),
        (lambda b: b.rewrite("PATCH", USER, lambda answer: (204, answer[1], b"")), "PATCH attributes", r"answered 204 instead of 200\.$"),
    ],
    ids=["GET ignores attributes", "excludedAttributes removes id", "search adds meta", "PUT drops id", "PATCH answers 204"],
)
def test_a_server_breaking_projection_in_one_answer_gives_an_error_there(serve, breaks, broken_step, expected):
    server = serve(breaks(Broken(make_app()).rewrite_json("POST", "/v2/Users", projected)))
    results = run(server.url)
    broken = results.pop(broken_step)
    assert broken.status is Status.ERROR
    assert re.search(expected, broken.reason), broken.reason
    others = {name: r.status for name, r in results.items() if not (broken_step.startswith("GET") and name.startswith("GET"))}
    assert set(others.values()) == {Status.SUCCESS}, others
    assert stored(server.url) == []


def test_a_created_resource_answered_without_id_is_found_by_its_location_and_deleted(serve):
    server = serve(Broken(make_app()).rewrite_json("POST", "/v2/Users", lambda body: {"schemas": body["schemas"], "externalId": body["externalId"]}))
    results = run(server.url)
    post = results["POST attributes"]
    assert post.status is Status.ERROR
    assert 'lacks id, returned "always" (RFC 7643 §7)' in post.reason
    assert results["GET attributes"].status is Status.SUCCESS
    assert stored(server.url) == []


class AskingRefused(Middleware):
    """Answers 400 to a creation asking for attributes (?attributes=...), and takes the others."""

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        if environ["REQUEST_METHOD"] == "POST" and environ.get("PATH_INFO") == "/v2/Users" and "attributes=" in environ.get("QUERY_STRING", ""):
            _body(environ)
            return 400, SCIM_JSON, scim_error(400)
        return None


def test_a_refused_creation_ends_the_check_with_one_error(serve):
    """The creation asking for one attribute refused, where the run's other creations pass."""
    server = serve(AskingRefused(make_app()))
    results = run(server.url)
    assert list(results) == ["POST attributes"]
    assert results["POST attributes"].status is Status.ERROR
    assert results["POST attributes"].reason == "POST /v2/Users?attributes=externalId answered 400 instead of 201."


def test_a_server_refusing_every_creation_is_object_creations_finding(serve):
    """Every POST refused: the check judges nothing of the projection (object_creation reports the refusal)."""
    server = serve(Broken(make_app()).answer("POST", "/v2/Users", 400, {"schemas": ["urn:ietf:params:scim:api:messages:2.0:Error"], "status": "400"}))
    results = run(server.url)
    assert [r.status for r in results.values()] == [Status.SKIPPED]
    assert "it needs could not be created: POST /v2/Users answered 400" in next(iter(results.values())).reason


@pytest.mark.parametrize(
    ("update", "skipped"),
    [
        ({"filter": Filter(supported=False, max_results=100)}, ["SEARCH attributes", "SEARCH excludedAttributes"]),
        ({"patch": Patch(supported=False)}, ["PATCH attributes"]),
    ],
    ids=["filter", "patch"],
)
def test_features_the_server_does_not_claim_are_skipped(serve, update, skipped):
    config = load_default_service_provider_config().model_copy(update=update)
    server = serve(Broken(make_app(config=config)).rewrite_json("POST", "/v2/Users", projected))
    results = run(server.url)
    feature = next(iter(update))
    for name in skipped:
        assert results[name].status is Status.SKIPPED
        assert f"not tried: the ServiceProviderConfig does not claim {feature} support" in results[name].reason
    sent = {(e.method, e.url.split("?")[0].rpartition("/")[2]) for r in results.values() for e in r.exchanges}
    assert ("POST", ".search") not in sent if feature == "filter" else all(method != "PATCH" for method, _ in sent)
    assert {r.status for name, r in results.items() if name not in skipped} == {Status.SUCCESS}
    assert stored(server.url) == []


class Badge(Resource):
    """A resource type with nothing optional to ask for: a required code, and an externalId the server sets."""

    __schema__ = "urn:example:params:scim:schemas:core:2.0:Badge"
    external_id: Annotated[str | None, Mutability.read_only] = None
    code: Annotated[str | None, Required.true] = None


def test_a_model_without_an_optional_attribute_is_skipped_before_any_request(client):
    context = CheckContext(client)
    [result] = attribute_projection(context, Badge)
    assert result.status is Status.SKIPPED
    assert result.reason == "Badge has no optional attribute returned by default to ask for."
    assert context.exchanges == []


def test_an_attribute_the_schema_declares_immutable_is_not_patched(serve):
    """externalId, the attribute asked for, declared immutable: a new value would be refused
    (RFC 7643 §2.2), so the PATCH is not tried, and says why."""
    server = serve(Immutable(_schema_change(make_app(), SCHEMA_USER, declaring_external_id), name="externalId"))
    results = run(server.url)
    patch = results["PATCH attributes"]
    assert patch.status is Status.SKIPPED
    assert re.fullmatch(
        r'PATCH /v2/Users/\w+\?attributes=externalId not tried: externalId is declared "mutability": "immutable" '
        r"\(RFC 7643 §2\.2\), so a client may not give it a new value\.",
        patch.reason,
    )
    assert not any(e.method == "PATCH" for r in results.values() for e in r.exchanges)
    assert stored(server.url) == []


@pytest.mark.parametrize("status", [404, 405, 501])
@pytest.mark.parametrize("resource_type", ["User", "Group"])
def test_a_server_without_search_on_its_endpoints_has_the_searches_skipped_and_the_rest_judged(serve, status, resource_type):
    """POST {endpoint}/.search is a client's MAY (RFC 7644 §3.4.3): a server answering it 404, 405 or
    501 does not offer it. Both searches are SKIPPED (the second not sent), the other steps judged."""
    endpoint = f"/v2/{resource_type}s"
    searches: list[int] = []

    def refused(answer):
        searches.append(status)
        return status, answer[1], scim_error(status)

    server = serve(Broken(make_app()).rewrite_json("POST", endpoint, projected).rewrite("POST", rf"{endpoint}/\.search", refused))
    results = run(server.url, resource_type)
    assert list(results) == STEPS
    searched, again = results.pop("SEARCH attributes"), results.pop("SEARCH excludedAttributes")
    assert searched.status is Status.SKIPPED and again.status is Status.SKIPPED
    assert searched.reason.startswith(f"POST {endpoint}/.search with attributes=externalId answered {status}: the server does not offer POST .search there")
    assert "RFC 7644 §3.4.3" in searched.reason
    not_tried = f"POST .search was answered {status}, the server does not offer it there."
    assert again.reason == f"POST {endpoint}/.search with excludedAttributes=id not tried: {not_tried}"
    assert searches == [status], "the second search is not sent"
    assert {r.status for r in results.values()} == {Status.SUCCESS}, [r.reason for r in results.values()]
    assert stored(server.url) == []


def test_a_search_on_an_endpoint_failing_otherwise_is_an_error_and_the_rest_judged(serve):
    broken = Broken(make_app()).rewrite_json("POST", "/v2/Users", projected).answer("POST", r"/v2/Users/\.search", 500, scim_error(500))
    results = run(serve(broken).url)
    for name in ("SEARCH attributes", "SEARCH excludedAttributes"):
        searched = results.pop(name)
        assert searched.status is Status.ERROR
        assert re.fullmatch(r"POST /v2/Users/\.search with \w+=\w+ answered 500 instead of 200\.", searched.reason), searched.reason
    assert {r.status for r in results.values()} == {Status.SUCCESS}, [r.reason for r in results.values()]
