"""Two verdicts on an identity provider's replayed steps, kept apart.

- By the RFCs (each step's status): a request the provider sends that also fails as the RFC
  spells it is the server's RFC fault (ERROR, or what the RFC's words say); a shape only the
  provider sends, which the server refuses while the RFC's spelling of the same change passes,
  is a DEVIATION (the provider's documentation asks servers to accept it); a request needing a
  feature the ServiceProviderConfig says is unsupported (PATCH, filter) is not judged (SKIPPED).
- By the provider (`CheckResult.blocks`, and the verdict per provider): READY, or NOT READY
  naming each step the provider cannot get past. NOT READY is an ERROR only for a provider the
  run requires (``--require-ready``, CheckConfig.require_ready), else a DEVIATION: a plain run's
  exit status follows the RFC statuses.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from collections.abc import Iterable
from typing import Any
from urllib.parse import parse_qs
from urllib.parse import urlsplit

from scim_tui.checker.answers import listed
from scim_tui.checker.checks.idp_wire import Provider
from scim_tui.checker.checks.probes import checked
from scim_tui.checker.context import CheckContext
from scim_tui.checker.engine import failure_result
from scim_tui.checker.exchanges import Exchange
from scim_tui.checker.exchanges import request_line
from scim_tui.checker.features import FEATURES
from scim_tui.checker.features import service_provider_config
from scim_tui.checker.registry import any_tag_matches
from scim_tui.checker.registry import filtered_out
from scim_tui.checker.registry import verdict_names
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

NAMED = 6
"""How many blocking steps a readiness verdict names, so that its reason stays one readable line."""
DIFFERENCES = 4
"""How many differences between the provider's request and the RFC's a reason names."""
DIFFERENCE_CHARS = 100
"""How much of each value a difference shows."""
UNSUPPORTED_SECTIONS = {"patch": "RFC 7644 §3.5.2", "filter": "RFC 7644 §3.4.2.2"}
"""Where the RFC makes each feature a step may need optional."""


def step(
    context: CheckContext,
    provider: Provider,
    label: str,
    run: Callable[[], CheckResult],
    note: str = "",
    plain: Callable[[], CheckResult] | None = None,
    shapes: tuple[Any, Any] | None = None,
    provider_only: bool = True,
) -> CheckResult:
    """One labelled step (probes.checked). When it fails on an answer and `plain` sends the same
    change as the RFC spells it, that is tried too: when it passes, the provider's spelling is the
    cause, and the reason names the difference between the two requests (`shapes`: the provider's
    JSON, then the RFC's) and why it matters (`note`). A shape only the provider sends is then a
    DEVIATION that blocks the provider; one the RFC defines too (not `provider_only`) stays the
    server's RFC fault."""
    result = checked(context, run, label)
    last = result.exchanges[-1] if result.exchanges else None
    if not result.status.failed or plain is None or last is None or last.status_code is None:
        return result
    retry = checked(context, plain, label)
    result.exchanges = [*result.exchanges, *retry.exchanges]
    if not goes_past(retry):
        return result
    reason = (result.reason or "").rstrip()
    differs = f" {provider.name}'s request differs in {difference(*shapes)}." if shapes else ""
    taken = "passes" if not retry.status.failed else f"is taken ({_sentence_end(retry.reason)})"
    if provider_only:
        result.status, result.blocks = Status.DEVIATION, True
    result.reason = f"{reason}{'' if reason.endswith('.') else '.'} The same change as the RFC spells it {taken}.{differs} {note}"
    return result


def goes_past(result: CheckResult) -> bool:
    """Whether the provider goes on after a step: it passed, or failed in a way the provider reads
    past (a creation answered 200 instead of 201: the resource is there all the same)."""
    return not result.status.failed or result.blocks is False


def _sentence_end(reason: str | None) -> str:
    """A reason as a clause inside another sentence: no final full stop."""
    return (reason or "").rstrip().rstrip(".")


def difference(sent: Any, plain: Any) -> str:
    """Where the provider's JSON differs from the RFC's spelling of the same request, in words."""
    found = _differences(sent, plain, "")
    more = f" and {len(found) - DIFFERENCES} more" if len(found) > DIFFERENCES else ""
    return ", ".join(found[:DIFFERENCES]) + more


_ABSENT = object()


def _differences(sent: Any, plain: Any, where: str) -> list[str]:
    if isinstance(sent, dict) and isinstance(plain, dict):
        keys = dict.fromkeys([*sent, *plain])
        return [text for key in keys for text in _differences(sent.get(key, _ABSENT), plain.get(key, _ABSENT), f"{where}.{key}" if where else str(key))]
    if isinstance(sent, list) and isinstance(plain, list) and all(isinstance(item, str) for item in [*sent, *plain]):
        padded = [(sent[i] if i < len(sent) else _ABSENT, plain[i] if i < len(plain) else _ABSENT) for i in range(max(len(sent), len(plain)))]
        return [text for index, (one, other) in enumerate(padded) for text in _differences(one, other, f"{where}[{index}]")]
    if sent == plain:
        return []
    return [f"{where or 'the body'} {_json(sent)} (RFC: {_json(plain)})"]


def _json(value: Any) -> str:
    if value is _ABSENT:
        return "absent"
    text = json.dumps(value)
    return text if len(text) <= DIFFERENCE_CHARS else f"{text[: DIFFERENCE_CHARS - 1]}…"


def replay(provider: Provider) -> Callable[[Callable[..., list[CheckResult]]], Callable[..., list[CheckResult]]]:
    """An identity provider's check: what it raises becomes its result (as the engine makes it),
    and each failed result is judged by what the ServiceProviderConfig says (`judged`)."""

    def wrap(func: Callable[..., list[CheckResult]]) -> Callable[..., list[CheckResult]]:
        @functools.wraps(func)
        def run(context: CheckContext, *args: Any) -> list[CheckResult]:
            mark = len(context.exchanges)
            try:
                results = func(context, *args)
            except Exception as exc:
                results = [failure_result(exc, context.exchanges[mark:])]
                results[0].exchanges = context.exchanges[mark:]
            return [judged(context, provider, result) for result in results]

        return run

    return wrap


def judged(context: CheckContext, provider: Provider, result: CheckResult) -> CheckResult:
    """A failed step whose refused request needs a feature the ServiceProviderConfig says is not
    supported is not the server's RFC fault: SKIPPED, and it blocks the provider, which sends it
    all the same (as does a step SKIPPED because such a request, setting it up, was refused)."""
    if not (result.status.failed or result.status is Status.SKIPPED):
        return result
    needed = _unsupported_need(context, result.exchanges)
    if needed is None:
        return result
    if result.status is Status.SKIPPED:
        result.blocks = True
        return result
    feature, exchange = needed
    result.status, result.blocks = Status.SKIPPED, True
    result.reason = (
        f"Not judged: the ServiceProviderConfig says {feature} is not supported, which {UNSUPPORTED_SECTIONS[feature]} allows, "
        f"but {provider.name} sends it all the same: {request_line(exchange)} answered {exchange.status_code}."
    )
    return result


def _unsupported_need(context: CheckContext, exchanges: Iterable[Exchange]) -> tuple[str, Exchange] | None:
    """The feature a refused request needed, which the server says it does not support, and that request."""
    refused = [e for e in exchanges if (e.status_code or 0) >= 400]
    for feature in ("patch", "filter"):
        if not said_unsupported(context, feature):
            continue
        for exchange in refused:
            if (feature == "patch" and exchange.method == "PATCH") or (feature == "filter" and "filter" in parse_qs(urlsplit(exchange.url).query)):
                return feature, exchange
    return None


def said_unsupported(context: CheckContext, feature: str) -> bool:
    """Whether the ServiceProviderConfig, read, says a feature (its SCIM name) is not supported."""
    support = getattr(service_provider_config(context), FEATURES[feature], None)
    return support is not None and support.supported is False


def readiness(provider: Provider, context: CheckContext, results: list[CheckResult], apart: tuple[str, ...] = ()) -> list[CheckResult]:
    """READY (SUCCESS) when no step of the provider blocks it (`blocking`), and none was kept from
    running but by the run's selection; NOT READY naming the blocking steps (an ERROR when the run
    requires the provider, else a DEVIATION); SKIPPED when none ran (the server could not be
    described, the run was cancelled ...): that fault is reported where it happened. Steps of a
    tag in `apart` have a verdict of their own (Microsoft's gallery validation)."""
    verdicts = verdict_names()
    steps = [r for r in results if any_tag_matches([provider.tag], r.tags) and not any_tag_matches(apart, r.tags) and r.title not in verdicts]
    chosen = [r for r in steps if not _left_out(r, context)]
    named: dict[str, str] = {}
    for result in chosen:
        how = blocking(result)
        if how:
            named.setdefault(_name(result), how)
    count = len({r.check_id for r in chosen})
    if context.discovery.failure or not any(r.status is not Status.SKIPPED or r.blocks for r in chosen):
        why = context.discovery.failure or ((chosen[0].reason or "").removeprefix("Skipped: ").rstrip(".") if chosen else "")
        return untold(provider, context, f"No {provider.name} step ran, so readiness cannot be told{f': {why}' if why else ''}")
    if named:
        status = Status.ERROR if provider.key in context.conf.require_ready else Status.DEVIATION
        return [CheckResult(status, reason=f"NOT READY for {provider.name}: {len(named)} of {count} steps block: {_listed(named)}.{causes_named(chosen)}")]
    left_out = len({r.check_id for r in steps}) - count
    aside = f" ({left_out} left out by the run's selection)" if left_out else ""
    tolerated = sum(1 for r in chosen if r.status is Status.DEVIATION and r.blocks is False)
    caveat = f"; {tolerated} with a deviation the provider tolerates" if tolerated else ""
    untold_steps = list(dict.fromkeys(_name(r) for r in chosen if r.status is Status.SKIPPED))  # none blocks (else it is named above)
    if untold_steps:
        told = f"{count - len(untold_steps)} of {count} steps passed, {listed(untold_steps)} skipped"
    else:
        told = "its one step passed" if count == 1 else f"all {count} steps passed"
    return [CheckResult(Status.SUCCESS, reason=f"READY for {provider.name}: {told}{aside}{caveat}.")]


def causes_named(steps: list[CheckResult]) -> str:
    """`` Cause: PATCH /v2/Users/{id} answered 501.``: what another check reports that keeps blocking
    steps from passing (causes.py), or ""."""
    causes = list(dict.fromkeys(r.cause for r in steps if r.cause and blocking(r) and not r.deselected))
    return f" Cause: {'; '.join(causes)}." if causes else ""


def untold(provider: Provider, context: CheckContext, told: str) -> list[CheckResult]:
    """A verdict that cannot be given (the server could not be described, no step ran): SKIPPED, an
    ERROR when the run requires the provider."""
    if provider.key in context.conf.require_ready:
        return [CheckResult(Status.ERROR, reason=f"{told}, and the run requires it.")]
    return [CheckResult(Status.SKIPPED, reason=f"{told}.")]


def blocking(result: CheckResult) -> str | None:
    """How a step keeps its provider from working, in a word, or None when it does not: it failed,
    its shape was refused (a DEVIATION), it needs a feature the server does not support, it met a
    cause another check reports (causes.py: blocked), or it did not run (a step left out by the run's selection is not looked at)."""
    if result.blocks is False:
        return None
    if result.status is Status.SKIPPED and result.cause:
        return "blocked"
    if result.status is Status.SKIPPED:
        return "unsupported" if result.blocks else "did not run"
    if result.status.failed:
        return "failed"
    return "refused" if result.blocks else None


def _name(result: CheckResult) -> str:
    return f"{result.title} ({result.resource_type})" if result.resource_type else str(result.title)


def _listed(named: dict[str, str]) -> str:
    shown_names = [f"{name} {how}" for name, how in list(named.items())[:NAMED]]
    more = f" and {len(named) - NAMED} more" if len(named) > NAMED else ""
    return f"{', '.join(shown_names)}{more}"


def _left_out(result: CheckResult, context: CheckContext) -> bool:
    """Whether a step was SKIPPED by the run's selection (tags, resource types), not by the server."""
    if result.status is not Status.SKIPPED:
        return False
    conf = context.conf
    return bool(filtered_out(result.tags, conf)) or bool(conf.resource_types and result.resource_type not in conf.resource_types)
