"""Running checks: the plan of a run, each check in its own context, results in a stable order."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Generator
from collections.abc import Iterable
from collections.abc import Iterator
from concurrent.futures import Future
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass
from typing import Any

from scim2_models import Resource
from scim2_models import ResourceType
from scim2_models import ScimProvider

from scim_tui.checker.answers import body_of
from scim_tui.checker.answers import client_refusal
from scim_tui.checker.causes import Cause
from scim_tui.checker.causes import FeatureFailures
from scim_tui.checker.causes import shared_causes
from scim_tui.checker.context import CheckContext
from scim_tui.checker.context import Discovery
from scim_tui.checker.discovery import describe_server
from scim_tui.checker.exchanges import Exchange
from scim_tui.checker.exchanges import TransportNotes
from scim_tui.checker.exchanges import every_attempt
from scim_tui.checker.exchanges import failure_reason
from scim_tui.checker.exchanges import printable
from scim_tui.checker.guard import NotProven
from scim_tui.checker.guard import keeping
from scim_tui.checker.journal import Journal
from scim_tui.checker.journal import recover
from scim_tui.checker.pacing import Pacer
from scim_tui.checker.recorder import RunCancelled
from scim_tui.checker.recorder import recording
from scim_tui.checker.references import PER_MODEL
from scim_tui.checker.references import PoolKey
from scim_tui.checker.registry import Checker
from scim_tui.checker.registry import HandOver
from scim_tui.checker.registry import all_checkers
from scim_tui.checker.registry import filtered_out
from scim_tui.checker.results import SUMMARY_CHECKER
from scim_tui.checker.results import CheckConfig
from scim_tui.checker.results import CheckId
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import PrerequisiteFailed
from scim_tui.checker.results import SCIMTesterError
from scim_tui.checker.results import SkipCause
from scim_tui.checker.results import Status
from scim_tui.checker.secrets import Secrets

SUMMARY_NAMES = 6
"""How many failed checks a summary names, so that its reason stays one readable line."""


@dataclass(frozen=True)
class Step:
    """One check of a plan: a checker, and the resource type it runs for."""

    checker: Checker
    resource_type: ResourceType | None = None

    @property
    def check_id(self) -> CheckId:
        return CheckId(self.checker.name, self.resource_type.name if self.resource_type else None)


def iter_checks(
    client: Any,
    conf: CheckConfig | None = None,
    *,
    only: Iterable[CheckId] | None = None,
    secrets: Secrets | Iterable[str] = (),
    on_plan: Callable[[int], object] | None = None,
    cancelled: Callable[[], bool] | None = None,
    on_leftovers: Callable[[list[str]], None] | None = None,
    on_wait: Callable[[str | None], object] | None = None,
    exchanges: list[Exchange] | None = None,
    journal: Journal | None = None,
    notes: TransportNotes | None = None,
) -> Generator[CheckResult]:
    """Run the checks on a server and yield each result as soon as its check ends.

    :param client: a synchronous scim2-client (any engine).
    :param conf: filters and options of the run.
    :param only: run exactly these checks (the base of "rerun what failed"),
        not reported as skipped when left out; a suite's summary without any check of its
        suite runs the whole suite again.
    :param secrets: strings to redact wherever they would appear in an exchange; a Secrets
        is read live, so that a secret learnt during the run (a refreshed token) is redacted too.
    :param on_plan: called with the number of checks planned (suite summaries not counted), once before the server
        checks and again once discovery tells the resource types (for a progress bar).
    :param cancelled: tells, from any thread, that the run is cancelled: the running checks
        then send no further request but their clean-up, and are reported SKIPPED, so the
        run ends within one request's timeout. Close the iterator once it says so.

    :param on_leftovers: called, when the iterator is closed early, with what the run-wide
        clean-up could not delete or may remain (no result is left to name it on).
    :param on_wait: called, from the waiting thread, with a line when a request starts waiting
        for a busy server (429, 503) and with None when the wait is over (conf.pacing).
    :param exchanges: a list the run appends every exchange to as it ends, each with its start
        time: those of the checks, and those made outside any (discovery, the resources the
        checks share, clean-up), for a report that holds every request of the run.
    :param journal: told of each creation before it is sent and once it is settled (journal.py);
        once the server is described, the run first looks for what `journal.earlier()` names
        (left by runs of the same target that did not end), and deletes what it proves its own.
    :param notes: what the client's transport did beyond sending a request once (sent it again
        on a new connection), told per answer and written on its exchange.

    Closing the iterator early (a cancelled run, a Ctrl-C) stops the checks still running
    at their next request; each deletes what it created. Requests in a row that get no
    answer in time end the run early too: the checks left are SKIPPED, the clean-up runs.
    The run writes only to what it created (guard.py), and deletes all of it.
    """
    conf = conf or CheckConfig()
    wanted = _with_suites(set(only), conf) if only is not None else None
    run_secrets = secrets if isinstance(secrets, Secrets) else Secrets(secrets)
    pacer = Pacer(conf.pacing, on_wait)
    context = CheckContext(client, conf, Discovery(), secrets=run_secrets, cancelled=cancelled, pacer=pacer, journal=journal, log=exchanges, notes=notes)

    verdicts = _chosen([Step(c) for c in all_checkers() if c.scope == "results"], wanted)
    if wanted is not None and verdicts:
        wanted = wanted | {CheckId(c.name) for c in all_checkers() if c.scope == "server" and any(v.checker.tags <= c.tags for v in verdicts)}
    server_steps = _chosen([Step(c) for c in all_checkers() if c.scope == "server"], wanted)
    per_type = [c for c in all_checkers() if c.per_type]
    seen: list[CheckResult] = []
    if on_plan:
        on_plan(_selected(conf, [*server_steps, *verdicts]) if wanted is None else sum(not check.is_summary for check in wanted))  # summaries are not counted
    yield from _kept(_run_steps(context, server_steps), seen)

    if wanted is not None and not verdicts and all(check.resource_type is None for check in wanted):
        return
    try:
        failure = describe_server(context)
    except RunCancelled as stopped:
        if context.recorder.ended_early is None:
            return
        failure = stopped.reason
    resource_types = _resource_types(client, failure)
    if journal is not None and not failure:
        recover(context, journal)
    if wanted is not None:
        if verdicts:
            wanted = wanted | _judged(verdicts, resource_types)
        if on_plan:
            on_plan(_planned(wanted, resource_types))
    if on_plan and wanted is None:
        on_plan(_selected(conf, [*server_steps, *verdicts]) + _planned_per_type(conf, per_type, resource_types, context.discovery.unusable))
    yield from _kept(_run_suites(context, [_suite(context, resource_type, wanted) for resource_type in resource_types], on_leftovers), seen)
    if failure and (wanted is None or any(check.resource_type for check in wanted)):
        yield from _kept(_undescribed(failure, wanted, conf), seen)
    if not failure:
        yield from _kept(_absent(resource_types, wanted, conf), seen)
    for name, why in context.discovery.unusable.items():
        yield from _kept(_unusable(name, why, wanted, conf), seen)
    yield from _verdicts(context, verdicts, seen)


def check_server(
    client: Any,
    raise_exceptions: bool = False,
    include_tags: set[str] | None = None,
    exclude_tags: set[str] | None = None,
    resource_types: list[str] | None = None,
) -> list[CheckResult]:
    """Run every check on a server and return the results (SPEC.md §4.1)."""
    conf = CheckConfig(
        raise_exceptions=raise_exceptions,
        include_tags=include_tags,
        exclude_tags=exclude_tags,
        resource_types=resource_types,
    )
    return list(iter_checks(client, conf))


def _with_suites(wanted: set[CheckId], conf: CheckConfig) -> set[CheckId]:
    """A suite's summary wanted without any check of its suite stands for the whole suite (the
    checks of it the run's tag filters select): it sums up their results, so they run again with it."""
    summed = {check.resource_type for check in wanted if check.checker == SUMMARY_CHECKER}
    alone = summed - {check.resource_type for check in wanted if check.checker != SUMMARY_CHECKER}
    per_type = [c.name for c in all_checkers() if c.per_type and filtered_out(c.tags, conf) is None]
    return wanted | {CheckId(name, resource_type) for resource_type in alone for name in per_type}


