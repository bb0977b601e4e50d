"""The scim-tui application: the profiles home, the run screen of a profile, the command palette."""

from __future__ import annotations

import gc
import time

from textual.app import App
from textual.binding import Binding
from textual.screen import ModalScreen

from scim_tui.demo import stop_shared_server
from scim_tui.profiles import Profile
from scim_tui.tui.commands import ScreenCommands
from scim_tui.tui.screens.profiles import ProfilesScreen
from scim_tui.tui.screens.run import Clock
from scim_tui.tui.screens.run import RunScreen


class ScimTuiApp(App[None]):
    """Check a SCIM server interactively. With a profile, its run screen opens directly."""

    TITLE = "scim-tui"
    CSS_PATH = ["app.tcss", "profiles.tcss"]
    COMMANDS = App.COMMANDS | {ScreenCommands}
    BINDINGS = [Binding("q", "quit_app", "Quit", id="app.quit")]

    def __init__(self, profile: Profile | None = None, clock: Clock = time.monotonic) -> None:
        super().__init__()
        self.profile = profile
        self.clock = clock

    def on_mount(self) -> None:
        # What the imports built lives until exit: out of the collector's full passes, which
        # otherwise stall the screen ~80 ms each once a run has 10,000 results.
        gc.freeze()
        self.push_screen(ProfilesScreen())
        if self.profile is not None:
            self.open_run(self.profile)

    def open_run(self, profile: Profile) -> None:
        """Open the run screen of a profile above the current screen."""
        self.push_screen(RunScreen(profile, clock=self.clock))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "quit_app":
            return not is_form(self.screen)
        return True

    def action_quit_app(self) -> None:
        self.exit()

    def on_unmount(self) -> None:
        for worker in self.workers:
            if worker.group == "checks":
                worker.cancel()
        stop_shared_server()
        gc.unfreeze()


def is_form(screen: object) -> bool:
    """Screens where ``q`` is a letter to type, not a way out: modals and screens that say FORM."""
    return isinstance(screen, ModalScreen) or getattr(screen, "FORM", False)


def run_app(profile: Profile | None = None) -> None:
    """Run the app in the terminal until the user quits."""
    ScimTuiApp(profile).run()
