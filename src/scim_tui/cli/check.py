"""`scim-tui check`: run the checks without the app, write a report, tell what changed, exit with a status."""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass
from dataclasses import field
from datetime import UTC
from datetime import datetime
from pathlib import Path
from typing import TextIO
from urllib.parse import unquote
from urllib.parse import urlsplit

from scim_tui import choices
from scim_tui.checker import CheckId
from scim_tui.checker import CheckResult
from scim_tui.checker import Status
from scim_tui.checker import get_all_available_tags
from scim_tui.checker.exchanges import Redactor
from scim_tui.checker.registry import tag_matches
from scim_tui.checker.secrets import Secrets
from scim_tui.choices import PROVIDERS
from scim_tui.errors import UserError
from scim_tui.net.connect import AUTHENTICATION_HINT
from scim_tui.net.header_values import unsendable
from scim_tui.reports import RunReport
from scim_tui.reports import report_pieces
from scim_tui.reports.text import paint
from scim_tui.reports.text import result_line
from scim_tui.reports.text import summary_lines
from scim_tui.run import CannotRun
from scim_tui.run import RunOptions
from scim_tui.run import RunOutcome
from scim_tui.run import Stage
from scim_tui.run import run as run_checks
from scim_tui.selection import Selection
from scim_tui.store import baseline
from scim_tui.store.paths import write_atomically
from scim_tui.store.profiles import ENV_PREFIX
from scim_tui.store.profiles import Auth
from scim_tui.store.profiles import AuthKind
from scim_tui.store.profiles import DiscoveryFiles
from scim_tui.store.profiles import Profile
from scim_tui.store.profiles import find_profile

FAIL_ON = {name: Status[name.upper()] for name in choices.FAIL_ON}
"""--fail-on: the least bad status that fails the run."""


class UsageError(UserError):
    """Bad flags, or a run that could judge nothing: one line naming the fix; the command exits 2."""


@dataclass
class Target:
    """What a run checks: a profile (built from the flags for --url), whether the report names it,
    whether its runs are kept in the history, and secrets it carries outside its auth."""

    profile: Profile
    named: bool
    recorded: bool
    secrets: Secrets = field(default_factory=Secrets)


def check(args: argparse.Namespace) -> int:
    """Run `scim-tui check` and return its exit status."""
    if args.every_exchange and args.format != "json":
        raise UsageError(
            f"--every-exchange keeps the exchanges of successes in the JSON report, not in --format {args.format}: "
            "add --format json, or --har FILE for the whole traffic."
        )
    target = target_of(args)
    selection = selection_of(args)
    output = _writable(args.output)
    har = _writable(args.har)
    review = Review(args, _baseline_entries(args), required_providers(args.require_ready, target.profile))
    outcome = run(target, selection, args, review)
    report = outcome.report
    _write(report, args.format, output, args.every_exchange)
    if har is not None:
        _write(report, "har", har)
    _tell(outcome, args.format, output, review.judgement, FAIL_ON[args.fail_on])
    _check_something_ran(report)
    return 1 if report.at_or_above(FAIL_ON[args.fail_on]) else 0


@dataclass
class Review:
    """What the command makes of a run before the history keeps it: bad usage the run revealed
    (a resource type the server lacks, a required readiness left out), then the baseline's judgement."""

    args: argparse.Namespace
    entries: list[baseline.Entry] | None
    required: frozenset[str]
    judgement: baseline.Judgement | None = None

    def __call__(self, report: RunReport) -> None:
        _check_resource_types(report)
        _check_required(report, self.required)
        self.judgement = _judged(report, self.args, self.entries)


def _writable(name: str | None) -> Path | None:
    """The path of a file to write, None without one; UsageError when its folder does not exist."""
    path = Path(name) if name else None
    if path is not None and not path.parent.is_dir():
        raise UsageError(f"Cannot write {path}: the folder {path.parent} does not exist.")
    return path


def _baseline_entries(args: argparse.Namespace) -> list[baseline.Entry] | None:
    """The baseline's entries, read before the run so that a bad file fails at once: those of
    --baseline, or those --update-baseline will keep the notes of; None without either."""
    if args.baseline:
        return baseline.load(Path(args.baseline))
    path = _writable(args.update_baseline)
    if path is not None:
        return baseline.load(path) if path.is_file() else []  # /dev/null, a pipe: no notes to keep
    return None