def _planned(wanted: set[CheckId], resource_types: list[ResourceType]) -> int:
    """How many of the wanted checks give results once the server is described: not the
    summaries, nor a check kept to a schema (checker(schema=...)) for a resource type of another."""
    schemas = {str(resource_type.name): str(resource_type.schema_) for resource_type in resource_types}
    checkers = {checker.name: checker for checker in all_checkers()}

    def gives_results(check: CheckId) -> bool:
        checker = checkers.get(check.checker)
        schema = schemas.get(check.resource_type or "")
        return not check.is_summary and (checker is None or schema is None or checker.applies_to(schema))

    return sum(gives_results(check) for check in wanted)


def _selected(conf: CheckConfig, steps: list[Step]) -> int:
    """How many of these steps the run's tag filters keep."""
    return sum(filtered_out(step.checker.tags, conf) is None for step in steps)


def _planned_per_type(conf: CheckConfig, per_type: list[Checker], resource_types: list[ResourceType], unusable: dict[str, str]) -> int:
    """How many results the resource checks kept by the tag filters give (summaries are not
    counted): one per resource type selected they apply to, one per schema they are kept to that
    the server lacks, one per resource type that cannot be checked; one each when the server
    could not be described."""
    counted = [c for c in per_type if c.name != SUMMARY_CHECKER and filtered_out(c.tags, conf) is None]
    if not resource_types:
        return len(counted)
    schemas = [str(t.schema_) for t in resource_types]
    checked = [str(t.schema_) for t in resource_types if not conf.resource_types or t.name in conf.resource_types]
    per_types = sum(1 for c in counted for schema in checked if c.applies_to(schema))
    absent = sum(1 for c in counted if c.schema is not None and c.schema not in schemas)
    return per_types + absent + len(unusable) * sum(1 for c in counted if c.schema is None)


