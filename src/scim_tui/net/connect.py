"""From a profile to a connected scim2-client: URL, authentication, TLS, timeout and limits.

The HTTP client never follows a redirect: the run's recorder repeats a request a 307 or 308
answer directs to the base URL's origin, through the guard, recording both exchanges
(checker/recorder.py); anything else stays the 3xx a check judges, and no credentials go to
another host. The transport (transport.py) bounds each request in
time and size and tells transport errors in words a person understands. HTTP proxies are
taken from the environment (proxies.py), as curl takes them.
"""

from __future__ import annotations

import json
import os
import ssl
import time
from collections.abc import Iterator
from contextlib import ExitStack
from contextlib import contextmanager
from dataclasses import dataclass
from dataclasses import field
from datetime import UTC
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote
from urllib.parse import urlsplit

import httpx2
from scim2_client.engines.httpx2 import SyncSCIMClient

from scim_tui.checker.exchanges import Exchange
from scim_tui.checker.exchanges import Redactor
from scim_tui.checker.exchanges import TransportNotes
from scim_tui.checker.exchanges import status_line
from scim_tui.checker.limits import MAX_DOCUMENT_BYTES
from scim_tui.checker.listings import listing
from scim_tui.checker.recorder import recorded
from scim_tui.checker.secrets import Secrets
from scim_tui.errors import UserError
from scim_tui.net.cutoff import Cutoff
from scim_tui.net.header_values import unsendable
from scim_tui.net.oauth import ClientCredentials
from scim_tui.net.oauth import TokenError
from scim_tui.net.proxies import EnvironmentProxies
from scim_tui.net.proxies import ProxyFor
from scim_tui.net.proxies import ProxySettingError
from scim_tui.net.transport import GuardedTransport
from scim_tui.store.paths import read_bounded
from scim_tui.store.profiles import ENV_PREFIX
from scim_tui.store.profiles import TLS
from scim_tui.store.profiles import AuthKind
from scim_tui.store.profiles import DiscoveryFiles
from scim_tui.store.profiles import Profile

REFUSED = (401, 403, 407)
AUTHENTICATION_HINT = "check the profile's authentication"
"""What an answer refusing the credentials asks for (a target named by --url says its flags instead)."""
"""The statuses that refuse a request's credentials (407: the proxy's)."""
MAX_JOINED_URLS = 512
"""The joined URLs a connection keeps (ProfileHTTP); past it, it starts afresh."""


class ProfileClient(SyncSCIMClient):
    """scim2-client on httpx2, for one profile's connection: whether an endpoint stays under the
    base URL (scim2-client asks before each request, by building a whole request) is worked out
    once per endpoint, as the base URL of a connection never changes."""

    def __init__(self, client: httpx2.Client, *args: Any, **kwargs: Any) -> None:
        super().__init__(client, *args, **kwargs)
        self._under_base_url: dict[str, bool] = {}

    def _stays_under_base_url(self, endpoint: str) -> bool:
        known = self._under_base_url.get(endpoint)
        if known is None:
            known = self._under_base_url[endpoint] = super()._stays_under_base_url(endpoint)
        return known

    def check_response(self, payload: dict[str, Any] | None, *args: Any, **kwargs: Any) -> Any:
        """The answer read with each resource's id a number (``"id": 7``) taken as its text: RFC
        7643 §3.1 makes it a string, a fault object_creation reports once, and every other check
        reads the resource all the same (the exchange keeps what the server sent)."""
        return super().check_response(ids_as_text(payload), *args, **kwargs)


def ids_as_text(payload: Any) -> Any:
    """A resource, or a list of them (Resources), with an id that is a JSON number as its text."""
    if not isinstance(payload, dict):
        return payload
    key = next((name for name in payload if isinstance(name, str) and name.lower() == "resources"), None)  # names are case insensitive
    listed = payload.get(key) if key else None
    if isinstance(listed, list) and any(_numeric_id(item) for item in listed):
        payload = {**payload, key: [ids_as_text(item) for item in listed]}
    return {**payload, "id": str(payload["id"])} if _numeric_id(payload) else payload


