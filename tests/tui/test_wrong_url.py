"""A base URL that reaches no SCIM server: the app says it in one line, as `scim-tui check` does."""

from __future__ import annotations

import pytest

from scim_tui.demo import make_app
from scim_tui.store.profiles import Profile
from scim_tui.tui.app import ScimTuiApp
from scim_tui.tui.widgets.run_status import Phase
from tests.support.profiles import widget_text
from tests.tui.conftest import SIZE
from tests.tui.conftest import run_checks

pytestmark = pytest.mark.anyio


async def test_a_url_one_level_off_stops_the_run_with_one_line_and_no_rows(serve):
    url = serve(make_app()).url + "/scim"
    app = ScimTuiApp(Profile(name="Off", url=url))
    async with app.run_test(size=SIZE) as pilot:
        screen = await run_checks(pilot)
        assert screen.state.rows == {}, "no row of ERRORs"
        assert screen.progress.phase is Phase.FAILED
        assert screen.progress.error.startswith(f"{url} is not a SCIM server (GET /v2/scim/ServiceProviderConfig answered 404 Not Found")
        assert screen.progress.error in widget_text(app, "#run-outcome"), "the whole line is on screen"
