"""The scim-tui application: the profiles home, the run screen of a profile, the command palette."""

from __future__ import annotations

import asyncio
import gc
import signal
import sys
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from importlib import import_module
from typing import TYPE_CHECKING

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.driver import Driver
from textual.message_pump import MessagePump
from textual.screen import ModalScreen
from textual.signal import Signal
from textual.theme import Theme
from textual.worker import Worker
from textual.worker import WorkerState

from scim_tui.checker.exchanges import describe_error
from scim_tui.errors import UserError
from scim_tui.signals import STOPPING_SIGNALS
from scim_tui.store.keymap import KeymapError
from scim_tui.store.keymap import keymap_file
from scim_tui.store.keymap import load_keymap
from scim_tui.store.profiles import Profile
from scim_tui.store.settings import Settings
from scim_tui.store.settings import SettingsError
from scim_tui.store.settings import load_settings
from scim_tui.store.settings import save_settings
from scim_tui.store.settings import settings_file
from scim_tui.tui.binding_ids import unknown_ids
from scim_tui.tui.commands import ScreenCommands
from scim_tui.tui.screens.confirm import ConfirmScreen
from scim_tui.tui.screens.help import HelpScreen
from scim_tui.tui.screens.help import keys_of
from scim_tui.tui.screens.profiles import ProfilesScreen
from scim_tui.tui.screens.settings import SettingsScreen
from scim_tui.tui.terminal import hangup_safe

if TYPE_CHECKING:
    from scim_tui.demo import DemoServer
    from scim_tui.tui.messages import RowsChanged
    from scim_tui.tui.messages import RunFinished


