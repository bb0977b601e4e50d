"""Profiles on disk: real TOML files in the temporary config dir of each test."""

from __future__ import annotations

import os
import resource
import signal
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from scim_tui.net.connect import ConnectError
from scim_tui.net.connect import resolve_secret
from scim_tui.selection import Selection
from scim_tui.store.paths import config_dir
from scim_tui.store.profiles import DEMO_NAME
from scim_tui.store.profiles import TLS
from scim_tui.store.profiles import Auth
from scim_tui.store.profiles import AuthKind
from scim_tui.store.profiles import Profile
from scim_tui.store.profiles import ProfileChanged
from scim_tui.store.profiles import ProfileError
from scim_tui.store.profiles import ProfileSource
from scim_tui.store.profiles import delete_profile
from scim_tui.store.profiles import find_profile
from scim_tui.store.profiles import load_profiles
from scim_tui.store.profiles import profiles_dir
from scim_tui.store.profiles import save_profile
from tests.support.profiles import HAND_WRITTEN
from tests.support.profiles import hand_written

EVERY_AUTH = [
    Auth(),
    Auth(kind=AuthKind.BEARER, token="s3cr3t-token"),
    Auth(kind=AuthKind.BASIC, username="alice", password="env:SCIM_PASSWORD"),
    Auth(kind=AuthKind.HEADERS, headers={"X-Api-Key": "k3y-value", "X-Tenant-Key": "env:TENANT_KEY"}),
    Auth(kind=AuthKind.OAUTH2, token_url="https://login.example.com/token", client_id="checker", client_secret="cl13nt", scope="scim.read scim.write"),
]


def full_profile(name: str = "Staging", auth: Auth | None = None) -> Profile:
    return Profile(
        name=name,
        url="https://scim.example.com/v2",
        auth=auth or Auth(),
        headers={"X-Trace": "scim-tui"},
        tls=TLS(verify=False, ca_bundle="/etc/ssl/ca.pem", client_cert="/etc/ssl/me.pem", client_key="/etc/ssl/me.key"),
        timeout=12.5,
        max_response_bytes=2048,
        jobs=4,
        selection=Selection(include_tags=["discovery"], exclude_tags=["crud:delete"], resource_types=["User"]),
    )


def test_the_config_dir_honours_xdg_and_the_override(isolated_dirs, monkeypatch, tmp_path):
    assert profiles_dir() == isolated_dirs / "config" / "scim-tui" / "profiles"
    monkeypatch.setenv("SCIM_TUI_CONFIG_DIR", str(tmp_path / "elsewhere"))
    assert config_dir() == tmp_path / "elsewhere"


def test_a_missing_directory_means_no_profile():
    assert not profiles_dir().exists()
    found = load_profiles()
    assert found.profiles == [] and found.broken == []


@pytest.mark.parametrize("auth", EVERY_AUTH, ids=[auth.kind.value for auth in EVERY_AUTH])
def test_every_auth_kind_round_trips(auth):
    profile = full_profile(auth=auth)
    path = save_profile(profile).path
    assert path == profiles_dir() / "staging.toml"
    assert load_profiles().profiles == [profile]
    assert find_profile("Staging") == profile


def test_defaults_are_not_written_and_the_file_reads_well():
    save_profile(Profile(name="Local dev", url="http://localhost:8000/scim/v2"))
    text = (profiles_dir() / "local-dev.toml").read_text()
    assert text == 'name = "Local dev"\nurl = "http://localhost:8000/scim/v2"\n'


def test_profiles_are_sorted_by_name_and_found_regardless_of_case():
    for name in ["zeta", "Alpha", "mid"]:
        save_profile(Profile(name=name, url=f"http://{name}.example/v2"))
    assert [p.name for p in load_profiles().profiles] == ["Alpha", "mid", "zeta"]
    assert find_profile("ALPHA").name == "Alpha"
    assert find_profile(DEMO_NAME).demo


