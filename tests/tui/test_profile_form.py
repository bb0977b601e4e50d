"""The profile form: validation as the user types, saving to real files, secrets never shown."""

from __future__ import annotations

import re
import stat
import tomllib

import pytest
from pydantic import ValidationError
from textual.widgets import Input
from textual.widgets import Label
from textual.widgets import Select
from textual.widgets import Static

from scim_tui.store.profiles import Auth
from scim_tui.store.profiles import AuthKind
from scim_tui.store.profiles import Profile
from scim_tui.store.profiles import load_profiles
from scim_tui.store.profiles import profiles_dir
from scim_tui.store.profiles import save_profile
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.screens.changed_on_disk import ChangedOnDiskScreen
from scim_tui.tui.screens.confirm import ConfirmScreen
from scim_tui.tui.screens.profile_form import ProfileFormScreen
from scim_tui.tui.screens.profile_form import model_problems
from scim_tui.tui.screens.profiles import ProfilesScreen
from tests.support.profiles import HAND_WRITTEN
from tests.support.profiles import hand_written
from tests.support.profiles import screen_text
from tests.support.profiles import type_into
from tests.tui.conftest import highlight
from tests.tui.conftest import wait_until

pytestmark = pytest.mark.anyio
SECRET = "s3cr3t-T0KEN-never-shown"
URL = "https://scim.example.test/v2"


async def open_form(pilot, profile: Profile | None = None, duplicate: bool = False) -> list[Profile | None]:
    """Push the form on the running app; the list receives what it dismisses with."""
    results: list[Profile | None] = []
    await pilot.app.push_screen(ProfileFormScreen(profile, duplicate=duplicate), results.append)
    await pilot.pause()
    return results


def problem(pilot, key: str) -> str:
    line = pilot.app.screen.query_one(f"#{key}-error", Static)
    return str(line.render()) if line.has_class("-shown") else ""


def read(name: str) -> dict:
    return tomllib.loads((profiles_dir() / f"{name}.toml").read_text())


async def choose_kind(pilot, kind: AuthKind) -> None:
    """Pick an authentication kind with the keyboard, as a user does."""
    select = pilot.app.screen.query_one("#auth-kind", Select)
    select.focus()
    await pilot.press("enter")
    await pilot.pause()
    await pilot.press("home", *["down"] * list(AuthKind).index(kind), "enter")
    await pilot.pause()
    assert select.value == kind


async def test_a_new_bearer_profile_is_saved_to_a_private_toml_file():
    app = ScimTuiApp()
    async with app.run_test(size=(100, 60)) as pilot:
        results = await open_form(pilot)
        await type_into(pilot, "#name", "Staging")
        await type_into(pilot, "#url", URL)
        await choose_kind(pilot, AuthKind.BEARER)
        await type_into(pilot, "#token", SECRET)
        assert SECRET not in screen_text(app)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert results and results[0].name == "Staging"
    path = profiles_dir() / "staging.toml"
    assert read("staging") == {"name": "Staging", "url": URL, "auth": {"kind": "bearer", "token": SECRET}}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


async def test_each_problem_is_explained_next_to_its_field_as_the_user_types(tmp_path):
    save_profile(Profile(name="Prod", url=URL))
    app = ScimTuiApp()
    async with app.run_test(size=(100, 60)) as pilot:
        await open_form(pilot)
        assert problem(pilot, "url") == ""  # nothing is flagged before the user types
        await type_into(pilot, "#url", "ftp://scim.example.test")
        assert problem(pilot, "url") == "The base URL must start with http:// or https://."
        await type_into(pilot, "#url", "https://")
        assert problem(pilot, "url") == "The base URL has no host: write it as https://host/path."
        await type_into(pilot, "#name", "prod")
        assert "already has this name" in problem(pilot, "name")
        await type_into(pilot, "#name", "demo")
        assert "built-in demo profile" in problem(pilot, "name")
        for out_of_range in ("0", "0.5", "601", "inf", "nan", "1e308", "-3"):
            await type_into(pilot, "#timeout", out_of_range)
            assert problem(pilot, "timeout") == "Timeout (seconds): must be a number of seconds from 1 to 600, e.g. 30.", out_of_range
        await type_into(pilot, "#timeout", "soon")
        assert problem(pilot, "timeout") == "Timeout (seconds): enter a number of seconds, e.g. 30."
        await type_into(pilot, "#timeout", "600")
        assert problem(pilot, "timeout") == ""
        missing = tmp_path / "nowhere" / "ca.pem"
        await type_into(pilot, "#ca-bundle", str(missing))
        assert problem(pilot, "ca-bundle") == f"No file at {missing}: check the path."
        missing.parent.mkdir()
        missing.write_text("-----BEGIN CERTIFICATE-----\n")
        await type_into(pilot, "#ca-bundle", str(missing))
        assert problem(pilot, "ca-bundle") == ""
        await type_into(pilot, "#url", URL)
        assert problem(pilot, "url") == ""