def _chosen(steps: list[Step], wanted: set[CheckId] | None) -> list[Step]:
    return steps if wanted is None else [step for step in steps if step.check_id in wanted]


def _resource_types(client: Any, failure: str | None) -> list[ResourceType]:
    if failure:
        return []
    provider: ScimProvider = client.provider
    return list(provider.resource_types or ())


@dataclass
class _Suite:
    """The plan of one resource type: the steps to run, then its summary, or what is skipped."""

    steps: list[Step]
    summary: Step | None
    skipped: list[CheckResult]


def resource_type_suite(context: CheckContext, resource_type: ResourceType, wanted: set[CheckId] | None = None) -> Iterator[CheckResult]:
    """Run the checks of one resource type, then sum them up with resource_type_tests."""
    return _run_suites(context, [_suite(context, resource_type, wanted)], None)


def _suite(context: CheckContext, resource_type: ResourceType, wanted: set[CheckId] | None) -> _Suite:
    conf = context.conf
    steps = [Step(c, resource_type) for c in all_checkers() if c.per_type and c.applies_to(str(resource_type.schema_))]
    summary = next(step for step in steps if step.checker.name == SUMMARY_CHECKER)
    suite = _chosen([step for step in steps if step is not summary], wanted)
    summed = summary if wanted is None or summary.check_id in wanted else None
    if conf.resource_types and resource_type.name not in conf.resource_types:
        reason = f"Skipped: resource type {resource_type.name} is not in resource_types ({', '.join(conf.resource_types)})."
        return _Suite([], None, [skipped(step, reason, SkipCause.DESELECTED) for step in [*suite, summed] if step is not None])
    return _Suite(suite, summed, [])


