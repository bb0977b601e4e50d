"""The identity providers' readiness on the run screen: the idp branch of the tag tree,
and each provider's verdict shown above the results once a run gave it."""

from __future__ import annotations

import pytest

from scim_tui.selection import Selection
from scim_tui.store.profiles import Profile
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.widgets.check_tree import CheckTree
from scim_tui.tui.widgets.readiness import Readiness
from scim_tui.tui.widgets.readiness import readiness_text
from scim_tui.tui.widgets.results_table import ResultsTable
from tests.tui.conftest import FEW
from tests.tui.conftest import SIZE
from tests.tui.conftest import assert_nothing_left
from tests.tui.conftest import boxes
from tests.tui.conftest import run_checks
from tests.tui.conftest import run_screen
from tests.tui.conftest import wait_until

pytestmark = pytest.mark.anyio


async def test_the_run_screen_shows_each_providers_readiness(scim_server):
    profile = Profile(name="Local", url=scim_server.url, selection=Selection(include_tags=["idp:entra", "idp:okta"]))
    app = ScimTuiApp(profile)
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(pilot)
        drawn = boxes(screen.query_one(CheckTree))
        assert {tag: drawn[tag] for tag in ("idp:entra", "idp:entra:compliant", "idp:entra:gallery", "idp:okta", "idp:okta:oin")} == dict.fromkeys(
            ("idp:entra", "idp:entra:compliant", "idp:entra:gallery", "idp:okta", "idp:okta:oin"), "[x]"
        )
        widget = screen.query_one(Readiness)
        assert not widget.display, "no verdict before a run"
        await run_checks(pilot)
        assert widget.display
        await pilot.pause()
        # a verdict a line (cut with … at the edge), a quarter of the screen at most: the results stay in view
        assert widget.size.height == len(widget.verdicts) <= SIZE[1] // 4
        assert readiness_text(widget.verdicts.values()).plain.splitlines() == [
            (
                "✘ NOT READY for Entra ID: 3 of 14 steps block: entra_set_manager (User) refused, entra_create_group (Group) refused, "
                "entra_remove_member (Group) refused."
            ),
            "✘ NOT READY for Okta: 1 of 17 steps block: okta_spec_test (User) unsupported.",
            (
                "✘ NOT READY for the Entra app gallery: 4 mandatory tests fail: User_Update_Manager_Test, Create_Group_Test, "
                "Group_Update_Remove_Member_Test, SCIM_Update_Manager_Test; no authentication test passed (Validate_Credentials_Test "
                "needs a profile with OAuth client credentials); not replayed here (they need an Entra tenant): POD_User_Test, "
                "POD_Group_Test, Federated_Identity_Test."
            ),
        ]
    assert_nothing_left(scim_server.url)


async def test_a_run_without_identity_provider_checks_shows_no_readiness(scim_server):
    app = ScimTuiApp(Profile(name="Local", url=scim_server.url, selection=FEW))
    async with app.run_test(size=SIZE) as pilot:
        screen = await run_checks(pilot)
        widget = screen.query_one(Readiness)
        assert not widget.display and widget.verdicts == {}


async def test_on_a_short_terminal_the_verdicts_share_one_line_and_the_results_keep_their_rows(scim_server):
    profile = Profile(name="Local", url=scim_server.url, selection=Selection(include_tags=["idp:entra", "idp:okta"]))
    app = ScimTuiApp(profile)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await run_checks(pilot)
        widget = screen.query_one(Readiness)
        await pilot.pause()
        assert widget.size.height == 1
        assert str(widget.render()).startswith("✘ NOT READY for Entra ID, Okta, the Entra app gallery")
        rows = screen.query_one(ResultsTable).scrollable_content_region.height - 1
        assert rows >= 12, "the verdicts leave the results a screenful of rows"
        await pilot.resize_terminal(*SIZE)
        await wait_until(pilot, lambda: widget.size.height == len(widget.verdicts))
    assert_nothing_left(scim_server.url)
