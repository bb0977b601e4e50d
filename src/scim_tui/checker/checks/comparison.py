"""Reading an attribute path in a resource, and telling whether the server kept a value sent."""

from __future__ import annotations

import re
from copy import deepcopy
from inspect import isclass
from typing import Any

from scim2_models import Extension
from scim2_models import Path
from scim2_models import Resource

from scim_tui.checker.answers import member
from scim_tui.checker.filling import Attribute
from scim_tui.checker.filling import attributes_of


def paths_of(model: type[Resource[Any]]) -> list[Path[Any]]:
    """Every attribute path of a model: base attributes, extensions and their attributes,
    and the sub-attributes of single-valued complex attributes.

    The sub-attributes of a multi-valued attribute are left out: a path such as
    ``emails.value`` designates the value of every email at once.
    """
    paths = []
    for path in Path[model].iter_paths():  # type: ignore[valid-type]  # the model is known at run time only
        binding = path.resolve()
        if binding is not None and binding.sub_field_name and binding.is_multivalued:
            continue
        paths.append(path)
    return paths


def attribute_at(model: type[Resource[Any]], path: Path[Any]) -> Attribute | None:
    """The attribute a path designates: an attribute, a sub-attribute, or a whole extension."""
    binding = path.resolve()
    if binding is not None and binding.target_model is not None:
        return Attribute(binding.target_model, binding.target_field_name)
    extension = path.model
    if isclass(extension) and issubclass(extension, Extension):
        return next((a for a in attributes_of(model) if a.root_type is extension), None)
    return None


def value_at(data: dict[str, Any] | None, path: Path[Any]) -> Any:
    """The JSON value at a path in a resource's JSON, attribute names compared without case."""
    node: Any = data or {}
    for key in keys_of(path):
        node = member(node, key)
    return node


def nested(path: Path[Any], value: Any) -> dict[str, Any]:
    """A resource's JSON holding only `value`, at `path`."""
    node = value
    for key in reversed(keys_of(path)):
        node = {key: node}
    return node


def set_value_at(data: dict[str, Any], path: Path[Any], value: Any) -> None:
    """Put a copy of `value` at a path in a resource's JSON (None takes the attribute out),
    attribute names compared without case; only the dicts along the path are touched."""
    *parents, last = keys_of(path)
    node = data
    for key in parents:
        child = member(node, key)
        if not isinstance(child, dict):
            if value is None:
                return
            child = {}
            node[_spelled(node, key)] = child
        node = child
    name = _spelled(node, last)
    if value is None:
        node.pop(name, None)
    else:
        node[name] = deepcopy(value)


def _spelled(node: dict[str, Any], key: str) -> str:
    """The key naming `key` in a JSON object, as the object spells it, or `key` when it has none."""
    if key in node:
        return key
    return next((name for name in node if name.lower() == key.lower()), key)


def keys_of(path: Path[Any]) -> list[str]:
    """The keys leading to a path's value in a resource's JSON."""
    extension = path.model
    if isclass(extension) and issubclass(extension, Extension):
        return [str(path)]
    if path.schema and path.schema.lower() != str(path.models[0].__schema__).lower():  # type: ignore[attr-defined]  # scim2-models sets __schema__ on each model class without declaring it
        return [path.schema, *path.parts]
    return list(path.parts)


def normalized(model: type[Resource[Any]], path: Path[Any], value: Any) -> Any:
    """`value` as the model serializes it at `path`, so that it compares with a serialized answer."""
    try:
        probe = model.model_validate(nested(path, value))
    except ValueError:
        return value
    return value_at(probe.model_dump(), path)


DESCRIBING = frozenset({"$ref", "type", "display"})
"""The sub-attributes of a value that references a resource (a Group member) which describe the
resource its "value" names: the server may keep the "value" alone (an identity provider sends a
member as {"value": id}), and answer a member without them."""


def matches(expected: Any, actual: Any) -> bool:
    """Whether `actual` holds `expected`: every sub-attribute sent, every value sent.

    The server may add to what was sent (a display name, a type), and string values
    are compared without case, which RFC 7643 §2.1 allows unless caseExact is set. A phone
    number sent as a tel URI may come back canonical (RFC 7643 §4.1.2: service providers SHOULD
    canonicalize it, RFC 3966): the same digits, without the visual separators or the scheme.
    A value referencing a resource (a Group member: "value" and "$ref") is held when its "value"
    is (see `_holds_reference`).
    """
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return False
        if "value" in expected and "$ref" in expected:
            return _holds_reference(expected, actual)
        return all(matches(value, member(actual, key)) for key, value in expected.items())
    if isinstance(expected, list):
        return isinstance(actual, list) and all(any(matches(item, other) for other in actual) for item in expected)
    if isinstance(expected, str) and isinstance(actual, str):
        return expected.casefold() == actual.casefold() or _same_number(expected, actual)
    return bool(expected == actual)


def _holds_reference(expected: dict[str, Any], actual: dict[str, Any]) -> bool:
    """Whether a value referencing a resource holds the one sent: the same "value" (the id of the
    resource, RFC 7643 §4.2: "The "value" sub-attribute contains the value of an "id" attribute of
    a SCIM resource"), and each sub-attribute describing that resource (DESCRIBING) the same, or
    left out: Group.members.$ref and type are "required": false (RFC 7643 §8.7.1), and "By
    convention, a reference is commonly represented as a "$ref" sub-attribute in complex or
    multi-valued attributes; however, this is OPTIONAL" (RFC 7643 §2.3.7). A "$ref" answered may
    be relative ("The value MUST be the absolute or relative URI of the target resource")."""
    for key, value in expected.items():
        answered = member(actual, key)
        if key in DESCRIBING and answered is None:
            continue
        if key == "$ref" and isinstance(value, str) and isinstance(answered, str) and _same_reference(value, answered):
            continue
        if not matches(value, answered):
            return False
    return True


def _same_reference(sent: str, answered: str) -> bool:
    """Whether a relative reference answered ("Users/2819c223", "/v2/Users/2819c223") names the
    resource of the absolute one sent: RFC 7643 §2.3.7 resolves it against the service provider's
    root, so it ends the URI sent."""
    relative = answered.strip().lstrip("/")
    return bool(relative) and "://" not in relative and sent.rstrip("/").endswith(f"/{relative}")


_PHONE_NUMBER = re.compile(r"(?:tel:)?(\+?[0-9][0-9().\- ]*)", re.IGNORECASE)


def _same_number(sent: str, answered: str) -> bool:
    """Whether a global phone number the run sent as a tel URI (tel:+1-201-555-0123) is the one
    answered, written another way (tel:+12015550123, +1 201 555 0123)."""
    if not sent.lower().startswith("tel:+"):
        return False
    numbers = [_PHONE_NUMBER.fullmatch(text.strip()) for text in (sent, answered)]
    digits = [re.sub(r"[^0-9+]", "", number[1]) if number else None for number in numbers]
    return digits[0] is not None and digits[0] == digits[1]


def unassigned(value: Any) -> bool:
    """Whether a value stands for an unassigned attribute (RFC 7643 §2.5: null, or an empty array)."""
    return value is None or value == [] or value == {}


def missing(resource: dict[str, Any], attribute: Attribute, values: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The values (complex, by their "value") of a multi-valued attribute a resource does not hold."""
    held = {str(member(item, "value")) for item in member(resource, attribute.name) or [] if isinstance(item, dict)}
    return [value for value in values if str(value.get("value")) not in held]
