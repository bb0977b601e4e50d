"""Run history: runs of a profile saved as JSON reports, the last 50 kept, and what changed between two runs."""

from __future__ import annotations

import gzip
import json
import logging
import re
import tracemalloc
from datetime import UTC
from datetime import datetime
from datetime import timedelta

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.checker.limits import MAX_HISTORY_REPORT_BYTES
from scim_tui.checker.limits import MAX_HISTORY_REPORT_VALUES
from scim_tui.checker.limits import byte_size
from scim_tui.demo import make_app
from scim_tui.reports import RunReport
from scim_tui.store import history
from scim_tui.store.profiles import Profile
from scim_tui.store.profiles import save_profile
from tests.support.command import scim_tui_here
from tests.support.history import real_report
from tests.support.history import report_with
from tests.support.servers import Broken
from tests.support.servers import make_client

METHODS = CheckId("service_provider_config_endpoint_methods")


def test_a_recorded_run_is_the_latest_and_reads_back_whole(scim_server, isolated_dirs):
    first = real_report(scim_server.url, datetime(2025, 1, 1, tzinfo=UTC))
    second = real_report(scim_server.url, datetime(2025, 1, 2, tzinfo=UTC))
    history.record(first)
    path = history.record(second)
    assert path.is_relative_to(isolated_dirs / "data" / "scim-tui" / "runs")
    assert path.name == "20250102T000000000000Z.json.gz"
    assert path.stat().st_mode & 0o077 == 0
    summary, report = gzip.decompress(path.read_bytes()).split(b"\n", 1)
    assert json.loads(report) == second.to_dict(), "the whole report, after its summary"
    assert history.RunSummary.from_json(summary) == history.RunSummary.of(second)
    assert path.stat().st_size * 4 < len(report), "stored compressed"
    assert history.latest_summary("Staging") == history.RunSummary.of(second), "read without unpacking the report"
    latest = history.latest("Staging")
    assert latest.to_dict() == second.to_dict()
    assert history.latest("Staging", before=second.started_at).started_at == first.started_at
    assert history.latest("Other") is None


def test_the_plain_json_runs_of_earlier_versions_are_still_read(scim_server):
    older = real_report(scim_server.url, datetime(2025, 1, 1, tzinfo=UTC))
    folder = history.profile_dir("Staging")
    folder.mkdir(parents=True)
    (folder / "20250101T000000000000Z.json").write_text(json.dumps(older.to_dict()))
    assert history.latest("Staging").to_dict() == older.to_dict()
    newer = real_report(scim_server.url, datetime(2025, 1, 2, tzinfo=UTC))
    history.record(newer)
    assert [path.name for path in history.runs("Staging")] == ["20250101T000000000000Z.json", "20250102T000000000000Z.json.gz"]
    assert history.latest("Staging", before=newer.started_at).to_dict() == older.to_dict()


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
    assert len(kept) == history.HISTORY_KEPT_RUNS
    assert kept[0].name.startswith("20250104T")


