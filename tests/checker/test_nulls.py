"""null in bodies is "unassigned" (RFC 7643 §2.5), and what is returned "never" is in no answer (RFC 7643 §7)."""

from __future__ import annotations

import json
import re

import pytest
from scim2_models import Patch
from scim2_server.utils import load_default_service_provider_config

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.demo import make_app
from tests.support.servers import SCIM_JSON
from tests.support.servers import Broken
from tests.support.servers import make_client
from tests.support.servers import stored
from tests.support.unlike import Middleware
from tests.support.unlike import _error
from tests.support.unlike import _json_body
from tests.support.unlike import put_refused

LABELS = ("post", "put", "patch null", "patch empty")


def run(url: str, checker: str = "null_values", resource_type: str = "User") -> list:
    with make_client(url) as scim:
        return list(iter_checks(scim, CheckConfig(), only={CheckId(checker, resource_type)}))


@pytest.mark.parametrize(("resource_type", "attribute"), [("User", "nickName"), ("Group", "externalId")])
def test_scim2_server_takes_null_as_unassigned(serve, resource_type, attribute):
    server = serve(make_app())
    results = dict(zip(LABELS, run(server.url, resource_type=resource_type), strict=True))
    assert all(r.status is Status.SUCCESS for r in results.values()), [r.reason for r in results.values()]
    assert results["post"].reason.endswith(f"with {attribute} null answered 201, and the resource holds no value there.")
    assert results["put"].reason.endswith(f"with {attribute} null answered 200, and the resource holds no value there.")
    assert re.search(rf'replacing {attribute} "scim-tui-\w+" with null: a GET after the 204 answer holds no value\.$', results["patch null"].reason)
    assert results["patch empty"].reason.endswith('with "": a GET after the 204 answer holds "".')
    for label in ("patch null", "patch empty"):  # the add a request of its own, then the replace judged
        patches = [json.loads(e.request_body)["Operations"] for e in results[label].exchanges if e.method == "PATCH"]
        assert [[op["op"] for op in operations] for operations in patches] == [["add"], ["replace"]]
    assert stored(server.url) == []


class NullRefused(Middleware):
    """Refuses any body holding null (400), as servers that validate JSON types strictly do."""

    def intercept(self, environ):
        body = _json_body(environ)
        operations = body.get("Operations", []) if isinstance(body, dict) else []
        values = [*(body.values() if isinstance(body, dict) else []), *(op.get("value", 0) for op in operations if isinstance(op, dict))]
        if environ["REQUEST_METHOD"] in ("POST", "PUT", "PATCH") and None in values:
            return 400, SCIM_JSON, _error(400, "null is not a valid value", "invalidValue")
        return None


def test_null_refused_is_an_error_of_each_request(serve):
    server = serve(NullRefused(make_app()))
    results = dict(zip(LABELS, run(server.url), strict=True))
    for label in ("post", "put"):
        assert results[label].status is Status.ERROR
        assert results[label].reason.endswith(
            "answered 400 (null is not a valid value), though null is a value any attribute may take (RFC 7643 "
            '§2.5: "assigning an attribute with the value null '
            '... has the effect of making the attribute unassigned").'
        )
    assert results["patch null"].status is Status.ERROR and "answered 400" in results["patch null"].reason
    assert results["patch empty"].status is Status.SUCCESS
    assert stored(server.url) == []


def test_a_put_refused_as_a_method_is_not_judged_on_its_null(serve):
    """A server without PUT (405) fails object_replacement, not the rule on null a PUT carries."""
    results = dict(zip(LABELS, run(serve(put_refused(make_app())).url), strict=True))
    assert results["put"].status is Status.SKIPPED
    assert re.fullmatch(
        r"Skipped: PUT /v2/Users/\w+ with nickName null answered 405 Method Not Allowed: the server refuses PUT itself "
        r"\(object_replacement judges it\)\.",
        results["put"].reason,
    )
    assert results["post"].status is results["patch null"].status is Status.SUCCESS