async def test_saving_flags_every_required_field_of_the_auth_kind_and_writes_nothing():
    app = ScimTuiApp()
    async with app.run_test(size=(100, 60)) as pilot:
        results = await open_form(pilot)
        await type_into(pilot, "#name", "Vendor")
        await type_into(pilot, "#url", URL)
        await choose_kind(pilot, AuthKind.OAUTH2)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert problem(pilot, "token-url") == "Enter the token URL, e.g. https://auth.example.com/oauth2/token."
        assert problem(pilot, "client-id") == "Enter the client id."
        assert problem(pilot, "client-secret") == "Enter the client secret (or env:VARIABLE)."
        assert str(app.screen.query_one("#form-status", Static).render()) == "Not saved: fix the 3 problems marked in red."
        await choose_kind(pilot, AuthKind.BASIC)
        assert problem(pilot, "username") == "Enter the user name."
        assert problem(pilot, "client-id") == ""  # hidden with its kind
        assert not app.screen.query_one("#auth-oauth2").display
        assert app.screen.query_one("#auth-basic").display
        assert results == []
    assert not profiles_dir().exists() or not list(profiles_dir().iterdir())


async def test_credential_headers_need_a_name_and_a_value():
    app = ScimTuiApp()
    async with app.run_test(size=(100, 60)) as pilot:
        results = await open_form(pilot)
        await type_into(pilot, "#name", "Keyed")
        await type_into(pilot, "#url", URL)
        await choose_kind(pilot, AuthKind.HEADERS)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert problem(pilot, "auth-headers") == "Enter at least one header with its name and value."
        await type_into(pilot, ".header-name", "X-API-Key")
        assert problem(pilot, "auth-headers") == "Each header needs both a name and a value."
        await type_into(pilot, ".header-row .secret", SECRET)
        app.screen.query_one("#add-header").focus()
        await pilot.press("enter")
        await pilot.pause()
        assert len(app.screen.query(".header-row")) == 2
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert results and results[0].auth.headers == {"X-API-Key": SECRET}
    assert read("keyed")["auth"] == {"kind": "headers", "headers": {"X-API-Key": SECRET}}


async def test_editing_keeps_a_stored_secret_it_never_shows_and_drops_other_kinds_secrets():
    save_profile(Profile(name="Prod", url=URL, auth=Auth(kind=AuthKind.BASIC, username="alice", password=SECRET), jobs=4))
    app = ScimTuiApp()
    async with app.run_test(size=(100, 60)) as pilot:
        await open_form(pilot, Profile.model_validate(read("prod")))
        password = app.screen.query_one("#password", Input)
        assert password.value == "" and password.placeholder == "unchanged" and password.password
        assert SECRET not in screen_text(app)
        await type_into(pilot, "#url", "https://other.example.test/scim/v2")
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert read("prod") == {
        "name": "Prod",
        "url": "https://other.example.test/scim/v2",
        "auth": {"kind": "basic", "username": "alice", "password": SECRET},
        "jobs": 4,
    }
    async with ScimTuiApp().run_test(size=(100, 60)) as pilot:
        await open_form(pilot, Profile.model_validate(read("prod")))
        await choose_kind(pilot, AuthKind.BEARER)
        await type_into(pilot, "#token", "env:PROD_TOKEN")
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert read("prod")["auth"] == {"kind": "bearer", "token": "env:PROD_TOKEN"}