def _judged(report: RunReport, args: argparse.Namespace, entries: list[baseline.Entry] | None) -> baseline.Judgement | None:
    """The run judged by its baseline (written first with --update-baseline), its accepted
    failures marked on the report; None without a baseline."""
    if entries is None:
        return None
    if args.update_baseline:
        entries = baseline.entries_of(report.results, entries)
        baseline.write(Path(args.update_baseline), entries)
    judgement = baseline.judge(entries, report.results, datetime.now(UTC).date())
    report.accepted = {key: entry.note for key, entry in judgement.accepted.items()}
    return judgement


def target_of(args: argparse.Namespace) -> Target:
    if (args.bearer_token_env or args.header) and not args.url:
        raise UsageError("--bearer-token-env and --header go with --url; a profile keeps its own authentication.")
    if args.demo:
        target = Target(Profile.demo_profile(), named=True, recorded=not args.no_history)
    elif args.profile:
        target = Target(find_profile(args.profile), named=True, recorded=not args.no_history)
    else:
        target = _url_target(args.url, args.bearer_token_env, args.header)
    files = {kind: getattr(args, kind) for kind in DiscoveryFiles.model_fields if getattr(args, kind)}
    if files:
        target.profile = target.profile.model_copy(update={"discovery": target.profile.discovery.model_copy(update=files)})
    return target


URL_AUTHENTICATION = "send credentials with --url: --bearer-token-env VAR (a bearer token held in $VAR) or --header 'Name: value'"
"""What a target named by --url whose credentials were refused is told (a profile's auth is not there)."""


def _url_target(url: str, token_variable: str | None, header_lines: list[str]) -> Target:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"--url {url!r} is not an http(s) URL: give the base URL of the SCIM endpoints, such as https://scim.example.com/v2.")
    headers = dict(_header(line) for line in header_lines)
    auth = Auth(kind=AuthKind.BEARER, token=f"{ENV_PREFIX}{token_variable}") if token_variable else Auth()
    secrets = Secrets(headers.values())  # an API key may go by any header name
    if parts.password:
        secrets.add_basic(unquote(parts.username or ""), unquote(parts.password))
    profile = Profile(name=Redactor().url(url), url=url, auth=auth, headers=headers)
    return Target(profile, named=False, recorded=False, secrets=secrets)


def _header(line: str) -> tuple[str, str]:
    name, colon, value = line.partition(":")
    if not colon or not name.strip() or any(c.isspace() for c in name.strip()):
        raise UsageError(f"--header {line!r} is not 'Name: value': write it like --header 'X-Tenant: acme'.")
    problem = unsendable(value.strip(), f"The value of --header {name.strip()}")  # a secret: never shown
    if problem is not None:
        raise UsageError(problem)
    return name.strip(), value.strip()


def selection_of(args: argparse.Namespace) -> Selection:
    return Selection(
        include_tags=_tags(args.include_tags, "--include-tags"),
        exclude_tags=_tags(args.exclude_tags, "--exclude-tags"),
        resource_types=list(dict.fromkeys(args.resource_type)),
    )


def _tags(values: list[str], flag: str) -> list[str]:
    """The tags of a repeatable, comma-separated flag; a tag that selects no check is bad usage."""
    tags = list(dict.fromkeys(tag.strip() for value in values for tag in value.split(",") if tag.strip()))
    known = get_all_available_tags()
    unknown = [tag for tag in tags if not any(tag_matches(tag, existing) for existing in known)]
    if unknown:
        raise UsageError(f"Unknown tag {', '.join(unknown)} in {flag}: use one of {', '.join(known)}.")
    return tags


def required_providers(values: list[str], profile: Profile) -> frozenset[str]:
    """The providers whose NOT READY fails the run: those of --require-ready (comma-separated,
    repeatable) and the profile's; an unknown one is bad usage."""
    keys = [key.strip() for value in values for key in value.split(",") if key.strip()]
    unknown = [key for key in keys if key not in PROVIDERS]
    if unknown:
        raise UsageError(f"Unknown identity provider {', '.join(unknown)} in --require-ready: use some of {', '.join(PROVIDERS)}.")
    return frozenset([*keys, *profile.require_ready])


