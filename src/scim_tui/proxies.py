"""HTTP proxies from the environment (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, NO_PROXY), as curl reads them.

Requests to an https URL go through a CONNECT tunnel; requests to an http URL are sent to the
proxy with the whole URL. Only http:// proxies are supported. Credentials in a proxy URL are
sent as Proxy-Authorization and never shown.
"""

from __future__ import annotations

import base64
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
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
    authorization: str | None = None
    """The Proxy-Authorization header's value, from the URL's credentials."""

    @property
    def label(self) -> str:
        """Where the proxy is and where it was set, without its credentials."""
        return f"{self.host}:{self.port} ({self.variable})"


ProxyFor = Callable[[str, str], Proxy | None]
"""The proxy for a request's scheme and host, or None to connect directly."""


def environment_proxies() -> ProxyFor:
    """The proxies the environment sets, checked now (a ProxySettingError names a bad one)."""
    settings = urllib.request.getproxies_environment()
    proxies = {scheme: _parsed(settings[scheme], scheme) for scheme in ("http", "https") if settings.get(scheme)}
    if "all" in settings:
        for scheme in ("http", "https"):
            proxies.setdefault(scheme, _parsed(settings["all"], "all"))

    def proxy_for(scheme: str, host: str) -> Proxy | None:
        proxy = proxies.get(scheme)
        if proxy is None or urllib.request.proxy_bypass_environment(host, settings):
            return None
        return proxy

    return proxy_for


def _parsed(url: str, scheme: str) -> Proxy:
    variable = f"{scheme.upper()}_PROXY"
    parts = urlsplit(url if "://" in url else f"http://{url}")
    if parts.scheme != "http" or not parts.hostname:
        raise ProxySettingError(f"{variable} is not an http:// proxy URL: write it http://host:port (proxies spoken to over TLS are not supported).")
    try:
        port = parts.port or 80
    except ValueError as exc:
        raise ProxySettingError(f"{variable} has no valid port ({exc}): write it http://host:port.") from exc
    authorization = None
    if parts.username is not None:
        pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
        authorization = "Basic " + base64.b64encode(pair.encode()).decode("ascii")
    return Proxy(parts.hostname, port, variable, authorization)