def _run_suites(context: CheckContext, suites: list[_Suite], on_leftovers: Callable[[list[str]], None] | None) -> Iterator[CheckResult]:
    """Run the steps of several resource types together (no type waits for another), and
    yield their results type by type, each followed by its summary. A feature failing as a
    whole on its judge's first use is that judge's finding; the checks after it that met it
    are SKIPPED naming it (causes.FeatureFailures).

    Once every check ended, the run's own resources (those references pointed at, creations
    that may have happened late) are deleted: the last result of the last suite that ran
    anything waits for that, and names what could not be deleted. A run closed early tells
    them to `on_leftovers`.
    """
    outcomes = _outcomes(context, [step for suite in suites for step in suite.steps])
    last_ran = max((index for index, suite in enumerate(suites) if suite.steps or suite.summary), default=None)
    try:
        with closing(outcomes):  # a closed run stops here, once the running checks have cleaned up
            for index, suite in enumerate(suites):
                yield from suite.skipped
                # the run's own resources are named on its last result shown: a deselected one is not
                summary_shown = suite.summary is not None and deselected(suite.summary, context.conf) is None
                last_shown = max((n for n, step in enumerate(suite.steps, start=1) if deselected(step, context.conf) is None), default=None)
                results: list[CheckResult] = []
                features = FeatureFailures()
                for number, step in enumerate(suite.steps, start=1):
                    step_results = next(outcomes)
                    features.take(step.checker.name, step_results)
                    results.extend(step_results)
                    if index == last_ran and number == last_shown and not summary_shown and step_results:
                        _delete_shared(context, step_results[-1])
                    yield from step_results
                if suite.summary is not None:
                    summary = _summarize(context, suite.summary, results)
                    if index == last_ran and summary_shown:
                        _delete_shared(context, summary)
                    yield summary
    finally:
        leftovers = context.references.manager.cleanup()  # a run closed early: no result left to name them on
        if leftovers and on_leftovers is not None:
            on_leftovers(leftovers)


def _delete_shared(context: CheckContext, last: CheckResult) -> None:
    """Delete the resources the run's references pointed at; name on `last` what could not be."""
    last.leftovers = [*last.leftovers, *(printable(item) for item in context.references.manager.cleanup())]


def _summarize(context: CheckContext, step: Step, results: list[CheckResult]) -> CheckResult:
    left_out = deselected(step, context.conf)
    if left_out:
        return left_out
    model = context.model_for(step.resource_type) if step.resource_type else None
    if model is None:
        result = CheckResult(Status.ERROR, reason=f"No schema matches the resource type {step.check_id.resource_type}.")
    else:
        result = suite_summary(model.__name__, results)
    return _finish(context, step, [result], [], [])[0]


def suite_summary(model_name: str, results: list[CheckResult]) -> CheckResult:
    """SUCCESS when no check of a resource type's suite failed, ERROR naming those that did, and
    the causes several of them share (a request that failed as a whole, causes.py)."""
    failed = sorted({r.title or "" for r in results if r.status.failed})
    ran = [r for r in results if r.status is not Status.SKIPPED]
    if failed:
        named = ", ".join(failed[:SUMMARY_NAMES]) + (f" and {len(failed) - SUMMARY_NAMES} more" if len(failed) > SUMMARY_NAMES else "")
        causes = "".join(_shared(cause, len(failed)) for cause in shared_causes(results))
        return CheckResult(Status.ERROR, reason=f"{len(failed)} check(s) failed for {model_name}: {named}.{causes}")
    if not ran:
        return CheckResult(Status.SKIPPED, reason=f"No check of the {model_name} suite ran.", skip_cause=SkipCause.PREREQUISITE)
    return CheckResult(Status.SUCCESS, reason=f"All {len(ran)} results of the {model_name} suite passed.")


