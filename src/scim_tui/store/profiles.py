"""Server profiles: what to check and how to reach it, saved as TOML in the user config dir.

The model first, then its storage: one ``<slug>.toml`` file per profile in ``profiles_dir()``,
written atomically. A file that does not load is listed as broken and never written over. A
saved edit changes only the keys that changed: comments, order, other keys and the file's mode
stay as the user wrote them, and a file changed on disk since it was read is not written over
(ProfileChanged) unless the caller passes what it now holds.
"""

from __future__ import annotations

import json
import re
import stat
from dataclasses import dataclass
from dataclasses import field
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic import ConfigDict
from pydantic import Field
from pydantic import ValidationError
from pydantic import field_validator
from tomlkit.exceptions import ParseError

from scim_tui.checker.limits import DEFAULT_RESPONSE_BYTES
from scim_tui.checker.limits import MAX_PROFILE_BYTES
from scim_tui.choices import JOBS
from scim_tui.choices import LIMITS
from scim_tui.choices import MAX_RATE
from scim_tui.choices import MAX_RESPONSE_BYTES
from scim_tui.choices import PROVIDERS
from scim_tui.choices import RESOURCE_TYPES
from scim_tui.choices import TIMEOUT
from scim_tui.choices import Limit
from scim_tui.errors import UserError
from scim_tui.selection import Selection
from scim_tui.store.paths import CONFIG_DIR_VARIABLE
from scim_tui.store.paths import PRIVATE
from scim_tui.store.paths import config_dir
from scim_tui.store.paths import read_bounded
from scim_tui.store.paths import slug
from scim_tui.store.paths import write_atomically
from scim_tui.store.toml_edits import TomlProblem
from scim_tui.store.toml_edits import edited_document
from scim_tui.store.toml_edits import new_document
from scim_tui.store.toml_edits import read_toml

DEMO_NAME = "Demo"
ENV_PREFIX = "env:"
"""A secret written as ``env:NAME`` is read from the environment variable NAME when a run starts."""


def within(limit: Limit, default: int | float | None) -> Any:
    """The pydantic field of a number: finite, within its range, and of the right type (no string, no boolean)."""
    finite: dict[str, Any] = {"allow_inf_nan": False} if isinstance(default, float) else {}
    return Field(default=default, ge=limit.low, le=limit.high, strict=True, **finite)


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


class DiscoveryFiles(BaseModel):
    """Discovery documents read from files, for a server that does not serve them (JSON: an
    object for the ServiceProviderConfig; a ListResponse, a list or one object for the others)."""

    model_config = ConfigDict(extra="forbid")

    service_provider_config: str | None = None
    resource_types: str | None = None
    schemas: str | None = None


class Profile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    url: str = ""
    """The base URL of the SCIM endpoints. Empty for the demo profile until its server starts."""
    auth: Auth = Field(default_factory=Auth)
    headers: dict[str, str] = Field(default_factory=dict)
    """Extra headers sent with every request (not secrets; put credentials in auth)."""
    tls: TLS = Field(default_factory=TLS)
    timeout: float = within(TIMEOUT, 30.0)
    """Seconds any single request may take, from sending it to reading the whole response."""
    max_response_bytes: int = within(MAX_RESPONSE_BYTES, DEFAULT_RESPONSE_BYTES)
    """A response body larger than this is read no further and the request fails."""
    jobs: int | None = within(JOBS, None)
    """How many checks run at once; None for the engine's default."""
    max_rate: int | None = within(MAX_RATE, None)
    """Requests per second at most, for a server with a strict rate limit; None for no limit."""
    max_resource_types: int | None = within(RESOURCE_TYPES, None)
    """The resource types a run checks at most; None for the engine's (checker/limits.py)."""
    discovery: DiscoveryFiles = Field(default_factory=DiscoveryFiles)
    """Files holding discovery documents that stand in for what the server serves."""
    baseline: str | None = None
    """The file of the failures accepted for now (the format of `scim-tui check --baseline`),
    relative to the config directory (not the profiles directory: each TOML file there is a
    profile) unless absolute; None: the app keeps it in its data dir."""
    require_ready: list[str] = Field(default_factory=list)
    """The identity providers (choices.PROVIDERS) whose NOT READY fails a run of this profile;
    any other provider's readiness is shown, and fails nothing."""
    selection: Selection = Field(default_factory=Selection)
    """The selection the run screen starts from the first time (the app remembers later ones in
    its own state, selections.py, and never writes them here)."""
    demo: bool = Field(default=False, exclude=True)
    """The embedded demo profile: not a file, targets the built-in server."""

    @field_validator("require_ready")
    @classmethod
    def _known_providers(cls, keys: list[str]) -> list[str]:
        unknown = [key for key in keys if key not in PROVIDERS]
        if unknown:
            raise ValueError(f"unknown identity provider {', '.join(map(repr, unknown))}: use some of {', '.join(PROVIDERS)}")
        return list(dict.fromkeys(keys))

    @classmethod
    def demo_profile(cls, url: str = "") -> Profile:
        """The built-in demo profile; `url` is its server's, once whoever needs it started one (demo.py)."""
        return cls(name=DEMO_NAME, demo=True, url=url)

    def has_literal_secret(self) -> bool:
        return any(not value.startswith(ENV_PREFIX) for value in self.auth.secret_values())


