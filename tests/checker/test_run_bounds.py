"""What one run does to a server is bounded whatever the server publishes: the resource types it
checks (documented, overridable, and said when it cuts the run short), and the schemas it reads
one by one (each once, a limited number in all)."""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

from scim_tui.checker import CheckConfig
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.checker.limits import MAX_RESOURCE_TYPES
from scim_tui.checker.limits import MAX_SCHEMA_READS
from scim_tui.demo import make_app
from tests.support.command import scim_tui_here
from tests.support.servers import Broken
from tests.support.servers import make_client

TEAMS = [f"Team{number}" for number in range(1, MAX_RESOURCE_TYPES + 1)]
"""Resource types beyond User and Group: copies of Group under other names and endpoints (which
scim2-server does not serve: their checks fail, but they run)."""
CUT = (
    f"the run checks {MAX_RESOURCE_TYPES} resource types at most and the server publishes {MAX_RESOURCE_TYPES + 2}: "
    "raise max_resource_types (a profile's key, or --max-resource-types) to check more"
)


def with_teams(listing: dict) -> dict:
    group = next(resource_type for resource_type in listing["Resources"] if resource_type["name"] == "Group")
    teams = [copy.deepcopy(group) | {"id": team, "name": team, "endpoint": f"/{team}s"} for team in TEAMS]
    return listing | {"Resources": [*listing["Resources"], *teams], "totalResults": len(listing["Resources"]) + len(teams)}


def created(results: list) -> dict[str, Status]:
    return {result.resource_type: result.status for result in results if result.title == "object_creation"}


def test_a_run_checks_at_most_max_resource_types_and_says_which_it_left_out(serve):
    counting = Counting(Broken(make_app()).rewrite_json("GET", "/v2/ResourceTypes", with_teams))
    server = serve(counting)
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(include_tags={"crud:create"})))
    statuses = created(results)
    assert [name for name, status in statuses.items() if status is not Status.SKIPPED] == ["User", "Group", *TEAMS[:-2]]
    left_out = [r for r in results if r.resource_type in TEAMS[-2:] and r.title == "object_creation"]
    assert left_out and {r.reason for r in left_out} == {f"Skipped: the resource type {name} cannot be checked: {CUT}." for name in TEAMS[-2:]}
    assert not [path for path in counting.seen if path.endswith(tuple(f"/{team}s" for team in TEAMS[-2:]))]


def test_the_limit_is_set_by_a_flag(serve):
    counting = Counting(Broken(make_app()).rewrite_json("GET", "/v2/ResourceTypes", with_teams))
    server = serve(counting)
    process = scim_tui_here("check", "--url", server.url, "--include-tags", "crud:create", "--max-resource-types", "1", "--format", "json")
    assert process.returncode == 0, process.stderr
    assert "the run checks 1 resource types at most and the server publishes 22" in process.stdout
    assert [path for path in counting.seen if path.startswith("POST")] == ["POST /v2/Users"]


EXTENSIONS = [f"urn:example:params:scim:schemas:extension:{number}:2.0:User" for number in range(MAX_SCHEMA_READS + 50)]
"""Extensions the resource types reference and /Schemas does not list (served nowhere)."""


class Counting:
    """Counts the requests of a server by method and path."""

    def __init__(self, app: Any):
        self.app = app
        self.seen: Counter[str] = Counter()

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        self.seen[f"{environ['REQUEST_METHOD']} {environ.get('PATH_INFO', '')}"] += 1
        return self.app(environ, start_response)


def with_extensions(listing: dict) -> dict:
    for resource_type in listing["Resources"]:
        resource_type["schemaExtensions"] = [*resource_type.get("schemaExtensions", []), *({"schema": uri, "required": False} for uri in EXTENSIONS)]
    return listing


def test_each_schema_the_list_lacks_is_read_once_and_no_more_than_a_run_reads(serve):
    counting = Counting(Broken(make_app()).rewrite_json("GET", "/v2/ResourceTypes", with_extensions))
    server = serve(counting)
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(include_tags={"resource-types", "crud:create"})))
    reads = {path: count for path, count in counting.seen.items() if path.startswith("GET /v2/Schemas/urn:example")}
    assert set(reads.values()) == {1}, "each schema read once, though two resource types and the run's description need it"
    assert len(reads) <= MAX_SCHEMA_READS
    [user] = [r for r in results if r.title == "resource_types_schema_validation" and "Resource type User" in (r.reason or "")]
    assert f"was not read: a run reads {MAX_SCHEMA_READS} schemas one by one at most" in (user.reason or "")
    assert created(results) == {"User": Status.SUCCESS, "Group": Status.SUCCESS}, "the run goes on with the core schemas"