def _check_required(report: RunReport, required: frozenset[str]) -> None:
    """A provider required ready whose verdict the selection left out would pass a CI job that judged nothing: bad usage."""
    left_out = sorted(key for key in required for r in report.results if r.title == f"{key}_readiness" and r.deselected)
    if left_out:
        raise UsageError(f"--require-ready {', '.join(left_out)}, but the selection leaves out its readiness: select the tag idp:{left_out[0]} too.")


def _check_resource_types(report: RunReport) -> None:
    """A --resource-type the server does not have would pass a CI job that tested nothing: bad usage."""
    published = list(dict.fromkeys(r.resource_type for r in report.results if r.resource_type))
    unknown = [name for name in report.selection.resource_types if name not in published]
    if unknown and published:
        raise UsageError(f"The server has no resource type {', '.join(unknown)} (--resource-type): use one of {', '.join(published)}.")


def _check_something_ran(report: RunReport) -> None:
    """A run whose every check was SKIPPED checked nothing: a CI job must not pass on it, so it is
    bad usage, saying why (the reason most checks gave), once its report is written."""
    if any(result.status is not Status.SKIPPED for result in report.results):
        return
    reasons = Counter(result.reason or "" for result in report.results if not result.deselected)
    why = reasons.most_common(1)[0][0].removeprefix("Skipped: ").rstrip(".") if reasons else "the selection left out every check"
    raise UsageError(f"No check could run on {report.target}: {why}.")


def run(target: Target, selection: Selection, args: argparse.Namespace, review: Review) -> RunOutcome:
    """Run the selected checks on a target, its profile's limits overridden by the flags; a
    UserError when it cannot be checked, RunInterrupted on Ctrl-C, SIGTERM or SIGHUP once the
    running checks deleted what they created."""
    profile = target.profile
    limits = {name: getattr(args, name) or getattr(profile, name) for name in ("jobs", "max_rate", "max_resource_types")}
    profile = profile.model_copy(update={**limits, "require_ready": sorted(review.required)})
    progress = Progress(sys.stderr if sys.stderr.isatty() else None)
    options = RunOptions(record=target.recorded, named=target.named, secrets=target.secrets, review=review)
    try:
        with ExitStack() as stack:
            if profile.demo:  # the embedded server, for this run only
                from scim_tui.demo import DemoServer  # scim2-server loads only for the demo profile

                profile = profile.model_copy(update={"url": stack.enter_context(DemoServer()).url})
            outcome = run_checks(profile, selection, progress, options)
    except CannotRun as problem:
        if target.named or AUTHENTICATION_HINT not in str(problem):
            raise
        raise CannotRun(str(problem).replace(AUTHENTICATION_HINT, URL_AUTHENTICATION)) from None
    finally:
        progress.clear()
    for warning in outcome.warnings if outcome else []:
        print(f"scim-tui: warning: {warning}", file=sys.stderr)
    if outcome is None:  # only a cutoff ends a run before its checks, and the command never cuts one
        raise UsageError("The run was cancelled before its checks began.")
    return outcome


class Progress:
    """The run told on stderr: `[12/140] User/object_query` on one line of a terminal (nothing
    when there is no terminal), and what else the run did (a line each)."""

    def __init__(self, stream: TextIO | None):
        self.stream = stream
        self.total = 0
        self.done: set[CheckId] = set()
        """The checks that gave a result: a check may give several."""

    def stage(self, stage: Stage) -> None:
        self._show(f"{stage.value}…")

    def planned(self, total: int, whole: bool) -> None:
        self.total = total

    def note(self, line: str) -> None:
        self.clear()
        print(f"scim-tui: {line}", file=sys.stderr)

    def cancelled(self) -> bool:
        return False  # Ctrl-C, SIGTERM and SIGHUP interrupt the run instead

    def result(self, result: CheckResult) -> None:
        if not result.check_id.is_summary:  # the plan does not count summaries either
            self.done.add(result.check_id)
        self._show(str(result.check_id))

    def waiting(self, line: str | None) -> None:
        """A wait for a busy server, shown until it is over (called from the waiting thread)."""
        if line is not None:
            self._show(line)

    def _show(self, what: str) -> None:
        if self.stream is not None:
            count = len(self.done)
            self.stream.write(f"\r\x1b[K[{count}/{max(self.total, count)}] {what}")
            self.stream.flush()

    def clear(self) -> None:
        if self.stream is not None:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def _write(report: RunReport, format: str, output: Path | None, every_exchange: bool = False) -> None:  # noqa: A002
    if output is None:
        for piece in report_pieces(report, format, color=format == "text" and _colour(sys.stdout), every_exchange=every_exchange):
            sys.stdout.write(piece)
        return
    try:
        write_atomically(output, (piece.encode() for piece in report_pieces(report, format, every_exchange=every_exchange)))
    except OSError as exc:
        raise UsageError(f"Cannot write {output}: {exc.strerror or exc}.") from exc