PROFILE_SUFFIX = ".toml"


class ProfileError(UserError):
    """A profile that cannot be found, saved or deleted; the message is one line naming the fix."""


@dataclass(frozen=True)
class ProfileSource:
    """A profile file as it was read: its exact bytes tell whether it changed on disk since."""

    path: Path
    content: bytes


class ProfileChanged(ProfileError):
    """The file changed on disk since the profile was read: saving would undo that change."""

    def __init__(self, source: ProfileSource, now: ProfileSource | None):
        what = "was deleted" if now is None else "was changed (by another scim-tui or an editor)"
        super().__init__(f"{source.path} {what} since it was opened: saving now would undo that.")
        self.now = now
        """The file as it is now (None when it is gone): pass it to save over it on purpose."""


@dataclass(frozen=True)
class SavedProfile:
    path: Path
    notice: str | None = None
    """What the user should know about the save, in one line (a file made private)."""


@dataclass
class BrokenProfile:
    """A profile file that does not load: it is shown, never written over."""

    path: Path
    message: str
    line: int | None = None


@dataclass
class ProfileList:
    profiles: list[Profile] = field(default_factory=list)
    """The profiles that load, sorted by name."""
    broken: list[BrokenProfile] = field(default_factory=list)
    sources: dict[str, ProfileSource] = field(default_factory=dict)
    """The file of each profile as it was read, by name."""
    problem: str | None = None
    """Why the profiles directory could not be read, when it could not (one line naming the fix)."""

    @property
    def files(self) -> dict[str, Path]:
        """The file of each profile, by name."""
        return {name: source.path for name, source in self.sources.items()}

    def named(self, name: str) -> Profile | None:
        return next((profile for profile in self.profiles if profile.name == name), None)

    def owner_of(self, path: Path) -> str | None:
        return next((name for name, source in self.sources.items() if source.path == path), None)

    def broken_at(self, path: Path) -> BrokenProfile | None:
        return next((broken for broken in self.broken if broken.path == path), None)


def profiles_dir() -> Path:
    return config_dir() / "profiles"


def load_profiles() -> ProfileList:
    """Every profile file of profiles_dir(); those that do not load are listed as broken."""
    found = ProfileList()
    directory = profiles_dir()
    try:
        paths = sorted(path for path in directory.iterdir() if path.name.endswith(PROFILE_SUFFIX))
    except FileNotFoundError:
        return found
    except OSError as exc:
        found.problem = _unreadable(directory, exc)
        return found
    for path in paths:
        source = _read(path)
        loaded = parse_source(source) if isinstance(source, ProfileSource) else source
        if isinstance(loaded, BrokenProfile):
            found.broken.append(loaded)
        elif loaded.name in found.sources:
            found.broken.append(
                BrokenProfile(path, f"defines the profile '{loaded.name}' again (already in {found.sources[loaded.name].path.name}): rename or remove one")
            )
        elif isinstance(source, ProfileSource):  # always: a source that did not read is a BrokenProfile
            found.profiles.append(loaded)
            found.sources[loaded.name] = source
    found.profiles.sort(key=lambda profile: profile.name.casefold())
    return found