def test_an_unknown_name_says_where_it_looked_and_what_exists():
    save_profile(Profile(name="Staging", url="http://staging.example/v2"))
    with pytest.raises(ProfileError) as error:
        find_profile("prod")
    message = str(error.value)
    assert "No profile named 'prod'" in message and str(profiles_dir()) in message
    assert "Demo, Staging" in message and "\n" not in message


def test_env_secrets_are_resolved_when_the_run_starts(monkeypatch):
    save_profile(full_profile(auth=Auth(kind=AuthKind.BEARER, token="env:SCIM_TOKEN")))
    token = find_profile("Staging").auth.token
    assert token == "env:SCIM_TOKEN"
    monkeypatch.setenv("SCIM_TOKEN", "from-the-environment")
    assert resolve_secret(token) == "from-the-environment"
    assert resolve_secret("literal") == "literal"


def test_a_missing_variable_is_a_one_line_error_naming_it(monkeypatch):
    monkeypatch.delenv("SCIM_TOKEN", raising=False)
    with pytest.raises(ConnectError, match="SCIM_TOKEN is not set") as error:
        resolve_secret("env:SCIM_TOKEN")
    assert "\n" not in str(error.value)


@pytest.mark.parametrize(
    ("auth", "private"),
    [
        (Auth(kind=AuthKind.BEARER, token="literal-token"), True),
        (Auth(kind=AuthKind.OAUTH2, token_url="https://x/token", client_id="id", client_secret="literal"), True),
        (Auth(kind=AuthKind.HEADERS, headers={"X-Api-Key": "literal"}), True),
        (Auth(kind=AuthKind.BEARER, token="env:SCIM_TOKEN"), False),
        (Auth(), False),
    ],
)
def test_a_file_holding_a_literal_secret_is_private(auth, private):
    umask = os.umask(0o022)
    try:
        path = save_profile(full_profile(auth=auth)).path
    finally:
        os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == (0o600 if private else 0o644)


def test_a_malformed_file_is_listed_with_its_line_and_never_touched():
    save_profile(Profile(name="Good", url="http://good.example/v2"))
    broken = profiles_dir() / "broken.toml"
    content = b'name = "Broken"\nurl = "http://x"\ntimeout = = 3\n'
    broken.write_bytes(content)
    found = load_profiles()
    assert [p.name for p in found.profiles] == ["Good"]
    [listed] = found.broken
    assert listed.path == broken and listed.line == 3 and "not valid TOML" in listed.message

    save_profile(Profile(name="Other", url="http://other.example/v2"))
    save_profile(Profile(name="Good", url="http://good.example/v3"), previous_name="Good")
    with pytest.raises(ProfileError, match="broken profile file .*line 3"):
        save_profile(Profile(name="Broken", url="http://y"))
    assert broken.read_bytes() == content
    assert [p.name for p in load_profiles().profiles] == ["Good", "Other"]


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ('name = "A"\n\n[auth]\nkind = "kerberos"\n', "auth.kind: Input should be", 4),
        ('name = "A"\ntimeout = -1\n', "timeout = -1 is not a number of seconds from 1 to 600: write e.g. timeout = 30", 2),
        ('name = "A"\nurll = "http://x"\n', "urll: Extra inputs are not permitted", 2),
        ('name = "Demo"\n', "belongs to the built-in demo profile", 1),
    ],
)
def test_a_file_that_does_not_validate_is_broken_with_the_line_of_the_key(text, message, line):
    profiles_dir().mkdir(parents=True)
    (profiles_dir() / "a.toml").write_text(text)
    [broken] = load_profiles().broken
    assert message in broken.message and broken.line == line
    assert "\n" not in broken.message


def test_an_undecodable_file_is_broken_and_the_others_load():
    save_profile(Profile(name="Good", url="http://good.example/v2"))
    (profiles_dir() / "latin.toml").write_bytes(b'name = "caf\xe9"\n')
    found = load_profiles()
    assert [p.name for p in found.profiles] == ["Good"]
    assert found.broken[0].message == "not UTF-8 text"