class ScimTuiApp(App[None]):
    """Check a SCIM server interactively. With a profile, its run screen opens directly."""

    TITLE = "scim-tui"
    CSS_PATH = ["app.tcss", "profiles.tcss"]
    COMMANDS = {ScreenCommands}  # Textual's own commands among them (commands.py)
    BINDINGS = [
        Binding("q", "quit_app", "Quit", id="app.quit"),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True, id="app.quit-anywhere"),
        Binding("f1", "help", "Help", id="app.help"),
        Binding("question_mark", "help_key", "Help", key_display="?", show=False, id="app.help-key"),
        Binding("f2", "settings", "Settings", tooltip="Settings: the theme and how the results show", id="app.settings"),
    ]

    def __init__(self, profile: Profile | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.profile = profile
        self.clock = clock
        self.stopped_by: signal.Signals | None = None
        """The signal that ended the app (SIGTERM, SIGHUP), if one did."""
        self.last_run_end: RunFinished | None = None
        """How the last run ended, told by its thread (it may end after the app stopped listening)."""
        self.demo_server: DemoServer | None = None
        """The embedded server the demo profile targets, started on its first use, stopped at exit."""
        self._demo_lock = threading.Lock()
        self._demo_stopped = False
        """Set at exit, once the demo server is stopped: no worker starts another after it."""
        self.settings = Settings()
        """The theme and the view choices, read at start-up, saved as they change."""
        self.unsaved: str | None = None
        """Why changed settings are not saved (the settings file did not read), if they are not."""
        self.settings_signal: Signal[Settings] = Signal(self, "settings-changed")
        self.rows_signal: Signal[RowsChanged] = Signal(self, "rows-changed")
        """The run screen's rows changed, or a run began or ended: the result screens open follow
        (messages.py says why a signal)."""

    def get_driver_class(self) -> type[Driver]:
        return hangup_safe(super().get_driver_class(), self._terminal_lost)

    def _terminal_lost(self) -> None:
        """Called from the driver's threads once the terminal is gone: as a hangup."""
        self.call_later(self.stop_on_signal, signal.SIGHUP)

    def served(self, profile: Profile) -> Profile:
        """The profile as a client opens it: the demo profile gets the URL of the app's demo
        server, started on first use. Called from workers' threads: it loads scim2-server and
        binds a port, so a thread asking while another starts it waits for that start; a start
        that failed is a UserError in one line (the next use tries again)."""
        if not profile.demo:
            return profile
        with self._demo_lock:
            if self._demo_stopped:
                raise UserError("The app is closing: the demo server is stopped.")
            if self.demo_server is None:
                self.demo_server = start_demo_server()
        return profile.model_copy(update={"url": self.demo_server.url})

    def run_ended(self, screen: MessagePump, finished: RunFinished) -> None:
        """The one way the end of a run is told, called from the run's thread as it ends
        (Runner's `ended`): kept first, for `run_app` to read once the app ended (the app may
        have stopped listening by then: it quit, or a signal ended it; the process waits for the
        thread), then posted to the run's screen, which shows it if it still listens."""
        self.last_run_end = finished
        screen.post_message(finished)

    def on_mount(self) -> None:
        self._listen(STOPPING_SIGNALS)
        self._read_settings()
        self._read_keymap()
        if self.profile is None:
            self.push_screen(ProfilesScreen())
        else:  # the run screen alone, drawn sooner: the profiles are read when escape goes back to them
            self.open_run(self.profile)
        self.call_after_refresh(self.load_the_rest)

    @work(thread=True, group="load", exit_on_error=False, description="Loading the engine")
    def load_the_rest(self) -> None:
        """Load the run screen, the result screen and the engine once the first screen is drawn
        (it needs none of them), so opening a profile or a result does not wait for them."""
        try:
            import_module("scim_tui.tui.screens.run")  # waits, if a profile opened first is loading it
            import_module("scim_tui.tui.screens.result")  # the run screen loads it when a result opens
            import_module("scim_tui.tui.runner")  # the engine and scim2-client, which the run screen's workers load
            # What the imports built lives until exit: out of the collector's full passes, which
            # otherwise stall the screen ~80 ms each once a run has 10,000 results. Here, not at
            # mount: the engine is part of it, and it loads after the first screen.
            gc.freeze()
        finally:
            gc.enable()  # `scim-tui` turned it off until the first screen was drawn (cli/main.py)

    def _read_settings(self) -> None:
        try:
            self.settings = load_settings()
        except SettingsError as error:
            self.unsaved = f"Changes apply now, and are not saved: {settings_file()} does not read; fix or delete it."
            self.notify(str(error), severity="warning", markup=False, timeout=30)
        if self.settings.theme in self.available_themes:
            self.theme = self.settings.theme
        else:
            self.notify(f"The theme {self.settings.theme!r} of {settings_file()} is none of the app's: the default is used.", severity="warning", markup=False)
        self.theme_changed_signal.subscribe(self, self._theme_changed)

    def _read_keymap(self) -> None:
        try:
            self.set_keymap(load_keymap())
        except KeymapError as error:
            self.notify(str(error), severity="warning", markup=False, timeout=30)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Once every screen's module is loaded, a keymap naming a binding none has is told, a line per id."""
        if event.worker.group == "load" and event.state is WorkerState.SUCCESS:
            for binding_id in unknown_ids(self._keymap):
                self.notify(
                    f"The keymap file {keymap_file()} names {binding_id!r}, which is no binding id of scim-tui: see docs/keys.md.",
                    severity="warning",
                    markup=False,
                    timeout=30,
                )

    def _theme_changed(self, theme: Theme) -> None:
        self.change_settings(theme=theme.name)

    def change_settings(self, **changes: object) -> None:
        """Apply changed settings (the open run screens follow them) and save them, unless the file did not read."""
        if "theme" in changes and changes["theme"] != self.theme:
            self.theme = str(changes["theme"])  # its signal comes back here
        settings = self.settings.model_copy(update=changes)
        if settings == self.settings:
            return
        self.settings = settings
        self.settings_signal.publish(settings)
        if self.unsaved is None:
            try:
                save_settings(settings)
            except (SettingsError, OSError) as error:
                self.unsaved = f"Changes apply now, and are not saved: {error if isinstance(error, SettingsError) else describe_error(error)}"
                self.notify(self.unsaved, severity="warning", markup=False)

    def action_settings(self) -> None:
        self.push_screen(SettingsScreen(self.settings, sorted(self.available_themes), self.change_settings, self.unsaved))

    def _listen(self, signals: tuple[int, ...]) -> None:
        loop = asyncio.get_running_loop()
        for signum in signals:
            with suppress(NotImplementedError, RuntimeError, ValueError):  # no signals here (another platform, another thread)
                loop.add_signal_handler(signum, self.stop_on_signal, signum)

    def stop_on_signal(self, signum: int) -> None:
        """SIGTERM or SIGHUP ends the app as `q` does: a running run is cancelled, and its checks
        delete what they created before the process exits (128 + the signal's number)."""
        if self.stopped_by is None:  # a hangup may be told twice: by the signal, and by the driver
            self.stopped_by = signal.Signals(signum)
            self.exit(return_code=128 + signum)

    def open_run(self, profile: Profile) -> None:
        """Open the run screen of a profile above the current screen; the demo server starts in
        its workers' threads (`served`), once the screen is drawn."""
        from scim_tui.tui.screens.run import RunScreen  # loaded here or by load_the_rest: the profiles home does not need it

        self.push_screen(RunScreen(profile, clock=self.clock))

    def back_to_profiles(self) -> None:
        """Leave the run screen for the profiles under it; when the app opened on a profile, there
        are none yet: the run screen gives way to them."""
        if len(self.screen_stack) > 2:
            self.pop_screen()
        else:
            self.switch_screen(ProfilesScreen())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("quit_app", "help_key"):
            return not is_form(self.screen)
        if action == "settings":
            return not isinstance(self.screen, ModalScreen)
        return True

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(keys_of(self.screen)))

    def action_help_key(self) -> None:
        self.action_help()

    def action_quit_app(self) -> None:
        self.exit()

    async def action_quit(self) -> None:
        """ctrl+q, from any screen: a profile form holding edits asks before they are dropped."""
        from scim_tui.tui.screens.profile_form import ProfileFormScreen  # loaded by now if a form is open

        if any(isinstance(screen, ProfileFormScreen) and screen.edited for screen in self.screen_stack):
            self.push_screen(ConfirmScreen("Quit and discard your edits to this profile?"), lambda yes: self.exit() if yes else None)
        else:
            self.exit()

    def on_unmount(self) -> None:
        for worker in self.workers:
            if worker.group == "checks":
                worker.cancel()
        loop = asyncio.get_running_loop()
        for signum in STOPPING_SIGNALS:
            with suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(signum)
        with self._demo_lock:
            self._demo_stopped = True
            if self.demo_server is not None:
                self.demo_server.stop()
        gc.unfreeze()


