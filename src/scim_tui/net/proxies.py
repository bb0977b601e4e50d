"""HTTP proxies from the environment (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, NO_PROXY), as curl reads them.

Requests to an https URL go through a CONNECT tunnel; requests to an http URL are sent to the
proxy with the whole URL. Only http:// proxies are supported. Credentials in a proxy URL are
sent as Proxy-Authorization and never shown.
"""

from __future__ import annotations

import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from urllib.parse import unquote
from urllib.parse import urlsplit


class ProxySettingError(ValueError):
    """A proxy variable that cannot be used; the message is one line naming the fix."""


@dataclass(frozen=True)
class Proxy:
    host: str
    port: int
    variable: str
    """The environment variable it comes from, for messages."""
    credentials: tuple[str, str] | None = field(default=None, repr=False)
    """The user and password of the URL, when it gives them."""

    @property
    def label(self) -> str:
        """Where the proxy is and where it was set, without its credentials."""
        return f"{self.host}:{self.port} ({self.variable})"


ProxyFor = Callable[[str, str], Proxy | None]
"""The proxy for a request's scheme and host, or None to connect directly."""


class EnvironmentProxies:
    """The proxies the environment sets, checked when made (a ProxySettingError names a bad one);
    called with a request's scheme and host, the proxy it goes through (a ProxyFor)."""

    def __init__(self) -> None:
        self._settings = urllib.request.getproxies_environment()
        self.proxies = {scheme: _parsed(self._settings[scheme], scheme) for scheme in ("http", "https") if self._settings.get(scheme)}
        if "all" in self._settings:
            for scheme in ("http", "https"):
                self.proxies.setdefault(scheme, _parsed(self._settings["all"], "all"))

    def __call__(self, scheme: str, host: str) -> Proxy | None:
        proxy = self.proxies.get(scheme)
        if proxy is None or urllib.request.proxy_bypass_environment(host, self._settings):  # type: ignore[attr-defined]  # in CPython, not in typeshed
            return None
        return proxy


def _parsed(url: str, scheme: str) -> Proxy:
    variable = f"{scheme.upper()}_PROXY"
    parts = urlsplit(url if "://" in url else f"http://{url}")
    if parts.scheme != "http" or not parts.hostname:
        raise ProxySettingError(f"{variable} is not an http:// proxy URL: write it http://host:port (proxies spoken to over TLS are not supported).")
    try:
        port = parts.port or 80
    except ValueError as exc:
        raise ProxySettingError(f"{variable} has no valid port ({exc}): write it http://host:port.") from exc
    credentials = (unquote(parts.username), unquote(parts.password or "")) if parts.username is not None else None
    return Proxy(parts.hostname, port, variable, credentials)
