"""scim2-server with a custom Pet resource type, and what it holds."""

from __future__ import annotations

import json
from pathlib import Path

from scim2_models import ResourceType
from scim2_models import Schema
from scim2_server.utils import load_default_resource_types
from scim2_server.utils import load_default_schemas

from scim_tui.demo import make_app
from tests.support.servers import http_client

SCHEMAS = Path(__file__).parents[1] / "checker" / "schemas"


def pet_app():
    """scim2-server serving User (with the enterprise extension), Group and the custom Pet resource type."""
    schema = Schema.model_validate(json.loads((SCHEMAS / "pet.schema.json").read_text()))
    resource_type = ResourceType.model_validate(json.loads((SCHEMAS / "pet.resource_type.json").read_text()))
    return make_app(
        schemas=[*load_default_schemas().values(), schema],
        resource_types=[*load_default_resource_types().values(), resource_type],
    )


def holdings(url: str) -> dict[str, list[dict]]:
    """Every resource of every resource type the server serves, as it serves them."""
    with http_client(url) as http:
        resource_types = http.get("/ResourceTypes").json()["Resources"]
        return {
            rt["name"]: sorted(http.get(rt["endpoint"], params={"count": 1000}).json().get("Resources", []), key=lambda r: r["id"]) for rt in resource_types
        }


def seed(url: str) -> None:
    """Resources the engine did not create: it must leave them as they are."""
    with http_client(url) as http:
        user = http.post("/Users", json={"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "userName": "someone-else"}).json()
        http.post("/Groups", json={"schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"], "displayName": "theirs", "members": [{"value": user["id"]}]})
