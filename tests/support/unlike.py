"""Servers unlike scim2-server, in ways real SCIM servers are: each a WSGI middleware around
scim2-server that behaves as one real server does (a filter operator it does not support, a
policy stricter than its schema, locations by userName, a soft delete ...).

Some of them are within the RFCs (a run must give them no ERROR of its own making); others
break one rule (the run must name exactly that). `PERSONALITIES` maps each name to a factory
of a fresh application.
"""

from __future__ import annotations

import io
import json
import re
import threading
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl
from urllib.parse import unquote
from urllib.parse import urlencode
from urllib.parse import urlsplit

from scim_tui.checker.answers import member
from scim_tui.demo import DemoServer
from scim_tui.demo import _KeepAliveHandler
from scim_tui.demo import make_app
from tests.support.servers import SCIM_JSON
from tests.support.servers import Broken
from tests.support.servers import Response
from tests.support.servers import scim_error

USER = "urn:ietf:params:scim:schemas:core:2.0:User"
GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group"
SPC_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"
ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"
WSGI = Callable[[dict[str, Any], Callable[..., Any]], Any]


def _query(environ: dict[str, Any]) -> dict[str, str]:
    return dict(parse_qsl(environ.get("QUERY_STRING", ""), keep_blank_values=True))


def _body(environ: dict[str, Any]) -> bytes:
    body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
    environ["wsgi.input"] = io.BytesIO(body)
    return body


def _json_body(environ: dict[str, Any]) -> Any:
    try:
        return json.loads(_body(environ) or b"null")
    except ValueError:
        return None


def _respond(start_response: Callable[..., Any], status: int, body: bytes, headers: list[tuple[str, str]] = SCIM_JSON) -> list[bytes]:
    from tests.support.servers import _reason

    start_response(_reason(status), [*headers, ("Content-Length", str(len(body)))])
    return [body]


class Middleware:
    """A WSGI middleware that may answer a request itself (`intercept` returns a Response)."""

    def __init__(self, app: WSGI):
        self.app = app

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        return None

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        answer = self.intercept(environ)
        if answer is None:
            return self.app(environ, start_response)
        status, headers, body = answer
        return _respond(start_response, status, body, headers)

    def call(self, environ: dict[str, Any], **changes: Any) -> Response:
        """The application's answer to a request (changed as told), captured."""
        return Broken(self.app)._call_app({**environ, **changes})


class SwUnsupported(Middleware):
    """Answers 400 invalidFilter to a filter with `sw` (RFC 7644 §3.4.2.2 lets a server support
    only some operators), as servers on a store without prefix search do."""

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        text = _query(environ).get("filter", "")
        if environ["REQUEST_METHOD"] == "POST" and environ.get("PATH_INFO", "").endswith(".search"):
            text = str((_json_body(environ) or {}).get("filter", ""))
        if re.search(r"\bsw\b", text, re.IGNORECASE):
            return 400, SCIM_JSON, _error(400, "the operator sw is not supported", "invalidFilter")
        return None


def _error(status: int, detail: str, scim_type: str | None = None) -> bytes:
    error: dict[str, Any] = {"schemas": ["urn:ietf:params:scim:api:messages:2.0:Error"], "status": str(status), "detail": detail}
    if scim_type:
        error["scimType"] = scim_type
    return json.dumps(error).encode()


class EmailsRequired(Middleware):
    """Refuses a User without a work email (400), though its /Schemas says emails is optional:
    a policy of the application, as many servers have."""

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        if environ["REQUEST_METHOD"] not in ("POST", "PUT") or not re.fullmatch(r"/v2/Users(/(?!\.search$)[^/]+)?", environ.get("PATH_INFO", "")):
            return None
        body = _json_body(environ)
        if isinstance(body, dict) and not body.get("emails"):
            return 400, SCIM_JSON, _error(400, "emails: a User needs an email address", "invalidValue")
        return None


class LocationsByUserName(Middleware):
    """Serves users at /Users/{userName}: meta.location and member $refs name the userName, and
    the server answers there as at /Users/{id}."""

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        path = environ.get("PATH_INFO", "")
        found = re.fullmatch(r"/v2/Users/([^/]+)", path)
        if found:
            resource_id = self._id_of(environ, unquote(found[1]))
            if resource_id is not None:
                environ = {**environ, "PATH_INFO": f"/v2/Users/{resource_id}"}
        status, headers, body = self.call(environ)
        if body and "json" in dict((k.lower(), v) for k, v in headers).get("content-type", ""):
            document = self._relocated(environ, json.loads(body))
            body = json.dumps(document).encode()
            location = document.get("meta", {}).get("location") if isinstance(document, dict) else None
            headers = [(k, location if k.lower() == "location" and location else v) for k, v in headers]
        headers = [(k, v) for k, v in headers if k.lower() != "content-length"]
        return _respond(start_response, status, body, headers)

    def _id_of(self, environ: dict[str, Any], user_name: str) -> str | None:
        answer = self._get(environ, "/v2/Users", f'userName eq "{user_name}"')
        resources = answer.get("Resources", []) if isinstance(answer, dict) else []
        return resources[0]["id"] if len(resources) == 1 else None

    def _get(self, environ: dict[str, Any], path: str, filter_: str | None = None) -> Any:
        query = urlencode({"filter": filter_}) if filter_ else ""
        status, _headers, body = self.call(
            environ, REQUEST_METHOD="GET", PATH_INFO=path, QUERY_STRING=query, CONTENT_LENGTH="0", **{"wsgi.input": io.BytesIO(b"")}
        )
        return json.loads(body) if status == 200 and body else None

    def _relocated(self, environ: dict[str, Any], document: Any) -> Any:
        names: dict[str, str] = {}

        def user_name(resource_id: str) -> str | None:
            if resource_id not in names:
                user = self._get(environ, f"/v2/Users/{resource_id}")
                names[resource_id] = user.get("userName") if isinstance(user, dict) else None
            return names[resource_id]

        def walk(value: Any) -> Any:
            if isinstance(value, list):
                return [walk(item) for item in value]
            if not isinstance(value, dict):
                return value
            value = {key: walk(item) for key, item in value.items()}
            for key in ("location", "$ref"):
                ref = value.get(key)
                found = re.search(r"/Users/([^/]+)$", ref) if isinstance(ref, str) else None
                if found and (name := user_name(found[1])):
                    value[key] = ref[: found.start(1)] + name
            return value

        return walk(document)


def _schema_change(app: WSGI, schema_id: str, change: Callable[[dict[str, Any]], dict[str, Any]]) -> Broken:
    """/Schemas and /Schemas/{id} serving `schema_id` changed."""

    def in_list(body: dict[str, Any]) -> dict[str, Any]:
        return body | {"Resources": [change(item) if item.get("id") == schema_id else item for item in body.get("Resources", [])]}

    return Broken(app).rewrite_json("GET", "/v2/Schemas", in_list).rewrite_json("GET", f"/v2/Schemas/{re.escape(schema_id)}", change)


