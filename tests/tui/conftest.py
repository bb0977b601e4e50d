"""Helpers for the run screen tests: a profile on a real server, and running until the run ends."""

from __future__ import annotations

import io
import random
import time
import types
import uuid
import wsgiref.handlers
from collections import Counter
from collections.abc import Callable
from collections.abc import Iterator

import pytest
from rich.console import Console
from scim2_models import Group
from scim2_models import User
from textual.command import CommandList
from textual.notifications import Notification
from textual.pilot import Pilot
from textual.widgets import OptionList

from scim_tui.checker import Status
from scim_tui.checker import recorder
from scim_tui.demo import make_app
from scim_tui.selection import Selection
from scim_tui.store.profiles import Profile
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.run_state import Row
from scim_tui.tui.screens.result import ResultScreen
from scim_tui.tui.screens.run import RunScreen
from scim_tui.tui.widgets.check_tree import CheckTree
from scim_tui.tui.widgets.result_lines import CauseLine
from scim_tui.tui.widgets.results_table import ResultsTable
from tests.support.servers import SCIM2_SERVER_BREAKS
from tests.support.servers import Broken
from tests.support.servers import Hanging
from tests.support.servers import RawServer
from tests.support.servers import make_client
from tests.support.servers import scim_error

SIZE = (130, 40)
CEILING = 60.0
"""How long a test waits for a condition before it fails: generous, for a busy machine."""


PASSING = Selection(exclude_tags=sorted(SCIM2_SERVER_BREAKS))
"""Every check but those scim2-server really fails: a run of it on scim2-server passes."""
FEW = Selection(include_tags=["misc", "service-provider-config"])
"""Three checks (random_url among them, which broken_random_url fails), every other one
skipped: for the tests that need a run with results, not a run of every check."""


@pytest.fixture(autouse=True)
def lasting_notifications(monkeypatch) -> None:
    """Notifications stay until a test reads them: a busy machine may take longer than their few
    seconds on screen to get there, and a test must not depend on how fast it is."""
    monkeypatch.setattr(Notification, "has_expired", property(lambda notification: False))


@pytest.fixture
def local(scim_server) -> Profile:
    return Profile(name="Local", url=scim_server.url)


def run_screen(pilot: Pilot) -> RunScreen:
    screen = pilot.app.screen
    assert isinstance(screen, RunScreen), f"expected the run screen, got {screen!r}"
    return screen


async def settle(pilot: Pilot, timeout: float = 60) -> None:
    """Wait for every worker, then for the messages they posted.

    A cancelled thread worker counts as complete at once, while its thread still
    finishes the running check: so wait, too, until the run screen has heard the end.
    """
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    deadline = time.monotonic() + timeout
    screen = pilot.app.screen
    while isinstance(screen, RunScreen) and screen.running and time.monotonic() < deadline:
        await pilot.pause(0.05)
    await pilot.pause()


async def wait_until(pilot: Pilot, condition: Callable[[], bool], timeout: float = CEILING) -> None:
    """Let the app run until the condition holds; fail if it never does."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        await pilot.pause(0.02)


async def run_from_palette(pilot: Pilot, query: str, command: str) -> None:
    """Open the command palette, type ``query``, wait until its search (made in the
    background) lists ``command`` first, and run it."""
    await pilot.press("ctrl+p", *query)
    listed = pilot.app.screen.query_one(CommandList)
    await wait_until(pilot, lambda: listed.option_count > 0 and command in str(listed.get_option_at_index(0).prompt))
    await pilot.press("enter")
    await pilot.pause()


async def start_hanging_run(pilot: Pilot, server: RawServer) -> RunScreen:
    """Press r and wait until the first check's request hangs on the silent server."""
    screen = run_screen(pilot)
    before = len(server.connections)
    await pilot.press("r")
    await wait_until(pilot, lambda: len(server.connections) > before and screen.running)
    return screen


async def run_checks(pilot: Pilot, key: str = "r") -> RunScreen:
    """Start a run with a key and wait until it has ended and been shown."""
    screen = run_screen(pilot)
    await settle(pilot)
    await pilot.press(key)
    await settle(pilot)
    assert not screen.running
    return screen


def table_of(pilot: Pilot) -> ResultsTable:
    return run_screen(pilot).query_one(ResultsTable)


async def open_key(pilot: Pilot, key: str) -> ResultScreen:
    """Open the result of this row from the results table, as enter does."""
    table = table_of(pilot)
    table.focus()
    table.select_key(key)
    await pilot.press("enter")
    await pilot.pause()
    assert isinstance(pilot.app.screen, ResultScreen)
    return pilot.app.screen