def find_profile(name: str) -> Profile:
    """The profile of that name (the demo profile for DEMO_NAME), or a ProfileError saying what exists."""
    if name.casefold() == DEMO_NAME.casefold():
        return Profile.demo_profile()
    found = load_profiles()
    matches = [p for p in found.profiles if p.name == name] or [p for p in found.profiles if p.name.casefold() == name.casefold()]
    if len(matches) == 1:
        return matches[0]
    broken = found.broken_at(profiles_dir() / f"{slug(name)}{PROFILE_SUFFIX}")
    if broken is not None:
        raise ProfileError(f"The profile file {broken.path} is broken ({_where(broken)}{broken.message}): fix it or remove it.")
    names = ", ".join(sorted([DEMO_NAME, *found.sources], key=str.casefold))
    raise ProfileError(f"No profile named '{name}' in {profiles_dir()}: create it with scim-tui (key n on the profiles screen), or use one of: {names}.")


def save_profile(profile: Profile, previous_name: str | None = None, source: ProfileSource | None = None) -> SavedProfile:
    """Write a profile to its file, atomically.

    ``previous_name`` is the name the profile had when it was loaded: a renamed profile's old
    file is removed once the new one is written. Without it, the profile of the same name (if
    any) is replaced. A broken file or another profile's file is never written over.

    An existing file is edited, not rewritten: only the keys whose value changed are, and the
    file keeps its mode, unless that mode lets others read a literal secret (then it becomes
    0600, and the notice says so). ``source`` is the file as it was when the profile was read:
    if it changed on disk since, ProfileChanged is raised and nothing is written.
    """
    _check_savable(profile)
    directory = profiles_dir()
    if source is not None:
        _check_unchanged(source)
    found = load_profiles()
    if found.problem and directory.is_dir():  # readable no more, perhaps still writable: never write blind
        raise ProfileError(found.problem)
    target = found.files.get(profile.name) or directory / f"{slug(profile.name)}{PROFILE_SUFFIX}"
    _check_target(profile, previous_name, target, found)
    current = found.sources.get(previous_name or profile.name)
    try:
        content, mode, notice = _content(profile, current, found.named(previous_name or profile.name))
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        write_atomically(target, content, private=profile.has_literal_secret(), mode=mode)  # a linked file stays linked
        if current is not None and current.path != target:
            current.path.unlink(missing_ok=True)
    except OSError as exc:
        raise ProfileError(
            f"Cannot save the profile '{profile.name}' in {directory}: {_os_reason(exc)}: check that the directory "
            f"is writable and the disk not full, or set {CONFIG_DIR_VARIABLE} to another directory."
        ) from exc
    return SavedProfile(target, notice)


def _content(profile: Profile, current: ProfileSource | None, stored: Profile | None) -> tuple[bytes, int | None, str | None]:
    """The bytes of the profile's file, the mode to give it (None for a new file's), and a notice."""
    if current is None or stored is None:
        return new_document(profile.model_dump(mode="json", exclude_none=True, exclude_defaults=True)).encode(), None, None
    text = current.content.decode("utf-8")
    try:
        content = edited_document(text, stored.model_dump(mode="json", exclude_none=True), profile.model_dump(mode="json", exclude_none=True))
    except ParseError as exc:  # tomllib read it, tomlkit does not: never write over what cannot be edited
        raise ProfileError(f"{current.path} cannot be edited without rewriting it ({exc}): edit it in an editor.") from exc
    mode = stat.S_IMODE(current.path.stat().st_mode)
    if profile.has_literal_secret() and mode & 0o077:
        notice = f"{current.path.name} holds a literal secret and was readable by others (mode {mode:04o}): it is now {PRIVATE:04o}."
        return content.encode(), PRIVATE, notice
    return content.encode(), mode, None


def parse_source(source: ProfileSource) -> Profile | BrokenProfile:
    """The profile a file's bytes hold, or why they do not hold one."""
    path = source.path
    try:
        text = source.content.decode("utf-8")
    except UnicodeDecodeError:
        return BrokenProfile(path, "not UTF-8 text")
    try:
        data = read_toml(text)
    except TomlProblem as problem:
        return BrokenProfile(path, _toml_problem(problem), problem.line)
    data.setdefault("name", path.stem)
    try:
        profile = Profile.model_validate(data)
    except ValidationError as exc:
        return _invalid(path, text, exc)
    if profile.name.casefold() == DEMO_NAME.casefold():
        return BrokenProfile(path, f"the name {DEMO_NAME} belongs to the built-in demo profile: rename it", _key_line(text, ("name",)))
    return profile


def _toml_problem(problem: TomlProblem) -> str:
    if problem.kind == "syntax":
        return f"not valid TOML: {problem}"
    return f"{problem}: {'write a number in its range' if problem.kind == 'integer' else 'a profile needs two levels at most'}"


