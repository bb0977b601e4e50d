"""The form that creates or edits a server profile, checking each field as the user types.

Secrets are typed in password inputs and never put back on screen: when a profile is edited,
a stored literal secret leaves its input empty ("unchanged") and is kept unless the user types
a new one. An ``env:NAME`` reference is not a secret, so it is shown as typed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any
from typing import cast
from urllib.parse import urlsplit

from pydantic import ValidationError
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.containers import Vertical
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button
from textual.widgets import Footer
from textual.widgets import Header
from textual.widgets import Input
from textual.widgets import Label
from textual.widgets import Select
from textual.widgets import Static
from textual.widgets import Switch
from textual.widgets import TextArea

from scim_tui.choices import JOBS
from scim_tui.choices import LIMITS
from scim_tui.choices import TIMEOUT
from scim_tui.store.paths import slug
from scim_tui.store.profiles import DEMO_NAME
from scim_tui.store.profiles import ENV_PREFIX
from scim_tui.store.profiles import TLS
from scim_tui.store.profiles import Auth
from scim_tui.store.profiles import AuthKind
from scim_tui.store.profiles import Profile
from scim_tui.store.profiles import ProfileChanged
from scim_tui.store.profiles import ProfileError
from scim_tui.store.profiles import ProfileSource
from scim_tui.store.profiles import load_profiles
from scim_tui.store.profiles import parse_source
from scim_tui.store.profiles import save_profile
from scim_tui.tui.screens.changed_on_disk import ChangedOnDiskScreen
from scim_tui.tui.screens.changed_on_disk import Resolution
from scim_tui.tui.screens.confirm import ConfirmScreen
from scim_tui.tui.screens.profiles import AUTH_LABELS

UNCHANGED = "unchanged"
SECRET_HINT = "or env:VARIABLE"


@dataclass(frozen=True)
class FormField:
    """A field of the form: the id of its widget, and the label its messages name it by."""

    id: str
    label: str
    hint: str = ""
    """Shown after the label, never in a message: "(optional)", how to write the value."""

    @property
    def title(self) -> str:
        return f"{self.label} {self.hint}" if self.hint else self.label


FIELDS = {
    "name": FormField("name", "Name"),
    "url": FormField("url", "Base URL"),
    "auth.kind": FormField("auth-kind", "Authentication"),
    "auth.token": FormField("token", "Token"),
    "auth.username": FormField("username", "User name"),
    "auth.password": FormField("password", "Password"),
    "auth.headers": FormField("auth-headers", "Credential headers"),
    "auth.token_url": FormField("token-url", "Token URL"),
    "auth.client_id": FormField("client-id", "Client id"),
    "auth.client_secret": FormField("client-secret", "Client secret"),
    "auth.scope": FormField("scope", "Scope", "(optional)"),
    "headers": FormField("extra-headers", "Extra headers", "(one per line, Name: value; not for secrets)"),
    "tls.verify": FormField("tls-verify", "Verify TLS certificates"),
    "tls.ca_bundle": FormField("ca-bundle", "CA bundle", "(optional)"),
    "tls.client_cert": FormField("client-cert", "Client certificate", "(optional)"),
    "tls.client_key": FormField("client-key", "Client key", "(optional)"),
    "timeout": FormField("timeout", "Timeout (seconds)"),
    "jobs": FormField("jobs", "Checks at once", "(optional)"),
}
"""The form's fields by the profile's key (a TOML key, dotted in its table): the one place that
says which label a key is shown under, so the form's messages name what the user sees. The
messages of `scim-tui check` and of a broken file name the keys: they are about the file."""


@dataclass
class FormValues:
    """What the form holds, secrets already merged with the stored ones they keep."""

    name: str = ""
    url: str = ""
    kind: AuthKind = AuthKind.NONE
    token: str = ""
    username: str = ""
    password: str = ""
    auth_headers: list[tuple[str, str]] = field(default_factory=list)
    token_url: str = ""
    client_id: str = ""
    client_secret: str = ""
    scope: str = ""
    extra_headers: str = ""
    verify: bool = True
    ca_bundle: str = ""
    client_cert: str = ""
    client_key: str = ""
    timeout: str = ""
    jobs: str = ""


def url_problem(url: str, what: str = "URL", example: str = "https://scim.example.com/v2") -> str | None:
    if not url:
        return f"Enter the {what}, e.g. {example}."
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - parsing the port is what raises on a bad one
    except ValueError as error:
        return f"The {what} does not parse ({error}): write it as https://host/path."
    if parts.scheme not in ("http", "https"):
        return f"The {what} must start with http:// or https://."
    if not parts.hostname:
        return f"The {what} has no host: write it as https://host/path."
    return None


def name_problem(name: str, taken: dict[str, str]) -> str | None:
    """``taken`` maps the file stem (slug) of every other profile to its name."""
    if not name:
        return "Enter a name for this profile."
    if not slug(name):
        return "The name needs at least one letter or digit."
    if name.casefold() == DEMO_NAME.casefold():
        return f"{DEMO_NAME} is the built-in demo profile: choose another name."
    if other := taken.get(slug(name)):
        return f"The profile {other} already has this name (or one saved under the same file name): choose another."
    return None


def number_problem(text: str, key: str, whole: bool = False) -> str | None:
    """Why a number field's text is not a number; its range is the model's to check (model_problems)."""
    try:
        if whole and not (text.isascii() and text.isdigit()):
            raise ValueError(text)
        int(text) if whole else float(text)
    except ValueError:
        limit = LIMITS[key]
        return f"{FIELDS[key].label}: enter {limit.unit}, e.g. {limit.example}."
    return None


def model_problems(error: ValidationError) -> dict[str, str]:
    """The Profile model's objections, by field id, each naming the field's label (not its key)."""
    problems: dict[str, str] = {}
    for found in error.errors():
        key = field_key(found["loc"])
        field = FIELDS.get(key, FormField(key, key))
        limit = LIMITS.get(key)
        what = f"must be {limit.describe()}, e.g. {limit.example}" if limit else found["msg"][:1].lower() + found["msg"][1:]
        problems.setdefault(field.id, f"{field.label}: {what}.")
    return problems


def field_key(location: tuple[int | str, ...]) -> str:
    """The key of the form's field an error's location is in (``headers.X-Tenant``: ``headers``)."""
    dotted = [".".join(str(part) for part in location[:end]) for end in range(len(location), 0, -1)]
    return next((key for key in dotted if key in FIELDS), dotted[0] if dotted else "")


def shown_number(value: float) -> str:
    """A number as the form shows it: as written in the file (12.3456789 stays whole), 30 for 30.0."""
    return f"{value:g}" if float(value).is_integer() else repr(float(value))


def path_problem(path: str) -> str | None:
    if path and not Path(path).expanduser().is_file():
        return f"No file at {path}: check the path."
    return None


def parse_headers(text: str) -> tuple[dict[str, str], str | None]:
    """Headers written one per line as ``Name: value``, and the first problem found."""
    headers: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        name, colon, value = line.partition(":")
        if not colon or not name.strip():
            return headers, f"Line {number} is not a header: write one per line as Name: value."
        headers[name.strip()] = value.strip()
    return headers, None


def auth_problems(values: FormValues) -> dict[str, str]:
    problems: dict[str, str] = {}
    if values.kind is AuthKind.BEARER and not values.token:
        problems["token"] = "Enter the bearer token (or env:VARIABLE)."
    if values.kind is AuthKind.BASIC:
        if not values.username:
            problems["username"] = "Enter the user name."
        if not values.password:
            problems["password"] = "Enter the password (or env:VARIABLE)."
    if values.kind is AuthKind.HEADERS:
        if any(bool(name) != bool(value) for name, value in values.auth_headers):
            problems["auth-headers"] = "Each header needs both a name and a value."
        elif not values.auth_headers or not all(values.auth_headers[0]):
            problems["auth-headers"] = "Enter at least one header with its name and value."
    if values.kind is AuthKind.OAUTH2:
        if problem := url_problem(values.token_url, "token URL", "https://auth.example.com/oauth2/token"):
            problems["token-url"] = problem
        if not values.client_id:
            problems["client-id"] = "Enter the client id."
        if not values.client_secret:
            problems["client-secret"] = "Enter the client secret (or env:VARIABLE)."
    return problems


def form_problems(values: FormValues, taken: dict[str, str], base: Profile | None = None) -> dict[str, str]:
    """Each field's problem, keyed by the field's id: the form's own checks, then the model's."""
    found = {
        "name": name_problem(values.name, taken),
        "url": url_problem(values.url, "base URL"),
        "extra-headers": parse_headers(values.extra_headers)[1],
        "timeout": number_problem(values.timeout, "timeout"),
        "jobs": number_problem(values.jobs, "jobs", whole=True) if values.jobs else None,
        "ca-bundle": path_problem(values.ca_bundle),
        "client-cert": path_problem(values.client_cert),
        "client-key": path_problem(values.client_key),
    }
    if values.client_key and not values.client_cert:
        found["client-key"] = found["client-key"] or "A client key needs its client certificate: fill in both."
    problems = {key: problem for key, problem in found.items() if problem} | auth_problems(values)
    # A number that does not parse is asked about with a stand-in, so the rest is checked still.
    stand_ins: dict[str, Any] = {"timeout": str(TIMEOUT.example), "jobs": ""}
    try:
        build_profile(replace(values, **{key: text for key, text in stand_ins.items() if key in problems}), base)
    except ValidationError as error:
        return model_problems(error) | problems
    return problems


def build_auth(values: FormValues) -> Auth:
    """The authentication of the chosen kind only, so no stale secret of another kind stays on disk."""
    kind = values.kind
    if kind is AuthKind.BEARER:
        return Auth(kind=kind, token=values.token)
    if kind is AuthKind.BASIC:
        return Auth(kind=kind, username=values.username, password=values.password)
    if kind is AuthKind.HEADERS:
        return Auth(kind=kind, headers={name: value for name, value in values.auth_headers if name})
    if kind is AuthKind.OAUTH2:
        return Auth(kind=kind, token_url=values.token_url, client_id=values.client_id, client_secret=values.client_secret, scope=values.scope or None)
    return Auth()


def form_part(values: FormValues) -> dict[str, Any]:
    """The keys of a profile the form shows, with the values it holds."""
    tls = TLS(verify=values.verify, ca_bundle=values.ca_bundle or None, client_cert=values.client_cert or None, client_key=values.client_key or None)
    return {
        "name": values.name,
        "url": values.url,
        "auth": build_auth(values).model_dump(),
        "headers": parse_headers(values.extra_headers)[0],
        "tls": tls.model_dump(),
        "timeout": float(values.timeout),
        "jobs": int(values.jobs) if values.jobs else None,
    }


def kept(now: Any, shown: Any, stored: Any) -> Any:
    """What the form holds (`now`), except where it still holds what it showed for a stored
    value (`shown`): there the stored value stays as written (a timeout of 12.3456789, a header
    value with spaces, an empty scope), not as the form reads it back."""
    if isinstance(now, Mapping) and isinstance(shown, Mapping) and isinstance(stored, Mapping) and now != shown:
        return {key: kept(value, shown.get(key), stored.get(key)) for key, value in now.items()}
    return stored if now == shown else now


@dataclass(frozen=True)
class Opened:
    """What the form showed when it opened, and the profile it showed it for."""

    shown: FormValues
    profile: Profile


def build_profile(values: FormValues, base: Profile | None, opened: Opened | None = None) -> Profile:
    """The profile the form describes; what the form does not show (selection, limits) is
    ``base``'s, and what the user left as the form showed it is ``opened``'s, as written."""
    update = form_part(values)
    if opened is not None:
        update = kept(update, form_part(opened.shown), opened.profile.model_dump(include=set(update)))
    return Profile.model_validate((base or Profile(name=values.name)).model_dump() | update | {"demo": False})


def shown_secret(value: str | None) -> str:
    """What a secret input starts with: only an env: reference is ever put back."""
    return value if value and value.startswith(ENV_PREFIX) else ""


def labelled(key: str, widget: Widget) -> Vertical:
    """The field of a profile's key: its label, its widget, and the line where its problem is explained."""
    field = FIELDS[key]
    return Vertical(Label(field.title), widget, Static("", id=f"{field.id}-error", classes="field-error"), classes="field")


