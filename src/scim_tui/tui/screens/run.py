"""The run screen: choose checks, run them live, filter the results, open one, rerun what failed."""

from __future__ import annotations

import time
from collections.abc import Callable
from collections.abc import Collection
from dataclasses import replace
from datetime import UTC
from datetime import date
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING
from typing import cast

from rich.text import Text
from textual import on
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.containers import Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer
from textual.widgets import Header
from textual.widgets import Input
from textual.widgets import SelectionList
from textual.widgets import Static
from textual.worker import Worker
from textual.worker import WorkerState
from textual.worker import get_current_worker

from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker.exchanges import Redactor
from scim_tui.checker.exchanges import describe_error
from scim_tui.checker.exchanges import printable
from scim_tui.checker.tag_index import CHECKS_BY_TAG
from scim_tui.errors import UserError
from scim_tui.net.cutoff import Cutoff
from scim_tui.selection import Selection
from scim_tui.store import history
from scim_tui.store import selections
from scim_tui.store.baseline import FAILING
from scim_tui.store.baseline import BaselineError
from scim_tui.store.baseline import Entry
from scim_tui.store.baseline import Judgement
from scim_tui.store.baseline import label
from scim_tui.store.history import RunChanges
from scim_tui.store.profile_baseline import ProfileBaseline
from scim_tui.store.profiles import Profile
from scim_tui.store.settings import Settings
from scim_tui.store.settings import Sort
from scim_tui.tui.commands import PaletteCommand
from scim_tui.tui.export import export_report
from scim_tui.tui.export import exports_dir
from scim_tui.tui.heap import RunHeap
from scim_tui.tui.messages import AcceptAsked
from scim_tui.tui.messages import PastRunRead
from scim_tui.tui.messages import RerunAsked
from scim_tui.tui.messages import ResourceTypesFound
from scim_tui.tui.messages import ResultsBatch
from scim_tui.tui.messages import RowsChanged
from scim_tui.tui.messages import RunFinished
from scim_tui.tui.messages import RunPlanned
from scim_tui.tui.messages import RunWaiting
from scim_tui.tui.run_state import Filter
from scim_tui.tui.run_state import Mark
from scim_tui.tui.run_state import RunState
from scim_tui.tui.screens.accept import Acceptance
from scim_tui.tui.screens.accept import AcceptScreen
from scim_tui.tui.screens.confirm import ConfirmScreen
from scim_tui.tui.screens.export import ExportChoice
from scim_tui.tui.screens.export import ExportScreen
from scim_tui.tui.widgets.check_tree import CheckTree
from scim_tui.tui.widgets.check_tree import checked_of
from scim_tui.tui.widgets.filter_input import FilterInput
from scim_tui.tui.widgets.motion import MotionSelectionList
from scim_tui.tui.widgets.readiness import Readiness
from scim_tui.tui.widgets.result_preview import ResultPreview
from scim_tui.tui.widgets.result_preview import preview_of
from scim_tui.tui.widgets.results_table import ResultsTable
from scim_tui.tui.widgets.run_status import Phase
from scim_tui.tui.widgets.run_status import Progress
from scim_tui.tui.widgets.run_status import RunStatus

if TYPE_CHECKING:  # the runner loads the engine and scim2-client: in the workers' threads, after the first paint
    from scim_tui.tui.app import ScimTuiApp
    from scim_tui.tui.runner import RunRequest

Clock = Callable[[], float]
ACTIVE = (Phase.RUNNING, Phase.CANCELLING)
NARROW = 100
"""Below this many columns the sidebar hides itself, so that the results keep the width."""
WIDE = 120
"""From this many columns on, the sidebar takes its full width."""
SHORT = 30
"""Below this many rows the readiness verdicts share one line and the preview is a line shorter,
so that the results keep a screenful of rows."""


def today() -> date:
    """The day baseline dates are judged by, as `scim-tui check` judges them."""
    return datetime.now(UTC).date()


