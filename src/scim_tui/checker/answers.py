"""What is wrong with a server's answer, said of the body the server sent.

scim2-client refuses an answer it cannot read in its own words, with the JSON decoder's
or pydantic's details attached ("Expecting value: line 1 column 1 (char 0)", a dump of
validation errors). A person checking a server wants to read what came back instead:
an HTML page, text that is not JSON, a list, an object without schemas.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

SCIM_ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error"
JSON_KINDS = {list: "a JSON array", str: "a JSON string", int: "a JSON number", float: "a JSON number", bool: "a JSON boolean"}


def listed(words: list[str]) -> str:
    """Words as a sentence lists them: "a", "a and b", "a, b and c"."""
    return " and ".join([", ".join(words[:-1]), words[-1]] if len(words) > 1 else words)


def answer_name(answer: Any) -> str:
    """What a client call gave back, as a reason names it: "an empty body", or its type (ListResponse ...)."""
    return "an empty body" if answer is None else type(answer).__name__


def expected(answer: Any, kind: type) -> Any:
    """A client call's answer when it is a `kind`; ValueError, naming what came instead, when not
    (the error of the check tells which request it was)."""
    if isinstance(answer, kind):
        return answer
    what = "an empty body or JSON null" if answer is None else answer_name(answer)
    raise ValueError(f"the answer is {what} instead of a {kind.__name__}")


def body_of(response: Any) -> Any:
    """The JSON body of a raw response, or its text when it is not JSON (None when empty)."""
    text = _text(response)
    try:
        return json.loads(text) if text else None
    except (ValueError, RecursionError):
        return text


def bodiless(status: int | None, text: str | None) -> bool:
    """Whether an answer went through (2xx) without a body: the resource a creation made is then
    read at its Location (RFC 7644 §3.3: the body SHOULD hold it, the Location SHALL name it)."""
    return status is not None and 200 <= status < 300 and not (text or "").strip()


def member(node: Any, key: str) -> Any:
    """The value of `key` in a JSON object, its name compared without case (RFC 7643 §2.1);
    None when there is none, or `node` is not an object."""
    if not isinstance(node, dict):
        return None
    if key in node:
        return node[key]
    lowered = key.lower()
    return next((value for name, value in node.items() if isinstance(name, str) and name.lower() == lowered), None)


def client_refusal(exc: BaseException) -> str | None:
    """What scim2-client said when it refused to send a request (a payload it finds invalid, an
    extension the resource type requires, an endpoint outside the base URL); None when the
    error is about an answer of the server."""
    from scim2_client import InvalidServiceDescriptionException  # loaded already when one was raised
    from scim2_models import SCIMException

    if isinstance(exc, SCIMException) and not hasattr(exc, "error"):
        if isinstance(exc.__cause__, ValidationError):
            return plain_validation(exc.__cause__)
        return " ".join(str(exc.detail if getattr(exc, "detail", None) else exc).split()) or type(exc).__name__
    if isinstance(exc, InvalidServiceDescriptionException) and getattr(exc, "source", None) is None:
        return " ".join(str(exc).split())
    return None


def json_object(text: str | None) -> dict[str, Any]:
    """The JSON object a body holds; empty when it holds something else or is not JSON."""
    try:
        data = json.loads(text or "")
    except (ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def response_problem(exc: BaseException) -> str | None:
    """What is wrong with the answer a scim2-client error was raised for; None when the
    error carries no answer, or its own message says it well enough."""
    # Imported here, not up front: exchanges.py (this module's reader) is loaded by the app's
    # first screen, which must not wait for scim2-client; when one of its errors was raised,
    # it is loaded already.
    from scim2_client import ResponsePayloadValidationException
    from scim2_client import SCIMResponseException
    from scim2_client import UnexpectedContentFormatException
    from scim2_client import UnexpectedContentTypeException
    from scim2_client import UnexpectedStatusCodeException

    response = getattr(exc, "source", None)
    status = getattr(response, "status_code", None)
    if status is None:
        return None
    if 300 <= status < 400 and _header(response, "location"):
        return f"the {status} answer redirects to {_header(response, 'location')}, which the run does not follow: check the profile's URL"
    if isinstance(exc, UnexpectedContentTypeException):
        content_type = _header(response, "content-type") or "missing"
        return f"its Content-Type is {content_type}, not application/scim+json (RFC 7644 §8.1)"
    if isinstance(exc, UnexpectedStatusCodeException) and 200 <= status < 300:
        return _unexpected_success(response, status)
    if isinstance(exc, UnexpectedStatusCodeException) and status != 304:
        return f"the {status} answer carries {body_kind(_text(response))}, not a SCIM Error (RFC 7644 §3.12)"
    if isinstance(exc, ResponsePayloadValidationException) and isinstance(exc.__cause__, ValidationError):
        return f"the body is not a valid {plain_title(exc.__cause__)}: {plain_validation(exc.__cause__)}"
    if isinstance(exc, UnexpectedContentFormatException):
        return _format_problem(exc, _text(response))
    return _schemaless(_text(response)) if type(exc) is SCIMResponseException else None


def _unexpected_success(response: Any, status: int) -> str:
    """Why a success status is not the one expected, in the RFC's words where it names it."""
    try:
        method = response.request.method
    except (AttributeError, RuntimeError):  # an answer read back without its request
        method = None
    if method == "POST" and status != 201:
        return 'a created resource is answered with 201 Created ("an HTTP response SHALL be returned with HTTP status code 201 (Created)", RFC 7644 §3.3)'
    return f"{status} is not the status an answer to this request has (RFC 7644 §3)"


