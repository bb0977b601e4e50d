"""The home screen: the saved profiles, the selected one's details, and what to do with it."""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import cast

from rich.table import Table
from rich.text import Text
from textual import on
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets import Header
from textual.widgets import OptionList
from textual.widgets import Static
from textual.widgets.option_list import Option
from textual.worker import Worker
from textual.worker import WorkerState

from scim_tui.checker.exchanges import describe_error
from scim_tui.checker.secrets import REDACTED
from scim_tui.net.cutoff import Cutoff
from scim_tui.reports.summary import RunSummary
from scim_tui.store import history
from scim_tui.store.profiles import ENV_PREFIX
from scim_tui.store.profiles import AuthKind
from scim_tui.store.profiles import BrokenProfile
from scim_tui.store.profiles import Profile
from scim_tui.store.profiles import ProfileError
from scim_tui.store.profiles import ProfileSource
from scim_tui.store.profiles import delete_profile
from scim_tui.store.profiles import load_profiles
from scim_tui.tui.screens.confirm import ConfirmScreen
from scim_tui.tui.widgets.facts import facts_table
from scim_tui.tui.widgets.motion import MotionOptionList

if TYPE_CHECKING:
    from scim_tui.net.connect import ConnectionTest
    from scim_tui.tui.app import ScimTuiApp

Entry = Profile | BrokenProfile


AUTH_LABELS = {
    AuthKind.NONE: "None",
    AuthKind.BEARER: "Bearer token",
    AuthKind.BASIC: "HTTP basic (user and password)",
    AuthKind.HEADERS: "Custom headers (API key)",
    AuthKind.OAUTH2: "OAuth 2.0 client credentials",
}
"""How each kind of authentication is named, in the profiles' details and in the form."""


def masked(value: str | None) -> str:
    """A secret as it may be shown: an env: reference as written, anything else hidden."""
    if not value:
        return "(none)"
    return value if value.startswith(ENV_PREFIX) else REDACTED


def auth_summary(profile: Profile) -> str:
    auth = profile.auth
    label = AUTH_LABELS[auth.kind]
    if auth.kind is AuthKind.BEARER:
        return f"{label}: token {masked(auth.token)}"
    if auth.kind is AuthKind.BASIC:
        return f"{label}: user {auth.username}, password {masked(auth.password)}"
    if auth.kind is AuthKind.HEADERS:
        return f"{label}: " + ", ".join(f"{name} {masked(value)}" for name, value in auth.headers.items())
    if auth.kind is AuthKind.OAUTH2:
        scope = f", scope {auth.scope}" if auth.scope else ""
        return f"{label}: {auth.token_url}, client {auth.client_id}, secret {masked(auth.client_secret)}{scope}"
    return label


def tls_summary(profile: Profile) -> str:
    tls = profile.tls
    parts = ["certificates verified" if tls.verify else "certificates NOT verified"]
    parts += [
        f"{what} {path}" for what, path in (("CA bundle", tls.ca_bundle), ("client certificate", tls.client_cert), ("client key", tls.client_key)) if path
    ]
    return ", ".join(parts)


def last_run_summary(report: RunSummary | None) -> str:
    if report is None:
        return "never run"
    return f"{report.started_at.astimezone():%Y-%m-%d %H:%M} · {report.summary_line()}"


def profile_details(profile: Profile, last_run: RunSummary | None) -> Table:
    rows = [
        ("Name", profile.name),
        ("URL", "the built-in demo server, started on a loopback port when needed" if profile.demo else profile.url),
        ("Auth", auth_summary(profile)),
        ("Headers", ", ".join(f"{name}: {value}" for name, value in profile.headers.items()) or "(none)"),
        ("TLS", tls_summary(profile)),
        ("Timeout", f"{profile.timeout:g} s"),
        ("Last run", last_run_summary(last_run)),
    ]
    if profile.demo:
        rows.append(("", "Built in: it cannot be edited or deleted. Press c to make an editable copy."))
    return facts_table(rows)


