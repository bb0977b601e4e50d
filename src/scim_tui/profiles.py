"""Server profiles: what to check and how to reach it, saved as TOML in the user config dir.

This module holds the model. Loading, saving and validation live beside it.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel
from pydantic import ConfigDict
from pydantic import Field

DEMO_NAME = "Demo"
ENV_PREFIX = "env:"
"""A secret written as ``env:NAME`` is read from the environment variable NAME when a run starts."""


class AuthKind(StrEnum):
    NONE = "none"
    BEARER = "bearer"
    BASIC = "basic"
    HEADERS = "headers"
    OAUTH2 = "oauth2"
    """OAuth 2.0 client credentials: the app fetches and refreshes the access token."""


class Auth(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: AuthKind = AuthKind.NONE
    token: str | None = None
    """Bearer token (kind bearer)."""
    username: str | None = None
    password: str | None = None
    """HTTP basic credentials (kind basic)."""
    headers: dict[str, str] = Field(default_factory=dict)
    """Headers carrying credentials, such as an API key (kind headers). Their values are secrets."""
    token_url: str | None = None
    client_id: str | None = None
    client_secret: str | None = None
    scope: str | None = None
    """OAuth 2.0 client credentials (kind oauth2)."""

    def secret_values(self) -> list[str]:
        """The raw values that are secrets (possibly still ``env:NAME`` references)."""
        values = [self.token, self.password, self.client_secret, *self.headers.values()]
        return [value for value in values if value]


class TLS(BaseModel):
    model_config = ConfigDict(extra="forbid")

    verify: bool = True
    ca_bundle: str | None = None
    client_cert: str | None = None
    client_key: str | None = None


class Selection(BaseModel):
    """The last choice of checks made for a profile, so the next run starts from it."""

    model_config = ConfigDict(extra="forbid")

    include_tags: list[str] = Field(default_factory=list)
    exclude_tags: list[str] = Field(default_factory=list)
    resource_types: list[str] = Field(default_factory=list)


class Profile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    url: str = ""
    """The base URL of the SCIM endpoints. Empty for the demo profile until its server starts."""
    auth: Auth = Field(default_factory=Auth)
    headers: dict[str, str] = Field(default_factory=dict)
    """Extra headers sent with every request (not secrets; put credentials in auth)."""
    tls: TLS = Field(default_factory=TLS)
    timeout: float = 30.0
    """Seconds any single request may take."""
    jobs: int | None = None
    """How many checks run at once; None for the engine's default."""
    selection: Selection = Field(default_factory=Selection)
    demo: bool = Field(default=False, exclude=True)
    """The embedded demo profile: not a file, targets the built-in server."""

    @classmethod
    def demo_profile(cls) -> Profile:
        return cls(name=DEMO_NAME, demo=True)

    def has_literal_secret(self) -> bool:
        return any(not value.startswith(ENV_PREFIX) for value in self.auth.secret_values())
