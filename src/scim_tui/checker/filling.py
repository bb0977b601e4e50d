"""Values for any attribute of any schema, discovered or not (RFC 7643 §2.3).

Values are generated as JSON, the way they travel, from the fields of a pydantic
model and their SCIM annotations: the model validates them into a resource ready
to POST. Strings a client chooses start with ``scim-tui-`` so that test data is
easy to find on a server, and carry a random part, so that values declared unique
never collide.
"""

from __future__ import annotations

import base64
import random
import uuid
from collections.abc import Iterable
from collections.abc import Iterator
from contextlib import contextmanager
from contextlib import suppress
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC
from datetime import datetime
from datetime import timedelta
from enum import Enum
from functools import cached_property
from inspect import isclass
from typing import TYPE_CHECKING
from typing import Any

from pydantic import Base64Bytes
from scim2_models import BaseModel
from scim2_models import CaseExact
from scim2_models import ComplexAttribute
from scim2_models import Context
from scim2_models import Extension
from scim2_models import Mutability
from scim2_models import Reference
from scim2_models import Required
from scim2_models import Resource
from scim2_models import Returned
from scim2_models import Uniqueness

from scim_tui.checker.creations import PROVIDER_ATTRIBUTES
from scim_tui.checker.creations import Adaptation
from scim_tui.checker.guard import MARK
from scim_tui.checker.guard import MARKER_ATTRIBUTES
from scim_tui.checker.results import PrerequisiteFailed

if TYPE_CHECKING:
    from scim_tui.checker.context import CheckContext
    from scim_tui.checker.references import Referenced

PREFIX = MARK
WRITABLE = (Mutability.read_write, Mutability.write_only, Mutability.immutable)
NOT_ATTRIBUTES = ("id", "meta", "schemas")
URI_REFERENCE_TYPES = {"external", "uri"}
UNIQUE = (Uniqueness.server, Uniqueness.global_)
MAX_REFERENCE_DEPTH = 3
"""How many resources deep a reference may lead (a group referencing a user ...)."""

_reference_depth: ContextVar[int] = ContextVar("scim_tui_reference_depth", default=0)


@dataclass(frozen=True)
class Attribute:
    """One field of a model, seen as the SCIM attribute it stands for."""

    owner: type[BaseModel]
    field: str

    @property
    def name(self) -> str:
        return self.owner._scim_name(self.field)

    @cached_property
    def root_type(self) -> Any:
        return self.owner.get_field_root_type(self.field)

    @property
    def multi_valued(self) -> bool:
        return self.owner.get_field_multiplicity(self.field)

    @cached_property
    def mutability(self) -> Mutability:
        return self.owner.get_field_annotation(self.field, Mutability)

    @property
    def required(self) -> bool:
        return self.owner.get_field_annotation(self.field, Required) == Required.true

    @property
    def returned(self) -> Returned:
        return self.owner.get_field_annotation(self.field, Returned)

    @property
    def hidden(self) -> bool:
        """Not read back by default: write-only, never returned (a password), or returned only when
        a request names it (RFC 7643 §2.2 "request")."""
        return self.mutability == Mutability.write_only or self.returned in (Returned.never, Returned.request)

    @property
    def changeable(self) -> bool:
        """Whether a check may give it a new value and read the change back: the schema declares it
        readWrite (an immutable value "SHALL NOT be updated", a readOnly one is the server's: RFC 7643
        §2.2) and returns it by default."""
        return self.mutability == Mutability.read_write and not self.hidden

    @property
    def declaration(self) -> str:
        """What the schema declares that keeps a check from changing it or reading it back, as a
        reason quotes it: 'displayName is declared "mutability": "immutable"'."""
        declared = [f'"mutability": "{self.mutability.value}"'] if self.mutability != Mutability.read_write else []
        declared += [f'"returned": "{self.returned.value}"'] if self.returned in (Returned.never, Returned.request) else []
        return f"{self.name} is declared {' and '.join(declared) or 'readWrite, returned by default'}"

    @property
    def writable(self) -> bool:
        return self.mutability in WRITABLE

    @property
    def is_extension(self) -> bool:
        return isclass(self.root_type) and issubclass(self.root_type, Extension)

    @property
    def is_complex(self) -> bool:
        return isclass(self.root_type) and issubclass(self.root_type, ComplexAttribute)

    @property
    def reference_types(self) -> tuple[str, ...] | None:
        """The resource types a reference may point to; None when not a reference."""
        root = self.root_type
        if isclass(root) and issubclass(root, Reference):
            return tuple(root.__reference_types__)
        return None

    @property
    def canonical_values(self) -> list[str]:
        """The values the schema suggests (canonicalValues), or an enumeration's members."""
        root = self.root_type
        if isclass(root) and issubclass(root, Enum):
            return [str(member.value) for member in root]
        return [str(value) for value in self.owner.model_fields[self.field].examples or []]


