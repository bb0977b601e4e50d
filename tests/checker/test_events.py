"""RFC 9967: securityEvents in the ServiceProviderConfig, and Prefer: respond-async."""

from __future__ import annotations

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.demo import make_app
from tests.support.servers import Broken
from tests.support.servers import make_client
from tests.support.servers import scim_error
from tests.support.servers import stored
from tests.support.unlike import RespondsAsync

SPC = "/v2/ServiceProviderConfig"


def run(url: str, checker: str, resource_type: str | None = "User") -> list:
    with make_client(url) as scim:
        return list(iter_checks(scim, CheckConfig(), only={CheckId(checker, resource_type if checker == "async_requests" else None)}))


def with_events(events):
    return Broken(make_app()).rewrite_json("GET", SPC, lambda config: config | {"securityEvents": events})


def test_scim2_server_claims_no_security_events_and_ignores_the_preference(serve):
    server = serve(make_app())
    [config] = run(server.url, "security_events_config")
    assert config.status is Status.SKIPPED
    assert config.reason == "Skipped: the ServiceProviderConfig carries no securityEvents, so it claims no Security Events (RFC 9967 §4)."
    for resource_type in ("User", "Group"):
        [result] = run(server.url, "async_requests", resource_type)
        assert result.status is Status.SUCCESS
        assert result.reason.endswith(
            'with Prefer: respond-async answered 200, the normal answer, the preference ignored (RFC 7240 §2) (securityEvents.asyncRequest is "none").'
        )
    assert stored(server.url) == []


def test_well_formed_security_events_pass(serve):
    [config] = run(
        serve(with_events({"asyncRequest": "Request", "eventUris": ["urn:ietf:params:scim:event:prov:create:notice"]})).url, "security_events_config"
    )
    assert config.status is Status.SUCCESS
    assert config.reason == 'The ServiceProviderConfig\'s securityEvents is well formed (asyncRequest "request").'


@pytest.mark.parametrize(
    ("events", "words"),
    [
        ("request", "it is a JSON string, where a complex attribute is a JSON object"),
        ({"asyncRequest": "sometimes"}, 'asyncRequest is "sometimes", not one of "none", "long" and "request"'),
        (
            {"asyncRequest": "none", "eventUris": "urn:ietf:params:scim:event:prov:create:notice"},
            'eventUris is "urn:ietf:params:scim:event:prov:create:notice", not a list of URIs',
        ),
    ],
)
def test_malformed_security_events_are_an_error(serve, events, words):
    [config] = run(serve(with_events(events)).url, "security_events_config")
    assert config.status is Status.ERROR
    assert config.reason == f"The ServiceProviderConfig's securityEvents is malformed: {words} (RFC 9967 §4)."


def test_an_asynchronous_answer_as_rfc_9967_says_passes(serve):
    server = serve(RespondsAsync(make_app()))
    [result] = run(server.url, "async_requests")
    assert result.status is Status.SUCCESS
    assert result.reason.endswith(
        "with Prefer: respond-async answered 202 Accepted with no body, Set-Txn: 734f0614e3274f288f93ac74119dcf78, Location and "
        'Preference-Applied: respond-async (securityEvents.asyncRequest is "request").'
    )
    assert stored(server.url) == []


@pytest.mark.parametrize(
    ("without", "body", "status", "words"),
    [
        (("Set-Txn",), b"", Status.ERROR, "answered 202 Accepted without Set-Txn, which MUST be used with a 202 (§3) (RFC 9967 §2.5.1.1, "),
        (("Location",), b"", Status.ERROR, "answered 202 Accepted without Location, whose value MUST be a URI (§2.5.1.1) (RFC 9967 §2.5.1.1, "),
        ((), b'{"status": "accepted"}', Status.ERROR, "answered 202 Accepted with a body, where the asynchronous response MUST contain no response body"),
        (("Preference-Applied",), b"", Status.DEVIATION, "answered 202 Accepted with Set-Txn and Location but no Preference-Applied: respond-async"),
    ],
)
def test_an_asynchronous_answer_lacking_what_it_must_carry(serve, without, body, status, words):
    [result] = run(serve(RespondsAsync(make_app(), without=without, body=body)).url, "async_requests")
    assert result.status is status
    assert words in result.reason


def test_a_202_the_configuration_does_not_announce_is_a_deviation(serve):
    [result] = run(serve(RespondsAsync(make_app(), mode=None)).url, "async_requests")
    assert result.status is Status.DEVIATION
    assert result.reason.endswith(
        'answered 202 Accepted, though securityEvents.asyncRequest is "none", which says the server completes no request asynchronously (RFC 9967 §4).'
    )


def test_a_request_failing_for_its_preference_is_an_error(serve):
    class PreferRefused(Broken):
        def __call__(self, environ, start_response):
            if environ.get("HTTP_PREFER"):
                body = scim_error(400, "unknown header Prefer")
                start_response("400 Bad Request", [("Content-Type", "application/scim+json"), ("Content-Length", str(len(body)))])
                return [body]
            return super().__call__(environ, start_response)

    [result] = run(serve(PreferRefused(make_app())).url, "async_requests")
    assert result.status is Status.ERROR
    assert result.reason.endswith(
        "with Prefer: respond-async answered 400, and 200 without it: a server unable to comply with a preference MUST ignore it and continue processing "
        "instead of signaling an error (RFC 7240 §2)."
    )


def test_a_service_provider_config_with_security_events_is_valid_and_claims_its_features(serve):
    """RFC 9967 §4 adds securityEvents to the ServiceProviderConfig (and the interoperability profile
    interopProfileConformant): the document stays valid, and what it claims is read."""
    extended = Broken(make_app()).rewrite_json(
        "GET", SPC, lambda config: config | {"securityEvents": {"asyncRequest": "none"}, "interopProfileConformant": False}
    )
    server = serve(extended)
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(include_tags={"service-provider-config", "filter:invalid"})))
    endpoint = next(r for r in results if r.title == "service_provider_config_endpoint")
    assert endpoint.status is Status.SUCCESS and "announcing patch, bulk, filter" in endpoint.reason
    assert all(r.status is Status.SUCCESS for r in results if r.title == "filter_invalid")
