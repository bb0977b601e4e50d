"""What a run's results keep once it ended: the answers they examined packed (packing.py), read
back as equal copies, and nothing of the run's machinery (contexts, HTTP responses)."""

from __future__ import annotations

import gc
import threading
import types
from datetime import UTC
from datetime import datetime
from typing import Any

import httpx2
from pydantic import BaseModel
from scim2_models import ListResponse

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckContext
from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.demo import make_app
from scim_tui.reports import RunReport
from scim_tui.reports.model import jsonable
from scim_tui.store import history
from tests.support.servers import make_client

SELECTION = CheckConfig(include_tags={"discovery", "crud:read"})
"""Checks whose results hold models: the discovery documents, the resources read, the lists searched."""
HELD_ALIVE = (BaseModel, CheckContext, httpx2.Response, httpx2.Request)
"""What a finished result has no need of: a parsed answer (its packed copy stands for it), a
check's context, the client's request and response objects."""


def reachable(root: Any) -> list[Any]:
    """Every object `root` refers to, directly or not, short of classes, modules and functions
    (a class reaches the whole program)."""
    seen, found, stack = {id(root)}, [], [root]
    while stack:
        for referent in gc.get_referents(stack.pop()):
            if id(referent) in seen or isinstance(referent, (type, types.ModuleType, types.FunctionType)):
                continue
            seen.add(id(referent))
            found.append(referent)
            stack.append(referent)
    return found


def test_results_hold_their_answers_packed_and_nothing_of_the_run(serve):
    with make_client(serve(make_app()).url) as scim:
        results = list(iter_checks(scim, SELECTION))
    held = [type(item).__name__ for item in reachable(results) if isinstance(item, HELD_ALIVE)]
    assert held == []
    searched = next(r for r in results if r.title == "search_with_attributes")
    assert isinstance(searched.data, ListResponse) and searched.data.resources
    assert searched.data == searched.data and searched.data is not searched.data, "an equal copy at each read"


def test_a_packed_answer_is_a_copy_set_again_to_change(serve):
    with make_client(serve(make_app()).url) as scim:
        [config] = [r for r in iter_checks(scim, SELECTION) if r.title == "service_provider_config_endpoint"]
    read = config.data
    read.patch.supported = not read.patch.supported
    assert config.data.patch.supported is not read.patch.supported, "the copy read changed, not the result"
    config.data = read
    assert config.data == read


def test_packed_answers_reach_the_report_and_the_history_as_json(serve, isolated_dirs):
    with make_client(serve(make_app()).url) as scim:
        results = list(iter_checks(scim, SELECTION))
    report = RunReport.create(results, target="http://scim.test", started_at=datetime(2025, 1, 1, tzinfo=UTC), duration=1.0, profile="Staging")
    loaded = history.load(history.record(report))
    assert loaded is not None
    modelled = [(result, back) for result, back in zip(results, loaded.results, strict=True) if isinstance(result.data, BaseModel)]
    assert {result.title for result, _ in modelled} >= {"search_with_attributes", "access_schema_by_id", "object_query"}
    assert all(back.data == jsonable(result.data) for result, back in modelled)


def test_data_that_cannot_be_packed_is_kept_as_it_is():
    held = {"lock": threading.Lock()}
    result = CheckResult(Status.SUCCESS, data=held)
    assert result.data is held