def _numeric_id(resource: Any) -> bool:
    return isinstance(resource, dict) and isinstance(resource.get("id"), int) and not isinstance(resource.get("id"), bool)


class ProfileHTTP(httpx2.Client):
    """httpx2's client for one profile: a URL relative to the base URL is joined to it once and
    the joined URL reused, as httpx2 would join it again (two URL parses) for each request, and a
    run sends most of its requests to a few dozen URLs (a resource's, again and again)."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._joined: dict[str, httpx2.URL] = {}
        self._joined_under = self.base_url

    def _merge_url(self, url: httpx2.URL | str) -> httpx2.URL:
        if not isinstance(url, str):
            return super()._merge_url(url)
        if self._joined_under is not self.base_url or len(self._joined) >= MAX_JOINED_URLS:
            self._joined, self._joined_under = {}, self.base_url
        joined = self._joined.get(url)
        if joined is None:
            joined = self._joined[url] = super()._merge_url(url)
        return joined


class ConnectError(UserError):
    """A profile that cannot be turned into a client; the message is one line naming the fix."""


@dataclass
class Connection:
    client: SyncSCIMClient
    url: str
    secrets: Secrets = field(default_factory=Secrets)
    """The resolved secret values, for redaction wherever they could appear; OAuth access
    tokens join them as they are fetched."""
    documents: dict[str, Any] = field(default_factory=dict)
    """The discovery documents the profile's files supply (CheckConfig.documents)."""
    exchanges: list[Exchange] = field(default_factory=list)
    """Every exchange made on the connection, redacted, each with its start time: the probe's,
    then the run's (iter_checks' `exchanges`), for a report that holds every request."""
    notes: TransportNotes | None = None
    """What the transport did beyond sending a request once, per answer (iter_checks' `notes`)."""


@dataclass
class ConnectionTest:
    """The outcome of GET /ServiceProviderConfig with a profile, for a person to read."""

    ok: bool
    status_code: int | None
    elapsed: float
    """Seconds the request took."""
    message: str
    """One line: "200 OK in 12 ms", or what went wrong and what to do."""
    answer: httpx2.Response | None = field(default=None, repr=False, compare=False)
    """The answer to GET /ServiceProviderConfig, when one came."""


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
    """The base URL a profile targets; ConnectError for the demo profile before its server started."""
    if profile.demo and not profile.url:
        raise ConnectError("The demo server is not running: start it (scim_tui.demo.DemoServer) and give its URL to Profile.demo_profile(url).")
    return profile.url


@contextmanager
def open_client(profile: Profile, cutoff: Cutoff | None = None) -> Iterator[Connection]:
    """A scim2-client for a profile, with nothing discovered yet; closed afterwards. With a
    cutoff, another thread may end its requests at once (cutoff.py).

    Raises ConnectError when the profile cannot be used as it is (a missing variable, an
    unreadable certificate, a token endpoint that gives no token).
    """
    url = _checked_url(target_url(profile))
    documents = discovery_documents(profile.discovery)
    context = ssl_context(profile.tls)
    headers, secrets = _credential_headers(profile)
    parts = urlsplit(url)
    if parts.password:
        secrets.add_basic(unquote(parts.username or ""), unquote(parts.password))
    proxies = _proxies(profile, secrets)
    with ExitStack() as stack:
        auth: httpx2.Auth | None = _oauth(profile, context, proxies, secrets, stack, cutoff) if profile.auth.kind is AuthKind.OAUTH2 else None
        if profile.auth.kind is AuthKind.BASIC:
            password = resolve_secret(profile.auth.password or "")
            secrets.add_basic(profile.auth.username or "", password)
            auth = httpx2.BasicAuth(profile.auth.username or "", password)
        transport = _transport(profile, context, proxies, cutoff)
        http = stack.enter_context(_http_client(profile, transport, base_url=url, headers=headers, auth=auth))
        if isinstance(auth, ClientCredentials):
            _first_token(auth)
        yield Connection(ProfileClient(http), url, secrets, documents, notes=transport)