async def open_row(pilot: Pilot, title: str) -> ResultScreen:
    """Open the first result of this check (listed first when it shares a cause with others)."""
    return await open_key(pilot, next(key for key in run_screen(pilot).state.order if key.startswith(f"{title}#")))


def plain(renderable: object, width: int = 200) -> str:
    """What a Rich renderable (or text) reads like on a terminal, without styles."""
    console = Console(width=width, file=io.StringIO(), record=True)
    console.print(renderable)
    return console.export_text()


def broken_random_url() -> Broken:
    """scim2-server answering 200 to any unknown URL: the random_url check fails, nothing else."""
    return Broken(make_app()).answer("GET", r"/v2/scim-tui-missing-.*", 200, {"schemas": []})


@pytest.fixture
def hanging_patch(serve) -> Iterator[tuple[Hanging, str]]:
    """A server whose PATCH requests on resources hang until released (or the test ends), and its URL.

    The PATCH checks come after the create, read, replace and delete checks of a resource
    type: a run waits there, with those done, for as long as the test wants."""
    hanging = Hanging()
    server = serve(Broken(make_app()).rewrite("PATCH", r"/v2/(Users|Groups)/[^/]+", hanging))
    yield hanging, server.url
    hanging.release()


def assert_nothing_left(url: str, wait: float = 0.0) -> None:
    """No User or Group on the server, once the run's clean-up had up to ``wait`` seconds to finish."""
    deadline = time.monotonic() + wait
    with make_client(url) as client:
        client.discover()
        while (left := [client.query(model).total_results for model in (User, Group)]) != [0, 0] and time.monotonic() < deadline:
            time.sleep(0.1)
    assert left == [0, 0]


def listed(table: ResultsTable) -> Counter[Status]:
    """The results each status has among the lines listed: a result's line counts its own, a
    cause's line each of its results (its reason tells them apart when they differ); a suite's
    summary none, as every count."""
    shown: Counter[Status] = Counter()
    for line in table.entries:
        if isinstance(line.item, CauseLine):
            shown.update(row.result.status for row in line.item.rows if not row.summary)
        elif isinstance(line.item, Row) and not line.nested and not line.item.summary:
            shown[line.item.result.status] += 1
    return shown


def profile_prompts(app: ScimTuiApp) -> list[str]:
    """The entries of the profiles screen's list, as shown."""
    options = app.screen.query_one("#profile-list", OptionList)
    return [str(options.get_option_at_index(index).prompt) for index in range(options.option_count)]


async def highlight(pilot, name: str) -> None:
    """Move the highlight to the entry starting with ``name``, with the arrow keys."""
    index = next(index for index, prompt in enumerate(profile_prompts(pilot.app)) if prompt.startswith(name))
    await pilot.press("home", *["down"] * index)


def failing_list(serve) -> Profile:
    """A server whose list of Users answers 500: the User suite fails, and its summary, which
    made no request of its own, is an ERROR without exchanges."""
    broken = Broken(make_app()).answer("GET", "/v2/Users", 500, scim_error(500))
    return Profile(name="Failing list", url=serve(broken).url, selection=Selection(include_tags=["crud"], resource_types=["User"]))


@pytest.fixture
def deterministic(monkeypatch):
    ids = random.Random(1)
    monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(int=ids.getrandbits(128), version=4))
    monkeypatch.setattr(recorder, "time", types.SimpleNamespace(perf_counter=lambda: 0.0))
    monkeypatch.setattr(wsgiref.handlers, "format_date_time", lambda _: "Sun, 01 Nov 2026 12:00:00 GMT")
    random.seed(7)


def frozen_app(profile: Profile) -> ScimTuiApp:
    return ScimTuiApp(profile, clock=lambda: 0.0)


def boxes(tree: CheckTree) -> dict[str, str]:
    """The box drawn for each node, by tag prefix ("" for the root)."""
    result = {}
    for line in range(tree.last_line + 1):
        node = tree.get_node_at_line(line)
        rendered = tree.render_label(node, tree.rich_style, tree.rich_style).plain
        result[node.data] = rendered[:3]
    return result


def move_to(tree: CheckTree, prefix: str) -> None:
    line = next(n for n in range(tree.last_line + 1) if tree.get_node_at_line(n).data == prefix)
    tree.cursor_line = line
