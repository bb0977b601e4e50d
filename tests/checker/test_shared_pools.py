"""The resources the checks share and only read (references.py: the listed set, the providers'
population, the users their groups and managers point at, the read checks' resource) live while
a check of the run declaring them has not ended, not until the run's end: the last of those checks
deletes them as its own. A check reading a pool its checker does not declare is scim-tui's own
mistake, said as such, never the server's (that every check declares what it reads: the full runs,
tests/checker/test_full_run.py, hold their failures to the known ones)."""

from __future__ import annotations

import dataclasses

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.checker import registry
from scim_tui.checker.exchanges import Role
from scim_tui.demo import make_app
from tests.support.harmless import Logged
from tests.support.servers import make_client
from tests.support.servers import stored
from tests.support.unlike import ReferencedKept

LISTING = ("gallery_user_pagination", "okta_test_connection", "okta_import_users")
"""The checks listing the User population (11 users, made once a run)."""


@pytest.mark.parametrize("jobs", [1, 4])
def test_the_population_is_deleted_once_the_last_check_listing_it_ended(serve, jobs):
    """When the results of the three checks listing the population have come, the server holds none
    of its users, though a check of the run (a Group's, creating no user) is still to come; the
    11 DELETEs are sent as clean-up."""
    logged = Logged(make_app())
    server = serve(logged)
    checks = {*(CheckId(name, "User") for name in LISTING), CheckId("okta_create_group", "Group")}
    log: list = []
    users_after_listing = None
    with make_client(server.url) as scim:
        results = []
        for result in iter_checks(scim, CheckConfig(jobs=jobs), only=checks, exchanges=log):
            results.append(result)
            if {r.title for r in results} >= set(LISTING) and users_after_listing is None:
                users_after_listing = stored(server.url, "/Users")
    assert [(result.title, result.status) for result in results if result.status is not Status.SUCCESS] == []
    assert [path for method, path in logged.requests if method == "POST" and path == "/v2/Users"] == ["/v2/Users"] * 11
    assert users_after_listing == []
    assert results[-1].title == "okta_create_group"
    deletions = [e for e in log if e.method == "DELETE" and "/Users/" in e.url]
    assert len(deletions) == 11
    assert {e.role for e in deletions} == {Role.CLEANUP}
    assert stored(server.url, "/Users") == []


@pytest.mark.parametrize("jobs", [1, 4])
def test_the_members_outlive_every_group_pointing_at_them(serve, jobs):
    """Entra's, Okta's and Microsoft's member steps share the users their groups point at: deleted
    once the last of them ended, after every group, on a server refusing to delete a user a group
    still holds: nothing left, nothing named left."""
    server = serve(ReferencedKept(make_app()))
    names = ("entra_add_members", "entra_remove_member", "okta_update_members", "okta_replace_members", "gallery_add_member")
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(jobs=jobs), only={CheckId(name, "Group") for name in names}))
    assert [(result.title, result.reason) for result in results if result.status.failed] == []
    assert [leftover for result in results for leftover in result.leftovers] == []
    assert stored(server.url, "/Users") == [] and stored(server.url, "/Groups") == []


def test_a_check_reading_a_pool_it_does_not_declare_is_scim_tuis_mistake(serve, monkeypatch):
    """A checker reading the population without declaring it (Checker.shares) would see it deleted
    under it by the last check declaring it: it ERRORs naming scim-tui's own mistake, sends nothing
    to the server for it, and the run deletes what it made."""
    undeclared = dataclasses.replace(registry._CHECKERS["okta_import_users"], shares=frozenset())
    monkeypatch.setitem(registry._CHECKERS, "okta_import_users", undeclared)
    server = serve(make_app())
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(jobs=1), only={CheckId("okta_import_users", "User")}))
    [result] = [result for result in results if result.title == "okta_import_users"]
    assert result.status is Status.ERROR
    assert "scim-tui's own mistake" in result.reason and "population" in result.reason
    assert stored(server.url, "/Users") == []