def discovery_documents(files: DiscoveryFiles) -> dict[str, Any]:
    """The discovery documents a profile's files hold, as JSON, by kind; ConnectError naming the
    file and the fix when one cannot be read, is not JSON, or holds no document."""
    documents = {}
    for kind, path in files.model_dump(exclude_none=True).items():
        label = kind.replace("_", " ")
        try:
            documents[kind] = json.loads(read_bounded(Path(path).expanduser(), MAX_DOCUMENT_BYTES))
            if kind != "service_provider_config":
                listing(documents[kind])
        except OSError as exc:
            raise ConnectError(f"The {label} file {path} cannot be read ({_reason(exc)}): fix discovery.{kind} (or its flag).") from exc
        except (ValueError, RecursionError) as exc:
            raise ConnectError(f"The {label} file {path} holds no {label} document ({' '.join(str(exc).split())[:200]}): fix the file.") from exc
    return documents


def test_connection(profile: Profile, cutoff: Cutoff | None = None) -> ConnectionTest:
    """GET /ServiceProviderConfig with the profile: the status and time, or why it failed."""
    try:
        with open_client(profile, cutoff) as connection:
            return probe(connection)
    except ConnectError as exc:
        return ConnectionTest(False, None, 0.0, str(exc))


def probe(connection: Connection) -> ConnectionTest:
    """GET /ServiceProviderConfig on an open connection: the status and time, or why it failed.

    Servers often serve that document without credentials, so once it answers, the credentials
    are tried on a resource endpoint too (the first /ResourceTypes names): a refusal there is
    the test's outcome.
    """
    redactor = Redactor(connection.secrets)  # an error may quote what was sent or what came back
    started = time.perf_counter()
    try:
        response = _get(connection, "/ServiceProviderConfig")
        elapsed = time.perf_counter() - started
        refusal = _refusal(connection) if response.status_code == 200 else None
    except (httpx2.RequestError, TokenError) as exc:
        return ConnectionTest(False, None, time.perf_counter() - started, redactor.text(str(exc)) or "")
    if refusal is not None:
        took = refusal.elapsed.total_seconds()
        return ConnectionTest(False, refusal.status_code, took, redactor.text(f"GET {refusal.url.path} answered {_answer(refusal, took)}") or "")
    return ConnectionTest(response.status_code == 200, response.status_code, elapsed, redactor.text(_answer(response, elapsed)) or "", response)


def unusable(profile: Profile, connection: Connection) -> str | None:
    """The one line that says a run cannot start: nothing answers, the credentials are refused,
    or the target is not a SCIM server; None when the server answered anything else (for the
    checks to judge)."""
    outcome = probe(connection)
    where = "the demo server" if profile.demo else Redactor().url(profile.url)
    if outcome.status_code is None:
        return f"Cannot reach {where}: {outcome.message}"
    if outcome.status_code in REFUSED:
        return f"{where} refused the credentials: {outcome.message}"
    return _not_scim(connection, outcome.answer, where)


def _not_scim(connection: Connection, config: httpx2.Response | None, where: str) -> str | None:
    """The line that says the target is not a SCIM server: it serves neither of the discovery
    documents every SCIM service provider serves (RFC 7644 §4), each GET answered 404 or an HTML
    page; None when it serves either, or the profile supplies either."""
    supplied = {"service_provider_config", "resource_types"} & connection.documents.keys()
    if config is None or supplied or not _no_document(config):
        return None
    try:
        listed = _get(connection, "/ResourceTypes")
    except httpx2.RequestError:
        return None
    if not _no_document(listed):
        return None
    answers = " and ".join(f"GET {response.url.path} answered {_shown(response)}" for response in (config, listed))
    return f"{where} is not a SCIM server ({answers}): check the URL, it should be the base of the SCIM endpoints (e.g. https://example.com/scim/v2)."