def _shared(cause: Cause, failed: int) -> str:
    """The sentence of a suite summary on a cause several of its failed checks share (and how
    many SKIPPED results name it too), or "" when fewer do."""
    checks = len({r.check_id for r in cause.results if r.status.failed})
    if checks < 2:
        return ""
    skipped = sum(r.status is Status.SKIPPED for r in cause.results)
    named = f" ({skipped} SKIPPED results name it too)" if skipped else ""
    return f" {'All' if checks == failed else checks} of them share one cause: {cause.request}{named}."


def _undescribed(failure: str, wanted: set[CheckId] | None, conf: CheckConfig) -> Iterator[CheckResult]:
    """The resource checks that cannot run because the server could not be described (those
    the tag filters leave out say so instead, as each such result below)."""
    reason = f"Skipped: the server could not be described ({failure})."
    for checker in all_checkers():
        if not checker.per_type:
            continue
        step = Step(checker)
        if wanted is None or any(check.checker == checker.name for check in wanted):
            yield deselected(step, conf) or skipped(step, reason, SkipCause.PREREQUISITE)


def _unusable(name: str, why: str, wanted: set[CheckId] | None, conf: CheckConfig) -> Iterator[CheckResult]:
    """The checks of a resource type that cannot be checked (its schema served nowhere ...)."""
    reason = f"Skipped: the resource type {name} cannot be checked: {why}."
    for checker in all_checkers():
        check_id = CheckId(checker.name, name)
        if checker.per_type and checker.schema is None and (wanted is None or check_id in wanted):
            result = deselected(Step(checker), conf) or skipped(Step(checker), reason, SkipCause.PREREQUISITE)
            result.resource_type = printable(name)
            yield result


def _absent(resource_types: list[ResourceType], wanted: set[CheckId] | None, conf: CheckConfig) -> Iterator[CheckResult]:
    """The checks kept to one resource type's schema that the server has no usable resource type of."""
    schemas = {str(resource_type.schema_) for resource_type in resource_types}
    for checker in all_checkers():
        if not checker.per_type or checker.schema is None or checker.schema in schemas:
            continue
        kind = checker.schema.rsplit(":", 1)[-1]
        if wanted is None or CheckId(checker.name, kind) in wanted:
            why = f"Skipped: the server has no resource type of the schema {checker.schema} that can be checked."
            result = deselected(Step(checker), conf) or skipped(Step(checker), why, SkipCause.NOT_APPLICABLE)
            result.resource_type = kind
            yield result


def _judged(verdicts: list[Step], resource_types: list[ResourceType]) -> set[CheckId]:
    """The checks a verdict judges (those carrying each of its tags), run again with it: a
    verdict on part of its checks would tell nothing."""
    judged = set()
    for verdict in verdicts:
        for checker in all_checkers():
            if checker.per_type and verdict.checker.tags <= checker.tags:
                judged |= {CheckId(checker.name, str(rt.name)) for rt in resource_types if checker.applies_to(str(rt.schema_))}
    return judged


def _kept(results: Iterable[CheckResult], seen: list[CheckResult]) -> Iterator[CheckResult]:
    """Yield results, keeping them in `seen` for the verdicts given once every check ended."""
    for result in results:
        seen.append(result)
        yield result


def _verdicts(context: CheckContext, steps: list[Step], seen: list[CheckResult]) -> Iterator[CheckResult]:
    """The checkers that judge the results of the others (a provider's readiness), given them."""
    for step in steps:
        left_out = deselected(step, context.conf)
        yield from [left_out] if left_out else _finish(context, step, step.checker.func(context, list(seen)), [], [])


def skipped(step: Step, reason: str, cause: SkipCause) -> CheckResult:
    result = CheckResult(Status.SKIPPED, reason=reason, skip_cause=cause)
    _label(step, result)
    return result


def deselected(step: Step, conf: CheckConfig) -> CheckResult | None:
    """The SKIPPED result of a step the run's tag filters leave out, None when they keep it."""
    reason = filtered_out(step.checker.tags, conf)
    return skipped(step, reason, SkipCause.DESELECTED) if reason else None