async def test_an_env_reference_is_shown_as_written():
    save_profile(Profile(name="Shared", url=URL, auth=Auth(kind=AuthKind.BEARER, token="env:SHARED_TOKEN")))
    app = ScimTuiApp()
    async with app.run_test(size=(100, 60)) as pilot:
        await open_form(pilot, Profile.model_validate(read("shared")))
        token = app.screen.query_one("#token", Input)
        assert token.value == "env:SHARED_TOKEN" and not token.password
        assert "env:SHARED_TOKEN" in screen_text(app)
        await type_into(pilot, "#token", "literal")
        assert token.password


async def test_q_types_a_q_and_escape_cancels_without_saving():
    app = ScimTuiApp()
    async with app.run_test(size=(100, 60)) as pilot:
        results = await open_form(pilot)
        app.screen.query_one("#name", Input).focus()
        await pilot.press("q", "q")
        assert app.is_running and app.screen.query_one("#name", Input).value == "qq"
        await pilot.press("escape")  # a half-filled form is not discarded without asking
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen) and results == []
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, ProfileFormScreen) and app.screen.query_one("#name", Input).value == "qq"
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert results == [None]
        assert not isinstance(app.screen, ProfileFormScreen)
    assert not profiles_dir().exists()


async def test_a_save_refused_by_the_store_is_one_line_and_loses_nothing():
    profiles_dir().mkdir(parents=True)
    broken = profiles_dir() / "prod.toml"
    broken.write_bytes(b"name = 'Prod'\nurl = [\n")
    app = ScimTuiApp()
    async with app.run_test(size=(100, 60)) as pilot:
        results = await open_form(pilot)
        await type_into(pilot, "#name", "Prod")
        await type_into(pilot, "#url", URL)
        await pilot.press("ctrl+s")
        await pilot.pause()
        status = str(app.screen.query_one("#form-status", Static).render())
        assert status.startswith("Not saved: ") and "broken profile file" in status and "\n" not in status
        assert isinstance(app.screen, ProfileFormScreen) and results == []
        assert app.screen.query_one("#url", Input).value == URL
    assert broken.read_bytes() == b"name = 'Prod'\nurl = [\n"


async def edit_from_the_list(pilot, name: str) -> None:
    """Open the form of a listed profile as a user does: highlight it, press e."""
    await highlight(pilot, name)
    await pilot.press("e")
    await pilot.pause()
    assert isinstance(pilot.app.screen, ProfileFormScreen)


async def test_saving_from_the_form_keeps_a_hand_written_file_but_the_changed_key():
    """Once, the form rewrote the file (comments, timeout = 30 and mode lost)."""
    path = hand_written(0o640)
    app = ScimTuiApp()
    async with app.run_test(size=(110, 60)) as pilot:
        await edit_from_the_list(pilot, "Staging")
        await type_into(pilot, "#url", "https://scim.staging.example.com/v3")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ProfilesScreen)
    assert path.read_text() == HAND_WRITTEN.replace('/v2"   #', '/v3"   #')
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def changed_on_disk(path, timeout: int = 30) -> str:
    """What another scim-tui or an editor saves while the form is open."""
    text = HAND_WRITTEN.replace("jobs = 2", "jobs = 8  # changed elsewhere").replace("timeout = 30 ", f"timeout = {timeout} ")
    path.write_text(text)
    return text


async def test_a_file_changed_on_disk_is_not_overwritten_until_the_user_says_so():
    path = hand_written()
    app = ScimTuiApp()
    async with app.run_test(size=(110, 60)) as pilot:
        await edit_from_the_list(pilot, "Staging")
        await type_into(pilot, "#url", "https://mine.example.test/v2")
        elsewhere = changed_on_disk(path)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ChangedOnDiskScreen)
        question = str(app.screen.query_one("#changed-problem", Label).render())
        assert question == f"{path} was changed (by another scim-tui or an editor) since it was opened: saving now would undo that. What now?"
        await pilot.press("k")
        await pilot.pause()
        assert isinstance(app.screen, ProfileFormScreen)
        assert str(app.screen.query_one("#form-status", Static).render()) == "Not saved: the file changed on disk. Save again to choose once more."
        assert path.read_text() == elsewhere
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(app.screen, ProfilesScreen)
    mine = elsewhere.replace("https://scim.staging.example.com/v2", "https://mine.example.test/v2").replace("jobs = 8 ", "jobs = 2 ")
    assert path.read_text() == mine, "the form's values (jobs among them) win, the comments stay as changed"