def delete_profile(name: str) -> None:
    path = load_profiles().files.get(name)
    if path is None:
        raise ProfileError(f"No profile named '{name}' in {profiles_dir()}: nothing to delete.")
    try:
        path.unlink()
    except OSError as exc:
        raise ProfileError(f"Cannot delete {path}: {_os_reason(exc)}: check the directory's permissions.") from exc


def _check_savable(profile: Profile) -> None:
    if profile.demo:
        raise ProfileError("The demo profile is built in and never saved: duplicate it to make a profile of your own.")
    if not slug(profile.name):
        raise ProfileError(f"The profile name '{profile.name}' has no letter or digit: give it a name with at least one.")
    if profile.name.casefold() == DEMO_NAME.casefold():
        raise ProfileError(f"The name {DEMO_NAME} belongs to the built-in demo profile: choose another name.")


def _check_target(profile: Profile, previous_name: str | None, target: Path, found: ProfileList) -> None:
    broken = found.broken_at(target)
    if broken is not None:
        raise ProfileError(
            f"{target} is a broken profile file ({_where(broken)}{broken.message}) and is never written over: fix or remove it, or choose another name."
        )
    owner = found.owner_of(target)
    if owner is not None and owner not in (profile.name, previous_name):
        raise ProfileError(f"{target} already holds the profile '{owner}': choose another name.")
    if previous_name is not None and previous_name != profile.name and profile.name in found.files:
        raise ProfileError(f"A profile named '{profile.name}' already exists: choose another name.")


def _read(path: Path) -> ProfileSource | BrokenProfile:
    try:
        return ProfileSource(path, read_bounded(path, MAX_PROFILE_BYTES))
    except OSError as exc:
        return BrokenProfile(path, f"cannot be read: {_os_reason(exc)}")


def _check_unchanged(source: ProfileSource) -> None:
    try:
        now: ProfileSource | None = ProfileSource(source.path, read_bounded(source.path, MAX_PROFILE_BYTES))
    except FileNotFoundError:
        now = None
    except OSError as exc:
        raise ProfileError(f"Cannot read {source.path} again before saving: {_os_reason(exc)}: check its permissions.") from exc
    if now != source:
        raise ProfileChanged(source, now)


def _invalid(path: Path, text: str, exc: ValidationError) -> BrokenProfile:
    errors = exc.errors()
    first = errors[0]
    location = ".".join(str(part) for part in first["loc"])
    more = f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
    limit = LIMITS.get(location)
    problem = (
        f"{location} = {_shown(first['input'])} is not {limit.describe()}: write e.g. {location} = {limit.example}" if limit else f"{location}: {first['msg']}"
    )
    return BrokenProfile(path, f"{problem}{more}", _key_line(text, first["loc"]))


def _shown(value: Any) -> str:
    """A value as a TOML file writes it, cut short when long."""
    if isinstance(value, (dict, list)):
        return "a table" if isinstance(value, dict) else "an array"
    text = json.dumps(value) if isinstance(value, (bool, str)) else str(value)
    return text if len(text) <= 24 else f"{text[:20]}…"


def _key_line(text: str, location: tuple[int | str, ...]) -> int | None:
    """The line where a key is written, for a dotted location like ("auth", "kind"); None when not found."""
    keys = [part for part in location if isinstance(part, str)]
    if not keys:
        return None
    table, key = ".".join(keys[:-1]), keys[-1]
    current = ""
    for number, line in enumerate(text.splitlines(), start=1):
        header = re.match(r"\s*\[\s*([^\]]+?)\s*\]", line)
        if header:
            current = header.group(1).replace('"', "")
        elif current == table and re.match(rf'\s*"?{re.escape(key)}"?\s*=', line):
            return number
    return None


def _where(broken: BrokenProfile) -> str:
    return f"line {broken.line}: " if broken.line else ""


def _unreadable(directory: Path, exc: OSError) -> str:
    in_the_way = next((path for path in [directory, *directory.parents] if path.exists() and not path.is_dir()), None)
    if in_the_way is not None:
        problem = f"{in_the_way} is a file, not a directory: move it away"
    else:
        problem = f"{directory} cannot be read ({_os_reason(exc)}): give yourself access to it"
    return f"Cannot read the profiles: {problem}, or set {CONFIG_DIR_VARIABLE} to another directory. The demo profile still works."


def _os_reason(exc: OSError) -> str:
    return exc.strerror or str(exc)