def test_the_history_is_capped_by_size_too_the_oldest_dropped_first(scim_server, monkeypatch):
    report = real_report(scim_server.url, datetime(2025, 1, 1, tzinfo=UTC))
    size = history.record(report).stat().st_size
    monkeypatch.setattr(history, "HISTORY_KEPT_BYTES", 3 * size + size // 2)
    for day in range(1, 6):
        report.started_at = datetime(2025, 1, 1, tzinfo=UTC) + timedelta(days=day)
        history.record(report)
    assert [path.name[:9] for path in history.runs("Staging")] == ["20250104T", "20250105T", "20250106T"]
    monkeypatch.setattr(history, "HISTORY_KEPT_BYTES", 1)
    report.started_at = datetime(2025, 1, 7, tzinfo=UTC)
    history.record(report)
    assert [path.name[:9] for path in history.runs("Staging")] == ["20250107T"], "the newest run stays, whatever its size"


def test_a_malformed_file_is_set_aside_reported_once_and_never_deleted(scim_server, caplog):
    good = real_report(scim_server.url, datetime(2025, 1, 1, tzinfo=UTC))
    history.record(good)
    folder = history.profile_dir("Staging")
    broken = folder / "20250102T000000000000Z.json"
    broken.write_text('{"schema_version": 1, "target": ')
    with caplog.at_level(logging.WARNING, logger="scim_tui.store.history"):
        assert history.latest("Staging").started_at == good.started_at
        assert history.latest("Staging").started_at == good.started_at
    set_aside = folder / "set-aside" / broken.name
    assert [r.message for r in caplog.records] == [
        f"Set aside the unreadable history file {broken.name} (Invalid JSON: EOF while parsing a value at line "
        f"1 column 32) in {set_aside.parent}: look at it or delete it; runs go on without it."
    ]
    assert not broken.exists() and set_aside.read_text() == '{"schema_version": 1, "target": '
    for day in range(2, 60):
        good.started_at = datetime(2025, 1, 1, tzinfo=UTC) + timedelta(days=day)
        history.record(good)
    assert set_aside.read_text() == '{"schema_version": 1, "target": ', "a file set aside is never pruned"


@pytest.mark.parametrize("content", [b"not a report at all", gzip.compress(b"[]", mtime=0), b"\x1f\x8b cut"], ids=["text", "gzip of a list", "cut gzip"])
def test_a_file_due_for_pruning_that_is_no_report_is_set_aside_not_deleted(scim_server, monkeypatch, content):
    report = real_report(scim_server.url, datetime(2025, 1, 2, tzinfo=UTC))
    history.record(report)
    folder = history.profile_dir("Staging")
    oldest = folder / "20250101T000000000000Z.json.gz"
    oldest.write_bytes(content)
    monkeypatch.setattr(history, "HISTORY_KEPT_RUNS", 2)
    report.started_at = datetime(2025, 1, 3, tzinfo=UTC)
    warnings: list[str] = []
    history.record(report, warn=warnings.append)
    assert [path.name for path in history.runs("Staging")] == ["20250102T000000000000Z.json.gz", "20250103T000000000000Z.json.gz"]
    assert (folder / "set-aside" / oldest.name).read_bytes() == content
    assert warnings == [
        f"Set aside the unreadable history file {oldest.name} (it does not start as a report) in {folder / 'set-aside'}: "
        "look at it or delete it; runs go on without it."
    ]


def test_every_run_file_starts_as_pruning_expects(scim_server):
    path = history.record(real_report(scim_server.url, datetime(2025, 1, 1, tzinfo=UTC)))
    assert history.run_json(path).startswith(history.REPORT_START)


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


def test_a_failure_of_a_check_the_previous_run_did_not_run_is_not_new(serve):
    """Once, after a run of a few tags, a full run called the old failures new."""
    url = serve(Broken(make_app()).answer("PUT", "/v2/ServiceProviderConfig", 200, {"schemas": []})).url
    with make_client(url) as client:
        results = list(iter_checks(client, CheckConfig(include_tags={"misc"})))
    before = history.RunSummary.of(RunReport.create(results, target=url, started_at=datetime(2025, 1, 1, tzinfo=UTC), duration=0.1, profile="Staging"))
    after = real_report(url, datetime(2025, 1, 2, tzinfo=UTC))
    assert METHODS in {r.check_id for r in after.results if r.status.failed}
    changes = history.compare(before, after)
    assert changes.new_failures == [] and changes.fixed == []
    assert changes.compared == len({r.check_id for r in results if r.status is not Status.SKIPPED}), "only the checks both runs ran"


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
    assert re.match(
        r" \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\), among the 13 checks both ran: 0 new failure\(s\), 1 fixed\.\n "
        r" fixed        service_provider_config_endpoint_methods\n$",
        changes,
    )
    broken_profile.repaired = False
    third = scim_tui_here(*args, "--format", "json")
    assert "new failure  service_provider_config_endpoint_methods" in third.stderr
    runs = history.runs("Broken staging")
    assert len(runs) == 3
    assert [json.loads(history.run_json(path))["counts"]["ERROR"] for path in runs] == [1, 0, 1]


def test_no_history_leaves_the_history_alone(broken_profile):
    assert scim_tui_here("check", "--profile", "Broken staging", "--include-tags", "misc", "--no-history").returncode == 0
    assert history.runs("Broken staging") == []


def test_the_cli_sets_a_malformed_history_file_aside_and_goes_on(broken_profile):
    folder = history.profile_dir("Broken staging")
    folder.mkdir(parents=True)
    malformed = folder / "20250101T000000000000Z.json"
    malformed.write_text("not json")
    process = scim_tui_here("check", "--profile", "Broken staging", "--include-tags", "misc")
    assert process.returncode == 0
    assert process.stderr == (
        f"scim-tui: warning: Set aside the unreadable history file {malformed.name} (Invalid JSON: expected ident at line 1 column 2) "
        f"in {folder / 'set-aside'}: look at it or delete it; runs go on without it.\n"
    )
    assert "First recorded run of the profile Broken staging" in process.stdout
    assert (folder / "set-aside" / malformed.name).read_text() == "not json" and len(history.runs("Broken staging")) == 1


BAD_RUN_FILES = {
    # The ways a history file broke `scim-tui check` after its run.
    "deep JSON": b'{"schema_version": 1, "target": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    "deep data": report_with(results__0__data=json.loads("[" * 500 + "]" * 500)),
    "duration 1e400": report_with(duration=float("inf")).replace(b"Infinity", b"1e400"),
    "duration NaN": report_with(duration=float("nan")),
    "duration a huge integer": report_with(duration=10**400),
    "duration a string": report_with(duration="soon"),
    "negative duration": report_with(duration=-1),
    "results not a list": report_with(results={"a": 1}),
    "a result not an object": report_with(results=["SUCCESS"]),
    "unknown status": report_with(results__0__status="PASSED"),
    "status a number": report_with(results__0__status=1),
    "tags a string": report_with(results__0__tags="crud"),
    "exchange headers a list": report_with(results__0__exchanges__0__request_headers=["Accept"]),
    "exchange elapsed infinite": report_with(results__0__exchanges__0__elapsed=float("inf")),
    "exchange status 10**30": report_with(results__0__exchanges__0__status_code=10**30),
    "no method": report_with(results__0__exchanges__0__method=None),
    "tool a string": report_with(tool="scim-tui"),
    "no started_at": report_with(started_at=None),
    "started_at without a zone": report_with(started_at="2025-01-01T00:00:00"),
    "started_at in year 1": report_with(started_at="0001-01-01T00:00:00+00:00"),
    "selection of numbers": report_with(selection={"include_tags": [1]}),
    "another schema_version": report_with(schema_version=2),
    "a list": b"[]",
    "not UTF-8": b'{"target": "\xff"}',
    "empty": b"",
}


@pytest.mark.parametrize("content", BAD_RUN_FILES.values(), ids=BAD_RUN_FILES.keys())
def test_a_bad_run_file_is_set_aside_with_one_line_and_never_raises(content):
    folder = history.profile_dir("Staging")
    folder.mkdir(parents=True)
    path = folder / "20250101T000000000000Z.json"
    path.write_bytes(content)
    warnings: list[str] = []
    assert history.latest("Staging", warn=warnings.append) is None
    [line] = warnings
    assert line.startswith(f"Set aside the unreadable history file {path.name} (") and "\n" not in line
    assert (folder / "set-aside" / path.name).read_bytes() == content
    assert history.runs("Staging") == []


@pytest.mark.parametrize(
    "content", [b"\x1f\x8b\x08\x00garbage", gzip.compress(report_with(), mtime=0)[:-12], gzip.compress(b"[" * 10_000, mtime=0)], ids=["garbage", "cut", "deep"]
)
def test_a_bad_compressed_run_file_is_set_aside(content):
    folder = history.profile_dir("Staging")
    folder.mkdir(parents=True)
    (folder / "20250101T000000000000Z.json.gz").write_bytes(content)
    warnings: list[str] = []
    assert history.latest("Staging", warn=warnings.append) is None
    assert len(warnings) == 1 and (folder / "set-aside" / "20250101T000000000000Z.json.gz").read_bytes() == content


def test_the_good_stored_report_of_these_tests_reads_back():
    """The bad files above differ from this one by the field they name, so each proves its check."""
    assert RunReport.from_json(report_with()).results[0].exchanges[0].url == "http://x/v2/y"


def test_a_report_with_a_bad_field_names_it():
    with pytest.raises(ValueError, match=r"^results\.0\.status: Input should be 'SUCCESS', .*'SKIPPED'$"):
        RunReport.from_json(report_with(results__0__status="PASSED"))
    with pytest.raises(ValueError, match=r"^duration: Input should be a finite number$"):
        RunReport.from_dict(json.loads(report_with(duration=float("nan"))))


def test_a_bad_history_file_costs_neither_the_run_nor_its_report(broken_profile, tmp_path):
    """Once, `scim-tui check --profile` crashed after the run and lost the report."""
    folder = history.profile_dir("Broken staging")
    folder.mkdir(parents=True)
    (folder / "20250101T000000000000Z.json").write_bytes(report_with(duration=10**400))
    output = tmp_path / "report.json"
    process = scim_tui_here("check", "--profile", "Broken staging", "--include-tags", "misc", "--format", "json", "--output", str(output))
    assert process.returncode == 0, process.stderr
    assert "Traceback" not in process.stderr and len(process.stderr.splitlines()) == 1
    assert "Set aside the unreadable history file 20250101T000000000000Z.json (duration: " in process.stderr
    assert json.loads(output.read_text())["profile"] == "Broken staging"


@pytest.mark.parametrize(
    ("padding", "reason"),
    [
        (b" " * (MAX_HISTORY_REPORT_BYTES + 1), f"it holds more than {byte_size(MAX_HISTORY_REPORT_BYTES)}"),
        (b"[" + b"{}," * MAX_HISTORY_REPORT_VALUES + b"{}]", f"it holds more than {MAX_HISTORY_REPORT_VALUES:,} JSON objects and arrays"),
    ],
    ids=["64 MiB of spaces", "a million empty objects"],
)
def test_a_small_run_file_that_unpacks_to_more_than_a_report_is_set_aside_unread(padding, reason):
    """A few hundred kilobytes on disk, a report as scim-tui writes it: what it unpacks to would
    take gigabytes to read, and is never read whole."""
    content = report_with(results__0__data=[0]).replace(b"[0]", padding)
    packed = gzip.compress(content, compresslevel=1, mtime=0)
    folder = history.profile_dir("Staging")
    folder.mkdir(parents=True)
    (folder / "20250101T000000000000Z.json.gz").write_bytes(packed)
    del content
    warnings: list[str] = []
    tracemalloc.start()
    try:
        assert history.latest("Staging", warn=warnings.append) is None
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(packed) < 1024**2
    assert [reason in line for line in warnings] == [True], warnings
    assert peak < 2 * MAX_HISTORY_REPORT_BYTES, f"{peak / 1024**2:.0f} MiB to read it"


def test_a_report_larger_than_the_history_reads_back_is_not_written(scim_server, monkeypatch):
    monkeypatch.setattr(history, "MAX_HISTORY_REPORT_BYTES", 1024)
    with pytest.raises(OSError, match=r"its report is larger than 1 KiB, more than the history reads back"):
        history.record(real_report(scim_server.url, datetime.now(UTC)))
    assert history.runs("Staging") == [] and not list(history.profile_dir("Staging").iterdir())
