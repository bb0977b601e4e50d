"""A big server for the scale scenario: many resource types, each with a wide schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TYPES = ["string", "boolean", "decimal", "integer", "dateTime", "binary", "reference", "complex"]


def attribute(index: int) -> dict[str, Any]:
    kind = TYPES[index % len(TYPES)]
    definition: dict[str, Any] = {
        "name": f"attr{index}{kind.capitalize()}",
        "type": kind,
        "multiValued": index % 5 == 0,
        "description": f"Generated attribute {index}",
        "required": False,
        "caseExact": False,
        "mutability": "readWrite",
        "returned": "default",
        "uniqueness": "none",
    }
    if kind == "reference":
        definition["referenceTypes"] = ["external"]
    if kind == "complex":
        definition["subAttributes"] = [
            {
                "name": "value",
                "type": "string",
                "multiValued": False,
                "description": "value",
                "required": False,
                "caseExact": False,
                "mutability": "readWrite",
                "returned": "default",
                "uniqueness": "none",
            },
            {
                "name": "count",
                "type": "integer",
                "multiValued": False,
                "description": "count",
                "required": False,
                "caseExact": False,
                "mutability": "readWrite",
                "returned": "default",
                "uniqueness": "none",
            },
        ]
    return definition


def schema(type_index: int, attributes: int) -> dict[str, Any]:
    name = f"Thing{type_index}"
    required_name = {
        "name": "displayName",
        "type": "string",
        "multiValued": False,
        "description": "name",
        "required": True,
        "caseExact": False,
        "mutability": "readWrite",
        "returned": "default",
        "uniqueness": "none",
    }
    return {
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:Schema"],
        "id": f"urn:example:params:scim:schemas:bench:2.0:{name}",
        "name": name,
        "description": f"Generated resource {name}",
        "attributes": [required_name, *(attribute(i) for i in range(attributes - 1))],
    }


def resource_type(type_index: int) -> dict[str, Any]:
    name = f"Thing{type_index}"
    return {
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:ResourceType"],
        "id": name,
        "name": name,
        "endpoint": f"/{name}s",
        "description": f"Generated resource type {name}",
        "schema": f"urn:example:params:scim:schemas:bench:2.0:{name}",
    }


def write(directory: Path, types: int = 20, attributes: int = 100) -> tuple[Path, Path]:
    """Write the schemas and resource types files; return their paths."""
    directory.mkdir(parents=True, exist_ok=True)
    schemas_path = directory / f"schemas-{types}x{attributes}.json"
    types_path = directory / f"resource-types-{types}.json"
    schemas_path.write_text(json.dumps([schema(i, attributes) for i in range(types)], indent=1))
    types_path.write_text(json.dumps([resource_type(i) for i in range(types)], indent=1))
    return schemas_path, types_path