def _no_document(response: httpx2.Response) -> bool:
    """Whether an answer holds no SCIM document at all: a 404, or an HTML page (a web site)."""
    return response.status_code == 404 or _html(response)


def _html(response: httpx2.Response) -> bool:
    return response.headers.get("Content-Type", "").lower().startswith("text/html") or response.content.lstrip()[:1] == b"<"


def _shown(response: httpx2.Response) -> str:
    status = status_line(response.status_code)
    return f"an HTML page ({status})" if _html(response) else status


def _get(connection: Connection, path: str, **params: Any) -> httpx2.Response:
    """GET a path straight through httpx2, its exchange kept on the connection."""
    started_at, started = datetime.now(UTC), time.perf_counter()
    response = connection.client.client.get(path, params=params or None)
    connection.exchanges.append(recorded(response, Redactor(connection.secrets), started_at, time.perf_counter() - started, connection.notes))
    return response


def _refusal(connection: Connection) -> httpx2.Response | None:
    """The answer that refuses the credentials, on /ResourceTypes or the first resource endpoint;
    None when neither does (an answer the transport refused, garbled or too deep, is for the
    checks to judge, not a refusal)."""
    try:
        listed = _get(connection, "/ResourceTypes")
        if listed.status_code in REFUSED:
            return listed
        endpoint = _first_endpoint(listed)
        answer = _get(connection, endpoint, count=1) if endpoint is not None else None
    except httpx2.RequestError:
        return None
    return answer if answer is not None and answer.status_code in REFUSED else None


def _first_endpoint(listed: httpx2.Response) -> str | None:
    """The endpoint of the first resource type in a /ResourceTypes answer, when it names one."""
    try:
        first = listing(listed.json()).items[:1]
    except ValueError:  # not JSON, or no list at all: for the discovery checks to judge
        return None
    endpoint = first[0].get("endpoint") if first else None
    return endpoint if isinstance(endpoint, str) and endpoint.startswith("/") and "//" not in endpoint else None


test_connection.__test__ = False  # type: ignore[attr-defined]  # not a pytest test, despite its name


def ssl_context(tls: TLS) -> ssl.SSLContext:
    """The TLS settings of a profile; a CA bundle or client certificate that cannot be read is a ConnectError."""
    try:
        if not tls.verify:
            context = httpx2.create_ssl_context(verify=False)
        elif tls.ca_bundle:
            bundle = Path(tls.ca_bundle).expanduser()
            context = ssl.create_default_context(capath=bundle) if bundle.is_dir() else ssl.create_default_context(cafile=bundle)
        else:
            context = httpx2.create_ssl_context(verify=True)
    except (OSError, ssl.SSLError) as exc:
        raise ConnectError(f"tls.ca_bundle {tls.ca_bundle} cannot be used ({_reason(exc)}): point it to a PEM file of CA certificates.") from exc
    if tls.client_cert:
        key = str(Path(tls.client_key).expanduser()) if tls.client_key else None
        try:
            context.load_cert_chain(Path(tls.client_cert).expanduser(), key)
        except (OSError, ssl.SSLError) as exc:
            raise ConnectError(
                f"tls.client_cert {tls.client_cert} cannot be used ({_reason(exc)}): point it (and tls.client_key) to PEM files of a certificate and its key."
            ) from exc
    return context


def _checked_url(url: str) -> str:
    parsed = httpx2.URL(url) if url else None
    if parsed is None or parsed.scheme not in ("http", "https") or not parsed.host:
        raise ConnectError(f"The profile's URL '{url}' is not an http(s) URL: write the base URL of the SCIM endpoints, e.g. https://example.com/scim/v2.")
    return url


