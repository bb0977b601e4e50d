"""Values for discovered schemas: every RFC 7643 §2.3 type, formats, canonical values, references."""

from __future__ import annotations

import base64
from datetime import datetime

import pytest
from scim2_models import Attribute
from scim2_models import ResourceType
from scim2_models import Schema

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckContext
from scim_tui.checker import iter_checks
from scim_tui.checker.filling import LONGEST
from scim_tui.checker.filling import build_resource
from scim_tui.checker.filling import unique_address
from scim_tui.checker.filling import unique_for
from scim_tui.checker.filling import unique_string
from scim_tui.checker.results import PrerequisiteFailed
from scim_tui.demo import make_app
from tests.support.servers import http_client
from tests.support.servers import make_client

ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"


def payload(context: CheckContext, name: str, fill_all: bool = True) -> dict:
    return build_resource(context, context.client.get_resource_model(name), fill_all).model_dump()


def test_every_writable_user_attribute_is_filled_with_a_fitting_value(described):
    context, _ = described
    user = payload(context, "User")
    writable = {
        "externalId",
        "userName",
        "name",
        "displayName",
        "nickName",
        "profileUrl",
        "title",
        "userType",
        "preferredLanguage",
        "locale",
        "timezone",
        "active",
        "password",
        "emails",
        "phoneNumbers",
        "ims",
        "photos",
        "addresses",
        "entitlements",
        "roles",
        "x509Certificates",
        ENTERPRISE,
    }
    assert writable <= set(user)
    assert "groups" not in user and "id" not in user  # read-only
    assert user["userName"].startswith("scim-tui-userName-")
    assert user["emails"][0]["value"].startswith("scim-tui-") and user["emails"][0]["value"].endswith("@example.com")
    assert user["phoneNumbers"][0]["value"].startswith("tel:+1-201-555-")
    assert user["emails"][0]["type"] in ("work", "home", "other")
    assert user["profileUrl"].startswith("https://")
    base64.b64decode(user["x509Certificates"][0]["value"], validate=True)
    for name in ("emails", "phoneNumbers", "ims", "photos", "addresses", "entitlements", "roles", "x509Certificates"):
        assert [value["primary"] for value in user[name]].count(True) == 1


def test_required_only_fills_the_required_and_identifying_attributes(described):
    """Required ones, and those that tell a resource apart (a server may need a Group's
    displayName; the run finds its resources by them), each with a fresh value of its own."""
    context, _ = described
    user = payload(context, "User", fill_all=False)
    assert set(user) == {"schemas", "userName", "displayName", "externalId"}
    assert set(payload(context, "Pet", fill_all=False)) == {"schemas", "name", "externalId", "chipId"}  # chipId: uniqueness server
    values = [user[name] for name in ("userName", "displayName", "externalId")]
    assert all(value.startswith("scim-tui-") for value in values) and len(set(values)) == 3


def test_unique_values_differ_from_one_resource_to_the_next(described):
    context, _ = described
    names = {payload(context, "Pet", fill_all=False)["name"] for _ in range(20)}
    assert len(names) == 20


def strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for key, item in value.items() if key not in ("schemas", "$ref") for text in strings(item)]  # the protocol's, not made up
    return [text for item in value for text in strings(item)] if isinstance(value, list) else []


@pytest.mark.parametrize("name", ["User", "Group", "Pet"])
def test_every_string_made_up_fits_in_forty_characters(described, name):
    """A store's VARCHAR(40) column takes each (the whole run on one: tests/checker/test_unlike_servers.py)."""
    context, url = described
    made = [text for _ in range(5) for text in strings(payload(context, name)) if not text.startswith(url)]  # a reference: the server's location
    kinds = ["", "case", "userName", "displayName", "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber"]
    made += [made_up for kind in kinds for made_up in (unique_string(kind), unique_address(kind), unique_for("userName", kind), unique_for("nickName", kind))]
    assert made and max(map(len, made)) <= LONGEST, [text for text in made if len(text) > LONGEST]
    assert unique_for("userName", "case").startswith("scim-tui-case-"), "a kind that fits is kept"


def test_a_custom_schema_gets_every_type(described):
    context, url = described
    pet = payload(context, "Pet")
    assert pet["species"] in ("cat", "dog", "fish")
    assert isinstance(pet["vaccinated"], bool)
    assert isinstance(pet["weight"], float) and isinstance(pet["age"], int)
    datetime.fromisoformat(pet["birthDate"])
    base64.b64decode(pet["photo"], validate=True)
    assert pet["website"].startswith("https://")
    assert isinstance(pet["nicknames"], list) and pet["nicknames"][0].startswith("scim-tui-")
    assert pet["toys"][0]["primary"] is True and pet["toys"][0]["type"] in ("ball", "rope")
    assert pet["vet"]["phone"].startswith("tel:")


def test_references_point_to_resources_created_and_registered_first(described):
    context, url = described
    pet = payload(context, "Pet")
    users = {item.id: item for item in context.resource_manager.owned}
    assert len(users) == 2 and {item.kind for item in users.values()} == {"User"}
    owner_id = pet["owner"].rsplit("/", 1)[1]
    assert owner_id in users
    assert pet["vet"]["value"] in users and pet["vet"]["$ref"].endswith(f"/Users/{pet['vet']['value']}")
    with http_client(url) as http:
        assert http.get(f"/Users/{owner_id}").status_code == 200
    assert context.resource_manager.cleanup() == []
    with http_client(url) as http:
        assert http.get("/Users").json()["totalResults"] == 0


def test_a_group_member_is_a_user_created_for_it(described):
    context, _ = described
    member = payload(context, "Group")["members"][0]
    created = context.resource_manager.owned[-1]
    assert (member["value"], member["type"]) == (created.id, "User")
    context.resource_manager.cleanup()


def test_references_that_loop_are_refused_with_a_clear_message(serve):
    """A resource type whose required attribute references its own type can never be filled."""
    node = Schema(
        id="urn:scim-tui:params:scim:schemas:test:2.0:Node",
        name="Node",
        attributes=[Attribute(name="next", type=Attribute.Type.reference, reference_types=["Node"], required=True, multi_valued=False)],
    )
    resource_type = ResourceType(id="Node", name="Node", endpoint="/Nodes", schema_=node.id)
    server = serve(make_app(schemas=[node], resource_types=[resource_type]))
    with make_client(server.url) as scim:
        list(iter_checks(scim, CheckConfig(include_tags={"discovery"})))
        context = CheckContext(scim)
        with pytest.raises(PrerequisiteFailed, match="the Node it needs could not be created: References to Node lead more than 3 resources deep"):
            build_resource(context, scim.get_resource_model("Node"), fill_all=False)