def test_renaming_writes_the_new_file_then_removes_the_old_one():
    save_profile(full_profile("Staging"))
    renamed = full_profile("Staging EU")
    path = save_profile(renamed, previous_name="Staging").path
    assert path.name == "staging-eu.toml"
    assert sorted(p.name for p in profiles_dir().iterdir()) == ["staging-eu.toml"]
    assert find_profile("Staging EU") == renamed


def test_another_profiles_file_or_name_is_never_overwritten():
    save_profile(Profile(name="Staging", url="http://one.example/v2"))
    with pytest.raises(ProfileError, match="already holds the profile 'Staging'"):
        save_profile(Profile(name="staging", url="http://two.example/v2"))
    save_profile(Profile(name="Prod", url="http://prod.example/v2"))
    with pytest.raises(ProfileError, match="'Staging' already exists"):
        save_profile(Profile(name="Staging", url="http://prod.example/v2"), previous_name="Prod")
    assert find_profile("Staging").url == "http://one.example/v2"
    assert find_profile("Prod").url == "http://prod.example/v2"


@pytest.mark.parametrize("profile", [Profile.demo_profile(), Profile(name="demo", url="http://x"), Profile(name="!!!", url="http://x")])
def test_the_demo_profile_and_unusable_names_are_never_saved(profile):
    with pytest.raises(ProfileError):
        save_profile(profile)
    assert not profiles_dir().exists() or list(profiles_dir().iterdir()) == []


def test_delete_removes_the_file_and_an_unknown_name_is_an_error():
    save_profile(Profile(name="Staging", url="http://one.example/v2"))
    delete_profile("Staging")
    assert list(profiles_dir().iterdir()) == []
    with pytest.raises(ProfileError, match="No profile named 'Staging'"):
        delete_profile("Staging")


