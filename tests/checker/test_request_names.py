"""Reasons name requests as their exchanges do: the method, then the path from the server's root
(``GET /v2/Users/…``), never the path under the base URL."""

from __future__ import annotations

import re
from urllib.parse import parse_qs
from urllib.parse import unquote
from urllib.parse import urlsplit

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckResult
from scim_tui.checker import iter_checks
from scim_tui.demo import make_app
from tests.support.servers import Broken
from tests.support.servers import make_client
from tests.support.servers import scim_error

BASE = "/v2"
"""The path of the tests' servers' base URL."""
NAMED = re.compile(r"(?<!operation )\b(GET|POST|PUT|PATCH|DELETE) (/[^\s?]*)(?:\?(\w+)=)?")
"""A request a reason names: its method, its path and the first parameter of its query. A bulk
operation is named by the path its body gives, under the base URL (RFC 7644 §3.7), so not here."""
PLACEHOLDERS = {re.escape("{id}"): "[^/]+", re.escape("…"): ".*"}


SPEC_LABELS = ("GET /Resource/{id}:", "GET /Resource:", "POST /.search:")
"""The labels SPEC.md §4.5 puts before the attribute-filtering checks' reasons: the kind of
request, not its path (the requests they sent are named after the label)."""


def named_requests(result: CheckResult) -> list[tuple[str, str, str | None]]:
    reason = result.reason
    for label in SPEC_LABELS:
        reason = reason.removeprefix(label)
    return [(method, path.rstrip(".,:;)"), key or None) for method, path, key in NAMED.findall(reason)]


def sent(result: CheckResult, method: str, path: str, key: str | None) -> bool:
    """Whether one of the result's exchanges is that request (ids as `{id}` or `…` match any)."""
    pattern = re.escape(unquote(path))
    for placeholder, match in PLACEHOLDERS.items():
        pattern = pattern.replace(placeholder, match)
    for exchange in result.exchanges:
        parts = urlsplit(exchange.url)
        if exchange.method == method and re.fullmatch(pattern, unquote(parts.path)) and (key is None or key in parse_qs(parts.query)):
            return True
    return False


def misnamed(results: list[CheckResult]) -> list[str]:
    """The requests reasons name otherwise than their exchanges do, each with its reason."""
    wrong = []
    for result in results:
        for method, path, key in named_requests(result):
            if not (path == BASE or path.startswith(f"{BASE}/")) or not sent(result, method, path, key):
                wrong.append(f"{result.title} ({result.resource_type}): {method} {path} in {result.reason!r}")
    return wrong


def test_every_reason_of_a_full_run_names_its_requests_from_the_servers_root(full_run):
    named = [result for result in full_run if named_requests(result)]
    assert len(named) > 100  # the test reads the reasons it means to
    assert misnamed(full_run) == []


def broken_server() -> Broken:
    """A server whose failures make the checks write the reasons a compliant server never gets."""
    no_version = lambda body: body | {"meta": {k: v for k, v in body.get("meta", {}).items() if k != "version"}}  # noqa: E731
    no_location = lambda answer: (answer[0], [(k, v) for k, v in answer[1] if k.lower() != "location"], answer[2])  # noqa: E731
    return (
        Broken(make_app())
        .reroute("DELETE", r"/v2/Users/[^/]+", REQUEST_METHOD="GET")
        .rewrite("POST", "/v2/Users", no_location)
        .rewrite_json("GET", r"/v2/Users/[^/]+", no_version)
        .rewrite_json("GET", r"/v2/Schemas/[^/]+", lambda body: body | {"attributes": []})
        .answer("POST", "/v2/Schemas", 200, {})
        .answer("GET", "/v2/Me", 500, scim_error(500))
    )


def test_the_reasons_of_failures_name_their_requests_from_the_servers_root(serve):
    server = serve(broken_server())
    tags = {"crud:delete", "etag", "headers", "schemas", "me"}
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(include_tags=tags, resource_types=["User"])))
    failed = [result for result in results if result.status.failed and named_requests(result)]
    assert len(failed) >= 6, [result.reason for result in results]
    assert misnamed(results) == []