async def test_reload_drops_the_edits_and_shows_the_file_as_it_is_now():
    path = hand_written()
    app = ScimTuiApp()
    async with app.run_test(size=(110, 60)) as pilot:
        await edit_from_the_list(pilot, "Staging")
        await type_into(pilot, "#url", "https://mine.example.test/v2")
        await type_into(pilot, "#timeout", "45")
        elsewhere = changed_on_disk(path, timeout=90)
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("r")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, ProfileFormScreen)
        assert form.query_one("#url", Input).value == "https://scim.staging.example.com/v2"
        assert form.query_one("#timeout", Input).value == "90"
        assert str(form.query_one("#form-status", Static).render()) == "Reloaded Staging from disk: your edits were dropped."
        await pilot.press("ctrl+s")  # the file as it is now: saved without a question, unchanged
        await pilot.pause()
        assert isinstance(app.screen, ProfilesScreen)
    assert path.read_text() == elsewhere


async def test_reloading_a_deleted_file_closes_the_form():
    path = hand_written()
    app = ScimTuiApp()
    async with app.run_test(size=(110, 60)) as pilot:
        await edit_from_the_list(pilot, "Staging")
        path.unlink()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert str(app.screen.query_one("#changed-problem", Label).render()).endswith(
            "staging.toml was deleted since it was opened: saving now would undo that. What now?"
        )
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, ProfilesScreen)
        assert any("was deleted: nothing to reload" in n.message for n in app._notifications)
    assert not path.exists()


async def test_two_apps_editing_one_profile_the_second_save_is_caught():
    path = hand_written()
    first, second = ScimTuiApp(), ScimTuiApp()
    async with first.run_test(size=(110, 60)) as one, second.run_test(size=(110, 60)) as two:
        await edit_from_the_list(one, "Staging")
        await edit_from_the_list(two, "Staging")
        await type_into(one, "#url", "https://first.example.test/v2")
        await one.press("ctrl+s")
        await one.pause()
        assert isinstance(first.screen, ProfilesScreen)
        saved_by_first = path.read_text()
        assert "https://first.example.test/v2" in saved_by_first

        await type_into(two, "#timeout", "45")
        await two.press("ctrl+s")
        await two.pause()
        assert isinstance(second.screen, ChangedOnDiskScreen), "the second save would silently revert the first"
        assert path.read_text() == saved_by_first
        await two.press("o")
        await two.pause()
    text = path.read_text()
    assert "timeout = 45 " in text
    assert 'url = "https://scim.staging.example.com/v2"' in text, "overwrite means the second form's values, knowingly"


async def test_the_headers_kind_packs_its_rows_and_keeps_the_fields_below_in_reach():
    """Once, ~20 blank rows between the first header row and "Add a header"."""
    app = ScimTuiApp()
    async with app.run_test(size=(100, 40)) as pilot:
        await open_form(pilot)
        await choose_kind(pilot, AuthKind.HEADERS)
        screen = app.screen
        row = screen.query_one("#header-rows")
        add = screen.query_one("#add-header")
        assert row.region.height <= 3, "one header row is one line of inputs"
        assert add.region.y - row.region.bottom <= 1
        await pilot.click("#add-header")
        await pilot.pause()
        assert screen.query_one("#header-rows").region.height <= 6
        assert "Extra headers" in screen_text(app), "the field below is on screen, not pushed off it"


async def test_the_form_sets_the_checks_run_at_once():
    """The form has a `jobs` field."""
    app = ScimTuiApp()
    async with app.run_test(size=(100, 60)) as pilot:
        results = await open_form(pilot, Profile(name="Prod", url=URL))
        await type_into(pilot, "#jobs", "64")
        assert problem(pilot, "jobs") == "Checks at once: must be a whole number of checks run at once from 1 to 32, e.g. 4."
        await type_into(pilot, "#jobs", "1.5")
        assert problem(pilot, "jobs") == "Checks at once: enter a whole number of checks run at once, e.g. 4."
        await type_into(pilot, "#jobs", "1")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert results[0].jobs == 1
    assert read("prod")["jobs"] == 1


