"""From a profile to a connected scim2-client: URL, authentication, TLS and timeout."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from dataclasses import field

import httpx2
from scim2_client.engines.httpx2 import SyncSCIMClient

from scim_tui import demo
from scim_tui.profiles import ENV_PREFIX
from scim_tui.profiles import AuthKind
from scim_tui.profiles import Profile


class ConnectError(Exception):
    """A profile that cannot be turned into a client; the message is one line naming the fix."""


@dataclass
class Connection:
    client: SyncSCIMClient
    url: str
    secrets: list[str] = field(default_factory=list)
    """The resolved secret values, for redaction wherever they could appear."""


def resolve_secret(value: str) -> str:
    """A secret's value: literal, or read from the environment when written ``env:NAME``."""
    if not value.startswith(ENV_PREFIX):
        return value
    name = value.removeprefix(ENV_PREFIX)
    resolved = os.environ.get(name)
    if resolved is None:
        raise ConnectError(f"The environment variable {name} is not set: export it, or write the secret in the profile.")
    return resolved


def target_url(profile: Profile) -> str:
    """The base URL a profile targets; the demo profile starts the embedded server."""
    return demo.shared_server().url if profile.demo else profile.url


@contextmanager
def open_client(profile: Profile) -> Iterator[Connection]:
    """A scim2-client for a profile, with nothing discovered yet; closed afterwards."""
    headers = dict(profile.headers)
    auth: httpx2.Auth | None = None
    secrets: list[str] = []
    kind = profile.auth.kind
    if kind is AuthKind.BEARER:
        token = resolve_secret(profile.auth.token or "")
        headers["Authorization"] = f"Bearer {token}"
        secrets.append(token)
    elif kind is AuthKind.BASIC:
        password = resolve_secret(profile.auth.password or "")
        auth = httpx2.BasicAuth(profile.auth.username or "", password)
        secrets.append(password)
    elif kind is AuthKind.HEADERS:
        for name, value in profile.auth.headers.items():
            headers[name] = resolve_secret(value)
            secrets.append(headers[name])
    url = target_url(profile)
    with httpx2.Client(base_url=url, headers=headers, auth=auth, timeout=profile.timeout, verify=profile.tls.verify) as http:
        yield Connection(SyncSCIMClient(http), url, secrets)