def baseline_line(judgement: Judgement) -> str | None:
    """What a finished run tells of the baseline beyond its accepted failures: entries fixed, expired."""
    parts = []
    if judgement.fixed:
        parts.append(f"fixed, remove from the baseline (a on its row): {', '.join(label(entry) for entry in judgement.fixed)}")
    if judgement.expired:
        parts.append(f"expired, past its date it counts again: {', '.join(label(entry) for entry in judgement.expired)}")
    return f"Baseline: {'; '.join(parts)}." if parts else None


def changes_by_check(changes: RunChanges) -> dict[CheckId, Mark]:
    """The mark of each check that changed since the previous run of the profile."""
    return {check: Mark(change) for check in [*changes.new_failures, *changes.fixed] if (change := changes.change_of(check))}


class RunScreen(Screen[None]):
    """Everything about running the checks of one profile."""

    # The footer shows them in this order, as far as the terminal is wide: run, help, quit and
    # Escape (cancel the run, or back to the profiles), then the keys of the fix loop (rerun what
    # failed, accept, failures first, the sidebar), all at 80 columns.
    BINDINGS = [
        Binding("r", "run", "Run", id="run.run"),
        Binding("question_mark", "app.help_key", "Help", key_display="?", id="run.help"),
        Binding("q", "app.quit_app", "Quit", id="run.quit"),
        Binding("escape", "cancel", "Cancel run", id="run.cancel"),
        Binding("ctrl+c", "cancel", "Cancel run", show=False, id="run.cancel-ctrl-c"),
        Binding("escape", "back", "Profiles", id="run.back"),
        Binding("f", "rerun_failed", "Rerun failed", id="run.rerun-failed"),
        Binding("a", "accept", "Accept", tooltip="Accept the failure in the profile's baseline (or un-accept it)", id="run.accept"),
        Binding("s", "failures_first", "Worst first", tooltip="Failures first: each group's results by severity", id="run.failures-first"),
        Binding("b", "toggle_sidebar", "Sidebar", tooltip="Show or hide the tags and resource types", id="run.sidebar"),
        Binding("c", "by_cause", "By cause", tooltip="One line per cause shared by several results, or one line per result", id="run.by-cause"),
        # on the results (the tag tree's own space ticks a tag)
        Binding("space", "toggle_cause", "Expand", tooltip="List the results of the cause under the cursor (▸), or fold them", id="run.expand"),
        Binding("n", "next_failure", "Next failure", id="run.next-failure"),
        Binding("p", "previous_failure", "Previous failure", show=False, id="run.previous-failure"),
        Binding("slash", "filter", "Filter", id="run.filter"),
        Binding("e", "export", "Export", id="run.export"),
        Binding(
            "1", "toggle_status(1)", "Statuses", key_display="1-7", tooltip="Show or hide the results of a status (1 SUCCESS … 7 SKIPPED)", id="run.status-1"
        ),
        *(Binding(str(n), f"toggle_status({n})", Status(n).name, show=False, id=f"run.status-{n}") for n in range(2, 8)),
    ]
    PALETTE_HIDDEN = frozenset({"run.status-1"})
    HELP_HIDDEN = frozenset(f"run.status-{n}" for n in range(2, 8))
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW, "-medium"), (WIDE, "-wide")]
    """Below NARROW columns the sidebar hides itself, below WIDE it narrows (app.tcss); `b` shows or hides it."""

    def __init__(self, profile: Profile, clock: Clock = time.monotonic) -> None:
        super().__init__()
        self.state_warnings: list[str] = []
        self.profile = profile.model_copy(update={"selection": selections.remembered(profile, warn=self.state_warnings.append)})
        """The profile, with the selection on screen (remembered in the app's state, never in its file)."""
        self.clock = clock
        self.state = RunState()
        self.heap = RunHeap(clock)
        self.view = Filter()
        self.progress = Progress()
        self.run_id = 0
        self.export_folder = exports_dir()
        self.started = 0.0
        self._ticker: Timer | None = None
        self.baseline = ProfileBaseline.of(self.profile)
        """The failures accepted for now, in the profile's baseline file."""
        self.judgement = Judgement()
        self.reading = Cutoff()
        """Ends the read of the resource types at once."""
        self.cutoff = Cutoff()
        """Ends the last run at once while it has created nothing (RunRequest.cutoff)."""

    def compose(self) -> ComposeResult:
        selection = self.profile.selection
        tags = sorted(CHECKS_BY_TAG)  # the index: the check modules load when a run needs them
        yield Header()
        with Horizontal(id="run-body"):
            with Vertical(id="run-sidebar"):
                yield Static("Tags · space ticks", classes="pane-title")
                yield CheckTree(tags, checked_of(tags, selection.include_tags, selection.exclude_tags), id="tags")
                yield Static("Resource types · space ticks", classes="pane-title")
                yield MotionSelectionList(id="resource-types")
                yield Static("Reading the resource types…", id="resource-types-note")
            with Vertical(id="run-main"):
                yield RunStatus(id="run-status")
                yield Readiness(id="readiness")
                yield ResultsTable(id="results")
                yield ResultPreview(preview_of(None), id="preview")
                yield FilterInput(id="filter")
        yield Footer(compact=True)  # the keys that matter fit at 80 columns

    def on_mount(self) -> None:
        self.sub_title = self.profile.name
        for warning in self.state_warnings:
            self.notify(warning, severity="warning", markup=False)
        self.query_one(FilterInput).display = False
        app = cast("ScimTuiApp", self.app)
        self.apply_settings(app.settings)
        app.settings_signal.subscribe(self, self.apply_settings)
        self._show_progress()
        self.call_after_refresh(self._refocus)
        # Once the screen is drawn: their threads start the demo server, load the engine, read the history.
        self.call_after_refresh(self.find_resource_types)
        self.call_after_refresh(self.read_last_run)

    def apply_settings(self, settings: Settings) -> None:
        """Show the results as the settings say (at start, and when the settings screen changes them)."""
        table = self.query_one(ResultsTable)
        failures_first, statuses = settings.sort is Sort.FAILURES_FIRST, settings.shown_statuses
        if (failures_first, statuses) != (self.view.failures_first, self.view.statuses):
            self.view.failures_first, self.view.statuses = failures_first, statuses
            self._refresh_results()
            self._show_progress()
        if settings.by_cause != table.by_cause:
            table.show_by_cause(settings.by_cause)
            self._show_preview(table.selected_key)
        if self.has_class("-sidebar-hidden") == settings.sidebar:
            self.set_class(not settings.sidebar, "-sidebar-hidden")
            self.call_after_refresh(self._refocus)

    def _remember(self, **changes: object) -> None:
        """Keep a view choice in the app's settings, for the next time."""
        cast("ScimTuiApp", self.app).change_settings(**changes)

    def on_resize(self) -> None:
        short = self.size.height < SHORT
        self.set_class(short, "-short")
        # Below NARROW columns Escape (cancel the run, back to the profiles) takes the place of the
        # palette's key: ctrl+p still opens it, and the help lists it.
        self.query_one(Footer).show_command_palette = self.size.width >= NARROW
        self.query_one(Readiness).shorten(short)
        self.call_after_refresh(self._refocus)  # once the breakpoints' classes laid the screen out

    def _refocus(self) -> None:
        """Keys never go to a hidden sidebar: the results take them then. The tag tree takes
        them first when it shows."""
        sidebar, focused = self.query_one("#run-sidebar"), self.focused
        if not sidebar.display and (focused is None or sidebar in focused.ancestors):
            self.query_one(ResultsTable).focus()
        elif sidebar.display and focused is None:
            self.query_one(CheckTree).focus()

    # The last run, from the history, until a run starts

    @work(thread=True, exclusive=True, group="history", exit_on_error=False)
    def read_last_run(self) -> None:
        warnings: list[str] = []
        report = history.latest(self.profile.name, warn=warnings.append)
        self.post_message(PastRunRead(report, warnings))

    @on(PastRunRead)
    def show_past_run(self, message: PastRunRead) -> None:
        """Show the last run as it ended, marked as read from the history, unless a run started meanwhile."""
        for warning in message.warnings:
            self.notify(warning, severity="warning", markup=False)
        report = message.report
        if report is None or self.run_id or self.progress.phase is not Phase.IDLE:
            return
        self.state.show_past(report)
        self.judgement = self.state.review(self.baseline.entries, today())
        self._show_readiness()
        self.progress = Progress(phase=Phase.PAST, ran_at=report.started_at, elapsed=report.duration)
        self._refresh_results()
        self._show_progress()
        self.call_after_refresh(self.query_one(ResultsTable).first_failure)
        self.refresh_bindings()

    # Choosing what to run

    @work(thread=True, exclusive=True, group="discovery", exit_on_error=False)
    def find_resource_types(self) -> None:
        from scim_tui.tui.runner import find_resource_types

        try:
            profile = cast("ScimTuiApp", self.app).served(self.profile)
        except UserError as error:  # the demo server did not start
            self.post_message(ResourceTypesFound([], error=str(error)))
            return
        find_resource_types(profile, self.post_message, self.reading)

    def on_unmount(self) -> None:
        """Leaving the screen (or the app) abandons what waits on the server and has created
        nothing: the resource types' read, a run that has not begun its checks; the rows its
        runs froze go with it (heap.py)."""
        self.reading.cut()
        self.cutoff.cut()
        self.app.call_after_refresh(self.heap.forget)  # once the screen is gone: its rows with it

    @on(ResourceTypesFound)
    def show_resource_types(self, message: ResourceTypesFound) -> None:
        note = self.query_one("#resource-types-note", Static)
        chosen = set(self.profile.selection.resource_types)
        options = self.query_one("#resource-types", SelectionList)
        options.clear_options()
        # The server's names, shown as text (never markup) with control characters made visible.
        options.add_options([(Text(printable(name)), name, not chosen or name in chosen) for name in message.names])
        if message.names:
            options.highlighted = 0  # space ticks the first one at once, without a down first
        note.display = bool(message.error) or not message.names
        note.update(Text(f"Could not read the resource types: {message.error}" if message.error else "The server publishes no resource type."))

    def selection(self) -> Selection:
        """The tags and resource types ticked on screen, as a profile stores them."""
        include, exclude = self.query_one(CheckTree).selection()
        options = self.query_one("#resource-types", SelectionList)
        chosen = list(options.selected)
        if options.option_count == 0:
            types = list(self.profile.selection.resource_types)
        else:
            types = [] if len(chosen) == options.option_count else chosen
        return Selection(include_tags=include, exclude_tags=exclude, resource_types=types)

    # Running

    @property
    def running(self) -> bool:
        return self.progress.phase in ACTIVE

    def action_run(self) -> None:
        if not self.query_one(CheckTree).checked:
            self.notify("No tag is ticked: tick at least one tag (space) to run its checks.", severity="warning")
            return
        options = self.query_one("#resource-types", SelectionList)
        if options.option_count and not options.selected:
            self.notify("No resource type is ticked: tick at least one to run its checks.", severity="warning")
            return
        selection = self.selection()
        self.save_selection(selection)
        self._start(self._request(selection))

    def rerun(self, checks: frozenset[CheckId]) -> None:
        """Run exactly these checks again; their rows are replaced in place and marked."""
        self._start(self._request(Selection(), only=checks))

    def _request(self, selection: Selection, only: frozenset[CheckId] | None = None) -> RunRequest:
        from scim_tui.run import RunOptions
        from scim_tui.tui.runner import RunRequest  # loaded by now: the resource types' read loaded it

        return RunRequest(self.run_id + 1, self.profile, selection, RunOptions(only=only, recover=False))

    def action_rerun_failed(self) -> None:
        failed = self.state.failed_checks()
        if not failed:
            self.notify("Nothing failed: no check to run again." if self.state.facts else "Nothing to rerun yet: press r to run the checks first.")
            return
        self.rerun(failed)

    def save_selection(self, selection: Selection) -> None:
        """Remember the selection in the app's state for the next time; the profile's file is never written."""
        self.profile = self.profile.model_copy(update={"selection": selection})
        try:
            selections.remember(self.profile.name, selection)
        except OSError as exc:
            self.notify(f"The selection will not be remembered: {describe_error(exc)}", severity="warning", markup=False)

    def _start(self, request: RunRequest) -> None:
        """Start a run; when runs of this server ended before their clean-up, ask first whether
        to look for what they left and delete what the run proves its own."""
        from scim_tui.store.journal import left_behind  # with the run's guard: loaded by the first run, not the first frame

        left = 0 if self.profile.demo else left_behind(self.profile.url)
        if not left:
            self._begin(request)
            return
        question = (
            f"A run of {Redactor().url(self.profile.url)} ended before its clean-up (killed, or the machine stopped), "
            f"and may have left {left} resource(s) there. Look for them, and delete those a GET proves the run created?"
        )
        self.app.push_screen(ConfirmScreen(question), lambda yes: self._begin(replace(request, options=replace(request.options, recover=bool(yes)))))

    def _begin(self, request: RunRequest) -> None:
        self.run_id = request.run_id
        self.cutoff = request.cutoff
        self.state.start(rerun=request.options.only)
        self._show_readiness()
        self.progress = Progress(phase=Phase.RUNNING, shown=self.view.statuses)
        self.started = self.clock()
        self._refresh_results()
        if request.options.only is None:  # the rows shown are dropped: what they left frozen goes
            cast("ScimTuiApp", self.app).last_run_end = None  # holds the last run's report, and its results
            self.heap.forget()
        self._ticker = self._ticker or self.set_interval(0.5, self._tick)
        self._ticker.resume()
        self.run_checks(request)
        self.refresh_bindings()
        self._tell_rows(())

    @work(thread=True, exclusive=True, group="checks", exit_on_error=False)
    def run_checks(self, request: RunRequest) -> None:
        from scim_tui.tui.runner import Runner

        worker, app = get_current_worker(), cast("ScimTuiApp", self.app)
        try:
            request = replace(request, profile=app.served(request.profile))  # waits while the demo server starts
        except UserError as error:
            app.run_ended(self, RunFinished(request.run_id, cancelled=worker.is_cancelled, error=None if worker.is_cancelled else str(error)))
            return
        Runner(self.post_message, lambda: worker.is_cancelled, ended=partial(app.run_ended, self)).run(request)

    def action_cancel(self) -> None:
        """Cancel the run: its running checks end and clean up, or, before they begin, at once."""
        self.workers.cancel_group(self, "checks")
        self.progress.untouched = self.cutoff.cut()
        self.progress.phase = Phase.CANCELLED if self.progress.untouched else Phase.CANCELLING
        self._tick()
        self.refresh_bindings()

    def action_back(self) -> None:
        cast("ScimTuiApp", self.app).back_to_profiles()

    @on(RunPlanned)
    def plan(self, message: RunPlanned) -> None:
        if message.run_id == self.run_id:
            self.progress.planned = message.planned if message.whole else 0  # no total yet: the bar would go back once one is known
            self._show_progress()

    @on(RunWaiting)
    def show_wait(self, message: RunWaiting) -> None:
        if message.run_id == self.run_id:
            self.progress.waiting = message.waiting
            self._show_progress()

    @on(ResultsBatch)
    def add_results(self, message: ResultsBatch) -> None:
        if message.run_id != self.run_id:
            return
        change = self.state.add(message.results)
        self.judgement = self.state.review(self.baseline.entries, today())
        self._show_readiness()
        table = self.query_one(ResultsTable)
        shown = [row for row in change.appended if self.view.shows(row)]
        if not change.updated and not self.view.failures_first and table.extend(shown, [row for row in change.joined if self.view.shows(row)], change.placed):
            self._show_preview(table.selected_key)  # a run streaming in: only the batch's lines
        else:
            self._refresh_results()
        self._show_progress()
        if change.updated:
            self._tell_rows(change.updated)
        self.heap.settle()

    @on(RunFinished)
    def finish(self, message: RunFinished) -> None:
        if message.run_id != self.run_id:
            return
        joining = self.state.joining  # a rerun's rows join the run shown; its start and duration stay the run's
        revision = self.state.revision
        self.state.finish(message.report)
        self.heap.settle(now=True)
        if message.changes:
            self.state.mark_checks(changes_by_check(message.changes))
        self.judgement = self.state.review(self.baseline.entries, today())
        if not joining:
            self.progress.compared = message.changes.compared if message.changes else None
        self.progress.phase = Phase.FAILED if message.error else Phase.CANCELLED if message.cancelled else Phase.FINISHED
        self.progress.error = message.error
        self._tick()
        if self._ticker:
            self._ticker.pause()
        if message.error:
            self.notify(message.error, title="The run stopped", severity="error", markup=False)
        for warning in message.warnings:
            self.notify(warning, severity="warning", markup=False)
        for note in message.notes:
            self.notify(note, title="Left by an earlier run", markup=False, timeout=30)
        if self.state.revision != revision:  # marks, acceptances, a rerun's rows dropped: else the lines show the rows
            self._refresh_results()
        if not joining:  # a run ends on its first failure (once laid out); a rerun leaves the cursor where it was
            self.call_after_refresh(self.query_one(ResultsTable).first_failure)
            self._focus_results()
        self.refresh_bindings()
        self._tell_rows(())

    @on(Worker.StateChanged)
    def worker_failed(self, event: Worker.StateChanged) -> None:
        """An error no handler expected: one line on screen, never a traceback."""
        if event.state is WorkerState.ERROR:
            error = describe_error(event.worker.error) if event.worker.error else "unknown error"
            self.notify(error, title=f"The {event.worker.group} worker failed", severity="error", markup=False)
            if event.worker.group == "checks":
                self.post_message(RunFinished(self.run_id, error=error))

    def _focus_results(self) -> None:
        """Results to look at take the keys from the sidebar, where the run was started: `enter`
        then opens the result under the cursor, as the preview says."""
        table = self.query_one(ResultsTable)
        focused = self.focused
        if table.row_count and (focused is None or self.query_one("#run-sidebar") in focused.ancestors):
            table.focus()

    def _tick(self) -> None:
        if self.progress.phase not in (Phase.IDLE, Phase.PAST):
            self.progress.elapsed = self.clock() - self.started
            self._show_progress()
            self.heap.settle()  # what the run built before its first result, or between two (heap.py)

    def _show_progress(self) -> None:
        self.progress.done = self.state.checks_done()
        self.progress.size = self.state.size()
        self.progress.counts = self.state.counts()
        self.progress.marks = self.state.marks()
        self.progress.leftovers = self.state.leftovers()
        self.progress.shown = self.view.statuses
        self.progress.open_failures, self.progress.accepted = self.state.failures()
        self.progress.baseline = self._baseline_line()
        self.query_one(RunStatus).show(self.progress)

    def _show_readiness(self) -> None:
        self.query_one(Readiness).show(self.state.verdicts)

    def _baseline_line(self) -> str | None:
        if self.baseline.problem:
            return f"{self.baseline.problem} Until then no failure is accepted (a does nothing)."
        return baseline_line(self.judgement) if self.progress.phase in (Phase.FINISHED, Phase.PAST) else None

    # Looking at the results

    def _refresh_results(self) -> None:
        table = self.query_one(ResultsTable)
        table.show(self.state.visible(self.view))
        self._show_preview(table.selected_key)

    @on(ResultsTable.CursorMoved, "#results")
    def preview(self, message: ResultsTable.CursorMoved) -> None:
        self._show_preview(message.key)

    def _show_preview(self, key: str | None) -> None:
        preview = self.query_one(ResultPreview)
        cause = self.query_one(ResultsTable).selected_cause if key is None else None
        if cause is not None:
            preview.show_cause(cause.cause, len(cause.rows), cause.expanded)
        else:
            preview.show_row(self.state.rows.get(key) if key else None)

    def action_next_failure(self) -> None:
        self._jump(forward=True)

    def action_previous_failure(self) -> None:
        self._jump(forward=False)

    def _jump(self, forward: bool) -> None:
        table = self.query_one(ResultsTable)
        if table.next_failure(forward):
            table.focus()
        else:
            self.notify("No failure among the results shown.")

    # Accepting failures (the profile's baseline)

    def action_accept(self) -> None:
        self.accept(self.query_one(ResultsTable).selected_key)

    def accept(self, key: str | None) -> None:
        """Accept the failure of this row with a note, or un-accept it when accepted (or fixed)."""
        row = self.state.rows.get(key or "")
        if row is None:
            self.notify("Put the cursor on a result: a accepts a failure, or un-accepts an accepted one.")
            return
        if self.baseline.problem:
            self.notify(self.baseline.problem, severity="error", markup=False)
            return
        entry = row.accepted or next((entry for entry in self.judgement.fixed if entry.check_id == row.result.check_id), None)
        if entry is not None:
            question = f"Remove {label(entry)} from the baseline {self.baseline.path}? It counts as a failure again."
            self.app.push_screen(ConfirmScreen(question), partial(self._unaccept, entry))
        elif row.result.status in FAILING:
            self.app.push_screen(AcceptScreen(str(row.result.check_id), today()), partial(self._accept, row.key))
        else:
            self.notify(f"Only a failure (DEVIATION, ERROR or CRITICAL) can be accepted: this result is {row.result.status.name}.", markup=False)

    def _accept(self, key: str, acceptance: Acceptance | None) -> None:
        row = self.state.rows.get(key)
        if acceptance is None or row is None:
            return
        self._change_baseline(
            lambda: self.baseline.accept(row.result, acceptance.note, acceptance.until), f"Accepted {row.result.check_id} in {self.baseline.path}"
        )

    def _unaccept(self, entry: Entry, yes: bool | None) -> None:
        if yes:
            self._change_baseline(lambda: self.baseline.unaccept(entry), f"Removed {label(entry)} from {self.baseline.path}")

    def _change_baseline(self, change: Callable[[], object], done: str) -> None:
        try:
            change()
        except BaselineError as error:
            self.notify(str(error), severity="error", markup=False, timeout=30)
        else:
            self.notify(done, markup=False)
        self.judgement = self.state.review(self.baseline.entries, today())
        self._refresh_results()
        self._show_progress()
        self._tell_rows(self.state.rows.keys())  # any row's acceptance may have changed

    def action_failures_first(self) -> None:
        self.view.failures_first = not self.view.failures_first
        self._remember(sort=Sort.FAILURES_FIRST if self.view.failures_first else Sort.RUN_ORDER)
        self._refresh_results()
        self.notify("Failures first in each group." if self.view.failures_first else "Results in the order they ran.")

    def action_toggle_cause(self) -> None:
        self.query_one(ResultsTable).action_toggle_cause()

    def action_by_cause(self) -> None:
        table = self.query_one(ResultsTable)
        table.show_by_cause(not table.by_cause)
        self._remember(by_cause=table.by_cause)
        self._show_preview(table.selected_key)
        self.notify("One line per shared cause: space expands it." if table.by_cause else "One line per result.")

    def action_toggle_sidebar(self) -> None:
        """Show the sidebar when it is hidden (by this key, or on a narrow terminal), else hide it."""
        show = not self.query_one("#run-sidebar").display
        narrow = self.has_class("-narrow")  # where it hides itself: `b` shows it; elsewhere `b` hides it
        self.set_class(show and narrow, "-sidebar-shown")
        self.set_class(not show and not narrow, "-sidebar-hidden")
        if not narrow:  # below 100 columns it hides itself whatever the setting: `b` shows it for now
            self._remember(sidebar=show)
        (self.query_one(CheckTree) if show else self.query_one(ResultsTable)).focus()

    def action_toggle_status(self, number: int) -> None:
        self._show_statuses(self.view.statuses ^ {Status(number)})

    def action_show_only_failures(self) -> None:
        self._show_statuses({status for status in Status if status.failed})

    def _show_statuses(self, statuses: set[Status]) -> None:
        self.view.statuses = statuses
        self._remember(hidden_statuses=[status.name for status in Status if status not in statuses])
        self._refresh_results()
        self._show_progress()

    def palette_commands(self) -> list[PaletteCommand]:
        """Run commands beyond the footer's keys: each status on its own, and failures only."""
        commands = [
            PaletteCommand(f"Show or hide {status.name} results", f"key: {status.value}", partial(self.action_toggle_status, status.value)) for status in Status
        ]
        commands += [
            PaletteCommand("Show only failures", "ERROR and CRITICAL results", self.action_show_only_failures),
            PaletteCommand("Previous failure", "key: p", self.action_previous_failure),
        ]
        return commands

    def action_filter(self) -> None:
        box = self.query_one(FilterInput)
        box.display = True
        box.focus()

    @on(Input.Changed, "#filter")
    def filter_text(self, event: Input.Changed) -> None:
        self.view.text = event.value
        self._refresh_results()

    @on(Input.Submitted, "#filter")
    @on(FilterInput.Cleared)
    def close_filter(self) -> None:
        self.query_one(ResultsTable).focus()

    @on(ResultsTable.Opened, "#results")
    def open_result(self, message: ResultsTable.Opened) -> None:
        from scim_tui.tui.screens.result import ResultScreen  # its exchange views load when a result opens, not for the first frame

        if message.key is not None and (row := self.state.rows.get(message.key)) is not None:
            self.app.push_screen(ResultScreen(row, running=self.running))

    def _tell_rows(self, changed: Collection[str]) -> None:
        """Tell the result screens open that these rows changed, or that a run began or ended
        (messages.py says why a signal)."""
        cast("ScimTuiApp", self.app).rows_signal.publish(RowsChanged(self.state.rows, changed, self.running))

    @on(RerunAsked)
    def rerun_asked(self, message: RerunAsked) -> None:
        self.rerun(message.checks)

    @on(AcceptAsked)
    def accept_asked(self, message: AcceptAsked) -> None:
        self.accept(message.key)

    def action_export(self) -> None:
        if self.state.facts is None:
            self.notify("Nothing to export yet: press r to run the checks first.", severity="warning")
            return
        self.app.push_screen(ExportScreen(self.export_folder), callback=self.export_as)

    def export_as(self, choice: ExportChoice | None) -> None:
        if choice is None or (report := self.state.report()) is None:
            return
        self.export_folder = choice.folder
        try:
            path = export_report(report, choice.format, choice.folder)
        except OSError as exc:
            self.notify(f"Cannot export the run: {describe_error(exc)}", severity="error", markup=False, timeout=30)
            return
        self.notify(f"Exported the run to {path}", title="Report written", markup=False, timeout=30)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":
            return self.progress.phase is Phase.RUNNING
        if action == "back":
            return not self.running
        if action == "run":
            return None if self.running else True
        if action in ("export", "rerun_failed"):
            return None if self.running else True
        return True