HAND_WRITTEN_FILES = [
    """\
name = "Hand"
url = "https://scim.example.test/v2"  # mine
timeout = 12.3456789  # 8 digits: the form shows them all, and writes none back
jobs = 3
max_rate = 5  # the keys the form does not show
max_response_bytes = 2048

[headers]
"X-Tenant" = " acme "  # spaces the form trims

[auth]
kind = "oauth2"
token_url = "https://auth.example.test/token"
client_id = "app"
client_secret = "env:SECRET"
scope = ""  # empty: the form reads it as no scope

[discovery]
schemas = "schemas.json"

[selection]
include_tags = ["crud"]
""",
    """\
name = "Hand"
url = "https://scim.example.test/v2"
timeout = 12.5

[tls]
ca_bundle = ""  # empty: the form reads it as none

[auth]
kind = "basic"
username = " ops "  # spaces the form trims
password = " pw "
""",
]


async def test_every_hand_written_key_survives_a_save_that_changed_another_field():
    """Once, the form dropped or rewrote what it shows differently (12.3456789 became 12.3457,
    the empty scope and CA bundle were dropped, spaces trimmed): only the changed URL may change."""
    path = profiles_dir() / "hand.toml"
    profiles_dir().mkdir(parents=True)
    saved: list[str] = []
    async with ScimTuiApp().run_test(size=(100, 60)) as pilot:
        for written in HAND_WRITTEN_FILES:
            path.write_text(written)
            found = load_profiles()
            results: list[Profile | None] = []
            await pilot.app.push_screen(ProfileFormScreen(found.named("Hand"), source=found.sources["Hand"]), results.append)
            await pilot.pause()
            await type_into(pilot, "#url", "https://scim.example.test/v3")
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda results=results: bool(results))
            saved.append(path.read_text())
    assert saved == [written.replace("/v2", "/v3") for written in HAND_WRITTEN_FILES]


KEYS = re.compile(r"\b(timeout|jobs|max_rate|(?:auth|tls)\.\w+|token_url|client_id|client_secret|ca_bundle|client_cert|client_key)\b")


async def test_every_message_of_the_form_names_the_fields_label_never_a_toml_key(tmp_path):
    """Once, messages named TOML keys instead of the form's labels."""
    app = ScimTuiApp()
    async with app.run_test(size=(100, 60)) as pilot:
        await open_form(pilot)
        await choose_kind(pilot, AuthKind.OAUTH2)
        bad = {
            "#url": "ftp://x",
            "#token-url": "https://",
            "#timeout": "0",
            "#jobs": "x",
            "#ca-bundle": str(tmp_path / "none.pem"),
            "#client-key": str(tmp_path / "key.pem"),
        }
        for selector, text in bad.items():
            await type_into(pilot, selector, text)
        await pilot.press("ctrl+s")
        await pilot.pause()
        shown = {line.id: str(line.render()) for line in app.screen.query(".field-error").results(Static) if line.has_class("-shown")}
        status = str(app.screen.query_one("#form-status", Static).render())
    assert shown["timeout-error"] == "Timeout (seconds): must be a number of seconds from 1 to 600, e.g. 30."
    assert shown["jobs-error"] == "Checks at once: enter a whole number of checks run at once, e.g. 4."
    assert len(shown) == 9 and status == "Not saved: fix the 9 problems marked in red."
    assert [message for message in [*shown.values(), status] if KEYS.search(message)] == []


@pytest.mark.parametrize(
    ("data", "problems"),
    [
        (
            {"timeout": 0.5, "jobs": 0},
            {
                "timeout": "Timeout (seconds): must be a number of seconds from 1 to 600, e.g. 30.",
                "jobs": "Checks at once: must be a whole number of checks run at once from 1 to 32, e.g. 4.",
            },
        ),
        (
            {"tls": {"ca_bundle": 3}, "auth": {"kind": "kerberos"}},
            {
                "ca-bundle": "CA bundle: input should be a valid string.",
                "auth-kind": "Authentication: input should be 'none', 'bearer', 'basic', 'headers' or 'oauth2'.",
            },
        ),
        (
            {"headers": {"X-Tenant": 1}, "auth": {"headers": {"X-Key": None}}},
            {"extra-headers": "Extra headers: input should be a valid string.", "auth-headers": "Credential headers: input should be a valid string."},
        ),
    ],
)
def test_the_models_objections_name_the_forms_labels(data, problems):
    """The model's errors (pydantic's, at a TOML key) as the form shows them: at the field, by its label."""
    with pytest.raises(ValidationError) as error:
        Profile.model_validate({"name": "Prod"} | data)
    assert model_problems(error.value) == problems