def _run_steps(context: CheckContext, steps: list[Step]) -> Iterator[CheckResult]:
    """Run steps, `jobs` at a time, yielding their results in the order of the steps."""
    with closing(_outcomes(context, steps)) as outcomes:
        for results in outcomes:
            yield from results


START_RANK = {"first": 0, "early": 1, "any": 2}
"""The order the steps start in (Checker.start): the checks handing resources over, then the long
ones, then the others, each in plan order. Their results still come in plan order."""


def _outcomes(context: CheckContext, steps: list[Step]) -> Generator[list[CheckResult]]:
    """The results of each step, in the order of the steps, the steps running `jobs` at a time."""
    jobs = max(1, context.conf.jobs)
    handing = _handing_over(context, steps)
    for step in steps:
        if deselected(step, context.conf) is None:
            context.references.hold(_pools(context, step))
    if jobs == 1 or len(steps) < 2:  # in plan order: what a check needs handed over is, by then
        for index, step in enumerate(steps):
            yield _run_handing_over(context, step, handing.get(index))
        return
    with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="scim-tui-check") as pool:
        pending: list[Future[list[CheckResult]]] = []
        try:
            # a pool starts what it was given in that order: a check waiting for what one
            # started "first" hands over never holds back that one (References.fresh)
            started = {
                n: pool.submit(_run_handing_over, context, steps[n], handing.get(n))
                for n in sorted(range(len(steps)), key=lambda n: START_RANK[steps[n].checker.start])
            }
            pending = [started[n] for n in range(len(steps))]
            for future in pending:
                yield future.result()
        finally:
            # Closed early (a cancel, a Ctrl-C): the checks still running stop sending
            # requests and clean up, so the pool is shut down within one request's time.
            if not all(future.done() for future in pending):
                context.stopping.set()
            for future in pending:
                future.cancel()


def _handing_over(context: CheckContext, steps: list[Step]) -> dict[int, tuple[type[Resource[Any]], HandOver]]:
    """The steps that hand resources over (Checker.hands_over) to a step of the run taking them
    (Checker.takes), by their index in `steps`, each with its model and what it hands: the step
    taking them waits for it."""
    running = [
        (index, step, context.model_for(step.resource_type))
        for index, step in enumerate(steps)
        if step.resource_type and deselected(step, context.conf) is None
    ]
    taken = {(model, step.checker.takes): index for index, step, model in reversed(running) if step.checker.takes}  # the first taker's
    handing: dict[int, tuple[type[Resource[Any]], HandOver]] = {}
    for index, step, model in running:
        kind = step.checker.hands_over
        if kind is not None and model is not None and taken.get((model, kind), -1) > index:  # a taker waits only for a step before it
            context.references.expect(model, kind)
            handing[index] = (model, kind)
    return handing


def _pools(context: CheckContext, step: Step) -> list[PoolKey]:
    """The pools of shared resources a step reads (Checker.shares), with its model where a pool is made per resource type."""
    model = context.model_for(step.resource_type) if step.resource_type else None
    return [(pool, model if pool in PER_MODEL else None) for pool in sorted(step.checker.shares)]


def _run_handing_over(context: CheckContext, step: Step, handed: tuple[type[Resource[Any]], HandOver] | None) -> list[CheckResult]:
    """Run a step; one handing resources over says, however it ended, that it handed what it could."""
    try:
        return run_step(context, step)
    finally:
        if handed is not None:
            context.references.settle(*handed)