def start_demo_server() -> DemoServer:
    """The embedded server, serving; a UserError in one line when it cannot start."""
    try:
        from scim_tui.demo import DemoServer  # scim2-server loads only for the demo profile, in a worker's thread

        server = DemoServer()
    except Exception as exc:  # a broken installation: one line, never a traceback
        raise UserError(f"The demo server did not start: {describe_error(exc)}") from exc
    try:
        server.start()
    except OSError as exc:
        raise UserError(
            f"The demo server did not start: it cannot listen on {server.host} ({exc.strerror or exc}); check the loopback interface, "
            "or open a profile of your own server."
        ) from exc
    return server


def is_form(screen: object) -> bool:
    """Screens where ``q`` is a letter to type, not a way out: modals and screens that say FORM."""
    return isinstance(screen, ModalScreen) or getattr(screen, "FORM", False)


def run_app(profile: Profile | None = None) -> int:
    """Run the app in the terminal until the user quits (or a signal ends it); return the exit status.

    The process waits, before it exits, for a cancelled run's checks to delete what they created.
    """
    app = ScimTuiApp(profile)
    try:
        app.run()
    except OSError:  # what Textual had left to print, on a terminal a hangup took away
        if app.stopped_by is None:
            raise
    if app.stopped_by is not None:
        report = app.last_run_end.report if app.last_run_end is not None else None
        left = f"; left on the server: {', '.join(report.leftovers)}" if report is not None and report.leftovers else ""
        with suppress(OSError):  # a closed terminal (SIGHUP) takes standard error with it
            print(f"scim-tui: terminated ({app.stopped_by.name}): a running run's checks deleted what they had created{left}.", file=sys.stderr)
    return 128 + app.stopped_by if app.stopped_by is not None else app.return_code or 0