@contextmanager
def file_size_limit(limit: int) -> Iterator[None]:
    """Make any write past `limit` bytes fail with EFBIG, as a full disk would fail it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)


def test_a_failed_write_leaves_the_previous_file_whole_and_no_temporary_file():
    path = save_profile(Profile(name="Staging", url="http://one.example/v2")).path
    before = path.read_bytes()
    bigger = full_profile("Staging", Auth(kind=AuthKind.BEARER, token="x" * 4096))
    with file_size_limit(len(before) + 10), pytest.raises(ProfileError, match="Cannot save the profile 'Staging'") as error:
        save_profile(bigger)
    assert "\n" not in str(error.value)
    assert path.read_bytes() == before
    assert [p.name for p in profiles_dir().iterdir()] == ["staging.toml"]


def test_an_unwritable_config_dir_is_a_clear_error(monkeypatch, tmp_path):
    in_the_way = tmp_path / "a-file"
    in_the_way.write_text("not a directory")
    monkeypatch.setenv("SCIM_TUI_CONFIG_DIR", str(in_the_way))
    with pytest.raises(ProfileError, match="check that the directory is writable and the disk not full, or set SCIM_TUI_CONFIG_DIR"):
        save_profile(Profile(name="Staging", url="http://one.example/v2"))
    assert load_profiles().profiles == []
    assert in_the_way.read_text() == "not a directory"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through directory permissions")
def test_a_read_only_config_dir_is_a_clear_error():
    save_profile(Profile(name="Staging", url="http://one.example/v2"))
    profiles_dir().chmod(0o500)
    try:
        with pytest.raises(ProfileError, match="Permission denied"):
            save_profile(Profile(name="Other", url="http://two.example/v2"))
    finally:
        profiles_dir().chmod(0o700)


def test_temporary_files_are_not_profiles():
    save_profile(Profile(name="Staging", url="http://one.example/v2"))
    (profiles_dir() / ".staging.toml.1234.tmp").write_text("half a fi")
    found = load_profiles()
    assert [p.name for p in found.profiles] == ["Staging"] and found.broken == []


def test_a_file_without_a_name_takes_its_file_name():
    profiles_dir().mkdir(parents=True)
    (profiles_dir() / "vendor-sandbox.toml").write_text('url = "https://sandbox.example/scim/v2"\n')
    assert find_profile("vendor-sandbox").url == "https://sandbox.example/scim/v2"


def test_the_file_of_a_hand_named_profile_is_kept_on_save():
    profiles_dir().mkdir(parents=True)
    hand_written = profiles_dir() / "My Server.toml"
    hand_written.write_text('name = "Mine"\nurl = "http://mine.example/v2"\n')
    assert save_profile(Profile(name="Mine", url="http://mine.example/v3")).path == hand_written
    assert [p.name for p in Path(profiles_dir()).iterdir()] == ["My Server.toml"]


def test_saving_an_edit_changes_only_the_changed_keys_and_keeps_the_mode():
    path = hand_written()
    source = load_profiles().sources["Staging"]
    profile = find_profile("Staging")
    edited = profile.model_copy(update={"url": "https://scim.staging.example.com/v3", "headers": {"X-Tenant": "acme"}})
    assert save_profile(edited, previous_name="Staging", source=source).path == path
    expected = HAND_WRITTEN.replace('/v2"   #', '/v3"   #') + '\n[headers]\nX-Tenant = "acme"\n'
    assert path.read_text() == expected
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert find_profile("Staging") == edited


def test_saving_an_unchanged_profile_leaves_the_file_byte_for_byte():
    path = hand_written()
    assert save_profile(find_profile("Staging"), previous_name="Staging").notice is None
    assert path.read_text() == HAND_WRITTEN


def test_a_value_put_back_to_its_default_and_a_removed_key_are_written_in_place():
    path = hand_written()
    profile = find_profile("Staging")
    save_profile(
        profile.model_copy(update={"timeout": 45.0, "jobs": None, "auth": Auth(kind=AuthKind.BASIC, username="ops", password="env:PW")}),
        previous_name="Staging",
    )
    text = path.read_text()
    assert "timeout = 45            # seconds; the default, written on purpose\n" in text
    assert "jobs" not in text and "token" not in text, "no stale key, no secret of another kind stays"
    assert '[auth]\nkind = "basic"\nusername = "ops"\npassword = "env:PW"\n' in text
    assert text.startswith(HAND_WRITTEN.split("jobs")[0].replace("timeout = 30 ", "timeout = 45 "))


def test_a_literal_secret_makes_a_readable_file_private_and_says_so():
    path = hand_written(0o644)
    saved = save_profile(find_profile("Staging").model_copy(update={"auth": Auth(kind=AuthKind.BEARER, token="l1teral")}), previous_name="Staging")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert saved.notice == "staging.toml holds a literal secret and was readable by others (mode 0644): it is now 0600."
    assert path.read_text() == HAND_WRITTEN.replace('"env:STAGING_TOKEN"', '"l1teral"')


def test_a_file_changed_on_disk_since_it_was_read_is_not_overwritten():
    path = hand_written()
    source = load_profiles().sources["Staging"]
    elsewhere = HAND_WRITTEN.replace("jobs = 2", "jobs = 8")
    path.write_text(elsewhere)
    edited = find_profile("Staging").model_copy(update={"url": "https://other.example/v2"})
    with pytest.raises(ProfileChanged, match=r"staging\.toml was changed \(by another scim-tui or an editor\) since it was opened") as changed:
        save_profile(edited, previous_name="Staging", source=source)
    assert path.read_text() == elsewhere
    assert changed.value.now == ProfileSource(path, elsewhere.encode())
    save_profile(edited.model_copy(update={"jobs": 8}), previous_name="Staging", source=changed.value.now)
    assert path.read_text() == elsewhere.replace("scim.staging.example.com/v2", "other.example/v2")
    path.unlink()
    with pytest.raises(ProfileChanged, match="was deleted since it was opened") as gone:
        save_profile(edited, previous_name="Staging", source=source)
    assert gone.value.now is None and not path.exists()


def test_a_linked_profile_file_stays_a_link(tmp_path):
    real = tmp_path / "dotfiles" / "staging.toml"
    real.parent.mkdir()
    real.write_text(HAND_WRITTEN)
    profiles_dir().mkdir(parents=True)
    link = profiles_dir() / "staging.toml"
    link.symlink_to(real)
    save_profile(find_profile("Staging").model_copy(update={"jobs": 3}), previous_name="Staging")
    assert link.is_symlink() and real.read_text() == HAND_WRITTEN.replace("jobs = 2", "jobs = 3")


BAD_NUMBERS = [
    ("timeout", "inf", "inf", "a number of seconds from 1 to 600", "30"),
    ("timeout", "nan", "nan", "a number of seconds from 1 to 600", "30"),
    ("timeout", "1e308", "1e+308", "a number of seconds from 1 to 600", "30"),
    ("timeout", "-inf", "-inf", "a number of seconds from 1 to 600", "30"),
    ("timeout", "0.5", "0.5", "a number of seconds from 1 to 600", "30"),
    ("timeout", "601", "601", "a number of seconds from 1 to 600", "30"),
    ("timeout", '"30"', '"30"', "a number of seconds from 1 to 600", "30"),
    ("timeout", "true", "true", "a number of seconds from 1 to 600", "30"),
    ("jobs", "0", "0", "a whole number of checks run at once from 1 to 32", "4"),
    ("jobs", "33", "33", "a whole number of checks run at once from 1 to 32", "4"),
    ("jobs", "4.0", "4.0", "a whole number of checks run at once from 1 to 32", "4"),
    ("jobs", "9223372036854775807", "9223372036854775807", "a whole number of checks run at once from 1 to 32", "4"),
    ("jobs", "[4]", "an array", "a whole number of checks run at once from 1 to 32", "4"),
    ("max_response_bytes", "-1", "-1", "a whole number of bytes from 1024 to 1073741824 (1 KiB to 1 GiB)", "10485760"),
    (
        "max_response_bytes",
        "99999999999999999999999999999",
        "99999999999999999999…",
        "a whole number of bytes from 1024 to 1073741824 (1 KiB to 1 GiB)",
        "10485760",
    ),
    ("max_rate", "0", "0", "a whole number of requests per second from 1 to 1000", "10"),
    ("max_rate", "2.5", "2.5", "a whole number of requests per second from 1 to 1000", "10"),
    ("max_response_bytes", "{ a = 1 }", "a table", "a whole number of bytes from 1024 to 1073741824 (1 KiB to 1 GiB)", "10485760"),
]


@pytest.mark.parametrize(("key", "written", "shown", "allowed", "example"), BAD_NUMBERS, ids=[f"{key}={written}" for key, written, *_ in BAD_NUMBERS])
def test_a_number_out_of_its_range_breaks_the_profile_with_one_line_naming_key_line_range_and_fix(key, written, shown, allowed, example):
    profiles_dir().mkdir(parents=True)
    (profiles_dir() / "a.toml").write_text(f'name = "A"\nurl = "http://a.example/v2"\n\n{key} = {written}\n')
    [broken] = load_profiles().broken
    assert broken.message == f"{key} = {shown} is not {allowed}: write e.g. {key} = {example}"
    assert broken.line == 4
    with pytest.raises(ProfileError, match=rf"line 4: {key} = "):
        find_profile("A")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("timeout = " + "9" * 5000, "holds an integer thousands of digits long: write a number in its range"),
        ("headers = " + "[" * 2000 + "]" * 2000, "nests arrays or tables too deeply to be read: a profile needs two levels at most"),
    ],
    ids=["a 5000-digit integer", "arrays nested 2000 deep"],
)
def test_a_file_tomllib_itself_chokes_on_is_broken_not_a_crash(text, message):
    profiles_dir().mkdir(parents=True)
    (profiles_dir() / "a.toml").write_text(text)
    [broken] = load_profiles().broken
    assert broken.message == message
