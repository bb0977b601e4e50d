"""Writes to what is not there: a resource deleted, an id that names nothing (RFC 7644 §3.6, §3.12)."""

from __future__ import annotations

import io
import re

import pytest
from scim2_models import Patch
from scim2_server.utils import load_default_service_provider_config

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.checker.exchanges import Role
from scim_tui.demo import make_app
from tests.support.servers import Broken
from tests.support.servers import make_client
from tests.support.servers import stored
from tests.support.unlike import Middleware
from tests.support.unlike import put_refused

MISSING = r"/v2/(Users|Groups)/scim-tui-missing-\w+"


def run(url: str, resource_type: str = "User") -> list:
    with make_client(url) as scim:
        return list(iter_checks(scim, CheckConfig(), only={CheckId("not_found_writes", resource_type)}))


@pytest.mark.parametrize("resource_type", ["User", "Group"])
def test_scim2_server_answers_404_to_writes_on_what_is_not_there(serve, resource_type):
    server = serve(make_app())
    again, put, patch, delete = run(server.url, resource_type)
    assert [r.status for r in (again, put, patch, delete)] == [Status.SUCCESS] * 4, [r.reason for r in (again, put, patch, delete)]
    assert re.fullmatch(rf"DELETE /v2/{resource_type}s/\w+ of the \S+ it had just deleted answered 404 with a SCIM Error\.", again.reason)
    # the GET proves the URL holds nothing but what the run deleted (a freed id may be someone else's since)
    sent = [(e.method, e.status_code, e.role) for e in again.exchanges][-3:]
    assert sent == [("DELETE", 204, Role.JUDGED), ("GET", 404, Role.PROOF), ("DELETE", 404, Role.JUDGED)]
    for method, result in (("PUT", put), ("PATCH", patch), ("DELETE", delete)):
        assert re.fullmatch(rf"{method} /v2/{resource_type}s/scim-tui-missing-\w+ \(an id that names nothing\) answered 404 with a SCIM Error\.", result.reason)
    assert stored(server.url) == []


def test_a_deleted_resource_deleted_again_with_204_is_an_error(serve):
    """RFC 7644 §3.6: a server that keeps a deleted resource MUST answer 404 for every operation on it."""
    kept = Broken(make_app()).rewrite("DELETE", r"/v2/Users/[^/]+", lambda answer: (204, [], b"") if answer[0] == 200 else answer, REQUEST_METHOD="GET")
    server = serve(kept)
    again = run(server.url)[0]
    assert again.status is Status.ERROR
    assert again.reason.endswith(
        "it had just deleted answered 204 instead of 404 (RFC 7644 §3.6: a service provider MUST return a 404 (Not Found) error code "
        "for all operations associated with the previously deleted resource)."
    )


class PutCreates(Middleware):
    """Takes a PUT of an id it does not hold as a creation (201), as some servers do."""

    def intercept(self, environ):
        if environ["REQUEST_METHOD"] != "PUT" or not re.fullmatch(MISSING, environ.get("PATH_INFO", "")):
            return None
        body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        endpoint = environ["PATH_INFO"].rsplit("/", 1)[0]
        return self.call(environ, REQUEST_METHOD="POST", PATH_INFO=endpoint, CONTENT_LENGTH=str(len(body)), **{"wsgi.input": io.BytesIO(body)})


def test_a_put_that_creates_at_an_unknown_id_is_an_error_and_what_it_made_is_deleted(serve):
    server = serve(PutCreates(make_app()))
    put = run(server.url)[1]
    assert put.status is Status.ERROR
    assert re.fullmatch(
        r"PUT /v2/Users/scim-tui-missing-\w+ \(an id that names nothing\) answered 201 instead of 404 \(RFC 7644 "
        r"§3\.12, Table 8: 404, the specified resource does not exist\)\.",
        put.reason,
    )
    assert put.leftovers == [] and stored(server.url) == []


def test_a_404_that_is_no_scim_error_is_an_error(serve):
    html = (404, [("Content-Type", "text/html")], b"<h1>Not Found</h1>")
    server = serve(Broken(make_app()).rewrite("DELETE", MISSING, lambda answer: html))
    delete = run(server.url)[3]
    assert delete.status is Status.ERROR
    assert delete.reason.endswith("answered 404, but its body is not a JSON object (RFC 7644 §3.12, MUST).")


def test_patch_is_not_sent_when_it_is_not_claimed(serve):
    config = load_default_service_provider_config().model_copy(update={"patch": Patch(supported=False)})
    patch = run(serve(make_app(config=config)).url)[2]
    assert patch.status is Status.SKIPPED
    assert patch.reason.endswith("Skipped: the ServiceProviderConfig does not claim patch support.")
    assert not any(e.method == "PATCH" for e in patch.exchanges)


@pytest.mark.parametrize(
    ("method", "answer"),
    [
        # A server that reads the resource to patch and fails on finding none.
        ("PATCH", (500, [("Content-Type", "text/html")], b"<h1>Internal Server Error</h1>")),
        # A server whose DELETE is idempotent: an id it never held is "deleted".
        ("DELETE", (204, [], b"")),
    ],
)
def test_a_write_of_an_unknown_id_not_answered_404_is_an_error(serve, method, answer):
    server = serve(Broken(make_app()).rewrite(method, MISSING, lambda answered: answer if answered[0] == 404 else answered))
    results = dict(zip(("again", "PUT", "PATCH", "DELETE"), run(server.url), strict=True))
    broken = results.pop(method)
    assert broken.status is Status.ERROR
    assert re.fullmatch(
        rf"{method} /v2/Users/scim-tui-missing-\w+ \(an id that names nothing\) answered {answer[0]} instead of 404 \(RFC 7644 §3\.12, Table 8: "
        r"404, the specified resource does not exist\)\.",
        broken.reason,
    )
    assert [r.status for r in results.values()] == [Status.SUCCESS] * 3
    assert stored(server.url) == []


def test_a_put_refused_as_a_method_is_not_judged_on_the_unknown_id(serve):
    again, put, patch, delete = run(serve(put_refused(make_app())).url)
    assert put.status is Status.SKIPPED
    assert re.fullmatch(
        r"Skipped: PUT /v2/Users/scim-tui-missing-\w+ \(an id that names nothing\) answered 405 Method Not Allowed: the server refuses PUT itself "
        r"\(object_replacement judges it\)\.",
        put.reason,
    )
    assert [r.status for r in (again, patch, delete)] == [Status.SUCCESS] * 3
