"""Fuzzed profile, history and app state files never cost a run, its report, or a traceback.

Property-style: hypothesis writes random profile files (a random TOML value for each key, or
garbage) and random history files (a stored report with a random value in a random field,
deep nesting, huge or infinite numbers, garbage bytes, cut gzip), then the real command and
the real app go at them. The command runs in this process through its entry point, as a new
one would (a handful of examples, each a short run); the library and the app, with more examples.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import math
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from scim_tui.reports import RunReport
from scim_tui.selection import Selection
from scim_tui.store import history
from scim_tui.store import selections
from scim_tui.store.profiles import BrokenProfile
from scim_tui.store.profiles import Profile
from scim_tui.store.profiles import load_profiles
from scim_tui.store.profiles import profiles_dir
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.screens.profiles import ProfilesScreen
from scim_tui.tui.widgets.run_status import Phase
from tests.support.command import scim_tui_here
from tests.support.history import report_with
from tests.tui.conftest import SIZE
from tests.tui.conftest import run_checks

FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow], derandomize=True)
"""Derandomized: the examples are the same on every run, so CI is repeatable (and a failure too)."""

# Values, as TOML and JSON files may hold them.

huge_numbers = st.sampled_from([10**19, -(10**19), 10**400, float("inf"), float("-inf"), float("nan"), 1e308, -1e308, 5e-324])
scalars = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    huge_numbers,
    st.text(max_size=20),
)
values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text("abcxyz_", min_size=1, max_size=5), inner, max_size=3), max_leaves=8
)


def toml_value(value: Any) -> str:
    """A value written as TOML (what json.dumps writes for a string is a valid TOML basic string, mostly)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    return "{ " + ", ".join(f"{json.dumps(key)} = {toml_value(item)}" for key, item in value.items()) + " }"


PROFILE_KEYS = ["timeout", "jobs", "max_response_bytes", "url", "name", "headers", "auth", "tls", "selection", "demo"]


@st.composite
def profile_files(draw, url: str = "http://127.0.0.1:9/v2", keys: list[str] = PROFILE_KEYS) -> str:
    """A profile file: a sound one with random values for some keys, or random text."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.text(max_size=200))
    fields: dict[str, str] = {"name": '"Fuzzed"', "url": json.dumps(url)}
    for key in draw(st.lists(st.sampled_from(keys), max_size=3, unique=True)):
        fields[key] = toml_value(draw(values))
    if draw(st.booleans()):
        fields["timeout"] = toml_value(draw(st.sampled_from([1, 600, 0.5, 601, 30.0, float("inf"), float("nan"), 1e308, 10**30, "30", True])))
    return "".join(f"{key} = {value}\n" for key, value in fields.items())


def replaced(document: Any, path: list[Any], value: Any) -> Any:
    """The document with the value at ``path`` (as far as it leads) replaced."""
    if not path or not isinstance(document, (dict, list)) or not document:
        return value
    key = path[0] % len(document) if isinstance(document, list) else path[0]
    if isinstance(document, list):
        return [replaced(item, path[1:], value) if index == key else item for index, item in enumerate(document)]
    return {**document, key: replaced(document.get(key), path[1:], value)}


SOUND = json.loads(report_with())
FIELDS = [
    ["duration"],
    ["started_at"],
    ["target"],
    ["tool"],
    ["tool", "version"],
    ["results"],
    ["results", 0],
    ["results", 0, "status"],
    ["results", 0, "tags"],
    ["results", 0, "data"],
    ["results", 0, "exchanges"],
    ["results", 0, "exchanges", 0, "elapsed"],
    ["results", 0, "exchanges", 0, "request_headers"],
    ["results", 0, "exchanges", 0, "status_code"],
    ["selection"],
    ["schema_version"],
]


@st.composite
def history_files(draw) -> tuple[str, bytes]:
    """A run file's name and content: a report with one bad field, or worse."""
    kind = draw(st.sampled_from(["field", "field", "field", "deep", "garbage", "cut gzip", "gzip garbage", "sound"]))
    if kind == "deep":
        depth = draw(st.integers(100, 5000))
        content = b'{"schema_version": 1, "results": ' + b"[" * depth + b"]" * depth + b"}"
    elif kind == "garbage":
        content = draw(st.binary(max_size=300))
    elif kind == "cut gzip":
        whole = gzip.compress(report_with(), mtime=0)
        return "20250101T000000000000Z.json.gz", whole[: draw(st.integers(0, len(whole) - 1))]
    elif kind == "gzip garbage":
        return "20250101T000000000000Z.json.gz", gzip.compress(draw(st.binary(max_size=300)), mtime=0)
    elif kind == "sound":
        content = report_with()
    else:
        field = draw(st.sampled_from(FIELDS))
        content = json.dumps(replaced(SOUND, field, draw(values))).replace("Infinity", "1e400").encode()
    if draw(st.booleans()):
        return "20250101T000000000000Z.json.gz", gzip.compress(content, mtime=0)
    return "20250101T000000000000Z.json", content


