"""Changes to the schemas scim2-server publishes, as other servers publish them."""

from __future__ import annotations


def declaring_external_id(schema: dict) -> dict:
    """A User schema that lists externalId among its attributes, as some servers publish it."""
    external_id = {
        "name": "externalId",
        "type": "string",
        "multiValued": False,
        "required": False,
        "caseExact": True,
        "mutability": "readWrite",
        "returned": "default",
        "uniqueness": "none",
    }
    return schema | {"attributes": [*schema["attributes"], external_id]}
