"""A run killed before its clean-up (kill -9, a power cut) leaves its journal in the data dir: the
next run of the same server finds what it left, deletes what it proves its own, and says so in
one line; a journal whose run is alive is never taken."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from scim_tui.checker.guard import Creation
from scim_tui.checker.guard import Marker
from scim_tui.demo import make_app
from scim_tui.selection import Selection
from scim_tui.store.journal import RunJournal
from scim_tui.store.journal import journals_dir
from scim_tui.store.journal import left_behind
from scim_tui.store.profiles import Profile
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.screens.confirm import ConfirmScreen
from tests.support.bystanders import Bystanders
from tests.support.bystanders import run_leftovers
from tests.support.command import TIMEOUT
from tests.support.command import scim_tui_here
from tests.support.command import spawn
from tests.support.servers import Broken
from tests.support.servers import Hanging
from tests.tui.conftest import SIZE
from tests.tui.conftest import settle
from tests.tui.conftest import wait_until

READ_USER = r"/v2/Users/[^/?]+"
RECOVERED = "A run of this server that ended before its clean-up (killed, or the machine stopped) left"


@dataclass
class Killed:
    """A server with someone else's users and groups on it, and what a run killed on it left."""

    url: str
    bystanders: Bystanders
    left: list[dict]


def hung_run(url: str, hanging: Hanging):
    """`scim-tui check` in a new process, held at the first read of a user it created: the
    clean-up's GET that proves the user its own, before it deletes it."""
    process = spawn("check", "--url", url, "--resource-type", "User", "--include-tags", "crud:create", "--jobs", "1")
    assert hanging.reached.wait(TIMEOUT), "the run reached its clean-up"
    return process


@pytest.fixture
def killed(serve) -> Iterator[Killed]:
    """A run killed (SIGKILL) in the middle of its clean-up, before it deleted what it created."""
    hanging = Hanging()
    broken = Broken(make_app()).rewrite("GET", READ_USER, hanging)
    server = serve(broken)
    broken.repaired = True
    bystanders = Bystanders.seed(server.url)
    broken.repaired = False
    process = hung_run(server.url, hanging)
    try:
        alive = scim_tui_here("check", "--url", server.url, "--include-tags", "misc")
        assert RECOVERED not in alive.stderr, "the journal of a run that is alive is never taken"
        process.send_signal(signal.SIGKILL)
        process.wait(TIMEOUT)
    finally:
        hanging.release()
        broken.repaired = True
    yield Killed(server.url, bystanders, run_leftovers(server.url))


@pytest.mark.slow  # a new process, killed
def test_the_next_run_deletes_what_a_killed_run_left_and_says_so_in_one_line(killed):
    assert killed.left, "the killed run left the user it created"
    assert left_behind(killed.url) == len(killed.left)
    after = scim_tui_here("check", "--url", killed.url, "--include-tags", "misc")
    assert after.returncode == 0, after.stderr
    [line] = [line for line in after.stderr.splitlines() if RECOVERED in line]
    told = f"scim-tui: {RECOVERED} {len(killed.left)} creation(s) unsettled: deleted "
    assert line.startswith(told) and line.endswith(".")
    assert sorted(line.removeprefix(told).removesuffix(".").split(", ")) == sorted(f"User/{user['id']}" for user in killed.left)
    assert run_leftovers(killed.url) == []
    assert killed.bystanders.untouched()
    assert list(journals_dir(killed.url).iterdir()) == [], "the killed run's journal is gone, and the last run's too"
    again = scim_tui_here("check", "--url", killed.url, "--include-tags", "misc")
    assert RECOVERED not in again.stderr, "said once"


@pytest.mark.anyio
async def test_the_app_asks_before_it_deletes_what_a_killed_run_left(killed):
    app = ScimTuiApp(Profile(name="Killed", url=killed.url, selection=Selection(include_tags=["misc"])))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for answer in ("n", "y"):
            await pilot.press("r")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            assert f"ended before its clean-up (killed, or the machine stopped), and may have left {len(killed.left)} resource(s) there" in app.screen.question
            await pilot.press(answer)
            await settle(pilot)
            if answer == "n":
                assert len(run_leftovers(killed.url)) == len(killed.left), "no: the run goes on, and leaves them for another time"
        assert any(n.message.startswith(f"{RECOVERED} {len(killed.left)} creation(s) unsettled: deleted User/") for n in app._notifications)
    assert run_leftovers(killed.url) == []
    assert killed.bystanders.untouched()
    assert left_behind(killed.url) == 0


def test_a_journal_holds_no_credential_and_its_cut_or_foreign_lines_are_ignored():
    target = "https://someone:hunter2@scim.example.com/v2/"
    with RunJournal(target) as journal:
        journal.add(Creation("User", "/Users", (Marker("userName", "scim-tui-userName-1"),)))
        [path] = list(journals_dir(target).iterdir())
        written = path.read_text()
        assert "hunter2" not in written and "***@scim.example.com" in written
        assert left_behind(target) == 0, "the journal of a run that is alive is not counted"
        ended = path.with_name("0-ended.jsonl")  # as a killed run leaves it
        ended.hardlink_to(path)
    lines = [
        '{"add": {"kind": "User", "endpoint": "/Users", "markers": [["userName", "scim-tui-userName-2"]]}}',
        '{"add": {"kind": "User", "endpoint": "/Users", "markers": [["userName", "someone-elses"]]}}',
        '{"add": {"kind": "Group", "endpoint": "/Groups", "markers": [["displayName", "scim-tui-display',
    ]
    with ended.open("a") as file:
        file.write("\n".join(lines))
    assert left_behind(target) == 2, "the killed run's two creations of its own; a value not its own, and a line cut short, are not"
    assert left_behind("https://scim.example.com/v2") == 2, "one target, whatever its credentials"
