"""The app's settings: its theme and how the run screen shows the results, in ``<config dir>/settings.toml``.

Read once at start-up, written atomically each time one changes: the keys that changed are
rewritten, comments and the rest stay as written. A file that does not read (not TOML, an
unknown key, a value of the wrong kind) is one line naming the file and the problem: the
defaults are used, and the file is never written over until it reads again.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel
from pydantic import ConfigDict
from pydantic import Field
from pydantic import ValidationError
from pydantic import field_validator

from scim_tui.checker import Status
from scim_tui.checker.limits import MAX_STATE_BYTES
from scim_tui.store.paths import config_dir
from scim_tui.store.paths import read_bounded
from scim_tui.store.paths import write_atomically
from scim_tui.store.toml_edits import TomlProblem
from scim_tui.store.toml_edits import edited_document
from scim_tui.store.toml_edits import new_document
from scim_tui.store.toml_edits import read_toml

DEFAULT_THEME = "textual-dark"


class Sort(StrEnum):
    """The order of the results within each group."""

    RUN_ORDER = "run order"
    FAILURES_FIRST = "failures first"


class Settings(BaseModel):
    """What the app remembers between sessions, whatever the profile."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    theme: str = DEFAULT_THEME
    sort: Sort = Sort.RUN_ORDER
    hidden_statuses: list[str] = Field(default_factory=list)
    """The statuses whose results the run screen hides (their names: "SKIPPED" ...)."""
    sidebar: bool = Field(default=True, strict=True)
    """Whether the run screen shows its sidebar (the tags, the resource types) from 100 columns on; below, it hides itself."""
    by_cause: bool = Field(default=True, strict=True)
    """One line for the results that share one cause, rather than one line per result."""

    @field_validator("hidden_statuses")
    @classmethod
    def _status_names(cls, names: list[str]) -> list[str]:
        unknown = [name for name in names if name not in Status.__members__]
        if unknown:
            raise ValueError(f"{unknown[0]!r} is no status: write some of {', '.join(Status.__members__)}")
        return list(dict.fromkeys(names))

    @property
    def shown_statuses(self) -> set[Status]:
        return {status for status in Status if status.name not in self.hidden_statuses}


class SettingsError(Exception):
    """The settings file does not read: one line naming it and the problem."""


def settings_file() -> Path:
    return config_dir() / "settings.toml"


def load_settings() -> Settings:
    """The settings in the file, the defaults when there is none; SettingsError when it does not read."""
    path = settings_file()
    try:
        return _read(path)
    except FileNotFoundError:
        return Settings()


def _read(path: Path) -> Settings:
    try:
        return Settings.model_validate(read_toml(read_bounded(path, MAX_STATE_BYTES).decode("utf-8")))
    except FileNotFoundError:
        raise
    except (OSError, UnicodeDecodeError, TomlProblem, ValidationError) as exc:
        raise SettingsError(
            f"Ignored the settings file {path} ({_reason(exc)}): the defaults are used, and nothing is saved in it until you fix or delete it."
        ) from None


def save_settings(settings: Settings) -> None:
    """Write the settings: the file's keys that differ are changed, the rest stays as written.
    SettingsError when the file does not read (it is left as it is); OSError when it cannot be written."""
    path = settings_file()
    values = settings.model_dump(mode="json")
    try:
        stored = _read(path)
    except FileNotFoundError:
        content = new_document(values)
    else:
        content = edited_document(path.read_text(encoding="utf-8"), stored.model_dump(mode="json"), values)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, content.encode())


def _reason(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"] if isinstance(part, str))
        if first["type"] == "extra_forbidden":
            return f"{where} is no setting: the settings are {', '.join(Settings.model_fields)}"
        error = first.get("ctx", {}).get("error")
        return f"{where}: {error if error is not None else first['msg']}"
    if isinstance(exc, TomlProblem):
        return f"not TOML: {exc}"
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    if isinstance(exc, UnicodeDecodeError):
        return "not UTF-8 text"
    return str(exc)
