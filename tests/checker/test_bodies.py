"""Bodies as the server must read them: empty, an attribute name in another case, an id not the
resource's (RFC 7643 §2.1, §3.1; RFC 7644 §3.5.1, §3.12)."""

from __future__ import annotations

import json
import re

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.demo import make_app
from tests.support.servers import SCIM_JSON
from tests.support.servers import Broken
from tests.support.servers import make_client
from tests.support.servers import scim_error
from tests.support.servers import stored
from tests.support.unlike import Middleware
from tests.support.unlike import _json_body
from tests.support.unlike import put_refused

USERS = "/v2/Users"
USER = r"/v2/Users/[^/]+"


def run(url: str, checker: str, resource_type: str = "User") -> list:
    with make_client(url) as scim:
        return list(iter_checks(scim, CheckConfig(), only={CheckId(checker, resource_type)}))


@pytest.mark.parametrize("resource_type", ["User", "Group"])
def test_scim2_server_reads_bodies_as_the_rfcs_say(serve, resource_type):
    server = serve(make_app())
    empty = run(server.url, "empty_bodies", resource_type)
    assert [r.status for r in empty] == [Status.COMPLIANT] * 3, [r.reason for r in empty]
    assert [r.reason.split(" with an empty body ")[0].split(" ")[0] for r in empty] == ["POST", "PUT", "PATCH"]
    assert all(r.reason.endswith('answered 400 with a SCIM Error of scimType "invalidSyntax".') for r in empty)
    [named] = run(server.url, "attribute_name_case", resource_type)
    spelled = {"User": "UserName", "Group": "DisplayName"}[resource_type]
    assert named.status is Status.SUCCESS and f'naming {spelled[0].lower()}{spelled[1:]} "{spelled}" answered 201 with the' in named.reason
    assert any(f'"{spelled}"' in (e.request_body or "") for e in named.exchanges if e.method == "POST")
    [other] = run(server.url, "replacement_with_another_id", resource_type)
    assert other.status is Status.SUCCESS and other.reason.endswith("the id sent was ignored."), other.reason
    assert stored(server.url) == []


class EmptyBodyAccepted(Middleware):
    """Takes a PUT without a body as nothing to change: 200 with the resource as it is."""

    def intercept(self, environ):
        if environ["REQUEST_METHOD"] == "PUT" and not int(environ.get("CONTENT_LENGTH") or 0):
            return self.call(environ, REQUEST_METHOD="GET")
        return None


def test_an_empty_body_accepted_is_an_error(serve):
    put = run(serve(EmptyBodyAccepted(make_app())).url, "empty_bodies")[1]
    assert put.status is Status.ERROR
    assert put.reason.endswith(
        "with an empty body answered 200 instead of 400 (an empty body carries not even the schemas every SCIM "
        "body MUST carry, RFC 7643 §3 and RFC 7644 §3.5.2)."
    )


def test_an_empty_body_failing_the_server_is_an_error(serve):
    crash = (500, [("Content-Type", "text/html")], b"<h1>Internal Server Error</h1>")
    server = serve(Broken(make_app()).rewrite("POST", USERS, lambda answer: crash if b"EOF while parsing" in answer[2] else answer))
    post = run(server.url, "empty_bodies")[0]
    assert post.status is Status.ERROR
    assert (
        post.reason
        == "POST /v2/Users with an empty body answered 500: the server failed on a client's mistake, which 400 invalidSyntax tells (RFC 7644 §3.12)."
    )
    assert stored(server.url) == []


def _missing_values(answer):
    """A server that reads an empty body as an object without its required values: 400 invalidValue."""
    if answer[0] != 400:
        return answer
    body = json.dumps({**json.loads(scim_error(400, "userName is required")), "scimType": "invalidValue"}).encode()
    return 400, SCIM_JSON, body


def test_an_empty_body_refused_as_missing_its_required_values_is_compliant(serve):
    """RFC 7644 §3.12, Table 9: invalidValue, "a required value was missing", for POST, PUT and PATCH
    (and invalidSyntax not for PATCH): either tells an empty body."""
    server = serve(Broken(make_app()).rewrite(None, r"/v2/Users.*", _missing_values))
    results = run(server.url, "empty_bodies")
    assert [r.status for r in results] == [Status.COMPLIANT] * 3, [r.reason for r in results]
    assert all(r.reason.endswith('with an empty body answered 400 with a SCIM Error of scimType "invalidValue".') for r in results)


def _exact_names_only(body):
    """A server reading attribute names with their case: a name it does not know is dropped."""
    return {key: value for key, value in body.items() if not key[:1].isupper()} if isinstance(body, dict) else body


def test_an_attribute_name_read_with_its_case_is_an_error(serve):
    server = serve(Broken(make_app()).rewrite_request_json("POST", USERS, _exact_names_only))
    [named] = run(server.url, "attribute_name_case")
    assert named.status is Status.ERROR
    assert re.fullmatch(
        r'POST /v2/Users naming userName "UserName" answered 400 \(.+\) \(RFC 7643 §2\.1: attribute names are case insensitive, so "UserName" is userName\)\.',
        named.reason,
    )


class TakesTheIdSent(Middleware):
    """Answers a PUT with the id its body carries, as a server that moves the resource to it."""

    def intercept(self, environ):
        if environ["REQUEST_METHOD"] != "PUT" or not re.fullmatch(USER, environ.get("PATH_INFO", "")):
            return None
        sent = (_json_body(environ) or {}).get("id")
        status, headers, body = self.call(environ)
        if status == 200 and sent:
            body = json.dumps(json.loads(body) | {"id": sent}).encode()
        return status, [(k, v) for k, v in headers if k.lower() != "content-length"], body


def test_a_resource_that_takes_the_id_sent_is_an_error(serve):
    [other] = run(serve(TakesTheIdSent(make_app())).url, "replacement_with_another_id")
    assert other.status is Status.ERROR
    assert other.reason.endswith(
        "answered 200, and the User[EnterpriseUser] took the id sent (RFC 7644 §3.5.1: values of a readOnly attribute (id, RFC 7643 §3.1) SHALL be ignored)."
    )


def test_a_body_that_contradicts_its_url_refused_with_a_scim_error_is_acceptable(serve):
    refusal = {**json.loads(scim_error(400, "the id does not match the URL")), "scimType": "mutability"}
    server = serve(Broken(make_app()).answer("PUT", USER, 400, refusal, SCIM_JSON))
    [other] = run(server.url, "replacement_with_another_id")
    assert other.status is Status.ACCEPTABLE
    assert "answered 400 with a SCIM Error: RFC 7644 §3.5.1" in other.reason
    assert stored(server.url) == []


def test_a_put_refused_as_a_method_is_not_judged_on_its_body(serve):
    """A server without PUT (405) fails object_replacement, not the rules on what a PUT body carries."""
    server = serve(put_refused(make_app()))
    post, put, patch = run(server.url, "empty_bodies")
    assert post.status is patch.status is Status.COMPLIANT
    [other] = run(server.url, "replacement_with_another_id")
    for result in (put, other):
        assert result.status is Status.SKIPPED
        assert re.fullmatch(
            r"Skipped: PUT /v2/Users/\w+ with (an empty body|the id scim-tui-missing-\w+) answered 405 Method Not Allowed: the server refuses PUT itself "
            r"\(object_replacement judges it\)\.",
            result.reason,
        ), result.reason
    assert stored(server.url) == []