def broken_details(broken: BrokenProfile) -> Table:
    where = f"line {broken.line}: " if broken.line else ""
    rows = [
        ("File", str(broken.path)),
        ("Broken", f"{where}{broken.message}"),
        ("", "Fix the file in an editor; the app never overwrites it."),
    ]
    return facts_table(rows)


def entry_prompt(entry: Entry) -> Text:
    if isinstance(entry, BrokenProfile):
        where = f" line {entry.line}" if entry.line else ""
        return Text.assemble((entry.path.name, "strike"), (f"  broken{where}", "bold red"))
    if entry.demo:
        return Text.assemble(entry.name, ("  built in", "dim"))
    return Text(entry.name)


def copy_name(name: str, taken: set[str]) -> str:
    candidate, number = f"{name} copy", 2
    while candidate.casefold() in taken:
        candidate, number = f"{name} copy {number}", number + 1
    return candidate


class ProfilesScreen(Screen[None]):
    """Lists the demo profile first, then every saved profile and every broken profile file."""

    BINDINGS = [
        Binding("enter", "open", "Open", id="profiles.open", priority=True),
        Binding("n", "new", "New", id="profiles.new"),
        Binding("e", "edit", "Edit", id="profiles.edit"),
        Binding("c", "duplicate", "Duplicate", id="profiles.duplicate"),
        Binding("d", "delete", "Delete", id="profiles.delete"),
        Binding("t", "test", "Test connection", id="profiles.test"),
    ]

    class ConnectionTested(Message):
        """The connection test of a profile finished (posted by its thread worker)."""

        def __init__(self, name: str, result: ConnectionTest) -> None:
            super().__init__()
            self.profile_name = name
            self.result = result

    def __init__(self) -> None:
        super().__init__()
        self.entries: list[Entry] = []
        self.sources: dict[str, ProfileSource] = {}
        """Each profile's file as it was read, so an edit can tell a change made on disk since."""
        self.last_runs: dict[str, RunSummary | None] = {}
        self.test_cutoff = Cutoff()
        """Ends the running connection test at once: it creates nothing."""

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="profiles-body"):
            yield MotionOptionList(id="profile-list")
            with VerticalScroll(id="profile-details"):
                yield Static(id="details")
        yield Static("", id="profiles-status")
        yield Footer()

    def on_mount(self) -> None:
        self.title = "Profiles"

    def on_screen_resume(self) -> None:
        """Read the profiles on arrival and whenever the screen is back on top (a run may have saved one)."""
        self.reload(self.selected_name())

    def reload(self, select: str | None = None) -> None:
        """Read the profiles from disk again, keeping (or moving) the highlight by name."""
        listing = load_profiles()
        self.entries = [Profile.demo_profile(), *listing.profiles, *listing.broken]
        self.sources = listing.sources
        self.last_runs = {}
        options = self.query_one("#profile-list", OptionList)
        options.clear_options()
        options.add_options([Option(entry_prompt(entry)) for entry in self.entries])
        matches = (index for index, entry in enumerate(self.entries) if isinstance(entry, Profile) and entry.name == select)
        options.highlighted = next(matches, 0)
        self.show_details()
        if listing.problem:
            self.say(listing.problem)

    def selected(self) -> Entry | None:
        index = self.query_one("#profile-list", OptionList).highlighted
        return self.entries[index] if index is not None and index < len(self.entries) else None

    def selected_name(self) -> str | None:
        entry = self.selected()
        return entry.name if isinstance(entry, Profile) else None

    def selected_profile(self, verb: str, editable: bool = False) -> Profile | None:
        """The highlighted profile if it can be used that way; otherwise say why not."""
        entry = self.selected()
        if isinstance(entry, BrokenProfile):
            self.say(f"Cannot {verb} {entry.path.name}: the file is broken; fix it in an editor first.")
            return None
        if entry is not None and editable and entry.demo:
            self.say("The demo profile is built in: it cannot be edited or deleted; press c to make an editable copy.")
            return None
        return entry

    def say(self, line: str) -> None:
        self.query_one("#profiles-status", Static).update(Text(line))

    @on(OptionList.OptionHighlighted, "#profile-list")
    def show_details(self) -> None:
        entry = self.selected()
        details = self.query_one("#details", Static)
        if isinstance(entry, BrokenProfile):
            details.update(broken_details(entry))
        elif entry is not None:
            details.update(profile_details(entry, self.last_run(entry.name)))

    def last_run(self, name: str) -> RunSummary | None:
        """The latest run of a profile, read from disk once per reload, not on every cursor move."""
        if name not in self.last_runs:
            self.last_runs[name] = history.latest_summary(name, warn=lambda line: self.notify(line, severity="warning", markup=False))
        return self.last_runs[name]

    def action_open(self) -> None:
        if profile := self.selected_profile("open"):
            cast("ScimTuiApp", self.app).open_run(profile)

    def action_new(self) -> None:
        self.open_form()

    def action_edit(self) -> None:
        if profile := self.selected_profile("edit", editable=True):
            self.open_form(profile, source=self.sources.get(profile.name))

    def action_duplicate(self) -> None:
        if profile := self.selected_profile("duplicate"):
            taken = {entry.name.casefold() for entry in self.entries if isinstance(entry, Profile)}
            self.open_form(profile.model_copy(update={"name": copy_name(profile.name, taken)}), duplicate=True)

    def open_form(self, profile: Profile | None = None, *, duplicate: bool = False, source: ProfileSource | None = None) -> None:
        from scim_tui.tui.screens.profile_form import ProfileFormScreen  # with Textual's TextArea: loaded when a form opens, not for the first screen

        self.app.push_screen(ProfileFormScreen(profile, duplicate=duplicate, source=source), self.form_closed)

    def form_closed(self, profile: Profile | None) -> None:
        if profile is not None:
            self.reload(profile.name)
            self.say(f"Saved {profile.name}.")

    def action_delete(self) -> None:
        if profile := self.selected_profile("delete", editable=True):
            question = f"Delete the profile {profile.name}? Its file is removed from disk."
            self.app.push_screen(ConfirmScreen(question), lambda yes: self.delete(profile, yes))

    def delete(self, profile: Profile, confirmed: bool | None) -> None:
        if not confirmed:
            self.say(f"Kept {profile.name}.")
            return
        options = self.query_one("#profile-list", OptionList)
        place = options.highlighted or 0
        try:
            delete_profile(profile.name)
        except ProfileError as error:
            self.say(f"Not deleted: {error}")
            return
        self.reload()
        options.highlighted = min(place, len(self.entries) - 1)  # the next profile, not back to Demo
        self.say(f"Deleted {profile.name}.")

    def action_test(self) -> None:
        if profile := self.selected_profile("test"):
            self.say(f"Testing the connection of {profile.name}…")
            self.test_cutoff.cut()  # the test before it is abandoned
            self.test_cutoff = Cutoff()
            self.check_connection(profile, self.test_cutoff)

    @work(thread=True, exclusive=True, group="connection-test", exit_on_error=False, description="Testing a connection")
    def check_connection(self, profile: Profile, cutoff: Cutoff) -> None:
        from scim_tui.net.connect import test_connection  # scim2-client loads when needed, not before the first screen

        tested = test_connection(cast("ScimTuiApp", self.app).served(profile), cutoff)
        if cutoff.commit():  # not abandoned meanwhile (another test, or the app quit)
            self.post_message(self.ConnectionTested(profile.name, tested))

    def on_unmount(self) -> None:
        self.test_cutoff.cut()  # a test waiting on a server that never answers does not hold the app's exit

    @on(ConnectionTested)
    def show_connection(self, message: ConnectionTested) -> None:
        self.say(f"{message.profile_name}: {message.result.message}")

    @on(Worker.StateChanged)
    def connection_failed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR and event.worker.group == "connection-test" and event.worker.error is not None:
            self.say(f"Connection test failed: {describe_error(event.worker.error)}")