def _attribute_change(name: str, **changes: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def change(schema: dict[str, Any]) -> dict[str, Any]:
        return schema | {"attributes": [a | changes if a.get("name") == name else a for a in schema.get("attributes", [])]}

    return change


def _sub_attribute_dropped(name: str, sub: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def change(schema: dict[str, Any]) -> dict[str, Any]:
        def dropped(attribute: dict[str, Any]) -> dict[str, Any]:
            return attribute | {"subAttributes": [s for s in attribute.get("subAttributes", []) if s.get("name") != sub]}

        return schema | {"attributes": [dropped(a) if a.get("name") == name else a for a in schema.get("attributes", [])]}

    return change


def _without_formatted_name(body: Any) -> Any:
    if isinstance(body, dict) and isinstance(body.get("name"), dict):
        return {**body, "name": {k: v for k, v in body["name"].items() if k != "formatted"}}
    return body


def replay_beyond_the_schema(app: WSGI) -> Broken:
    """/Schemas describes a User's name without `formatted`, which Entra sends: the server takes
    the body and ignores what its schema does not describe. A provider's body is the server's to
    judge, not the client's."""
    return _schema_change(app, USER, _sub_attribute_dropped("name", "formatted")).rewrite_request_json("POST", "/v2/Users", _without_formatted_name)


def _as_the_rfc_spells_it(operation: dict[str, Any]) -> list[dict[str, Any]]:
    """Entra's PATCH shapes scim2-server refuses, turned into the RFC's."""
    if operation.get("path") == "manager" and "value" in operation:
        return [{"op": "add", "path": f"{ENTERPRISE}:manager", "value": {"value": operation["value"][0]["value"]}}]
    if operation.get("path") == "manager":
        return [{"op": "remove", "path": f"{ENTERPRISE}:manager"}]
    if operation["op"] == "Remove" and operation.get("path") == "members" and "value" in operation:
        return [{"op": "remove", "path": f'members[value eq "{member["value"]}"]'} for member in operation["value"]]
    return [operation]


def _core_schemas_only(body: dict[str, Any]) -> dict[str, Any]:
    return {**body, "schemas": [urn for urn in body.get("schemas", []) if urn.startswith("urn:ietf:params:scim:schemas:")]}


def entra_speaking(app: WSGI) -> Broken:
    """scim2-server taught the Entra ID shapes it refuses (its manager, its member removal, its
    group's second schema URN): Entra is READY on it."""
    rewrite = lambda body: {**body, "Operations": [new for op in body["Operations"] for new in _as_the_rfc_spells_it(op)]}  # noqa: E731
    return Broken(app).rewrite_request_json("PATCH", r"/v2/(Users|Groups)/[^/]+", rewrite).rewrite_request_json("POST", "/v2/Groups", _core_schemas_only)


def _manager_as_the_rfc_spells_it(operation: dict[str, Any]) -> dict[str, Any]:
    """The Logic App's manager, a bare id (or "" to remove it), turned into the RFC's complex value."""
    if not str(operation.get("path", "")).endswith(":manager") or isinstance(operation.get("value"), dict) or "value" not in operation:
        return operation
    if operation["value"] in ("", None):
        return {"op": "remove", "path": operation["path"]}
    return {**operation, "value": {"value": operation["value"]}}


def entra_gallery_speaking(app: WSGI) -> Broken:
    """entra_speaking, also taught the manager as Microsoft's gallery validation sends it: the
    gallery's tests all pass on it (but those that need a tenant, or OAuth)."""
    rewrite = lambda body: {**body, "Operations": [_manager_as_the_rfc_spells_it(op) for op in body["Operations"]]}  # noqa: E731
    return Broken(entra_speaking(app)).rewrite_request_json("PATCH", r"/v2/Users/[^/]+", rewrite)


class MembersOnRequest(Middleware):
    """Declares Group.members returned "request" (RFC 7643 §7), as servers with big groups do, and
    answers a group's members only when the query's attributes names them."""

    def __init__(self, app: WSGI):
        super().__init__(_schema_change(app, GROUP, _attribute_change("members", returned="request")))

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        status, headers, body = self.call(environ)
        if body and "members" not in _query(environ).get("attributes", "").lower():
            with suppress(ValueError):
                body = json.dumps(_without_members(json.loads(body))).encode()
        return _respond(start_response, status, body, [(name, value) for name, value in headers if name.lower() != "content-length"])


def _without_members(node: Any) -> Any:
    """Each group of an answer (a list's too) without its members."""
    if isinstance(node, dict):
        kept = {name: value for name, value in node.items() if not (name == "members" and GROUP in (node.get("schemas") or []))}
        return {name: _without_members(value) for name, value in kept.items()}
    if isinstance(node, list):
        return [_without_members(item) for item in node]
    return node


class Immutable(Middleware):
    """Declares an attribute of the resources at `path` (displayName of a User by default)
    immutable in /Schemas, and refuses (400 mutability) a PUT or PATCH that changes it, as RFC 7643
    §2.2 lets it ("SHALL NOT be updated"; RFC 7644 §3.5.1: the input value MUST match)."""

    def __init__(self, app: WSGI, schema: str = USER, path: str = "/v2/Users", name: str = "displayName"):
        super().__init__(_schema_change(app, schema, _attribute_change(name, mutability="immutable")))
        self.path, self.name = path, name

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        found = re.fullmatch(rf"{self.path}/([^/]+)", environ.get("PATH_INFO", ""))
        if not found or environ["REQUEST_METHOD"] not in ("PUT", "PATCH"):
            return None
        # The value stored, read without the request's conditions (an If-Match is the write's own).
        unconditional = {key: value for key, value in environ.items() if key not in ("HTTP_IF_MATCH", "HTTP_IF_NONE_MATCH")}
        stored = self.call(unconditional, REQUEST_METHOD="GET", QUERY_STRING="", CONTENT_LENGTH="0", **{"wsgi.input": io.BytesIO(b"")})
        current = json.loads(stored[2]).get(self.name) if stored[0] == 200 else None
        body = _json_body(environ)
        if isinstance(body, dict) and _changes(self.name, environ["REQUEST_METHOD"], body, current):
            return 400, SCIM_JSON, _error(400, f"{self.name} is immutable", "mutability")
        return None


class ExternalIdIgnored(Middleware):
    """Keeps no externalId: a creation or PUT is stored without it, a PATCH operation on it is
    dropped (a PATCH left with none answers the resource as it is), as servers whose store has no
    column for it do (RFC 7643 §3.1 makes it "OPTIONAL"; an identity provider sends it all the same)."""

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        method, body = environ["REQUEST_METHOD"], _json_body(environ)
        resource = re.fullmatch(r"/v2/(Users|Groups)(/[^/.]+)?", environ.get("PATH_INFO", ""))
        if not resource or method not in ("POST", "PUT", "PATCH") or not isinstance(body, dict):
            return None
        if method != "PATCH":
            return self._sent(environ, {key: value for key, value in body.items() if key != "externalId"})
        operations = [op for op in body.get("Operations") or [] if str(op.get("path") or "").lower() != "externalid"]
        operations = [_without_external_id(op) for op in operations]
        if not operations:
            return self.call(environ, REQUEST_METHOD="GET", QUERY_STRING="", CONTENT_LENGTH="0", **{"wsgi.input": io.BytesIO(b"")})
        return self._sent(environ, body | {"Operations": operations})

    def _sent(self, environ: dict[str, Any], body: dict[str, Any]) -> Response:
        sent = json.dumps(body).encode()
        return self.call(environ, CONTENT_LENGTH=str(len(sent)), **{"wsgi.input": io.BytesIO(sent)})


class ShortColumns(Middleware):
    """Refuses (400 invalidValue) a write holding a string longer than `longest` characters, as a
    store of VARCHAR(40) columns does (RFC 7643 sets no length): in a resource, a PATCH operation's
    value, a bulk operation's data (the whole bulk request then). The protocol's own strings (schemas,
    $ref, id, meta, a PATCH path) are not stored as values."""

    NOT_VALUES = frozenset({"schemas", "$ref", "id", "meta"})

    def __init__(self, app: WSGI, longest: int = 40):
        super().__init__(app)
        self.longest = longest

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        method, path, body = environ["REQUEST_METHOD"], environ.get("PATH_INFO", ""), _json_body(environ)
        if method not in ("POST", "PUT", "PATCH") or not isinstance(body, dict):
            return None
        if path == "/v2/Bulk":
            values = [op.get("data") for op in body.get("Operations") or [] if isinstance(op, dict)]
        elif re.fullmatch(r"/v2/(Users|Groups)(/[^/.]+)?", path):
            operations = [op for op in body.get("Operations") or [] if isinstance(op, dict) and not str(op.get("path") or "").endswith("$ref")]
            values = [op.get("value") for op in operations] if method == "PATCH" else [body]
        else:
            return None
        long = next((text for value in values for text in self._strings(value) if len(text) > self.longest), None)
        if long is None:
            return None
        return 400, SCIM_JSON, _error(400, f"{json.dumps(long)} is longer than {self.longest} characters", "invalidValue")

    def _strings(self, value: Any) -> list[str]:
        if isinstance(value, str):
            return [value]
        if isinstance(value, list):
            return [text for item in value for text in self._strings(item)]
        if isinstance(value, dict):
            return [text for key, item in value.items() if key not in self.NOT_VALUES for text in self._strings(item)]
        return []


def _without_external_id(operation: dict[str, Any]) -> dict[str, Any]:
    value = operation.get("value")
    return operation | {"value": {k: v for k, v in value.items() if k != "externalId"}} if isinstance(value, dict) else operation


def _changes(name: str, method: str, body: dict[str, Any], current: Any) -> bool:
    """Whether a PUT or PATCH body gives the attribute `name` another value than `current`."""
    if method == "PUT":
        return body.get(name) != current and (current is not None or name in body)
    for operation in body.get("Operations", []) or []:
        path = str(operation.get("path") or "")
        value = operation.get("value")
        if path.split(":")[-1].lower() == name.lower():
            return value != current
        if not path and isinstance(value, dict) and any(k.split(":")[-1].lower() == name.lower() and v != current for k, v in value.items()):
            return True
    return False


def full_path_endpoints(app: WSGI) -> Broken:
    """ResourceTypes whose endpoint is the whole path (/v2/Users), alike in the list and by id."""

    def full(document: dict[str, Any]) -> dict[str, Any]:
        return document | {"endpoint": "/v2" + document["endpoint"]} if "endpoint" in document else document

    return (
        Broken(app)
        .rewrite_json("GET", "/v2/ResourceTypes", lambda body: body | {"Resources": [full(item) for item in body.get("Resources", [])]})
        .rewrite_json("GET", "/v2/ResourceTypes/[^/]+", full)
    )


def rfc_schema_name(app: WSGI) -> Broken:
    """/Schemas also lists the ServiceProviderConfig schema, named as RFC 7643 §8.7.2 names it."""
    from scim2_models import ServiceProviderConfig

    schema = ServiceProviderConfig.to_schema().model_dump(mode="json", exclude_none=True) | {"name": "Service Provider Configuration"}
    listed = lambda body: body | {"Resources": [*body.get("Resources", []), schema], "totalResults": body.get("totalResults", 0) + 1}  # noqa: E731
    return Broken(app).rewrite_json("GET", "/v2/Schemas", listed).answer("GET", f"/v2/Schemas/{re.escape(SPC_SCHEMA)}", 200, schema)


def members_ignored_on_create(app: WSGI) -> Broken:
    """A Group is created without the members its POST carries (they are added by PATCH only)."""
    return Broken(app).rewrite_request_json("POST", "/v2/Groups", lambda body: {k: v for k, v in body.items() if k != "members"})


def filter_ignored(app: WSGI) -> Broken:
    """Lists every resource whatever the filter (it claims filter all the same)."""
    return Broken(app).rewrite_query("GET", "/v2/(Users|Groups)", lambda query: {k: v for k, v in query.items() if k != "filter"})


class SoftDelete(Middleware):
    """DELETE answers 204 but keeps the resource, deactivated, still served by GET and in lists
    (RFC 7644 §3.6 lets a server keep the record, but it MUST then answer 404 for it and omit it
    from queries)."""

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        if environ["REQUEST_METHOD"] != "DELETE" or not re.fullmatch(r"/v2/(Users|Groups)/[^/]+", environ.get("PATH_INFO", "")):
            return None
        if environ["PATH_INFO"].startswith("/v2/Users/"):
            patch = json.dumps(
                {"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations": [{"op": "replace", "path": "active", "value": False}]}
            ).encode()
            changes = {"REQUEST_METHOD": "PATCH", "CONTENT_TYPE": "application/scim+json", "CONTENT_LENGTH": str(len(patch)), "wsgi.input": io.BytesIO(patch)}
            status, headers, body = self.call(environ, **changes)
        else:
            status, headers, body = self.call(environ, REQUEST_METHOD="GET", CONTENT_LENGTH="0", **{"wsgi.input": io.BytesIO(b"")})
        return (204, [], b"") if status < 300 else (status, headers, body)


class ReferencedKept(Middleware):
    """Refuses (409) to delete a User or a Group that another resource still references (a User
    naming it its manager, a Group listing it as a member), as a store with foreign keys does:
    what references it must be deleted first."""

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        found = re.fullmatch(r"/v2/(Users|Groups)/([^/]+)", environ.get("PATH_INFO", ""))
        if environ["REQUEST_METHOD"] != "DELETE" or found is None or not self.referenced(environ, unquote(found[2])):
            return None
        return 409, SCIM_JSON, _error(409, "another resource still references it: delete that one first")

    def referenced(self, environ: dict[str, Any], resource_id: str) -> bool:
        """Whether a User or Group other than `resource_id` references it."""
        for path in ("/v2/Users", "/v2/Groups"):
            _status, _headers, body = self.call(
                environ, REQUEST_METHOD="GET", PATH_INFO=path, QUERY_STRING="count=1000", CONTENT_LENGTH="0", **{"wsgi.input": io.BytesIO(b"")}
            )
            for resource in json.loads(body or b"{}").get("Resources", []):
                manager = (resource.get(ENTERPRISE) or {}).get("manager") or {}
                values = [manager.get("value"), *(member.get("value") for member in resource.get("members") or [])]
                if resource.get("id") != resource_id and resource_id in values:
                    return True
        return False


class DuplicatesAccepted(Middleware):
    """Creates a User whose userName is taken (201), where RFC 7643 §4.1.1 says it MUST be unique."""

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        if environ["REQUEST_METHOD"] != "POST" or environ.get("PATH_INFO") != "/v2/Users":
            return None
        body = _json_body(environ)
        status, headers, answer = self.call(environ)
        if status != 409 or not isinstance(body, dict) or not isinstance(body.get("userName"), str):
            return status, headers, answer
        taken = body["userName"]
        again = json.dumps(body | {"userName": f"{taken}-{len(taken)}x"}).encode()
        status, headers, answer = self.call(environ, CONTENT_LENGTH=str(len(again)), **{"wsgi.input": io.BytesIO(again)})
        if status == 201:
            answer = json.dumps(json.loads(answer) | {"userName": taken}).encode()
        return status, headers, answer


def patch_not_implemented(app: WSGI) -> Broken:
    """Answers every PATCH 501 though its ServiceProviderConfig claims PATCH."""
    return Broken(app).answer("PATCH", ".*", 501, scim_error(501, "PATCH is not implemented"))


def _unsupported(feature: str) -> Callable[[WSGI], Broken]:
    def make(app: WSGI) -> Broken:
        return Broken(app).rewrite_json("GET", "/v2/ServiceProviderConfig", lambda body: body | {feature: {**body.get(feature, {}), "supported": False}})

    return make


def patch_unsupported_and_said(app: WSGI) -> Broken:
    """Says PATCH is not supported (ServiceProviderConfig), and answers PATCH 501."""
    return patch_not_implemented(_unsupported("patch")(app))


class FilterRefused(Middleware):
    """Says filter is not supported (ServiceProviderConfig), and answers a filtered list 501."""

    def __init__(self, app: WSGI):
        super().__init__(_unsupported("filter")(app))

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        searching = environ.get("PATH_INFO", "").endswith(".search")
        if "filter" in _query(environ) or (searching and "filter" in (_json_body(environ) or {})):
            return 501, SCIM_JSON, _error(501, "filtering is not supported")
        return None


class _StaleAfterAnError(_KeepAliveHandler):
    """Serves a connection as the demo server does until it answers a 5xx; then takes the next
    request on that connection and closes it unanswered, as servers that drop a kept-alive
    connection shortly after an error do (the client cannot know before it sends)."""

    def _serve_one(self) -> None:
        super()._serve_one()
        if not self.close_connection and (self.status or "").startswith("5"):
            with suppress(OSError):
                self.rfile.readline(65537)
            self.close_connection = True


class StaleAfterAnError(DemoServer):
    handler_class = _StaleAfterAnError


class GarbleFails(Middleware):
    """Answers 500 to a body that is not JSON (where 400 is due): a real fault, of one check."""

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        if environ["REQUEST_METHOD"] in ("POST", "PUT", "PATCH") and _json_body(environ) is None and _body(environ):
            return 500, [("Content-Type", "text/html")], b"<html><body>Internal Server Error</body></html>"
        return None


def put_refused(app: WSGI) -> Broken:
    """Answers every PUT of a resource 405 Method Not Allowed, as servers built for PATCH-only
    clients do, where RFC 7644 §3.5 says implementers MUST support PUT: object_replacement's
    finding, which no check of what a PUT carries repeats."""
    refusal = _error(405, "PUT is not supported, use PATCH")
    return Broken(app).answer("PUT", r"/v2/(Users|Groups)/[^/]+", 405, refusal, headers=[*SCIM_JSON, ("Allow", "GET, PATCH, DELETE")])


class SameNameCrashes(Middleware):
    """Answers an HTML 500 to a Group whose displayName another Group holds (a unique index the
    schema does not declare, failing as a crash), where 201 or a SCIM 409 would be right."""

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        if environ["REQUEST_METHOD"] != "POST" or environ.get("PATH_INFO") != "/v2/Groups":
            return None
        name = (_json_body(environ) or {}).get("displayName")
        if not isinstance(name, str):
            return None
        query = urlencode({"filter": f"displayName eq {json.dumps(name)}"})
        found = self.call(environ, REQUEST_METHOD="GET", QUERY_STRING=query, CONTENT_LENGTH="0", **{"wsgi.input": io.BytesIO(b"")})
        if found[0] == 200 and json.loads(found[2]).get("totalResults"):
            return 500, [("Content-Type", "text/html")], b"<html><body>duplicate key value violates unique constraint</body></html>"
        return None


class RespondsAsync(Middleware):
    """Says securityEvents.asyncRequest is `mode` (RFC 9967 §4), and answers a PUT carrying
    Prefer: respond-async with 202 once it carried it out: no body, Set-Txn, Location and
    Preference-Applied, each of them left out when told (`without`), a body when told."""

    def __init__(self, app: WSGI, mode: str | None = "request", without: tuple[str, ...] = (), body: bytes = b""):
        events = {"asyncRequest": mode} if mode else None
        super().__init__(Broken(app).rewrite_json("GET", "/v2/ServiceProviderConfig", lambda config: config | ({"securityEvents": events} if events else {})))
        self.without, self.body = without, body

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        if environ["REQUEST_METHOD"] != "PUT" or environ.get("HTTP_PREFER") != "respond-async":
            return None
        status, _headers, _body = self.call(environ)
        if status >= 300:
            return None
        headers = [("Set-Txn", "734f0614e3274f288f93ac74119dcf78"), ("Preference-Applied", "respond-async"), ("Location", environ["PATH_INFO"])]
        return 202, [(name, value) for name, value in headers if name not in self.without], self.body


class OnlyEq(Middleware):
    """Filters on one `attribute eq "value"` comparison and nothing else, as servers on a
    key-value store do: any other filter answers 400 invalidFilter ("the specified attribute and
    filter comparison combination is not supported", RFC 7644 §3.12, Table 9)."""

    ONE_EQ = re.compile(r'\s*[\w.:$-]+\s+eq\s+"(?:[^"\\]|\\.)*"\s*', re.IGNORECASE)

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        text = _query(environ).get("filter")
        if environ["REQUEST_METHOD"] == "POST" and environ.get("PATH_INFO", "").endswith(".search"):
            text = (_json_body(environ) or {}).get("filter")
        if text is not None and not self.ONE_EQ.fullmatch(str(text)):
            return 400, SCIM_JSON, _error(400, "only one eq comparison is supported", "invalidFilter")
        return None


class FewFilterable(Middleware):
    """Filters on userName, externalId, displayName and id only (the attributes identity providers
    look resources up by), with any operator: a filter naming another attribute (emails[type eq
    "work"], meta.lastModified gt …) answers 400 invalidFilter, "the specified attribute and filter
    comparison combination is not supported" (RFC 7644 §3.12, Table 9)."""

    FILTERABLE = frozenset({"username", "externalid", "displayname", "id"})
    NAMED = re.compile(r'"(?:[^"\\]|\\.)*"|([\w.:$-]+)\s*(?:\[|\s(?:eq|ne|co|sw|ew|gt|ge|lt|le|pr)\b)', re.IGNORECASE)

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        text = _query(environ).get("filter")
        if environ["REQUEST_METHOD"] == "POST" and environ.get("PATH_INFO", "").endswith(".search"):
            text = (_json_body(environ) or {}).get("filter")
        names = {match[1].rsplit(":", 1)[-1].split(".")[0].lower() for match in self.NAMED.finditer(str(text or "")) if match[1]}
        if text is not None and not names <= self.FILTERABLE:
            return 400, SCIM_JSON, _error(400, "filtering is supported on userName, externalId, displayName and id", "invalidFilter")
        return None


def _canonical_number(value: Any) -> Any:
    """A phone number without its visual separators (tel:+1-201-555-0123 -> tel:+12015550123)."""
    if isinstance(value, str):
        return re.sub(r"[\-. ()]", "", value)
    if isinstance(value, dict):
        return {**value, "value": _canonical_number(value["value"])} if "value" in value else value
    return [_canonical_number(item) for item in value] if isinstance(value, list) else value


def _canonical_numbers(body: Any) -> Any:
    """Every phone number a request writes (in a resource, a PATCH operation, a bulk operation's data), made canonical."""
    if isinstance(body, list):
        return [_canonical_numbers(item) for item in body]
    if not isinstance(body, dict):
        return body
    written = {name: _canonical_number(value) if name.lower() == "phonenumbers" else _canonical_numbers(value) for name, value in body.items()}
    if str(body.get("path", "")).lower().startswith("phonenumbers") and "value" in body:
        written["value"] = _canonical_number(body["value"])
    return written


def canonical_phone_numbers(app: WSGI) -> Broken:
    """Stores phone numbers canonical, as RFC 7643 §4.1.2 asks ("Service providers SHOULD canonicalize
    the value according to [RFC3966]"): tel:+1-201-555-0123 is kept, and answered, as tel:+12015550123."""
    broken = Broken(app)
    for method in ("POST", "PUT", "PATCH"):
        broken.rewrite_request_json(method, r"/v2/.*", _canonical_numbers)
    return broken


def created_with_200(app: WSGI) -> Broken:
    """Answers a creation 200 OK with the resource, where RFC 7644 §3.3 says 201 Created."""
    return Broken(app).rewrite("POST", r"/v2/(Users|Groups)", lambda answer: (200 if answer[0] == 201 else answer[0], answer[1], answer[2]))


MESSAGE_NAMES = frozenset({"Resources", "Operations", "totalResults", "itemsPerPage", "startIndex"})


def _names_lowered(body: Any) -> Any:
    if isinstance(body, dict):
        return {(name.lower() if name in MESSAGE_NAMES else name): _names_lowered(value) for name, value in body.items()}
    if isinstance(body, list):
        return [_names_lowered(item) for item in body]
    return body


def message_names_lowered(app: WSGI) -> Broken:
    """Writes the attributes of its list and bulk answers in lower case ("resources", "totalresults"):
    attribute names are case insensitive (RFC 7643 §2.1)."""
    return Broken(app).rewrite_json(None, r"/v2/.*", _names_lowered)


def _without_meta(body: Any) -> Any:
    if not isinstance(body, dict):
        return body
    kept = {name: value for name, value in body.items() if name != "meta"}
    listed = kept.get("Resources")
    return kept | {"Resources": [_without_meta(item) for item in listed]} if isinstance(listed, list) else kept


def without_meta(app: WSGI) -> Broken:
    """Answers users and groups without meta (many small servers keep no timestamps): RFC 7643 §3.1
    makes its sub-attributes the service provider's, and RFC 7644 §3.3 wants meta.location in a
    creation's answer; the Location header stays."""
    return Broken(app).rewrite_json(None, r"/v2/(Users|Groups)(/[^/]*)?", _without_meta)


def search_not_offered(app: WSGI) -> Broken:
    """Offers no POST .search, from its root nor on its endpoints: answers it 404 with a SCIM Error,
    "Specified resource (e.g., User) or endpoint does not exist" (RFC 7644 §3.12, Table 8), as many
    servers do: RFC 7644 §3.4.3 lets a client search so ("Clients MAY"), and the identity providers
    replayed here never do."""
    return Broken(app).answer("POST", r"/v2/(Users/|Groups/)?\.search", 404, _error(404, "Not found"))


def _member_ids(body: Any) -> Any:
    """Each group of an answer (a list's too) with its members as {"value": id} alone."""
    if isinstance(body, dict) and isinstance(body.get("Resources"), list):
        return body | {"Resources": [_member_ids(item) for item in body["Resources"]]}
    if isinstance(body, dict) and isinstance(body.get("members"), list):
        return body | {"members": [{"value": m.get("value")} if isinstance(m, dict) else m for m in body["members"]]}
    return body


def member_ids_only(app: WSGI) -> Broken:
    """Keeps a group's members as their ids, and answers each as {"value": id}, without $ref, type
    or display, as servers built for Entra ID and Okta (which send members so) do: RFC 7643 §8.7.1
    declares none of them required, and a "$ref" sub-attribute is OPTIONAL (RFC 7643 §2.3.7)."""
    return Broken(app).rewrite_json(None, r"/v2/(Groups(/[^/]*)?|\.search)", _member_ids)


def created_without_a_body(app: WSGI, relative: bool = False) -> Broken:
    """Answers a creation 201 Created with the Location header and no body: RFC 7644 §3.3 says the
    body SHOULD hold the resource, so the Location is all a client may get (`relative`: its path
    alone, a reference RFC 9110 §10.2.2 allows)."""

    def emptied(answer: Response) -> Response:
        location = next((value for name, value in answer[1] if name.lower() == "location"), None)
        return _bodiless(answer, urlsplit(location).path if relative and location else None)

    return Broken(app).rewrite("POST", r"/v2/(Users|Groups)", emptied)


def _bodiless(answer: Response, location: str | None = None) -> Response:
    """A 201 without its body (and the headers describing it), its Location replaced when told."""
    status, headers, _body = answer
    if status != 201:
        return answer
    kept = [(name, value) for name, value in headers if name.lower() not in ("content-type", "content-length", "content-location", "etag")]
    if location is not None:
        kept = [(name, location if name.lower() == "location" else value) for name, value in kept]
    return 201, kept, b""


class LocationElsewhere(Middleware):
    """Answers a user's creation 201 without a body, its Location naming `elsewhere` (another
    client's user) once set: a server lying about what it created. `written` holds each request
    other than a GET that reached `elsewhere`: the run must send none."""

    def __init__(self, app: WSGI):
        super().__init__(app)
        self.elsewhere: str | None = None
        self.written: list[str] = []

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        method, path = environ["REQUEST_METHOD"], environ.get("PATH_INFO", "")
        if self.elsewhere is None:
            return self.app(environ, start_response)
        if method != "GET" and path == f"/v2/Users/{self.elsewhere}":
            self.written.append(f"{method} {path}")
        if method == "POST" and path == "/v2/Users":
            location = f"{environ['wsgi.url_scheme']}://{environ['HTTP_HOST']}/v2/Users/{self.elsewhere}"
            status, headers, body = _bodiless(self.call(environ), location)
            return _respond(start_response, status, body, [(name, value) for name, value in headers if name.lower() != "content-length"])
        return self.app(environ, start_response)


def users_only(app: WSGI) -> Broken:
    """Serves Users and no Groups: /ResourceTypes lists only User, and /Groups answers 404."""

    def listed(body: dict[str, Any]) -> dict[str, Any]:
        kept = [item for item in body.get("Resources", []) if item.get("id") != "Group"]
        return body | {"Resources": kept, "totalResults": len(kept)}

    return (
        Broken(app)
        .rewrite_json("GET", "/v2/ResourceTypes", listed)
        .answer(None, "/v2/ResourceTypes/Group", 404, _error(404, "no such resource type"))
        .answer(None, "/v2/Groups.*", 404, _error(404, "this server keeps no groups"))
    )


def _no_content(answer: Response) -> Response:
    """A 200 answer as 204 No Content, without its body."""
    status, headers, _body = answer
    if status != 200:
        return answer
    return 204, [(name, value) for name, value in headers if name.lower() not in ("content-type", "content-length")], b""


def patch_answers_204(app: WSGI) -> Broken:
    """Answers a PATCH that succeeded 204 No Content, without the resource (RFC 7644 §3.5.2 lets it)."""
    return Broken(app).rewrite("PATCH", r"/v2/(Users|Groups)/[^/]+", _no_content)


def put_answers_204(app: WSGI) -> Broken:
    """Answers a PUT that succeeded 204 No Content, where RFC 7644 §3.5.1 returns 200 and the resource."""
    return Broken(app).rewrite("PUT", r"/v2/(Users|Groups)/[^/]+", _no_content)


class OnePatchOperation(Middleware):
    """Refuses a PATCH of several operations with 400 invalidValue ("one operation per request"),
    as servers built for identity providers sending one at a time do; one operation alone is applied.
    RFC 7644 §3.5.2 makes "Operations" an array "of one or more" operations, processed in order."""

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        if environ["REQUEST_METHOD"] != "PATCH":
            return None
        body = _json_body(environ)
        operations = body.get("Operations") if isinstance(body, dict) else None
        if isinstance(operations, list) and len(operations) > 1:
            return 400, SCIM_JSON, _error(400, "only one operation per PATCH request is supported", "invalidValue")
        return None


class SequentialIds(Middleware):
    """Gives resources the ids 1, 2, 3 ... of a database sequence instead of scim2-server's uuids:
    each uuid in an answer becomes its number, and each number the client sends back (in a path,
    a filter, a body) the uuid again."""

    UUID = re.compile(r"\b[0-9a-f]{32}\b")
    ID = r"\d+"
    """What an id this server gives looks like (a regular expression)."""

    def __init__(self, app: WSGI):
        super().__init__(app)
        self.numbers: dict[str, str] = {}
        self.uuids: dict[str, str] = {}
        self.lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        path = re.sub(rf"(?<=/)({self.ID})$", lambda found: self.uuids.get(found[1], "0" * 32), environ.get("PATH_INFO", ""))
        query = urlencode([(key, self._back(value)) for key, value in parse_qsl(environ.get("QUERY_STRING", ""), keep_blank_values=True)])
        body = self._back(_body(environ).decode()).encode()
        status, headers, answer = self.call(environ, PATH_INFO=path, QUERY_STRING=query, CONTENT_LENGTH=str(len(body)), **{"wsgi.input": io.BytesIO(body)})
        answer = self.UUID.sub(self._number, answer.decode()).encode() if answer else answer
        headers = [(name, self.UUID.sub(self._number, value)) for name, value in headers if name.lower() != "content-length"]
        return _respond(start_response, status, answer, headers)

    def _number(self, found: re.Match[str]) -> str:
        with self.lock:
            if found[0] not in self.numbers:
                given = self.named(len(self.numbers) + 1)
                self.numbers[found[0]], self.uuids[given] = given, found[0]
            return self.numbers[found[0]]

    def named(self, number: int) -> str:
        """The id of the resource made `number`th."""
        return str(number)

    def _back(self, text: str) -> str:
        """The text with each id the server gave (a path segment, or quoted, escaped or not) its uuid again."""
        with self.lock:
            text = re.sub(rf'(?<=/)({self.ID})(?=$|[/?"])', lambda found: self.uuids.get(found[1], found[1]), text)
            return re.sub(rf'(\\?")({self.ID})(\\?")', lambda found: found[1] + self.uuids.get(found[2], found[2]) + found[3], text)


class NumericIds(Middleware):
    """Sequential ids written as JSON numbers (``"id": 7``), as servers keyed by an integer do:
    RFC 7643 §3.1 makes an id a string. An id number sent back in a body is read as the id."""

    NUMBER = re.compile(rb'("id"\s*:\s*)"(\d+)"')
    TEXT = re.compile(rb'("id"\s*:\s*)(\d+)\b')

    def __init__(self, app: WSGI):
        super().__init__(SequentialIds(app))

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        body = self.TEXT.sub(rb'\1"\2"', _body(environ))
        status, headers, answer = self.call(environ, CONTENT_LENGTH=str(len(body)), **{"wsgi.input": io.BytesIO(body)})
        return _respond(start_response, status, self.NUMBER.sub(rb"\1\2", answer), [(k, v) for k, v in headers if k.lower() != "content-length"])


class WordIds(SequentialIds):
    """Gives resources ids made of words (``id-river``, ``id-stone`` ... ``id-river-oak``), as servers keyed on a
    slug do: no digit, nothing of a uuid."""

    WORDS = ("oak", "river", "stone", "lark", "fern", "moss", "reed", "wren")
    ID = r"[a-z]+(?:-[a-z]+)+"

    def named(self, number: int) -> str:
        words = []
        while number:
            number, rest = divmod(number, len(self.WORDS))
            words.append(self.WORDS[rest])
        return "-".join(["id", *reversed(words)])


class RecycledIds(SequentialIds):
    """Sequential ids, a deleted resource's number given to the next creation (a store reusing its
    free rows), and another client of the server creating a user right after each DELETE of one,
    which takes the number just freed (unless not `others`: then the run's next creation does; RFC
    7643 §3.1: an id MUST be non-reassignable; such servers exist all the same). `theirs` holds the ids of that client's users, `written` each request
    other than a GET that reached one of them: the run must send none."""

    def __init__(self, app: WSGI, others: bool = True):
        super().__init__(app)
        self.others = others
        """Whether another client takes each number freed; else the run's next creation does."""
        self.lock = threading.RLock()  # type: ignore[assignment]
        self.free: list[int] = []
        self.theirs: set[str] = set()
        self.created = 0
        self.written: list[str] = []

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        method, path = environ["REQUEST_METHOD"], environ.get("PATH_INFO", "")
        found = re.fullmatch(r"/v2/(Users|Groups)/(\d+)", path)
        with self.lock:
            if found and found[1] == "Users" and method != "GET" and found[2] in self.theirs:
                self.written.append(f"{method} {path}")
        captured: dict[str, str] = {}

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            captured["status"] = status
            return start_response(status, headers, exc_info)

        answer = super().__call__(environ, start)
        if found and method == "DELETE" and captured.get("status", "").startswith("2"):
            with self.lock:
                self.free.append(int(found[2]))
            if self.others:
                self._someone_creates(environ)
        return answer

    def _someone_creates(self, environ: dict[str, Any]) -> None:
        """Another client creates a user: it takes the lowest number free."""
        with self.lock:
            self.created += 1
            body = json.dumps({"schemas": [USER], "userName": f"someone-else-{self.created}@example.org"}).encode()
        _status, _headers, answer = self.call(
            environ,
            REQUEST_METHOD="POST",
            PATH_INFO="/v2/Users",
            QUERY_STRING="",
            CONTENT_TYPE="application/scim+json",
            CONTENT_LENGTH=str(len(body)),
            **{"wsgi.input": io.BytesIO(body)},
        )
        created = self.UUID.fullmatch(json.loads(answer)["id"])
        assert created is not None
        number = self._number(created)
        with self.lock:
            self.theirs.add(number)

    def _number(self, found: re.Match[str]) -> str:
        with self.lock:
            if found[0] not in self.numbers and self.free:
                self.free.sort()
                given = str(self.free.pop(0))
                self.numbers[found[0]], self.uuids[given] = given, found[0]
            return super()._number(found)


class SlashIds(SequentialIds):
    """Gives resources ids holding a slash (``tenant-a/7``), as servers keyed on a path do: no URL
    addresses one as a single path segment unless a server decodes ``%2F`` in it, which the run
    does not count on."""

    ID = r"tenant-a/\d+"

    def named(self, number: int) -> str:
        return f"tenant-a/{number}"


class IfMatchRequired(Middleware):
    """Refuses a PUT, PATCH or DELETE of a resource sent without If-Match: 428 Precondition Required
    (RFC 6585 §3), as servers guarding against lost updates do (RFC 7644 §3.14 lets a client send
    If-Match; no identity provider does)."""

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        writing = environ["REQUEST_METHOD"] in ("PUT", "PATCH", "DELETE") and re.fullmatch(r"/v2/(Users|Groups)/[^/]+", environ.get("PATH_INFO", ""))
        if not writing or environ.get("HTTP_IF_MATCH"):
            return None
        _body(environ)
        return 428, SCIM_JSON, _error(428, "If-Match required")


class ScimMediaTypeRefused(Middleware):
    """Takes request bodies as application/json only: one sent as application/scim+json is refused
    with 415 Unsupported Media Type (RFC 9110 §15.5.16), which RFC 7644 §3.8 makes the server's fault."""

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        if environ["REQUEST_METHOD"] not in ("POST", "PUT", "PATCH") or "scim+json" not in environ.get("CONTENT_TYPE", ""):
            return None
        _body(environ)
        return 415, SCIM_JSON, _error(415, "Unsupported Media Type")


class EmailUserNames(Middleware):
    """Refuses a User whose userName is not an email address, as applications keyed on email do
    (the userName an identity provider sends is one: Okta's default, Entra ID's userPrincipalName)."""

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        if environ["REQUEST_METHOD"] not in ("POST", "PUT") or not re.fullmatch(r"/v2/Users(/(?!\.search$)[^/]+)?", environ.get("PATH_INFO", "")):
            return None
        body = _json_body(environ)
        user_name = next((value for key, value in body.items() if key.lower() == "username"), "") if isinstance(body, dict) else ""
        if not re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", str(user_name)):
            return 400, SCIM_JSON, _error(400, "userName must be an email address", "invalidValue")
        return None


class Capped(Middleware):
    """Answers a list or a search of its Users and Groups with `cap` resources at most, whatever
    count asks, totalResults honest: "A service provider MAY return fewer results than count"
    (RFC 7644 §3.4.2.4), as servers bounding what one query costs do (Slack's SCIM API answers a
    count above 1000 as if it were 1000). When `said`, its
    ServiceProviderConfig says so too (filter.maxResults, "the maximum number of resources returned
    in a response")."""

    LISTS = re.compile(r"/v2/(Users|Groups)")
    SEARCHES = re.compile(r"/v2/((Users|Groups)/)?\.search")

    def __init__(self, app: WSGI, cap: int = 5, said: bool = False):
        told = lambda config: config | {"filter": {**config.get("filter", {}), "maxResults": cap}}  # noqa: E731
        super().__init__(Broken(app).rewrite_json("GET", "/v2/ServiceProviderConfig", told) if said else app)
        self.cap = cap

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        path, method = environ.get("PATH_INFO", ""), environ["REQUEST_METHOD"]
        if method == "GET" and self.LISTS.fullmatch(path) and (count := self._capped(_query(environ).get("count"))) is not None:
            environ = {**environ, "QUERY_STRING": urlencode(_query(environ) | {"count": str(count)})}
        elif method == "POST" and self.SEARCHES.fullmatch(path) and isinstance(body := _json_body(environ), dict):
            count = self._capped(body.get("count"))
            raw = json.dumps(body if count is None else body | {"count": count}).encode()
            environ = {**environ, "CONTENT_LENGTH": str(len(raw)), "wsgi.input": io.BytesIO(raw)}
        return self.app(environ, start_response)

    def _capped(self, count: Any) -> int | None:
        """The count the server answers: the one asked, or `cap` when more (or none) was asked;
        None for a count that is no integer, left to the server to judge."""
        if count is None:
            return self.cap
        try:
            return min(int(count), self.cap)
        except (TypeError, ValueError):
            return None


class ListsLag(Middleware):
    """Answers its lists and searches from an index `lag` lists behind its store, as servers over a
    search engine or a replica do (RFC 7644 sets no time within which a query shows a write): a
    resource created is missing from the next `lag` lists (its URL serves it at once), and one
    deleted is in the next `lag` lists still, as it last was (its URL answers 404 at once). Lists are
    counted, not timed, so that a run meets the same lag on any machine."""

    COLLECTION = re.compile(r"/v2/(Users|Groups)")
    RESOURCE = re.compile(r"/v2/(Users|Groups)/([^/.][^/]*)")
    SEARCH = re.compile(r"/v2/(?:(Users|Groups)/)?\.search")

    def __init__(self, app: WSGI, lag: int = 3):
        super().__init__(app)
        self.lag = lag
        self.lists = 0
        self.created: dict[str, int] = {}
        self.deleted: dict[str, tuple[int, str, dict[str, Any]]] = {}
        self.lock = threading.Lock()

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        method, path = environ["REQUEST_METHOD"], environ.get("PATH_INFO", "")
        collection, resource, search = self.COLLECTION.fullmatch(path), self.RESOURCE.fullmatch(path), self.SEARCH.fullmatch(path)
        if method == "POST" and collection:
            status, headers, body = self.call(environ)
            if status == 201 and isinstance(made := json.loads(body or b"null"), dict) and "id" in made:
                with self.lock:
                    self.created[str(made["id"])] = self.lists
            return status, headers, body
        if method == "DELETE" and resource:
            before = self.call(environ, REQUEST_METHOD="GET", QUERY_STRING="", CONTENT_LENGTH="0", **{"wsgi.input": io.BytesIO(b"")})
            status, headers, body = self.call(environ)
            if status < 300 and before[0] == 200:
                with self.lock:
                    self.deleted[resource[2]] = (self.lists, resource[1], json.loads(before[2]))
            return status, headers, body
        if not ((method == "GET" and collection) or (method == "POST" and search)):
            return None
        asked = _query(environ) if method == "GET" else (_json_body(environ) or {})
        endpoints = {(collection or search)[1]} - {None} or {"Users", "Groups"}
        status, headers, body = self.call(environ)
        with self.lock:
            self.lists += 1
            hidden = {made for made, at in self.created.items() if self.lists - at <= self.lag}
            ghosts = [last for at, endpoint, last in self.deleted.values() if self.lists - at <= self.lag and endpoint in endpoints]
        listed = json.loads(body or b"null")
        if status != 200 or not isinstance(listed, dict):
            return status, headers, body
        resources = [item for item in listed.get("Resources") or [] if str(item.get("id")) not in hidden]
        if str(asked.get("startIndex") or "1") == "1":
            resources += [last for last in ghosts if self._matches(last, str(asked.get("filter") or ""))]
            resources = resources[: int(asked["count"])] if str(asked.get("count") or "").isdigit() else resources
        shift = len(resources) - len(listed.get("Resources") or [])
        listed = listed | {"Resources": resources, "totalResults": max(0, int(listed.get("totalResults") or 0) + shift)}
        return status, [(k, v) for k, v in headers if k.lower() != "content-length"], json.dumps(listed).encode()

    @staticmethod
    def _matches(resource: dict[str, Any], expression: str) -> bool:
        """Whether a filter may select the resource: none, or one naming the start of one of its
        values (eq, sw), as the run's own filters do."""
        values = [value for value in resource.values() if isinstance(value, str)]
        return not expression or any(value.startswith(literal) for literal in re.findall(r'"((?:[^"\\]|\\.)*)"', expression) for value in values)


class OthersLeaving(Middleware):
    """Lists users oldest first (sortBy meta.created unless asked otherwise, as a store keyed by
    creation does), and another client deletes its oldest user (one named `someone-…`) each time
    a page after the first is asked: the pages shift under a reader, which "SHOULD never assume
    repeatable results" (RFC 7644 §3.4.2.4)."""

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        if environ["REQUEST_METHOD"] == "GET" and environ.get("PATH_INFO") == "/v2/Users":
            query = _query(environ)
            if query.get("startIndex", "1") != "1":
                self._one_leaves(environ)
            environ = {**environ, "QUERY_STRING": urlencode({"sortBy": "meta.created", **query})}
        return self.app(environ, start_response)

    def _one_leaves(self, environ: dict[str, Any]) -> None:
        theirs = urlencode({"filter": 'userName sw "someone-"', "sortBy": "meta.created", "count": "1"})
        _status, _headers, body = self.call(environ, QUERY_STRING=theirs)
        for user in json.loads(body or b"{}").get("Resources", []):
            self.call(
                environ, REQUEST_METHOD="DELETE", PATH_INFO=f"/v2/Users/{user['id']}", QUERY_STRING="", CONTENT_LENGTH="0", **{"wsgi.input": io.BytesIO(b"")}
            )


class BehindAProxy(Middleware):
    """Behind a reverse proxy that serves `public` (https://scim.public.invalid/api/v2) from its
    /v2: every location it gives (Location and Content-Location, meta.location, each $ref) names
    that public URL, another origin and (by default) another path, as a server configured with the
    base URL identity providers reach it at does. The run reaches it directly, and no GET from
    there can tell what the public URL serves."""

    def __init__(self, app: WSGI, public: str = "https://scim.public.invalid/api/v2"):
        super().__init__(app)
        self.public = public

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        status, headers, body = self.call(environ)
        local = f"{environ['wsgi.url_scheme']}://{environ['HTTP_HOST']}/v2"
        body = body.replace(local.encode(), self.public.encode())
        headers = [(name, value.replace(local, self.public)) for name, value in headers if name.lower() != "content-length"]
        return _respond(start_response, status, body, headers)


class SlashedCollections(Middleware):
    """Serves its collections at /v2/Users/ and /v2/Groups/, as web frameworks routing them with a
    trailing slash do: a request on /v2/Users (any method, its query kept) is answered 308
    Permanent Redirect there, which "directs [the client] to repeat the same HTTP request at the
    location identified" (RFC 7644 §3.12, Table 8). Its resources stay at /v2/Users/{id}."""

    COLLECTIONS = re.compile(r"/v2/(Users|Groups)")

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        path = environ.get("PATH_INFO", "")
        if self.COLLECTIONS.fullmatch(path):
            _body(environ)  # read, so that the connection stays clean for the next request
            query = environ.get("QUERY_STRING", "")
            return _respond(start_response, 308, b"", [("Location", f"{path}/" + (f"?{query}" if query else ""))])
        if path.endswith("/") and self.COLLECTIONS.fullmatch(path[:-1]):
            environ = {**environ, "PATH_INFO": path[:-1]}
        return self.app(environ, start_response)


class NameRequired(Middleware):
    """Requires a User's name (givenName and familyName), though /Schemas declares it optional, as
    applications keyed on a person's name do: a creation without it, and a PATCH removing it, are
    refused 400 invalidValue."""

    REMOVED = re.compile(r"name|name\.givenname|name\.familyname", re.IGNORECASE)

    def intercept(self, environ: dict[str, Any]) -> Response | None:
        method, path = environ["REQUEST_METHOD"], environ.get("PATH_INFO", "")
        collection = path.rsplit("/", 1)[0] if method == "PATCH" else path  # PATCH /v2/Users/{id}, POST /v2/Users
        body = _json_body(environ) if method in ("POST", "PATCH") and collection == "/v2/Users" else None
        if not isinstance(body, dict):
            return None
        if method == "POST" and not all(member(member(body, "name"), part) for part in ("givenName", "familyName")):
            return 400, SCIM_JSON, _error(400, "name.givenName and name.familyName are required", "invalidValue")
        removed = [str(op.get("path", "")) for op in body.get("Operations", []) if isinstance(op, dict) and str(op.get("op", "")).lower() == "remove"]
        if method == "PATCH" and any(self.REMOVED.fullmatch(path) for path in removed):
            return 400, SCIM_JSON, _error(400, f"{removed[0]} cannot be removed", "invalidValue")
        return None


@dataclass(frozen=True)
class Personality:
    """A server unlike scim2-server: its application, and how its connections are served."""

    app: Callable[[], Any]
    server: type[DemoServer] = DemoServer

    def start(self) -> DemoServer:
        server = self.server(self.app())
        server.start()
        return server


PERSONALITIES: dict[str, Personality] = {
    "sw unsupported": Personality(lambda: SwUnsupported(make_app())),
    "emails required": Personality(lambda: EmailsRequired(make_app())),
    "locations by userName": Personality(lambda: LocationsByUserName(make_app())),
    "immutable displayName": Personality(lambda: Immutable(make_app())),
    "full-path endpoints": Personality(lambda: full_path_endpoints(make_app())),
    "RFC schema name": Personality(lambda: rfc_schema_name(make_app())),
    "members ignored on create": Personality(lambda: members_ignored_on_create(make_app())),
    "filter ignored": Personality(lambda: filter_ignored(make_app())),
    "replay body beyond the schema": Personality(lambda: replay_beyond_the_schema(make_app())),
    "soft delete": Personality(lambda: SoftDelete(make_app())),
    "referenced resources kept": Personality(lambda: ReferencedKept(make_app())),
    "duplicates accepted": Personality(lambda: DuplicatesAccepted(make_app())),
    "PATCH 501 though claimed": Personality(lambda: patch_not_implemented(make_app())),
    "PATCH unsupported, said": Personality(lambda: patch_unsupported_and_said(make_app())),
    "filter unsupported, said": Personality(lambda: FilterRefused(make_app())),
    "connection dropped after a 500": Personality(lambda: GarbleFails(make_app()), StaleAfterAnError),
    "same displayName crashes": Personality(lambda: SameNameCrashes(make_app())),
    "only eq filters": Personality(lambda: OnlyEq(make_app())),
    "filters on few attributes": Personality(lambda: FewFilterable(make_app())),
    "phone numbers made canonical": Personality(lambda: canonical_phone_numbers(make_app())),
    "created with 200": Personality(lambda: created_with_200(make_app())),
    "users only": Personality(lambda: users_only(make_app())),
    "created without a body": Personality(lambda: created_without_a_body(make_app())),
    "PATCH answers 204": Personality(lambda: patch_answers_204(make_app())),
    "sequential ids": Personality(lambda: SequentialIds(make_app())),
    "word ids": Personality(lambda: WordIds(make_app())),
    "ids as numbers": Personality(lambda: NumericIds(make_app())),
    "message names in lower case": Personality(lambda: message_names_lowered(make_app())),
    "members returned on request": Personality(lambda: MembersOnRequest(make_app())),
    "userNames are email addresses": Personality(lambda: EmailUserNames(make_app())),
    "PUT refused": Personality(lambda: put_refused(make_app())),
    "PUT answers 204": Personality(lambda: put_answers_204(make_app())),
    "one operation per PATCH": Personality(lambda: OnePatchOperation(make_app())),
    "pages capped at 5": Personality(lambda: Capped(make_app())),
    "pages capped at 5, said": Personality(lambda: Capped(make_app(), said=True)),
    "pages of two": Personality(lambda: Capped(make_app(), cap=2)),
    "behind a proxy at another path": Personality(lambda: BehindAProxy(make_app())),
    "behind a proxy at the same path": Personality(lambda: BehindAProxy(make_app(), "https://scim.public.invalid/v2")),
    # Locations as references relative to the server ("/v2/Users/7"), which RFC 9110 §10.2.2 allows a Location.
    "relative locations": Personality(lambda: BehindAProxy(make_app(), "/v2")),
    "no meta": Personality(lambda: without_meta(make_app())),
    "collections redirected": Personality(lambda: SlashedCollections(make_app())),
    "name required": Personality(lambda: NameRequired(make_app())),
    "no POST .search": Personality(lambda: search_not_offered(make_app())),
    "members as ids only": Personality(lambda: member_ids_only(make_app())),
    "externalId ignored": Personality(lambda: ExternalIdIgnored(make_app())),
    "strings of 40 characters at most": Personality(lambda: ShortColumns(make_app())),
    "lists lag behind writes": Personality(lambda: ListsLag(make_app())),
}