class EmptyingIgnored(Middleware):
    """Answers 204 to a PATCH replacing a value with null or "", and keeps the old value (Microsoft's SCIM_Null_Update)."""

    def intercept(self, environ):
        body = _json_body(environ) if environ["REQUEST_METHOD"] == "PATCH" else None
        operations = body.get("Operations", []) if isinstance(body, dict) else []
        if operations and all(op.get("op") == "replace" and op.get("value") in (None, "") for op in operations):
            return 204, [], b""
        return None


def test_a_patch_replace_with_null_or_empty_that_keeps_the_value_is_an_error(serve):
    server = serve(EmptyingIgnored(make_app()))
    results = dict(zip(LABELS, run(server.url), strict=True))
    assert results["post"].status is results["put"].status is Status.SUCCESS
    assert results["patch null"].status is Status.ERROR
    assert re.search(r'with null: a GET after the 204 answer still holds "scim-tui-\w+" \(RFC 7643 §2\.5: ', results["patch null"].reason)
    assert results["patch empty"].status is Status.ERROR
    assert results["patch empty"].reason.endswith("(RFC 7644 §3.5.2.3: a replace operation replaces the value at its path).")


class AddIgnored(Middleware):
    """Answers a PATCH adding a value 200 with the resource as it was."""

    def intercept(self, environ):
        body = _json_body(environ) if environ["REQUEST_METHOD"] == "PATCH" else None
        if isinstance(body, dict) and [op.get("op") for op in body.get("Operations", [])] == ["add"]:
            status, headers, _body = self.call(environ, REQUEST_METHOD="GET")
            return 200, headers, _body
        return None


def test_a_value_that_could_not_be_given_first_skips_its_replace(serve):
    """The add giving the replace a value is plumbing: a server refusing or ignoring it is
    check_add_attribute's finding; the replace is SKIPPED saying why, never judged on nothing."""
    results = dict(zip(LABELS, run(serve(AddIgnored(make_app())).url), strict=True))
    for label in ("patch null", "patch empty"):
        assert results[label].status is Status.SKIPPED
        assert re.search(r'the PATCH adding nickName "scim-tui-\w+" answered without it, so there is no value to replace\.$', results[label].reason)
        assert [e.method for e in results[label].exchanges] == ["PATCH"]


def test_the_patches_are_not_sent_when_patch_is_not_claimed(serve):
    config = load_default_service_provider_config().model_copy(update={"patch": Patch(supported=False)})
    results = dict(zip(LABELS, run(serve(make_app(config=config)).url), strict=True))
    assert results["patch null"].status is results["patch empty"].status is Status.SKIPPED
    assert not any(e.method == "PATCH" for r in results.values() for e in r.exchanges)


def test_scim2_server_never_returns_a_password(serve):
    server = serve(make_app())
    [result] = run(server.url, "never_returned")
    assert result.status is Status.SUCCESS
    assert result.reason.startswith("No answer holds password nor its value: POST /v2/Users; GET /v2/Users/")
    assert "?attributes=password; GET /v2/Users?filter=" in result.reason
    [group] = run(server.url, "never_returned", "Group")
    assert group.status is Status.SKIPPED
    assert stored(server.url) == []


def test_a_password_in_an_answer_is_an_error(serve):
    server = serve(Broken(make_app()).rewrite_json("GET", r"/v2/Users/[^/]+", lambda body: body | {"password": "{SSHA}c2NpbS10dWk="}))
    [result] = run(server.url, "never_returned")
    assert result.status is Status.ERROR
    assert re.fullmatch(
        r'GET /v2/Users/\w+; GET /v2/Users/\w+\?attributes=password: the answer holds password or the value sent \(RFC 7643 §7: returned "never", '
        r'"the attribute is never returned"\)\.',
        result.reason,
    )