def always_returned(model: type[BaseModel]) -> list[str]:
    """The top-level attributes a model's schema returns "always" (id, and any other), by SCIM
    name; an extension holding one counts as its URN."""
    names = []
    for field in model.model_fields:
        attribute = Attribute(model, field)
        if (
            attribute.returned == Returned.always
            or attribute.is_extension
            and any(sub.returned == Returned.always for sub in attributes_of(attribute.root_type))
        ):
            names.append(attribute.name)
    return names


def case_exact(attribute: Attribute) -> bool:
    """Whether values of the attribute are compared with case (RFC 7643 §2.2 caseExact)."""
    return attribute.owner.get_field_annotation(attribute.field, CaseExact) == CaseExact.true


def attributes_of(model: type[BaseModel]) -> list[Attribute]:
    """The attributes of a model, extensions included, without id, meta and schemas."""
    return [Attribute(model, name) for name in model.model_fields if name not in NOT_ATTRIBUTES]


def sub_attributes(attribute: Attribute) -> dict[str, Attribute]:
    """The sub-attributes of a complex attribute, by SCIM name."""
    return {sub.name: sub for sub in attributes_of(attribute.root_type)}


def complex_lists(model: type[Resource[Any]]) -> list[tuple[Attribute, dict[str, Attribute]]]:
    """The multi-valued complex attributes of a model (emails, members ...), each with its
    sub-attributes by name: where value filters (``emails[type eq "work"]``) apply."""
    return [(attribute, sub_attributes(attribute)) for attribute in attributes_of(model) if attribute.multi_valued and attribute.is_complex]


def linking_attribute(model: type[Resource[Any]]) -> Attribute | None:
    """A modifiable multi-valued attribute whose values reference other resources by id and `$ref` (members ...)."""
    return next(
        (
            attribute
            for attribute, subs in complex_lists(model)
            if attribute.mutability is Mutability.read_write
            and "value" in subs
            and subs["value"].writable
            and "$ref" in subs
            and set(subs["$ref"].reference_types or ()) - URI_REFERENCE_TYPES
        ),
        None,
    )


def name_attribute(model: type[Resource[Any]]) -> Attribute | None:
    """The attribute that names a resource: the first required, writable, single-valued string
    of its schema (userName for a User, displayName for a Group), or None when it has none."""
    return next(
        (
            attribute
            for attribute in attributes_of(model)
            if attribute.required and attribute.writable and not attribute.multi_valued and attribute.root_type is str
        ),
        None,
    )


def attribute_named(model: type[BaseModel], name: str) -> Attribute | None:
    """The attribute of a model with this SCIM name, compared without case (RFC 7643 §2.1)."""
    return next((attribute for attribute in attributes_of(model) if attribute.name.lower() == name.lower()), None)


def on_request(model: type[BaseModel], names: Iterable[str]) -> dict[str, str]:
    """The query making a GET answer those of `names` the schema returns only when asked
    (``returned: "request"``, RFC 7643 §7, as servers with big groups declare members):
    ``{"attributes": "members"}``; {} when each is returned by default."""
    asked = [attribute.name for name in dict.fromkeys(names) if (attribute := attribute_named(model, name)) and attribute.returned == Returned.request]
    return {"attributes": ",".join(asked)} if asked else {}


def changeable_string(model: type[Resource[Any]], *preferred: Attribute | None) -> Attribute | None:
    """A single-valued string a check may change and read back, to make a new version of a
    resource: the first of `preferred` the schema lets it change, else the first such attribute of
    the model; None when the schema declares none (each is immutable, readOnly, or not returned)."""
    strings = [attribute for attribute in attributes_of(model) if not attribute.multi_valued and attribute.root_type is str]
    return next((attribute for attribute in [*preferred, *strings] if attribute is not None and attribute.changeable), None)


