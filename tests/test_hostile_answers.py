"""Answers built to hurt the client: encodings no decoder may expand without a
limit, JSON nested to crash a parser, documents that are null. Each is an ERROR saying what came
back, never a traceback, a Python message or memory without bound."""

from __future__ import annotations

import gzip
import json
import zlib
from functools import cache
from urllib.parse import urlsplit

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.demo import make_app
from scim_tui.net.connect import open_client
from scim_tui.net.connect import test_connection
from scim_tui.store.profiles import Profile
from tests.support.command import scim_tui
from tests.support.command import scim_tui_here
from tests.support.servers import Broken

INTERNALS = (
    "Traceback",
    "NoneType",
    "object has no attribute",
    "RecursionError",
    "maximum recursion",
    "is not callable",
    "positional argument",
    "keyword argument",
)
DISCOVERY = CheckConfig(include_tags={"discovery", "crud:create"}, exclude_tags={"discovery:strict"})


@cache
def bomb() -> bytes:
    """20 MiB of JSON-ish bytes, gzipped twice: a few KiB on the wire (built once a session)."""
    return gzip.compress(gzip.compress(b"[" + b" " * (20 << 20) + b"]", compresslevel=9), compresslevel=9)


def encoded(encoding: str, body: bytes):
    def change(answer):
        status, headers, _ = answer
        return status, [*headers, ("Content-Encoding", encoding)], body

    return change


def run(url: str) -> list[CheckResult]:
    with open_client(Profile(name="hostile", url=url, timeout=10)) as connection:
        return list(iter_checks(connection.client, DISCOVERY, secrets=connection.secrets))


def assert_understandable(results: list[CheckResult]) -> None:
    for result in results:
        assert not [word for word in INTERNALS if word in (result.reason or "")], result


@pytest.mark.parametrize(
    ("encoding", "body"),
    [
        ("gzip, gzip", None),
        ("br", b"\x0b\x02\x80hello"),
        ("zstd", b"(\xb5/\xfd\x00Xhello"),
        ("compress", b"\x1f\x9d\x90hello"),
        ("deflate, gzip", None),
    ],
)
def test_an_encoding_not_decoded_under_the_limit_is_refused_unread(serve, encoding, body):
    content = bomb() if body is None else body
    server = serve(Broken(make_app()).rewrite("GET", "/v2/ServiceProviderConfig", encoded(encoding, content)))
    results = run(server.url)
    [config] = [r for r in results if r.title == "service_provider_config_endpoint"]
    assert config.status is Status.ERROR
    expected = (
        f"GET /v2/ServiceProviderConfig failed: the response of {urlsplit(server.url).netloc} is encoded as {encoding!r} (Content-Encoding), "
        "though the request asked for none: only a single gzip or deflate encoding is decoded, within the "
        "profile's max_response_bytes, so the body was not read"
    )
    assert config.reason == expected
    assert config.exchanges[-1].response_body is None, "nothing of the body was read"
    assert_understandable(results)


def test_a_single_deflate_or_gzip_is_still_read(serve):
    server = serve(
        Broken(make_app()).rewrite("GET", "/v2/ServiceProviderConfig", lambda a: (a[0], [*a[1], ("Content-Encoding", "deflate")], zlib.compress(a[2])))
    )
    [config] = [r for r in run(server.url) if r.title == "service_provider_config_endpoint"]
    assert config.status is Status.SUCCESS, config.reason


DEEP = {
    "arrays": b"[" * 100_000 + b"]" * 100_000,
    "objects": b'{"a":' * 5_000 + b"1" + b"}" * 5_000,
    "unclosed": b"[" * 50_000,
}


@pytest.mark.parametrize("shape", DEEP)
def test_json_nested_too_deep_is_refused_before_parsing(serve, shape):
    server = serve(Broken(make_app()).answer("GET", "/v2/ResourceTypes", 200, DEEP[shape]))
    profile = Profile(name="deep", url=server.url, timeout=10)
    tested = test_connection(profile)
    assert tested.ok, tested.message  # a garbled /ResourceTypes is for the checks to judge, not the connection test
    results = run(server.url)
    [listed] = [r for r in results if r.title == "query_all_resource_types"]
    assert listed.status is Status.ERROR
    assert (
        listed.reason
        == f"GET /v2/ResourceTypes failed: the response of {urlsplit(server.url).netloc} nests JSON more than 64 levels deep, so it was not parsed"
    )
    assert_understandable(results)


def test_deep_json_in_scim_tui_check_is_a_report_not_a_traceback(serve):
    server = serve(Broken(make_app()).answer("GET", "/v2/ResourceTypes", 200, DEEP["arrays"]))
    process = scim_tui("check", "--url", server.url, "--include-tags", "discovery", "--format", "json")
    assert process.returncode == 1, process.stderr
    assert "Traceback" not in process.stderr
    report = json.loads(process.stdout)
    assert any("nests JSON more than 64 levels deep" in r["reason"] for r in report["results"])


@pytest.mark.parametrize("document", ["ServiceProviderConfig", "ResourceTypes", "Schemas"])
def test_a_discovery_document_of_null_is_an_error_saying_so(serve, document):
    server = serve(Broken(make_app()).answer("GET", f"/v2/{document}", 200, b"null"))
    results = run(server.url)
    failed = [
        r for r in results if r.status is Status.ERROR and f"GET /v2/{document} answered 200: the answer is an empty body or JSON null" in (r.reason or "")
    ]
    assert failed, [r.reason for r in results]
    assert_understandable(results)


def test_a_header_value_beyond_ascii_is_kept_as_sent_not_a_traceback(serve):
    """RFC 9110 §5.5 lets a field value carry bytes beyond ASCII (obs-text); a server sends one
    in every answer, the probe made before the run included."""
    server = serve(Broken(make_app()).rewrite(None, ".*", lambda answer: (answer[0], [*answer[1], ("X-Note", "café")], answer[2])))
    process = scim_tui_here("check", "--url", server.url, "--include-tags", "misc", "--format", "json", "--every-exchange")
    assert process.returncode == 0 and "Traceback" not in process.stderr, process.stderr
    [result] = [r for r in json.loads(process.stdout)["results"] if r["status"] != "SKIPPED"]
    assert result["exchanges"][0]["response_headers"]["x-note"] == "café"


def test_resource_types_whose_resources_are_no_list_are_a_result_not_a_traceback(serve):
    server = serve(Broken(make_app()).answer("GET", "/v2/ResourceTypes", 200, {"Resources": {"x": 1}}))
    process = scim_tui_here("check", "--url", server.url, "--include-tags", "resource-types", "--format", "json")
    assert process.returncode == 1 and "Traceback" not in process.stderr, process.stderr
    [listed] = [r for r in json.loads(process.stdout)["results"] if r["title"] == "query_all_resource_types"]
    assert listed["status"] == "ERROR" and 'its "Resources" is not a list' in listed["reason"]
