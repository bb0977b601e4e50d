"""OAuth 2.0 client credentials (RFC 6749 §4.4): fetch an access token, cache it, refresh it."""

from __future__ import annotations

import threading
import time
from collections.abc import Generator

import httpx2

from scim_tui.checker.exchanges import Redactor
from scim_tui.checker.secrets import Secrets
from scim_tui.net.header_values import unsendable

REFRESH_MARGIN = 30.0
"""Seconds before its expiry a token is replaced (at most half its lifetime)."""
MAX_LIFETIME = 10 * 365 * 24 * 3600
"""A longer expires_in (1e308 ...) is taken as no expiry at all."""


class TokenError(Exception):
    """The token endpoint gave no access token; the message is one line naming the fix."""


class ClientCredentials(httpx2.Auth):
    """Sends ``Authorization: Bearer <token>``, fetching the token from the token endpoint.

    The token is fetched on first use, replaced shortly before it expires, and once more
    when the server answers 401 (it may have been revoked). Each token fetched joins
    ``secrets`` at once, so it is redacted wherever it could appear from then on; what the
    token endpoint says in an error is redacted too (it may repeat the client secret).
    """

    def __init__(self, http: httpx2.Client, token_url: str, client_id: str, client_secret: str, scope: str | None, secrets: Secrets):
        self.http = http
        self.token_url = token_url
        self.client_id = client_id
        self.client_secret = client_secret
        self.scope = scope
        self.secrets = secrets
        self._token: str | None = None
        self._refresh_at = 0.0
        self.token_lifetime: float | None = None
        """Seconds the last token fetched lives (its expires_in; None when the endpoint gave none):
        the gallery validation's Validate_Credentials_Test reads it."""
        self._lock = threading.Lock()

    def auth_flow(self, request: httpx2.Request) -> Generator[httpx2.Request, httpx2.Response, None]:
        token = self.token()
        request.headers["Authorization"] = f"Bearer {token}"
        response = yield request
        if response.status_code == 401:
            request.headers["Authorization"] = f"Bearer {self.token(stale=token)}"
            yield request

    def token(self, stale: str | None = None) -> str:
        """A valid access token; ``stale`` is one the server refused, replaced unless another thread already did."""
        with self._lock:
            expired = time.monotonic() >= self._refresh_at
            if self._token is None or expired or self._token == stale:
                token, lifetime = self._fetch()
                self.secrets.add(token)  # before anyone can use it
                self._token, self.token_lifetime = token, lifetime
                self._refresh_at = time.monotonic() + lifetime - min(REFRESH_MARGIN, lifetime / 2) if lifetime else float("inf")
            return self._token

    def _fetch(self) -> tuple[str, float | None]:
        form = {"grant_type": "client_credentials", **({"scope": self.scope} if self.scope else {})}
        try:
            # HTTP Basic is the client authentication every server must accept (RFC 6749 §2.3.1);
            # some accept the credentials only in the form, so that is tried once when Basic is refused.
            response = self.http.post(self.token_url, data=form, auth=(self.client_id, self.client_secret))
            if response.status_code in (400, 401):
                credentials = {"client_id": self.client_id, "client_secret": self.client_secret}
                response = self.http.post(self.token_url, data={**form, **credentials})
        except httpx2.RequestError as exc:
            raise TokenError(self._redacted(f"The token endpoint {self.token_url} could not be reached: {exc}.")) from exc
        return self._read(response)

    def _read(self, response: httpx2.Response) -> tuple[str, float | None]:
        try:
            payload = response.json()
        except ValueError:
            payload = None
        if not isinstance(payload, dict):
            payload = {}
        token = payload.get("access_token")
        if response.status_code != 200 or not isinstance(token, str) or not token:
            problem = payload.get("error_description") or payload.get("error") or "no access_token in the answer"
            raise TokenError(
                self._redacted(
                    f"The token endpoint {self.token_url} answered {response.status_code} ({' '.join(str(problem).split())}): "
                    "check auth.token_url, auth.client_id, auth.client_secret and auth.scope."
                )
            )
        problem = unsendable(token, f"The access_token the token endpoint {self.token_url} answered", "check the token endpoint")
        if problem is not None:
            raise TokenError(problem)
        lifetime = payload.get("expires_in")
        return token, float(lifetime) if isinstance(lifetime, int | float) and 0 < lifetime < MAX_LIFETIME else None

    def _redacted(self, text: str) -> str:
        return Redactor(self.secrets).text(text) or ""