def identifying(attribute: Attribute) -> bool:
    """Whether an attribute tells a resource apart, so that it is always filled with a fresh value:
    a value the run marks its resources with (userName, displayName, externalId), or one the
    schema declares unique. A server may need it though the schema makes it optional (a Group's
    displayName), and the run finds its resources by it (guard.py)."""
    if not attribute.writable or attribute.multi_valued or attribute.root_type is not str:
        return False
    return attribute.name in MARKER_ATTRIBUTES or attribute.owner.get_field_annotation(attribute.field, Uniqueness) in UNIQUE


def build_resource(context: CheckContext, model: type[Resource[Any]], fill_all: bool = True, values: dict[str, Any] | None = None) -> Resource[Any]:
    """A resource of `model`, ready to POST: every writable attribute filled, or the required and
    identifying ones only (each with a fresh value), with every extension its resource type
    requires (RFC 7643 §6, "required": true) and that extension's required attributes.

    `values` (JSON, by SCIM attribute name) replace the generated ones.
    """
    payload = object_value(context, model, fill_all)
    required = required_extensions(context, model)
    for attribute in attributes_of(model):
        if attribute.is_extension and attribute.name in required and not payload.get(attribute.name):
            # filled as a required attribute, it may hold nothing: an empty extension is no extension
            payload[attribute.name] = _least_extension(context, attribute.root_type)
        elif attribute.name not in payload and identifying(attribute):
            payload[attribute.name] = string_value(attribute)
    payload.update(values or {})
    return model.model_validate(payload, scim_ctx=Context.RESOURCE_CREATION_REQUEST)


