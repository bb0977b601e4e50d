"""The /Me checker (RFC 7644 §3.11) against scim2-server, and against servers that answer /Me otherwise."""

from __future__ import annotations

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.checker.pacing import Pacing
from scim_tui.demo import make_app
from tests.support.servers import SCIM_JSON
from tests.support.servers import Broken
from tests.support.servers import make_client
from tests.support.servers import scim_error

ME = "/v2/Me"
SUBJECT = {"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "id": "subject-1", "userName": "me"}
AT_SUBJECT = [*SCIM_JSON, ("Location", "http://127.0.0.1/v2/Users/subject-1")]


def run(url: str):
    with make_client(url) as scim:
        # a 503 is waited out as a busy server's: a short back-off, the same verdict
        [result] = iter_checks(scim, CheckConfig(pacing=Pacing(backoff=0.01)), only={CheckId("me_endpoint")})
    return result


def test_scim2_server_answers_501_as_it_should(client):
    [result] = iter_checks(client, CheckConfig(), only={CheckId("me_endpoint")})
    assert result.status is Status.COMPLIANT, result.reason
    assert result.reason.startswith("GET /v2/Me answered 501 Not Implemented with a SCIM Error")
    assert [(e.method, e.status_code) for e in result.exchanges] == [("GET", 501)]
    assert result.section == "3.11" and "me" in result.tags


@pytest.mark.parametrize(
    ("breaks", "status", "words"),
    [
        (lambda b: b.answer("GET", ME, 500, scim_error(500)), Status.ERROR, "answered 500 Internal Server Error: the server fails on /Me"),
        (
            lambda b: b.answer("GET", ME, 503, b"<html>down</html>", [("Content-Type", "text/html")]),
            Status.ERROR,
            "answered 503 Service Unavailable: the server fails",
        ),
        (lambda b: b.answer("GET", ME, 501, b"<html>no</html>", [("Content-Type", "text/html")]), Status.ERROR, "its body is not a JSON object"),
        (
            lambda b: b.answer("GET", ME, 200, SUBJECT, AT_SUBJECT),
            Status.ACCEPTABLE,
            "with the subject's resource subject-1, at http://127.0.0.1/v2/Users/subject-1",
        ),
        (lambda b: b.answer("GET", ME, 200, SUBJECT), Status.ERROR, "without a Location header, which MUST"),
        (lambda b: b.answer("GET", ME, 200, {"detail": "hello"}, AT_SUBJECT), Status.ERROR, "its body is not a resource"),
        (
            lambda b: b.answer("GET", ME, 308, b"", [("Location", "http://127.0.0.1/v2/Users/subject-1")]),
            Status.ACCEPTABLE,
            "308 Permanent Redirect to http://127.0.0.1/v2/Users/subject-1",
        ),
        (lambda b: b.answer("GET", ME, 308, b""), Status.ERROR, "308 Permanent Redirect without a Location header"),
        (lambda b: b.answer("GET", ME, 302, b"", [("Location", "/elsewhere")]), Status.DEVIATION, "redirects to it with a 308"),
        (lambda b: b.answer("GET", ME, 403, scim_error(403)), Status.ACCEPTABLE, "serves /Me, but not to the subject"),
        (lambda b: b.answer("GET", ME, 404, scim_error(404)), Status.DEVIATION, "it SHOULD answer 501"),
        (lambda b: b.answer("GET", ME, 405, scim_error(405)), Status.DEVIATION, "SHOULD answer 501"),
    ],
    ids=["500", "503 HTML", "501 HTML", "200 resource", "200 no Location", "200 not a resource", "308", "308 no Location", "302", "403", "404", "405"],
)
def test_each_answer_to_me_gets_the_status_of_its_rfc_keyword(serve, breaks, status, words):
    server = serve(breaks(Broken(make_app())))
    result = run(server.url)
    assert result.status is status, result.reason
    assert words in result.reason