class SecretInput(Input):
    """A password input that keeps a stored secret it never displays, unless a new one is typed."""

    def __init__(self, stored: str | None, id: str | None = None) -> None:  # noqa: A002
        shown = shown_secret(stored)
        self.stored = stored if stored and not shown else ""
        super().__init__(value=shown, password=not shown, placeholder=UNCHANGED if self.stored else SECRET_HINT, id=id, classes="secret")

    @property
    def secret(self) -> str:
        return self.value or self.stored

    @on(Input.Changed)
    def reveal_references(self) -> None:
        self.password = not self.value.startswith(ENV_PREFIX)


class HeaderRow(Horizontal):
    """One credential header: its name, and its value typed as a secret."""

    def __init__(self, name: str = "", value: str | None = None) -> None:
        super().__init__(classes="header-row")
        self.header_name = name
        self.header_value = value

    def compose(self) -> ComposeResult:
        yield Input(self.header_name, placeholder="Header name, e.g. X-API-Key", classes="header-name")
        yield SecretInput(self.header_value)

    @property
    def pair(self) -> tuple[str, str]:
        return self.query_one(".header-name", Input).value.strip(), self.query_one(SecretInput).secret


class ProfileFormScreen(Screen[Profile | None]):
    """Create a profile (no profile given), edit one, or save a copy of one (``duplicate``).

    ``source`` is the file the edited profile was read from, as it was then: a save finds out
    when the file changed on disk since (another scim-tui, an editor) and asks what to do.
    """

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="profile_form.save", priority=True),
        Binding("escape", "cancel", "Cancel", id="profile_form.cancel"),
    ]
    AUTO_FOCUS = None
    FORM = True
    """Keys type into the form: `q` is a letter here, not a way out of the app."""

    def __init__(self, profile: Profile | None = None, *, duplicate: bool = False, source: ProfileSource | None = None) -> None:
        super().__init__()
        self.base = profile
        self.previous_name = profile.name if profile and not duplicate else None
        self.source = None if duplicate else source
        self.touched: set[str] = set()
        """The fields the user changed: only their problems are shown, until a save is attempted."""
        self.show_all = False
        self.taken: dict[str, str] = {}
        self.opened: Opened | None = None
        self.shown = FormValues()
        """What the form held when it opened (or reloaded): what an edit is told apart from."""

    def compose(self) -> ComposeResult:
        profile = self.base or Profile(name="")
        auth = profile.auth
        yield Header()
        with VerticalScroll(id="profile-form"):
            yield labelled("name", Input(profile.name, id="name"))
            yield labelled("url", Input(profile.url, placeholder="https://scim.example.com/v2", id="url"))
            kinds = [(label, kind) for kind, label in AUTH_LABELS.items()]
            yield labelled("auth.kind", Select(kinds, value=auth.kind, allow_blank=False, id="auth-kind"))
            with Vertical(id="auth-bearer", classes="auth-fields"):
                yield labelled("auth.token", SecretInput(auth.token, id="token"))
            with Vertical(id="auth-basic", classes="auth-fields"):
                yield labelled("auth.username", Input(auth.username or "", id="username"))
                yield labelled("auth.password", SecretInput(auth.password, id="password"))
            with Vertical(id="auth-headers", classes="auth-fields field"):
                yield Label(FIELDS["auth.headers"].title)
                with Vertical(id="header-rows"):
                    for name, value in auth.headers.items():
                        yield HeaderRow(name, value)
                    if not auth.headers:
                        yield HeaderRow()
                yield Button("Add a header", id="add-header")
                yield Static("", id="auth-headers-error", classes="field-error")
            with Vertical(id="auth-oauth2", classes="auth-fields"):
                yield labelled("auth.token_url", Input(auth.token_url or "", placeholder="https://auth.example.com/oauth2/token", id="token-url"))
                yield labelled("auth.client_id", Input(auth.client_id or "", id="client-id"))
                yield labelled("auth.client_secret", SecretInput(auth.client_secret, id="client-secret"))
                yield labelled("auth.scope", Input(auth.scope or "", id="scope"))
            headers = "\n".join(f"{name}: {value}" for name, value in profile.headers.items())
            yield labelled("headers", TextArea(headers, id="extra-headers"))
            yield labelled("tls.verify", Switch(profile.tls.verify, id="tls-verify"))
            yield labelled("tls.ca_bundle", Input(profile.tls.ca_bundle or "", placeholder="path to a PEM file", id="ca-bundle"))
            yield labelled("tls.client_cert", Input(profile.tls.client_cert or "", placeholder="path to a PEM file", id="client-cert"))
            yield labelled("tls.client_key", Input(profile.tls.client_key or "", placeholder="path to a PEM file", id="client-key"))
            yield labelled("timeout", Input(shown_number(profile.timeout), id="timeout"))
            jobs = Input(str(profile.jobs or ""), placeholder=f"{JOBS.example} (1 for a fragile server)", id="jobs")
            yield labelled("jobs", jobs)
        yield Static("", id="form-status")
        yield Footer()

    def on_mount(self) -> None:
        self.prepare()

    def prepare(self) -> None:
        """Set the form up for the profile it edits (again after a reload from disk)."""
        self.title = f"Edit {self.previous_name}" if self.previous_name else "New profile"
        self.taken = {slug(profile.name): profile.name for profile in load_profiles().profiles if profile.name != self.previous_name}
        self.touched.clear()
        self.show_all = False
        self.show_auth_fields()
        self.shown = self.values()
        self.opened = Opened(self.shown, self.base) if self.base else None
        # Focusing before the first layout would scroll the form past the name's label.
        self.query_one("#name", Input).focus(scroll_visible=False)

    def values(self) -> FormValues:
        def text(key: str) -> str:
            return self.query_one(f"#{key}", Input).value.strip()

        def secret(key: str) -> str:
            return self.query_one(f"#{key}", SecretInput).secret.strip()

        return FormValues(
            name=text("name"),
            url=text("url"),
            kind=AuthKind(cast(str, self.query_one("#auth-kind", Select).value)),  # the select has no blank
            token=secret("token"),
            username=text("username"),
            password=secret("password"),
            auth_headers=[row.pair for row in self.query(HeaderRow)],
            token_url=text("token-url"),
            client_id=text("client-id"),
            client_secret=secret("client-secret"),
            scope=text("scope"),
            extra_headers=self.query_one("#extra-headers", TextArea).text,
            verify=self.query_one("#tls-verify", Switch).value,
            ca_bundle=text("ca-bundle"),
            client_cert=text("client-cert"),
            client_key=text("client-key"),
            timeout=text("timeout"),
            jobs=text("jobs"),
        )

    def show_problems(self) -> dict[str, str]:
        """Explain the problems of the fields the user has touched; return all of them."""
        problems = form_problems(self.values(), self.taken, self.base)
        for line in self.query(".field-error").results(Static):
            key = (line.id or "").removesuffix("-error")
            problem = problems.get(key, "") if self.show_all or key in self.touched else ""
            if str(line.content) != problem:
                line.update(Text(problem))
                line.set_class(bool(problem), "-shown")
        return problems

    def show_auth_fields(self) -> None:
        kind = self.query_one("#auth-kind", Select).value
        for group in self.query(".auth-fields"):
            group.display = group.id == f"auth-{kind}"

    def touch(self, widget: Widget) -> None:
        row = next((ancestor for ancestor in widget.ancestors if isinstance(ancestor, HeaderRow)), None)
        self.touched.add("auth-headers" if row else widget.id or "")
        self.show_problems()

    @on(Input.Changed)
    def input_changed(self, event: Input.Changed) -> None:
        self.touch(event.input)

    @on(TextArea.Changed)
    def text_changed(self, event: TextArea.Changed) -> None:
        self.touch(event.text_area)

    @on(Select.Changed, "#auth-kind")
    def kind_changed(self) -> None:
        self.show_auth_fields()
        self.show_problems()

    @on(Button.Pressed, "#add-header")
    async def add_header(self) -> None:
        row = HeaderRow()
        await self.query_one("#header-rows").mount(row)
        row.query_one(".header-name", Input).focus()

    def action_save(self) -> None:
        self.show_all = True
        problems = self.show_problems()
        status = self.query_one("#form-status", Static)
        if problems:
            which = f"{len(problems)} problems" if len(problems) > 1 else "problem"
            status.update(Text(f"Not saved: fix the {which} marked in red."))
            self.focus_first(problems)
            return
        self.save(build_profile(self.values(), self.base, self.opened), self.source)

    def save(self, profile: Profile, source: ProfileSource | None) -> None:
        status = self.query_one("#form-status", Static)
        try:
            saved = save_profile(profile, previous_name=self.previous_name, source=source)
        except ProfileChanged as changed:
            self.app.push_screen(ChangedOnDiskScreen(f"{changed} What now?"), partial(self.resolve, changed.now))
            return
        except ProfileError as error:
            status.update(Text(f"Not saved: {error}"))
            return
        if saved.notice:
            self.app.notify(saved.notice, severity="warning", markup=False)
        self.dismiss(profile)

    async def resolve(self, now: ProfileSource | None, choice: Resolution | None) -> None:
        """Act on the user's answer about a file that changed on disk (``now``: the file as it is; None if gone)."""
        current = parse_source(now) if now is not None else None
        if choice is Resolution.OVERWRITE:
            # What the form shows wins; what it does not show (jobs, a selection, ...) is the file's now.
            self.save(build_profile(self.values(), current if isinstance(current, Profile) else self.base, self.opened), now)
        elif choice is Resolution.RELOAD and isinstance(current, Profile):
            self.base, self.source, self.previous_name = current, now, current.name
            await self.recompose()
            self.prepare()
            self.query_one("#form-status", Static).update(Text(f"Reloaded {self.base.name} from disk: your edits were dropped."))
        elif choice is Resolution.RELOAD:
            what = "was deleted" if now is None else "is broken now"
            self.app.notify(f"The profile's file {what}: nothing to reload; see the profiles list.", severity="warning", markup=False)
            self.dismiss(None)
        else:
            self.query_one("#form-status", Static).update(Text("Not saved: the file changed on disk. Save again to choose once more."))

    def focus_first(self, problems: dict[str, str]) -> None:
        """Focus the topmost field that has a problem, so the user starts there."""
        keys = [(line.id or "").removesuffix("-error") for line in self.query(".field-error")]
        first = self.query_one(f"#{next(key for key in keys if key in problems)}")
        target = first if first.focusable else first.query(Input).first()
        target.focus()

    @property
    def edited(self) -> bool:
        """Whether the form holds anything else than what it showed when it opened."""
        return self.values() != self.shown

    def action_cancel(self) -> None:
        if not self.edited:
            self.dismiss(None)
            return
        self.app.push_screen(ConfirmScreen("Discard your edits to this profile?"), self.discard)

    def discard(self, yes: bool | None) -> None:
        if yes:
            self.dismiss(None)
