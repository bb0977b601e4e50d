"""A server that says bulk, sort and etag are not supported, and means it (RFC 7643 §5: a
ServiceProviderConfig's "supported" is the server's word): a default run, identity providers
included, gives it no ERROR of those features, and leaves nothing behind.

The checks of each feature are tested one by one elsewhere (test_bulk, test_sorting,
test_versioning); this is the whole default run on a server that refuses all three."""

from __future__ import annotations

from typing import Any

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import iter_checks
from scim_tui.demo import make_app
from tests.support.bystanders import run_leftovers
from tests.support.servers import Broken
from tests.support.servers import make_client
from tests.support.unlike import SCIM_JSON
from tests.support.unlike import Middleware
from tests.support.unlike import _error
from tests.support.unlike import _query

pytestmark = pytest.mark.slow  # a whole default run

FAILING_ON_SCIM2_SERVER = {"service_provider_config_document", "attribute_projection", "resource_type_tests"}
"""What scim2-server itself fails (README), and the suites' summaries."""
UNCLAIMED = ("bulk", "sort", "etag")


def _unclaimed(config: dict[str, Any]) -> dict[str, Any]:
    return config | {feature: {**config.get(feature, {}), "supported": False} for feature in UNCLAIMED}


class WithoutOptionalFeatures(Middleware):
    """Says bulk, sort and etag are not supported; answers /Bulk 501 and a sortBy 400, and sends
    no ETag and ignores If-Match / If-None-Match, as a server without them does."""

    def __init__(self, app: Any):
        super().__init__(Broken(app).rewrite_json("GET", "/v2/ServiceProviderConfig", _unclaimed))

    def intercept(self, environ: dict[str, Any]) -> Any:
        if environ.get("PATH_INFO", "").endswith("/Bulk"):
            return 501, SCIM_JSON, _error(501, "bulk is not supported")
        if "sortBy" in _query(environ):
            return 400, SCIM_JSON, _error(400, "sorting is not supported", "invalidValue")
        return None

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        def without_etag(status: str, headers: list[tuple[str, str]], *rest: Any) -> Any:
            return start_response(status, [(name, value) for name, value in headers if name.lower() != "etag"], *rest)

        environ.pop("HTTP_IF_MATCH", None)
        environ.pop("HTTP_IF_NONE_MATCH", None)
        return super().__call__(environ, without_etag)


def test_features_said_unsupported_give_no_error_in_a_default_run(serve):
    server = serve(WithoutOptionalFeatures(make_app()))
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(jobs=4)))
    failing = {(r.resource_type, r.title): r.reason for r in results if r.status.failed and r.title not in FAILING_ON_SCIM2_SERVER}
    assert failing == {}
    said = [r for r in results if r.title in ("bulk_operations", "bulk_fail_on_errors", "bulk_max_operations", "sort_order", "resource_versions")]
    assert said and all(not r.status.failed for r in said), [(r.title, r.status, r.reason) for r in said]
    assert run_leftovers(server.url) == []
