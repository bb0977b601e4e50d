"""OAuth 2.0 test endpoints: a token endpoint, a server that records headers, and a profile using them."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

from scim_tui.store.profiles import Auth
from scim_tui.store.profiles import AuthKind
from scim_tui.store.profiles import Profile


class HeaderRecorder:
    """A WSGI middleware that records the headers of every request before the application answers."""

    def __init__(self, app: Any):
        self.app = app
        self.seen: list[dict[str, str]] = []

    def __call__(self, environ: dict[str, Any], start_response: Callable) -> Any:
        self.seen.append({key[5:].replace("_", "-").lower(): value for key, value in environ.items() if key.startswith("HTTP_")})
        return self.app(environ, start_response)


class TokenEndpoint:
    """A tiny OAuth 2.0 token endpoint: each token it issues becomes the only one the SCIM app accepts."""

    def __init__(self, scim_app: Any, client_id: str, client_secret: str, expires_in: int = 3600, basic: bool = True):
        self.scim_app = scim_app
        self.credentials = (client_id, client_secret)
        self.expires_in = expires_in
        self.basic = basic
        self.issued: list[str] = []
        self.forms: list[dict[str, list[str]]] = []

    def __call__(self, environ: dict[str, Any], start_response: Callable) -> list[bytes]:
        length = int(environ.get("CONTENT_LENGTH") or 0)
        form = parse_qs(environ["wsgi.input"].read(length).decode())
        self.forms.append(form)
        if environ["REQUEST_METHOD"] != "POST" or form.get("grant_type") != ["client_credentials"]:
            return self._answer(start_response, "400 Bad Request", {"error": "unsupported_grant_type"})
        if self._client(environ, form) != self.credentials:
            return self._answer(start_response, "401 Unauthorized", {"error": "invalid_client", "error_description": "bad client credentials"})
        token = f"access-{len(self.issued) + 1}-{time.monotonic_ns()}"
        self.issued.append(token)
        self.scim_app.bearer_tokens.clear()
        self.scim_app.bearer_tokens.add(token)
        return self._answer(start_response, "200 OK", {"access_token": token, "token_type": "Bearer", "expires_in": self.expires_in})

    def _client(self, environ: dict[str, Any], form: dict[str, list[str]]) -> tuple[str, str] | None:
        authorization = environ.get("HTTP_AUTHORIZATION", "")
        if self.basic and authorization.startswith("Basic "):
            client_id, _, secret = base64.b64decode(authorization[6:]).decode().partition(":")
            return client_id, secret
        if not self.basic and "client_id" in form:
            return form["client_id"][0], form.get("client_secret", [""])[0]
        return None

    def _answer(self, start_response: Callable, status: str, body: dict[str, Any]) -> list[bytes]:
        start_response(status, [("Content-Type", "application/json")])
        return [json.dumps(body).encode()]


def oauth_profile(scim_url: str, token_url: str, secret: str = "cl1ent-secret", **auth: Any) -> Profile:
    settings = {"token_url": token_url, "client_id": "checker", "client_secret": secret, "scope": "scim", **auth}
    return Profile(name="oauth", url=scim_url, auth=Auth(kind=AuthKind.OAUTH2, **settings))