def _credential_headers(profile: Profile) -> tuple[dict[str, str], Secrets]:
    """The headers sent with every request (credentials included), and the secrets among them;
    ConnectError, naming where a value comes from (never the value), when HTTP cannot send it."""
    headers = {name: _sendable(value, value, f"headers.{name}") for name, value in profile.headers.items()}
    secrets = Secrets()
    if profile.auth.kind is AuthKind.BEARER:
        token = _sendable(resolve_secret(profile.auth.token or ""), profile.auth.token or "", "auth.token")
        headers["Authorization"] = f"Bearer {token}"
        secrets.add(token)
    elif profile.auth.kind is AuthKind.HEADERS:
        for name, value in profile.auth.headers.items():
            headers[name] = _sendable(resolve_secret(value), value, f"auth.headers.{name}")
            secrets.add(headers[name])
    return headers, secrets


def _sendable(value: str, written: str, key: str) -> str:
    """A header value as resolved from what the profile has `written` at `key`; ConnectError
    when HTTP cannot carry it."""
    where = f"The environment variable {written.removeprefix(ENV_PREFIX)} ({key})" if written.startswith(ENV_PREFIX) else f"The value of {key}"
    problem = unsendable(value, where)
    if problem is not None:
        raise ConnectError(problem)
    return value


def _proxies(profile: Profile, secrets: Secrets) -> ProxyFor | None:
    """The environment's proxies (none for the embedded server), their credentials learnt as secrets."""
    if profile.demo:
        return None
    try:
        proxies = EnvironmentProxies()
    except ProxySettingError as exc:
        raise ConnectError(str(exc)) from exc
    for proxy in proxies.proxies.values():
        if proxy.credentials is not None:
            secrets.add_basic(*proxy.credentials)
    return proxies


def _transport(profile: Profile, context: ssl.SSLContext, proxy_for: ProxyFor | None, cutoff: Cutoff | None) -> GuardedTransport:
    transport = GuardedTransport(context, profile.timeout, profile.max_response_bytes, proxy_for)
    if cutoff is not None:
        cutoff.watch(transport)
    return transport


def _http_client(profile: Profile, transport: GuardedTransport, **options: object) -> httpx2.Client:
    # trust_env=False: the transport itself goes through the environment's proxies, under its
    # limits (httpx2 would give them a transport of its own).
    return ProfileHTTP(
        transport=transport,
        timeout=profile.timeout,
        follow_redirects=False,
        trust_env=False,
        **options,
    )


def _oauth(profile: Profile, context: ssl.SSLContext, proxies: ProxyFor | None, secrets: Secrets, stack: ExitStack, cutoff: Cutoff | None) -> ClientCredentials:
    auth = profile.auth
    if not (auth.token_url and auth.client_id and auth.client_secret):
        raise ConnectError("OAuth 2.0 client credentials need auth.token_url, auth.client_id and auth.client_secret: fill them in the profile.")
    client_id, client_secret = resolve_secret(auth.client_id), resolve_secret(auth.client_secret)
    secrets.add_basic(client_id, client_secret)  # a token endpoint may repeat the Basic header it was sent
    token_http = stack.enter_context(_http_client(profile, _transport(profile, context, proxies, cutoff)))
    return ClientCredentials(token_http, auth.token_url, client_id, client_secret, auth.scope, secrets)


def _first_token(auth: ClientCredentials) -> None:
    try:
        auth.token()
    except TokenError as exc:
        raise ConnectError(str(exc)) from exc


def _answer(response: httpx2.Response, elapsed: float) -> str:
    status = f"{status_line(response.status_code)} in {elapsed * 1000:.0f} ms"
    if response.status_code == 200:
        return status
    if response.status_code == 407:
        return f"{status}: the proxy asks for credentials: put them in its URL (http://user:password@host:port)."
    if response.status_code in REFUSED:
        return f"{status}: {AUTHENTICATION_HINT}."
    if response.is_redirect:
        return f"{status}: the server redirects to {response.headers.get('Location', '?')}; use that URL if you trust it."
    if response.status_code == 404:
        return f"{status}: check the URL, it should be the base of the SCIM endpoints (e.g. https://example.com/scim/v2)."
    return f"{status}: the server did not answer the discovery request."


def _reason(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or getattr(exc, "reason", None) or str(exc)
