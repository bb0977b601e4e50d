"""The strict discovery document checkers (RFC 7643 §5, §6, §7) against scim2-server and servers that break one rule."""

from __future__ import annotations

import pytest
from scim2_client.engines.wsgi import WSGISCIMClient
from scim2_models import AuthenticationScheme
from scim2_server.utils import load_default_service_provider_config

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.demo import make_app
from tests.support.servers import Broken
from tests.support.servers import make_client
from tests.support.servers import scim_error

ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"
USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User"
BEARER = AuthenticationScheme(type="oauthbearertoken", name="OAuth Bearer Token", description="A bearer token in the Authorization header.")


def run(url: str, checker: str):
    with make_client(url) as scim:
        return list(iter_checks(scim, CheckConfig(), only={CheckId(checker, None)}))


def documented_app():
    """scim2-server with the authenticationSchemes its default configuration lacks."""
    config = load_default_service_provider_config()
    return make_app(config=config.model_copy(update={"authentication_schemes": [BEARER]}))


def edit_resources(name: str, change):
    """A rewrite of a discovery list that changes the resource named `name` (by id or name)."""

    def rewrite(body):
        for resource in body["Resources"]:
            if name in (resource.get("id"), resource.get("name")):
                change(resource)
        return body

    return rewrite


def test_scim2_servers_default_configuration_lacks_the_required_authentication_schemes(client):
    [result] = list(iter_checks(client, CheckConfig(), only={CheckId("service_provider_config_document", None)}))
    assert result.status is Status.ERROR
    assert result.reason == "The ServiceProviderConfig breaks RFC 7643 §5: authenticationSchemes is missing, though REQUIRED."
    assert result.rfc == 7643 and result.section == "5"
    assert [e.method for e in result.exchanges] == ["GET"]


def test_every_document_of_a_complete_server_succeeds(serve):
    server = serve(documented_app())
    [config] = run(server.url, "service_provider_config_document")
    assert config.status is Status.SUCCESS, config.reason
    assert "every attribute RFC 7643 §5 marks REQUIRED" in config.reason
    resource_types = run(server.url, "resource_type_documents")
    assert [(r.status, r.reason.split(" holds")[0]) for r in resource_types] == [(Status.SUCCESS, "ResourceType User"), (Status.SUCCESS, "ResourceType Group")]
    schemas = run(server.url, "schema_documents")
    assert {r.status for r in schemas} == {Status.SUCCESS}, [r.reason for r in schemas]
    assert [r.reason.split(" holds")[0] for r in schemas] == [
        f"Schema {USER_SCHEMA}",
        "Schema urn:ietf:params:scim:schemas:core:2.0:Group",
        f"Schema {ENTERPRISE}",
    ]
    assert all(len(r.exchanges) == 1 for r in [*resource_types, *schemas])


def _config_breaks(body):
    body["bulk"]["maxOperations"] = "1000"
    body["authenticationSchemes"][0].pop("description")
    del body["filter"]
    body["etag"]["supported"] = "true"
    return body


def test_a_configuration_with_wrong_types_and_missing_attributes_names_each(serve):
    server = serve(Broken(documented_app()).rewrite_json("GET", "/v2/ServiceProviderConfig", _config_breaks))
    [result] = run(server.url, "service_provider_config_document")
    assert result.status is Status.ERROR
    assert result.reason == (
        "The ServiceProviderConfig breaks RFC 7643 §5: bulk.maxOperations is a string, not an integer; "
        "filter is missing, though REQUIRED; etag.supported is a string, not a boolean; "
        "authenticationSchemes[0].description is missing, though REQUIRED."
    )