def run_step(context: CheckContext, step: Step) -> list[CheckResult]:
    """Run one check in its own context and return its labelled results.

    A check left out by the tag filters is SKIPPED. Whatever the check raises becomes
    an ERROR result (or a SCIMTesterError with raise_exceptions). What the check
    created is deleted in every case, and what could not be is named in its results.
    """
    left_out = deselected(step, context.conf)
    if left_out:
        return [left_out]
    with recording() as exchanges:
        check_context = context.fork(exchanges)
        check_context.shares = step.checker.shares
        try:
            with keeping(check_context.resource_manager):
                results = _call(check_context, step)
        except SCIMTesterError:
            raise
        except RunCancelled as stopped:
            results = [CheckResult(Status.SKIPPED, reason=f"Skipped: {stopped.reason}.", skip_cause=SkipCause.STOPPED)]
        except KeyboardInterrupt:
            context.stopping.set()  # a Ctrl-C now skips the clean-up's deletion under way
            raise
        except Exception as exc:
            results = [failure_result(exc, exchanges)]
            if context.conf.raise_exceptions and results[0].status.failed:
                raise SCIMTesterError(f"{step.checker.name}: {results[0].reason}", context.conf) from exc
        finally:
            context.references.leave(check_context, _pools(context, step))
            leftovers = check_context.resource_manager.cleanup()
    return _finish(context, step, results, exchanges, leftovers)


def failure_result(exc: Exception, exchanges: list[Exchange]) -> CheckResult:
    """The result of a check (or a step of one) that stopped on `exc`: SKIPPED when something it
    needed could not be made (the check of that step reports it), a resource it created could not
    be proven its own (so nothing was written to it), or the client library refused to send a
    request (the server was not asked); else ERROR, saying the last request and what went wrong."""
    if isinstance(exc, PrerequisiteFailed):
        return CheckResult(Status.SKIPPED, reason=f"Skipped: {exc}.", skip_cause=SkipCause.PREREQUISITE)
    if isinstance(exc, NotProven):  # the server's answer to that GET is another check's to judge
        return CheckResult(Status.SKIPPED, reason=f"Skipped: {failure_reason(exc, exchanges)}.", skip_cause=SkipCause.PREREQUISITE)
    refusal = client_refusal(exc)
    if refusal:
        reason = f"Not sent: scim2-client refused to send the request ({refusal}), so the server was not asked."
        return CheckResult(Status.SKIPPED, reason=reason, skip_cause=SkipCause.NOT_SENT)
    return CheckResult(Status.ERROR, reason=failure_reason(exc, exchanges), data=exception_data(exc))


def _call(context: CheckContext, step: Step) -> list[CheckResult]:
    checker = step.checker
    if checker.scope == "server":
        return checker.func(context)
    if checker.scope == "resource_type":
        return checker.func(context, step.resource_type)
    model = context.model_for(step.resource_type) if step.resource_type else None
    if model is None:
        return [CheckResult(Status.SKIPPED, reason=f"No schema matches the resource type {step.check_id.resource_type}.", skip_cause=SkipCause.NOT_APPLICABLE)]
    return checker.func(context, model)


def _finish(context: CheckContext, step: Step, results: list[CheckResult], exchanges: list[Exchange], leftovers: list[str]) -> list[CheckResult]:
    leftovers = [printable(item) for item in leftovers]
    for result in results:
        _label(step, result)
        result.reason = printable(result.reason) if result.reason else result.reason
        result.exchanges = every_attempt(result.exchanges or exchanges)  # judged, so each attempt of a request is shown
    if leftovers and results:
        results[-1].leftovers = list(leftovers)  # named once, on the check's last result
    if context.conf.raise_exceptions:
        for result in results:
            if result.status.failed:
                raise SCIMTesterError(f"{result.title}: {result.reason}", context.conf)
    return results


def _label(step: Step, result: CheckResult) -> None:
    checker = step.checker
    result.title = checker.name
    result.description = checker.description
    result.tags = checker.tags
    result.section = checker.section
    result.rfc = checker.rfc
    if step.resource_type is not None:
        result.resource_type = printable(str(step.resource_type.name))


def exception_data(exc: BaseException) -> Any:
    """The response (or request) an exception carries, in a displayable form."""
    source: Any = getattr(exc, "source", None)
    if source is None or not hasattr(source, "status_code"):
        return source
    return body_of(source)