def _tell(
    outcome: RunOutcome,
    format: str,  # noqa: A002
    output: Path | None,
    judgement: baseline.Judgement | None = None,
    threshold: Status = Status.ERROR,
) -> None:
    """The failures first, then the summary, the changes and what the baseline says: after a
    text report, else beside the report (never inside it)."""
    report = outcome.report
    stream = sys.stderr if output is None and format != "text" else sys.stdout
    color = _colour(stream)
    lines = failure_lines(report, threshold, color)
    lines += [] if output is None and format == "text" else summary_lines(report, color)
    if outcome.recorded:
        lines += changes_lines(outcome, color)
    if judgement is not None:
        lines += baseline_lines(judgement, color)
    if lines:
        stream.write("\n".join(lines) + "\n")


def changes_lines(outcome: RunOutcome, color: bool = False) -> list[str]:
    """What changed since the previous run of the profile, one line per changed check."""
    previous, changes = outcome.previous, outcome.changes
    if previous is None or changes is None:
        return [f"First recorded run of the profile {outcome.report.profile}: nothing to compare with."]
    since = f"since the previous run ({previous.started_at:%Y-%m-%d %H:%M:%S} UTC), among the {changes.compared} checks both ran"
    if not changes:
        return [f"No change {since}."]
    lines = [f"Changes {since}: {len(changes.new_failures)} new failure(s), {len(changes.fixed)} fixed."]
    lines += [f"  {paint('new failure', Status.ERROR, color)}  {check_id}" for check_id in changes.new_failures]
    lines += [f"  {paint('fixed', Status.SUCCESS, color)}        {check_id}" for check_id in changes.fixed]
    return lines


def failure_lines(report: RunReport, threshold: Status, color: bool = False) -> list[str]:
    """The results that fail the run, then those a baseline accepts, a line each, for the end
    of a CI log; nothing when there are none."""
    failing = report.at_or_above(threshold)
    accepted = [(key, result) for key, result in report.keyed() if key in report.accepted]
    lines = [f"Failing the run ({failing_count(failing)}):", *(f"  {result_line(result, color)}" for result in failing)] if failing else []
    if accepted:
        lines += [f"Accepted by the baseline ({len(accepted)}):", *(f"  {result_line(result, color, report.acceptance(key))}" for key, result in accepted)]
    return lines


def failing_count(failing: list[CheckResult]) -> str:
    """How many results fail the run, as the counts count them: a suite's summary, which restates
    its suite's, is named apart (``6, and 2 suite summaries``)."""
    suites = sum(result.check_id.is_summary for result in failing)
    results = f"{len(failing) - suites}"
    return f"{results}, and {suites} suite {'summary' if suites == 1 else 'summaries'}" if suites else results


def baseline_lines(judgement: baseline.Judgement, color: bool = False) -> list[str]:
    """What the baseline says of the run: failures accepted, entries fixed, entries expired."""
    lines = [f"Baseline: {len(judgement.accepted)} failure(s) accepted, {len(judgement.fixed)} fixed, {len(judgement.expired)} expired."]
    lines += [f"  {paint('fixed', Status.SUCCESS, color)}    {baseline.label(entry)}: remove it from the baseline" for entry in judgement.fixed]
    lines += [f"  {paint('expired', Status.ERROR, color)}  {baseline.label(entry)}: past its date, it counts again" for entry in judgement.expired]
    return lines


def _colour(stream: TextIO) -> bool:
    return stream.isatty() and not os.environ.get("NO_COLOR")