def test_attribute_names_are_compared_without_case(serve):
    def shout(body):
        body["PATCH"] = body.pop("patch")
        body["bulk"] = {key.upper(): value for key, value in body["bulk"].items()}
        return body

    server = serve(Broken(documented_app()).rewrite_json("GET", "/v2/ServiceProviderConfig", shout))
    [result] = run(server.url, "service_provider_config_document")
    assert result.status is Status.SUCCESS, result.reason


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda rt: rt.pop("endpoint"), "ResourceType User breaks RFC 7643 §6: endpoint is missing, though REQUIRED."),
        (
            lambda rt: rt["schemaExtensions"][0].pop("required"),
            "ResourceType User breaks RFC 7643 §6: schemaExtensions[0].required is missing, though REQUIRED.",
        ),
        (lambda rt: rt.update(schemaExtensions=ENTERPRISE), "ResourceType User breaks RFC 7643 §6: schemaExtensions is a string, not an array."),
        (
            lambda rt: rt["meta"].update(location="/v2/ResourceTypes/Group"),
            "ResourceType User breaks RFC 7643 §6: meta.location /v2/ResourceTypes/Group points to /v2/ResourceTypes/Group "
            "instead of /v2/ResourceTypes/User, which serves another resource (§3.1).",
        ),
    ],
    ids=["no endpoint", "extension without required", "extensions not a list", "location of another document"],
)
def test_a_broken_resource_type_is_an_error_and_the_others_succeed(serve, change, expected):
    server = serve(Broken(documented_app()).rewrite_json("GET", "/v2/ResourceTypes", edit_resources("User", change)))
    user, group = run(server.url, "resource_type_documents")
    assert user.status is Status.ERROR
    assert user.reason == expected
    assert group.status is Status.SUCCESS, group.reason


@pytest.mark.parametrize(
    "location",
    ["/v2/ResourceTypes/User", "https://proxy.example/v2/ResourceTypes/User/"],
    ids=["relative", "another host, trailing slash"],
)
def test_a_location_naming_the_same_path_is_accepted(serve, location):
    server = serve(Broken(documented_app()).rewrite_json("GET", "/v2/ResourceTypes", edit_resources("User", lambda rt: rt["meta"].update(location=location))))
    user, _group = run(server.url, "resource_type_documents")
    assert user.status is Status.SUCCESS, user.reason


def _schema_breaks(schema):
    schema["attributes"][0].pop("multiValued")
    name = next(attribute for attribute in schema["attributes"] if attribute["name"] == "name")
    name["subAttributes"][0]["type"] = "text"
    name["subAttributes"][1]["mutability"] = "readonly"
    base, _, schema_id = schema["meta"]["location"].rpartition("/")
    schema["meta"]["location"] = f"{base}/{schema_id.replace(':', '%3A')}"  # percent-encoded: the same path


def test_a_broken_schema_attribute_is_named_by_its_place(serve):
    server = serve(Broken(documented_app()).rewrite_json("GET", "/v2/Schemas", edit_resources(USER_SCHEMA, _schema_breaks)))
    user, group, enterprise = run(server.url, "schema_documents")
    assert user.status is Status.ERROR
    assert user.reason == (
        f"Schema {USER_SCHEMA} breaks RFC 7643 §7: attributes[0].multiValued is missing, though REQUIRED; "
        'attributes[1].subAttributes[0].type is "text", not one of string, boolean, decimal, integer, dateTime, reference, binary, complex; '
        'attributes[1].subAttributes[1].mutability is "readonly", not one of readOnly, readWrite, immutable, writeOnly.'
    )
    assert group.status is Status.SUCCESS and enterprise.status is Status.SUCCESS


@pytest.mark.parametrize(
    ("checker", "path"),
    [("service_provider_config_document", "/v2/ServiceProviderConfig"), ("resource_type_documents", "/v2/ResourceTypes"), ("schema_documents", "/v2/Schemas")],
)
def test_an_endpoint_that_fails_is_one_error(serve, checker, path):
    server = serve(Broken(documented_app()).answer("GET", path, 500, scim_error(500)))
    [result] = run(server.url, checker)
    assert result.status is Status.ERROR
    if checker == "service_provider_config_document":
        assert result.reason == f"GET {path} answered 500 with an object instead of 200 with a JSON object."
    else:
        assert result.reason == f'GET {path} answered 500: the answer is a SCIM Error ("broken on purpose") instead of 200 with a list.'


def test_an_empty_list_is_skipped(serve):
    server = serve(Broken(documented_app()).rewrite_json("GET", "/v2/Schemas", lambda body: body | {"totalResults": 0, "Resources": []}))
    [result] = run(server.url, "schema_documents")
    assert result.status is Status.SKIPPED
    assert result.reason == "GET /v2/Schemas listed no Schema to check."


def test_the_in_process_engine_gives_the_same_results():
    """Its responses do not tell their URL: meta.location is compared with the URL the exchange recorded."""
    scim = WSGISCIMClient(documented_app(), base_url="http://localhost/v2")
    results = list(iter_checks(scim, CheckConfig(include_tags={"discovery:strict"})))
    mine = [r for r in results if r.title in ("service_provider_config_document", "resource_type_documents", "schema_documents")]
    assert len(mine) == 6 and {r.status for r in mine} == {Status.SUCCESS}, [r.reason for r in mine]
