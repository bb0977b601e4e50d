"""OneLogin, PingFederate, JumpCloud, SailPoint, Google Workspace and Rippling replayed: each
provider's documented shapes on scim2-server, and on servers that break one of them."""

from __future__ import annotations

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.checker import lag
from scim_tui.checker.checks.idp_readiness import blocking
from scim_tui.demo import make_app
from tests.support.bystanders import Bystanders
from tests.support.servers import Broken
from tests.support.servers import make_client
from tests.support.servers import stored
from tests.support.unlike import PERSONALITIES

OTHERS = {"idp:onelogin", "idp:pingfederate", "idp:jumpcloud", "idp:sailpoint", "idp:google", "idp:rippling"}


def run(url: str) -> list:
    with make_client(url) as scim:
        return list(iter_checks(scim, CheckConfig(include_tags=OTHERS)))


def verdicts(results) -> dict[str, str]:
    return {str(r.title): r.reason or "" for r in results if str(r.title).endswith("_readiness") and r.status is not Status.SKIPPED}


def test_scim2_server_is_ready_for_each_but_onelogins_scim11_templates(serve):
    server = serve(make_app())
    results = run(server.url)
    assert verdicts(results) == {
        "onelogin_readiness": "NOT READY for OneLogin: 1 of 3 steps block: onelogin_scim11_schema (User) refused.",
        "pingfederate_readiness": "READY for PingFederate: all 2 steps passed.",
        "jumpcloud_readiness": "READY for JumpCloud: all 2 steps passed.",
        "sailpoint_readiness": "READY for SailPoint: its one step passed.",
        "google_readiness": "READY for Google Workspace: its one step passed.",
        "rippling_readiness": "READY for Rippling: all 2 steps passed.",
    }
    [scim11] = [r for r in results if r.title == "onelogin_scim11_schema"]
    assert (
        scim11.status is Status.DEVIATION
        and 'OneLogin\'s request differs in schemas[0] "urn:scim:schemas:core:1.0" (RFC: "urn:ietf:params:scim:schemas:core:2.0:User").' in scim11.reason
    )
    assert not [r for r in results if r.status.failed]
    assert stored(server.url) == []


def _emails_object_refused(body: dict) -> dict:
    return {
        **body,
        "Operations": [{"op": "no-such-op"} if isinstance(op.get("value"), dict) and op.get("path") == "emails" else op for op in body["Operations"]],
    }


def _add_without_path_refused(body: dict) -> dict:
    return {**body, "Operations": [{"op": "no-such-op"} if op.get("op") == "add" and "path" not in op else op for op in body["Operations"]]}


@pytest.mark.parametrize(
    ("app", "check", "status"),
    [
        (
            lambda: Broken(make_app()).rewrite_request_json("PATCH", r"/v2/Users/[^/]+", _emails_object_refused),
            "onelogin_emails_as_an_object",
            Status.DEVIATION,
        ),
        (lambda: Broken(make_app()).answer("PATCH", r"/v2/Groups/[^/]+", 405), "onelogin_group_patch", Status.ERROR),
        (lambda: Broken(make_app()).rewrite_request_json("PATCH", r"/v2/Users/[^/]+", _add_without_path_refused), "sailpoint_disable_enable", Status.ERROR),
        (PERSONALITIES["duplicates accepted"].app, "rippling_create_and_retry", Status.ERROR),
        (PERSONALITIES["soft delete"].app, "jumpcloud_test_user", Status.ERROR),
    ],
    ids=["onelogin emails object", "onelogin group PATCH 405", "sailpoint add without path", "rippling duplicate", "jumpcloud soft delete"],
)
def test_a_server_breaking_one_providers_shape_blocks_that_provider(serve, app, check, status):
    server = serve(app())
    results = run(server.url)
    steps = [r for r in results if r.title == check]
    assert status in {r.status for r in steps} and any(blocking(r) for r in steps), [(r.status, r.reason) for r in steps]
    provider = check.split("_", 1)[0]
    assert verdicts(results)[f"{provider}_readiness"].startswith("NOT READY for ") and f"{check} (" in verdicts(results)[f"{provider}_readiness"]


SEEDED = 2
"""The groups someone else holds on the server of the test below."""


def _hidden(kind: str):
    """A Groups list (not a search) that never holds the run's groups; `moving`: its totalResults
    grows on each page, as a list does while others write to it; `long`: it says it holds a
    thousand groups, more than the pages the run reads."""
    served = iter(range(100, 10**6))

    def change(body: dict) -> dict:
        kept = [group for group in body.get("Resources", []) if not str(group.get("displayName", "")).startswith("scim-tui-")]
        if kind == "long":  # each page two groups of someone else's
            kept = [{"schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"], "id": f"theirs-{next(served)}", "displayName": "theirs"} for _ in range(2)]
        total = next(served) if kind == "moving" else 1000 if kind == "long" else SEEDED
        return {**body, "Resources": kept, "totalResults": total, "itemsPerPage": len(kept)}

    return change


@pytest.mark.parametrize("kind", ["still", "moving", "long"])
def test_pingfederate_not_finding_its_group_blames_the_server_only_on_a_list_that_stood_still(serve, kind, monkeypatch):
    """PingFederate lists the groups page by page to find the one it made: on a list that kept its
    totalResults the group's absence is the server's (ERROR), once the list was read again after a
    pause (lag.py); on a list that changed while it was read (at several jobs the run's own checks
    delete groups meanwhile), or one longer than the run reads, nothing can be told."""
    monkeypatch.setattr(lag, "PAUSES", (0.0,))
    server = serve(Broken(make_app()).rewrite_json("GET", "/v2/Groups", _hidden(kind)))
    Bystanders.seed(server.url, users=SEEDED, groups=SEEDED)  # the list holds someone else's groups
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(include_tags={"idp:pingfederate"})))
    [listed] = [r for r in results if r.title == "pingfederate_groups_listed" and r.status is not Status.SUCCESS]
    if kind == "moving":
        assert listed.status is Status.SKIPPED and "changed while" in listed.reason and listed.blocks is False, listed.reason
    elif kind == "long":
        assert listed.status is Status.SKIPPED and "more than the 20 pages the run reads" in listed.reason and listed.blocks is False, listed.reason
    else:
        assert listed.status is Status.ERROR and "would create it again" in listed.reason, listed.reason
