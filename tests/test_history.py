"""Run history: runs of a profile saved as JSON reports, the last 50 kept, and what changed between two runs."""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC
from datetime import datetime
from datetime import timedelta

import pytest

from scim_tui import history
from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import iter_checks
from scim_tui.demo import make_app
from scim_tui.profiles import Profile
from scim_tui.profiles import save_profile
from scim_tui.reports import RunReport
from tests.command import scim_tui_here
from tests.servers import Broken
from tests.servers import make_client

METHODS = CheckId("service_provider_config_endpoint_methods")


def real_report(url: str, started_at: datetime, profile: str = "Staging") -> RunReport:
    with make_client(url) as client:
        results = list(iter_checks(client, CheckConfig(include_tags={"service-provider-config", "misc"})))
    return RunReport.create(results, target=url, started_at=started_at, duration=0.5, profile=profile)


def test_a_recorded_run_is_the_latest_and_reads_back_whole(scim_server, isolated_dirs):
    first = real_report(scim_server.url, datetime(2025, 1, 1, tzinfo=UTC))
    second = real_report(scim_server.url, datetime(2025, 1, 2, tzinfo=UTC))
    history.record(first)
    path = history.record(second)
    assert path.is_relative_to(isolated_dirs / "data" / "scim-tui" / "runs")
    assert path.stat().st_mode & 0o077 == 0
    latest = history.latest("Staging")
    assert latest.to_dict() == second.to_dict()
    assert history.latest("Staging", before=second.started_at).started_at == first.started_at
    assert history.latest("Other") is None


def test_profiles_with_close_names_keep_separate_histories(scim_server):
    for name in ("My Server", "my-server"):
        history.record(real_report(scim_server.url, datetime.now(UTC), profile=name))
    assert len({history.profile_dir(name) for name in ("My Server", "my-server")}) == 2
    assert history.latest("My Server").profile == "My Server"


def test_only_the_last_50_runs_are_kept(scim_server):
    report = real_report(scim_server.url, datetime(2025, 1, 1, tzinfo=UTC))
    for day in range(53):
        report.started_at = datetime(2025, 1, 1, tzinfo=UTC) + timedelta(days=day)
        history.record(report)
    kept = history.runs("Staging")
    assert len(kept) == history.KEPT_RUNS
    assert kept[0].name.startswith("20250104T")


def test_a_malformed_file_is_skipped_reported_once_and_never_touched(scim_server, caplog):
    good = real_report(scim_server.url, datetime(2025, 1, 1, tzinfo=UTC))
    history.record(good)
    folder = history.profile_dir("Staging")
    broken = folder / "20250102T000000000000Z.json"
    broken.write_text('{"schema_version": 1, "target": ')
    with caplog.at_level(logging.WARNING, logger="scim_tui.history"):
        assert history.latest("Staging").started_at == good.started_at
        assert history.latest("Staging").started_at == good.started_at
    assert [r.message for r in caplog.records].count(f"Skipped the unreadable history file {broken} (Expecting value: line 1 column 33 (char 32)); it was left as it is.") == 1
    for day in range(2, 60):
        good.started_at = datetime(2025, 1, 1, tzinfo=UTC) + timedelta(days=day)
        history.record(good)
    assert broken.read_text() == '{"schema_version": 1, "target": '


def test_compare_names_new_failures_and_fixes_by_check(serve):
    broken = Broken(make_app()).answer("PUT", "/v2/ServiceProviderConfig", 200, {"schemas": []})
    url = serve(broken).url
    before = real_report(url, datetime(2025, 1, 1, tzinfo=UTC))
    broken.repaired = True
    after = real_report(url, datetime(2025, 1, 2, tzinfo=UTC))
    fixed = history.compare(before, after)
    assert fixed.fixed == [METHODS] and fixed.new_failures == []
    assert fixed.change_of(METHODS) is history.Change.FIXED
    worse = history.compare(after, before)
    assert worse.new_failures == [METHODS] and worse.change_of(METHODS) is history.Change.NEW_FAILURE
    assert not history.compare(after, after)


def test_a_failed_check_that_did_not_run_again_is_not_fixed(serve):
    url = serve(Broken(make_app()).answer("PUT", "/v2/ServiceProviderConfig", 200, {"schemas": []})).url
    before = real_report(url, datetime(2025, 1, 1, tzinfo=UTC))
    with make_client(url) as client:
        results = list(iter_checks(client, CheckConfig(include_tags={"misc"})))
    after = RunReport.create(results, target=url, started_at=datetime(2025, 1, 2, tzinfo=UTC), duration=0.1, profile="Staging")
    assert history.compare(before, after).fixed == []


@pytest.fixture
def broken_profile(serve):
    broken = Broken(make_app()).answer("PUT", "/v2/ServiceProviderConfig", 200, {"schemas": []})
    save_profile(Profile(name="Broken staging", url=serve(broken).url))
    return broken


def test_the_cli_marks_a_failure_fixed_once_the_server_is_repaired(broken_profile):
    args = ("check", "--profile", "Broken staging", "--include-tags", "discovery", "--exclude-tags", "discovery:strict")
    first = scim_tui_here(*args)
    assert first.returncode == 1
    assert first.stdout.rstrip().endswith("First recorded run of the profile Broken staging: nothing to compare with.")
    broken_profile.repaired = True
    second = scim_tui_here(*args)
    assert second.returncode == 0
    changes = second.stdout.split("Changes since the previous run", 1)[1]
    assert re.match(r" \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\): 0 new failure\(s\), 1 fixed\.\n  fixed        service_provider_config_endpoint_methods\n$", changes)
    broken_profile.repaired = False
    third = scim_tui_here(*args, "--format", "json")
    assert "new failure  service_provider_config_endpoint_methods" in third.stderr
    runs = history.runs("Broken staging")
    assert len(runs) == 3
    assert [json.loads(path.read_text())["counts"]["ERROR"] for path in runs] == [1, 0, 1]


def test_no_history_leaves_the_history_alone(broken_profile):
    assert scim_tui_here("check", "--profile", "Broken staging", "--include-tags", "misc", "--no-history").returncode == 0
    assert history.runs("Broken staging") == []


def test_the_cli_warns_about_a_malformed_history_file_and_leaves_it(broken_profile):
    folder = history.profile_dir("Broken staging")
    folder.mkdir(parents=True)
    malformed = folder / "20250101T000000000000Z.json"
    malformed.write_text("not json")
    process = scim_tui_here("check", "--profile", "Broken staging", "--include-tags", "misc")
    assert process.returncode == 0
    assert process.stderr == f"scim-tui: warning: Skipped the unreadable history file {malformed} (Expecting value: line 1 column 1 (char 0)); it was left as it is.\n"
    assert "First recorded run of the profile Broken staging" in process.stdout
    assert malformed.read_text() == "not json" and len(history.runs("Broken staging")) == 2