def body_kind(text: str) -> str:
    """A body as a person would name it: empty, an HTML page, text that is not JSON, JSON of some kind."""
    if not text.strip():
        return "an empty body"
    if text.lstrip().startswith("<"):
        return "an HTML page"
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return "text that is not JSON"
    if isinstance(data, dict):
        return "a JSON object that is not a SCIM Error" if SCIM_ERROR_SCHEMA not in (member(data, "schemas") or []) else "a SCIM Error"
    return JSON_KINDS.get(type(data), "JSON null")


def _format_problem(exc: BaseException, text: str) -> str:
    decoding = exc.__cause__ or exc.__context__
    if isinstance(decoding, json.JSONDecodeError):
        if text.lstrip().startswith("<"):
            return "the body is an HTML page, not JSON"
        return f"the body is not valid JSON ({decoding.msg} at line {decoding.lineno}, column {decoding.colno})"
    return f"the body is {body_kind(text)}, not a JSON object"


def _schemaless(text: str) -> str | None:
    """The wording for a JSON object without schemas (scim2-client calls it an "undefined object")."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if isinstance(data, dict) and "schemas" not in data:
        return 'the body is a JSON object without "schemas", so not a SCIM resource (RFC 7643 §3)'
    return None


EXPECTED_KINDS = {
    "string": "a string",
    "int": "an integer",
    "bool": "a boolean",
    "float": "a number",
    "decimal": "a number",
    "list": "a list",
    "tuple": "a list",
    "set": "a list",
    "dict": "an object",
    "model": "an object",
    "model_attributes": "an object",
    "datetime": "a date and time",
    "date": "a date",
    "url": "a URL",
    "bytes": "base64 data",
    "uuid": "a UUID",
}
"""What a pydantic error type (``string_type``, ``int_parsing`` ...) expected, in words."""


def plain_validation(error: ValidationError) -> str:
    """A validation error of the library that reads JSON into SCIM objects, told in plain words:
    where its first problem is and what is wrong there (and how many more there are), never the
    library's own wording or the address of its documentation."""
    problems = error.errors(include_url=False)
    if not problems:
        return "the object is not valid"
    more = len(problems) - 1
    return _problem(problems[0]) + (f" (and {more} more problem{'s' if more > 1 else ''})" if more else "")


def plain_title(error: ValidationError) -> str:
    """The name of what failed to validate: "ListResponse", not "ListResponse[Union[User, Group]]"."""
    return error.title.split("[Union[", 1)[0]


def _problem(problem: Any) -> str:
    where = _where(problem["loc"])
    kind, value, context = problem["type"], problem.get("input"), problem.get("ctx") or {}
    expected = EXPECTED_KINDS.get(kind.removesuffix("_type").removesuffix("_parsing").split("_from_")[0])
    if kind == "missing":
        return f"{where} is missing"
    if kind == "extra_forbidden":
        return f"{where} is not an attribute its schema defines"
    if kind == "union_tag_not_found":
        return f'{where} has no "schemas" naming a kind of resource expected there'
    if kind == "union_tag_invalid":
        return f'{where} has "schemas" {context.get("tag")}, not one of {context.get("expected_tags")}'
    if kind in ("enum", "literal_error"):
        return f"{where} is {_shown(value)}, not one of {context.get('expected')}"
    if kind in ("value_error", "assertion_error") and context.get("error"):
        return f"{where}: {context['error']}"
    if expected is not None and (kind.endswith("_type") or "_parsing" in kind):
        return f"{where} is {_shown(value)}, not {expected}"
    message = str(problem["msg"])
    return f"{where} {message[0].lower()}{message[1:]}" if message.startswith("Input should") else f"{where}: {message}"


def _where(loc: Any) -> str:
    """A location in a JSON document as a path: Resources[0].emails[1].value. The tag a union adds
    after a list index (the schema of a listed resource) is not a key of the document."""
    path, after_index = "", False
    for part in loc:
        if isinstance(part, int):
            path, after_index = f"{path}[{part}]", True
            continue
        if not (after_index and str(part).startswith("urn:")):
            path = f"{path}.{part}" if path else str(part)
        after_index = False
    return path or "the object"


def _shown(value: Any) -> str:
    """A value as a reason quotes it: short JSON for a scalar, its kind for an array or an object."""
    if isinstance(value, (list, dict)):
        return JSON_KINDS.get(type(value), "a JSON object")
    return shown(value, 40)


def shown(value: Any, limit: int = 120) -> str:
    """A value as a reason shows it: as JSON, the way SCIM writes it (`false`, `null`, `["a"]`,
    `"x"`), compact, non-ASCII kept, cut to `limit` characters to fit in a one-line reason."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except ValueError:  # a value holding itself
        text = repr(value)
    return text if len(text) <= limit else f"{text[: limit - 1]}…"


def _header(response: Any, name: str) -> str:
    headers = getattr(response, "headers", None) or {}
    return str(headers.get(name) or "")


def _text(response: Any) -> str:
    try:
        return response.text or ""
    except Exception:  # an undecodable body
        return ""
