"""Every result carries the HTTP exchanges of its own check, with secrets redacted."""

from __future__ import annotations

import json
from datetime import UTC
from datetime import datetime
from urllib.parse import unquote
from urllib.parse import urlsplit

from scim2_client.engines.httpx2 import SyncSCIMClient
from scim2_client.engines.wsgi import WSGISCIMClient

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.checker.exchanges import Redactor
from scim_tui.checker.exchanges import Role
from scim_tui.checker.secrets import Secrets
from scim_tui.demo import make_app
from scim_tui.reports.model import RunReport
from tests.support.servers import Broken
from tests.support.servers import http_client
from tests.support.servers import make_client

TOKEN = "s3cr3t-token-value"


def test_exchanges_hold_the_request_and_the_response(client):
    [result] = list(iter_checks(client, only={CheckId("service_provider_config_endpoint")}))
    [exchange] = result.exchanges
    assert exchange.method == "GET"
    assert exchange.url.endswith("/v2/ServiceProviderConfig")
    assert exchange.status_code == 200
    assert "patch" in exchange.response_body
    assert exchange.response_headers["content-type"].startswith("application/scim+json")
    assert exchange.elapsed > 0


def test_bearer_tokens_and_known_secrets_are_redacted(serve):
    server = serve(make_app(bearer_tokens=[TOKEN]))
    headers = {"Authorization": f"Bearer {TOKEN}", "X-Api-Key": "key-123456", "X-Trace": f"trace-{TOKEN}"}
    with http_client(server.url, headers=headers) as http:
        results = list(iter_checks(SyncSCIMClient(http), CheckConfig(include_tags={"discovery"}), secrets=[TOKEN]))
    assert results and all(r.status is not Status.ERROR for r in results if r.title != "resource_type_tests")
    for result in results:
        for exchange in result.exchanges:
            dump = repr(exchange)
            assert TOKEN not in dump and "key-123456" not in dump
            assert exchange.request_headers["authorization"] == "***"
            assert exchange.request_headers["x-api-key"] == "***"
            assert exchange.request_headers["x-trace"] == "trace-***"


def test_the_wsgi_engine_is_recorded_too():
    scim = WSGISCIMClient(make_app(), base_url="http://localhost/v2", headers={"Authorization": f"Bearer {TOKEN}"})
    [result] = list(iter_checks(scim, only={CheckId("random_url")}))
    assert result.status is Status.SUCCESS
    [exchange] = result.exchanges
    assert exchange.url.startswith("http://localhost/v2/scim-tui-missing-")
    assert exchange.status_code == 404
    assert exchange.request_headers["Authorization"] == "***"


def test_concurrent_checks_never_see_each_other_exchanges(scim_server):
    with http_client(scim_server.url) as http:
        results = list(iter_checks(SyncSCIMClient(http), CheckConfig(include_tags={"discovery", "misc"}, jobs=4)))
    endpoint_of = {
        "service_provider_config_endpoint_methods": "/ServiceProviderConfig",
        "resource_types_endpoint_methods": "/ResourceTypes",
        "schemas_endpoint_methods": "/Schemas",
    }
    checked = 0
    for result in results:
        if result.title in endpoint_of:
            assert [e.url.rsplit("/v2", 1)[1] for e in result.exchanges] == [endpoint_of[result.title]]
            checked += 1
    assert checked == 12


def test_redactor_hides_credentials_in_urls():
    redactor = Redactor(["hunter22"])
    assert redactor.url("https://user:pw@host/v2/Users?access_token=abc&count=2") == "https://***@host/v2/Users?access_token=***&count=2"
    assert redactor.text('{"password": "hunter22"}') == '{"password": "***"}'


def test_a_secret_learnt_later_is_redacted_from_the_header_fields_seen_before():
    """Header fields redacted once are remembered, but not past a secret learnt since (a token
    refreshed during the run): the same field is redacted anew."""
    secrets = Secrets()
    redactor = Redactor(secrets)
    fields = [("X-Echo", "refreshed-7d1c9b3e"), ("Content-Type", "application/scim+json"), ("X-Echo", "other")]
    assert redactor.headers(fields) == {"X-Echo": "refreshed-7d1c9b3e, other", "Content-Type": "application/scim+json"}
    secrets.add("refreshed-7d1c9b3e")
    assert redactor.headers(fields) == {"X-Echo": "***, other", "Content-Type": "application/scim+json"}


def test_terminal_control_characters_from_a_server_never_reach_a_result(serve):
    """An escape sequence in an answer could clear the user's screen or retitle the window."""
    hostile = {"schemas": ["urn:ietf:params:scim:api:messages:2.0:Error"], "status": "500", "detail": "boom\x1b[2J\x1b]0;pwned\x07"}
    server = serve(Broken(make_app()).answer("GET", "/v2/ServiceProviderConfig", 500, hostile))
    with make_client(server.url) as scim:
        [result] = list(iter_checks(scim, only={CheckId("service_provider_config_endpoint")}))
    assert result.status is Status.ERROR
    shown = [result.reason, result.exchanges[0].response_body, *result.exchanges[0].response_headers.values()]
    assert "boom" in result.reason
    assert not any(char in text for text in shown for char in "\x1b\x07")
    assert "␛[2J" in result.reason


def test_raw_control_characters_in_a_body_are_made_visible(serve):
    server = serve(
        Broken(make_app()).answer("GET", "/v2/scim-tui-missing-.*", 404, b"<html>\x1b[31mred\x1b[0m</html>", headers=[("Content-Type", "text/html")])
    )
    with make_client(server.url) as scim:
        [result] = list(iter_checks(scim, only={CheckId("random_url")}))
    assert result.exchanges[0].response_body == "<html>␛[31mred␛[0m</html>"


def test_each_exchange_says_what_it_was_for_as_the_engine_sent_it(client):
    """The result screen lists a check's exchanges by what they were for: the resource the check
    needs, the proof that it is the run's before a write, the request judged, and the clean-up."""
    log: list = []
    [result] = list(iter_checks(client, only={CheckId("object_replacement", "User")}, exchanges=log))
    purposes = [(exchange.method, exchange.purpose) for exchange in result.exchanges]
    assert purposes[0] == ("POST", "create the User it needs")
    assert ("GET", "prove the User is the run's") in purposes
    assert ("PUT", "the request judged") in purposes
    assert purposes[-2:] == [("DELETE", "clean-up: delete the User"), ("GET", "clean-up: check the User is gone")]
    assert (log[-1].method, log[-1].purpose) == ("GET", "clean-up: check the User is no longer listed"), "asked by the run's clean-up, last"
    assert urlsplit(result.exchanges[-1].url).path.rsplit("/", 1)[-1] in unquote(log[-1].url), "one query on the ids of what the run deleted"
    assert {exchange.role for exchange in result.exchanges} == set(Role)
    saved = RunReport.from_dict(json.loads(json.dumps(RunReport("http://127.0.0.1/v2", datetime.now(UTC), 1.0, [result]).to_dict(every_exchange=True))))
    told = [(exchange.role, exchange.subject) for exchange in saved.results[0].exchanges]
    assert told == [(exchange.role, exchange.subject) for exchange in result.exchanges], "a saved report reads the roles back"