def creation_json(context: CheckContext, model: type[Resource[Any]], values: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON of a least creation of `model` (required and identifying attributes, and `values`),
    as the run creates it: with what an identity provider sends once the server refused it
    without (creations.py). Made first, once in a run, to learn that (deleted when the check ends);
    when it cannot be made, the JSON is the least one, and the request the check sends tells."""
    if learnt_adaptation(context, model):
        values = {**provider_values(context, model), **(values or {})}
    return build_resource(context, model, fill_all=False, values=values).model_dump(scim_ctx=Context.RESOURCE_CREATION_REQUEST)


def learnt_adaptation(context: CheckContext, model: type[Resource[Any]]) -> Adaptation | None:
    """What the server asks for beside `model`'s required attributes in a creation (creations.py),
    learnt by a least creation first, once in a run (deleted when the check ends)."""
    if not context.creations.settled(model):
        with suppress(PrerequisiteFailed):
            context.resource_manager.create_and_register(model, fill_all=False)
    return context.creations.adaptation(model)


def creatable(context: CheckContext, model: type[Resource[Any]], status: int | None) -> None:
    """After a check's own creation of `model` was answered `status`: when it is a 4xx, raise
    PrerequisiteFailed if the run cannot make a least creation of `model` either (its required
    attributes, with what the server asked for beside them: creations.py). The check judges
    nothing of its own then: the refusal is what every creation meets (a length, an attribute the
    server requires), which object_creation reports."""
    if status is not None and 400 <= status < 500:
        context.resource_manager.create_and_register(model, fill_all=False)


def dropped_by(model: type[Resource[Any]], sent: Resource[Any], answered: Resource[Any]) -> frozenset[str]:
    """The single-valued attributes of a simple type, returned by default, that a creation sent
    with a value and whose answer holds none (the server keeps none of them: creations.py)."""
    return frozenset(
        attribute.name
        for attribute in attributes_of(model)
        if not (attribute.hidden or attribute.multi_valued or attribute.is_complex or attribute.is_extension)
        and getattr(sent, attribute.field, None) not in (None, "")
        and getattr(answered, attribute.field, None) is None
    )


def provider_values(context: CheckContext, model: type[Resource[Any]]) -> dict[str, Any]:
    """What an identity provider sends in a creation beside the required attributes, for those of
    its attributes the schema has and a client writes: a work email (primary), a name,
    displayName, active (true) and externalId."""
    values: dict[str, Any] = {}
    for attribute in attributes_of(model):
        if attribute.name in PROVIDER_ATTRIBUTES and attribute.writable:
            values[attribute.name] = True if attribute.root_type is bool else attribute_value(context, attribute)
    for value in values.get("emails", []):
        if "type" in value:
            value["type"] = "work"
    return values


def required_extensions(context: CheckContext, model: type[Resource[Any]]) -> set[str]:
    """The schema URNs of the extensions the resource type serving `model` requires."""
    provider = getattr(context.client, "provider", None)
    for resource_type in getattr(provider, "resource_types", None) or ():
        if context.model_for(resource_type) is model:
            return {str(extension.schema_) for extension in resource_type.schema_extensions or [] if extension.required}
    return set()


def _least_extension(context: CheckContext, extension: type[BaseModel]) -> dict[str, Any]:
    """A required extension with its required attributes; when it has none, with its first plain
    value (a string, a number, a boolean), so that it is not empty: every attribute would fill
    the enterprise manager, which references a User, which requires the extension again ...
    An extension with nothing a client may write stays empty (scim2-client then refuses to send)."""
    value = object_value(context, extension, fill_all=False)
    plain = next((a for a in attributes_of(extension) if a.writable and not a.multi_valued and a.root_type in (str, bool, int, float)), None)
    if not value and plain is not None:
        value[plain.name] = attribute_value(context, plain, fill_all=False)
    return value


def object_value(context: CheckContext, model: type[BaseModel], fill_all: bool = True) -> dict[str, Any]:
    """JSON for a resource, an extension or a complex attribute."""
    data: dict[str, Any] = {}
    reference = resource_reference(model)
    for attribute in attributes_of(model):
        if attribute.writable and (fill_all or attribute.required):
            data[attribute.name] = None if attribute == reference else attribute_value(context, attribute, fill_all)
    if reference is not None and (reference.name in data or "value" in data):
        point(context, reference, data)
    return data


def attribute_value(context: CheckContext, attribute: Attribute, fill_all: bool = True, avoid: Any = None) -> Any:
    """JSON for one attribute: a list for a multi-valued one, with at most one primary value.

    `avoid` is the current value, which a replacement value must differ from.
    """
    if attribute.is_extension:
        value = object_value(context, attribute.root_type, fill_all)
    elif attribute.is_complex:
        value = object_value(context, attribute.root_type)  # a complex value gets all its sub-attributes
    else:
        value = scalar_value(context, attribute, avoid)
    if not attribute.multi_valued:
        return value
    if isinstance(value, dict) and "primary" in value:
        value["primary"] = True
    return [value]


def scalar_value(context: CheckContext, attribute: Attribute, avoid: Any = None) -> Any:
    """JSON for a value of a simple type: string, boolean, decimal, integer, dateTime, binary, reference."""
    root = attribute.root_type
    canonical = [value for value in attribute.canonical_values if value != avoid]
    if canonical:
        return random.choice(canonical)
    if root is bool:
        return not avoid if isinstance(avoid, bool) else random.choice([True, False])
    if root is int:
        return random.randint(1, 2**31 - 1)
    if root is float:
        return round(random.uniform(1, 100_000), 2)
    if root is datetime:
        moment = datetime(2000, 1, 1, tzinfo=UTC) + timedelta(seconds=random.randint(0, 10**9))
        return moment.isoformat().replace("+00:00", "Z")
    if root == Base64Bytes or root is bytes:
        return base64.b64encode(uuid.uuid4().bytes).decode("ascii")
    if attribute.reference_types is not None:
        return reference_value(context, attribute)
    return string_value(attribute)


LONGEST = 40
"""The most characters of a string the run makes up. RFC 7643 sets no length, but stores do (a
VARCHAR(40) column, a form's limit): every value the run writes fits in 40, so a server's limit at
or above that refuses none of them."""
TOKEN = 10
"""The random hex characters that make a value the run's alone (40 bits), 8 at the fewest."""


def unique_string(kind: str = "", room: int = LONGEST) -> str:
    """A value no other check and no other run chooses: "scim-tui-<kind>-<random>", at most `room`
    characters: the kind is shortened, or left out, to fit."""
    token = uuid.uuid4().hex[: max(8, min(TOKEN, room - len(PREFIX)))]
    kind = kind[: max(0, room - len(PREFIX) - len(token) - 1)]
    return f"{PREFIX}{kind}-{token}" if kind else f"{PREFIX}{token}"


USER_NAME_DOMAIN = "@example.com"
"""What makes the run's userNames email addresses, as identity providers send them (Okta's
default, Entra ID's userPrincipalName): some servers refuse a userName that is not one."""


def unique_address(kind: str = "") -> str:
    """An e-mail address no other check and no other run chooses, at most LONGEST characters."""
    return f"{unique_string(kind, LONGEST - len(USER_NAME_DOMAIN))}{USER_NAME_DOMAIN}"


def named_value(attribute: Attribute | str, value: str) -> str:
    """A value the run chose for an attribute (or an attribute's name), as an email address where
    the attribute is userName."""
    name = attribute if isinstance(attribute, str) else attribute.name
    return f"{value}{USER_NAME_DOMAIN}" if name == "userName" else value


def unique_for(attribute: Attribute | str, kind: str = "") -> str:
    """A value no other check and no other run chooses, for this attribute (userName: an email address)."""
    name = attribute if isinstance(attribute, str) else attribute.name
    return unique_address(kind) if name == "userName" else unique_string(kind)


def string_value(attribute: Attribute) -> str:
    """A string, formatted as an e-mail address or a phone number where the attribute is one."""
    if attribute.name == "userName":
        return unique_address("userName")
    if _names(attribute, "email"):
        return unique_address()
    if _names(attribute, "phone"):
        return f"tel:+1-201-555-{random.randint(0, 9999):04d}"
    return unique_string(attribute.name)


def _names(attribute: Attribute, kind: str) -> bool:
    """Whether the attribute holds `kind` values: it is named so, or is the value of a complex attribute named so."""
    name = attribute.name.lower()
    return kind in name or (name == "value" and kind in attribute.owner.__name__.lower())


def reference_value(context: CheckContext, attribute: Attribute) -> str:
    """A URI, or the location of a resource made for references to point at (see References): its
    URL when the server gave it no meta.location."""
    types = attribute.reference_types or ()
    if not types or URI_REFERENCE_TYPES & set(types):
        return f"https://{unique_string(room=LONGEST - len('https://.example.com/'))}.example.com/"
    made = referenced_resource(context, types, attribute.owner)
    return made.location or made.url


def resource_reference(model: type[BaseModel]) -> Attribute | None:
    """The `$ref` of a complex attribute whose value references a resource (a member, a manager):
    None for any other model, or a `$ref` to an external URI."""
    if not (isclass(model) and issubclass(model, ComplexAttribute)):
        return None
    reference = next((attribute for attribute in attributes_of(model) if attribute.name == "$ref"), None)
    types = reference.reference_types if reference is not None else None
    return reference if types and not URI_REFERENCE_TYPES & set(types) else None


def referenced_resource(context: CheckContext, types: tuple[str, ...], referrer: type[BaseModel]) -> Referenced:
    """A resource of one of `types` (another type than the referrer's when possible) for a
    reference of this check to point at: shared with the other checks of the run."""
    models = [model for name in types if (model := context.client.get_resource_model(name)) is not None]
    if not models:
        raise ValueError(f"No resource type of the server matches the reference types {', '.join(types)}.")
    others = [model for model in models if model is not referrer]
    with _deeper(types):
        return context.references.point_at(context, (others or models)[0])


@contextmanager
def _deeper(types: tuple[str, ...]) -> Iterator[None]:
    depth = _reference_depth.get()
    if depth >= MAX_REFERENCE_DEPTH:
        raise ValueError(f"References to {', '.join(types)} lead more than {MAX_REFERENCE_DEPTH} resources deep.")
    token = _reference_depth.set(depth + 1)
    try:
        yield
    finally:
        _reference_depth.reset(token)


def point(context: CheckContext, reference: Attribute, data: dict[str, Any]) -> None:
    """Point a complex value at a resource made for references: its `value` is the id the server
    gave that resource, its `$ref` the resource's location (left out when the server gave none),
    its `type` the resource's type, where the schema allows it (each when `data` holds it)."""
    made = referenced_resource(context, reference.reference_types or (), reference.owner)
    fields = {attribute.name: attribute for attribute in attributes_of(reference.owner)}
    if "value" in data:
        data["value"] = made.id
    if reference.name in data and made.location is None:
        del data[reference.name]
    elif reference.name in data:
        data[reference.name] = made.location
    kind = fields.get("type")
    if "type" in data and kind and (not kind.canonical_values or made.kind in kind.canonical_values):
        data["type"] = made.kind