@contextmanager
def fresh_dirs(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A new config and data dir for one example (the test's own tmp_path is shared by all of them)."""
    with tempfile.TemporaryDirectory() as home:
        monkeypatch.setenv("XDG_CONFIG_HOME", f"{home}/config")
        monkeypatch.setenv("XDG_DATA_HOME", f"{home}/data")
        yield Path(home)


def write_history(profile: str, name: str, content: bytes) -> Path:
    folder = history.profile_dir(profile)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(content)
    return folder


def write_profile(text: str, stem: str = "fuzzed") -> Path:
    profiles_dir().mkdir(parents=True, exist_ok=True)
    path = profiles_dir() / f"{stem}.toml"
    path.write_text(text, encoding="utf-8")
    return path


# The library: fast, so many examples.


@settings(FUZZ, max_examples=150)
@given(file=history_files())
def test_history_never_raises_for_any_run_file(monkeypatch, file):
    name, content = file
    with fresh_dirs(monkeypatch):
        folder = write_history("Fuzzed", name, content)
        warnings: list[str] = []
        report = history.latest("Fuzzed", warn=warnings.append)
        if report is None:
            assert len(warnings) == 1 and "\n" not in warnings[0]
            assert (folder / "set-aside" / name).read_bytes() == content
        else:
            assert warnings == [] and history.compare(report, report) is not None
            assert report.summary_line() and report.started_at.astimezone()


@settings(FUZZ, max_examples=150)
@given(text=profile_files())
def test_any_profile_file_loads_or_is_broken_with_one_line(monkeypatch, text):
    with fresh_dirs(monkeypatch):
        path = write_profile(text)
        found = load_profiles()
        [entry] = found.profiles or found.broken
        if isinstance(entry, BrokenProfile):
            assert entry.message and "\n" not in entry.message and entry.path == path
        else:
            assert isinstance(entry, Profile) and 1 <= entry.timeout <= 600


@settings(FUZZ, max_examples=100)
@given(content=st.binary(max_size=200) | values.map(lambda value: json.dumps(value).encode()) | st.just(b"[" * 5000))
def test_any_selection_state_is_read_or_ignored_with_one_line(monkeypatch, content):
    with fresh_dirs(monkeypatch):
        path = selections.selection_file("Fuzzed")
        path.parent.mkdir(parents=True)
        path.write_bytes(content)
        warnings: list[str] = []
        own = Selection(include_tags=["misc"])
        remembered = selections.remembered(Profile(name="Fuzzed", selection=own), warn=warnings.append)
        if warnings:
            [line] = warnings
            assert remembered == own and str(path) in line and "\n" not in line
        else:
            assert remembered == Selection.model_validate_json(content)


# The command, against a real server: a handful of examples.


@settings(FUZZ, max_examples=6)
@given(data=st.data())
def test_check_with_fuzzed_profile_and_history_always_writes_its_report(monkeypatch, scim_server, data):
    with fresh_dirs(monkeypatch) as home:
        sound = f'name = "Fuzzed"\nurl = "{scim_server.url}"\njobs = {data.draw(st.integers(1, 32))}\n'
        write_profile(data.draw(st.just(sound) | profile_files(scim_server.url, ["timeout", "jobs", "max_response_bytes", "selection", "tls"])))
        loadable = bool(load_profiles().profiles)
        name, content = data.draw(history_files())
        write_history("Fuzzed", name, content)
        output = home / "report.json"
        process = scim_tui_here("check", "--profile", "Fuzzed", "--include-tags", "misc", "--format", "json", "--output", str(output))
        assert "Traceback" not in process.stderr
        if process.returncode == 2:  # a broken profile, or one that cannot run (no URL, a 1 KiB response limit ...)
            [line] = process.stderr.splitlines()
            assert line.startswith("scim-tui: error: ") and not output.exists()
        else:
            assert loadable and process.returncode in (0, 1), process.stderr
            assert all(line.startswith("scim-tui: warning: ") for line in process.stderr.splitlines())
            assert RunReport.from_dict(json.loads(output.read_text())).results


# The app, in process.


@settings(FUZZ, max_examples=8)
@given(texts=st.lists(profile_files(), min_size=1, max_size=4))
def test_the_profiles_screen_lists_fuzzed_profiles_without_crashing(monkeypatch, texts):
    async def look() -> list[str]:
        app = ScimTuiApp()
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, ProfilesScreen)
            for _ in range(len(texts) + 1):  # every entry's details drawn, a broken file's too
                await pilot.press("down")
            return [str(option.prompt) for option in app.screen.query_one("#profile-list").options]

    with fresh_dirs(monkeypatch):
        for index, text in enumerate(texts):
            write_profile(text, f"fuzzed-{index}")
        found = load_profiles()
        listed = asyncio.run(look())
    assert len(listed) == 1 + len(found.profiles) + len(found.broken)


@settings(FUZZ, max_examples=5)
@given(file=history_files())
def test_a_run_in_the_app_with_a_fuzzed_history_finishes_with_its_results(monkeypatch, scim_server, file):
    async def run() -> None:
        app = ScimTuiApp(Profile(name="Fuzzed", url=scim_server.url, selection={"include_tags": ["misc"]}))
        async with app.run_test(size=SIZE) as pilot:
            screen = await run_checks(pilot)
            assert screen.progress.phase is Phase.FINISHED and screen.progress.error is None
            assert screen.state.rows
            assert not [n for n in app._notifications if n.severity == "error"]

    with fresh_dirs(monkeypatch):
        write_history("Fuzzed", *file)
        asyncio.run(run())
        assert history.latest("Fuzzed") is not None, "the run was recorded"


def test_the_stored_report_the_fuzzing_starts_from_is_sound():
    """Each fuzzed file differs from this one by what hypothesis put in it."""
    assert RunReport.from_dict(SOUND).results
