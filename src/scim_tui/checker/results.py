"""The data a run is configured with and the results it produces (SPEC.md §2)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from collections.abc import Set
from dataclasses import dataclass
from dataclasses import field
from enum import IntEnum
from enum import StrEnum
from typing import TYPE_CHECKING
from typing import Any

from scim_tui.checker.limits import MAX_RESOURCE_TYPES
from scim_tui.checker.pacing import Pacing
from scim_tui.checker.packing import PackedField

if TYPE_CHECKING:
    from scim_tui.checker.exchanges import Exchange


class Status(IntEnum):
    """How a server behaved in one check, from the best to the worst, then SKIPPED."""

    SUCCESS = 1
    """Behaviour strictly conforms to mandatory (MUST / MUST NOT) requirements."""
    COMPLIANT = 2
    """Behaviour follows recommendations (SHOULD / SHOULD NOT)."""
    ACCEPTABLE = 3
    """Behaviour is compliant but uses optional features (MAY), or is reasonably robust."""
    DEVIATION = 4
    """Behaviour deviates from recommendations but stays within the specification."""
    ERROR = 5
    """Behaviour violates mandatory requirements."""
    CRITICAL = 6
    """Behaviour creates security risks or fundamental protocol violations."""
    SKIPPED = 7
    """The check was not executed, because of filtering or unmet prerequisites."""

    @property
    def failed(self) -> bool:
        return self in (Status.ERROR, Status.CRITICAL)


SUMMARY_CHECKER = "resource_type_tests"
"""The checker that sums up the suite of one resource type; it runs after the others."""
STATUS_WIDTH = max(len(status.name) for status in Status)
"""Characters the longest status name takes, to align statuses in a column."""


@dataclass
class CheckConfig:
    """The configuration of one run (SPEC.md §2.1)."""

    raise_exceptions: bool = False
    expected_status_codes: list[int] | None = None
    include_tags: set[str] | None = None
    exclude_tags: set[str] | None = None
    resource_types: list[str] | None = None
    jobs: int = 4
    """How many checks run at once; results are still yielded in a stable order. 4 measured
    best (bench/README.md): as fast as 1 on loopback, about twice as fast across a network.
    1 for a fragile server."""
    documents: dict[str, Any] | None = None
    """Discovery documents that stand in for what the server serves, as JSON, by kind:
    "service_provider_config" (an object), "resource_types" and "schemas" (a ListResponse, a
    list or one object each). For a server that does not serve them."""
    pacing: Pacing = field(default_factory=Pacing)
    """How the run spares the server: a maximum rate, and busy answers (429, 503) waited out."""
    max_resource_types: int = MAX_RESOURCE_TYPES
    """How many resource types the run checks at most (each takes hundreds of requests): the
    first ones the server publishes (of those selected); the checks of the others are SKIPPED saying so."""
    require_ready: frozenset[str] = frozenset()
    """The identity providers (their keys: "entra", "okta" ...) whose NOT READY is an ERROR of the
    run; any other provider's NOT READY is a DEVIATION: readiness is not an RFC verdict."""


class SkipCause(StrEnum):
    """Why a check did not run, as data: the reason says it to a person, this decides (what a
    report counts, what the app shows) whatever the reason's words."""

    DESELECTED = "deselected"
    """The run's selection (its tags, its resource types) left the check out: nothing the server did."""
    PREREQUISITE = "prerequisite"
    """Something the check needs failed first (a resource to work on, the server's description,
    a request failing as a whole that another check reports)."""
    NOT_CLAIMED = "not claimed"
    """The server does not claim the optional feature the check is about (its ServiceProviderConfig)."""
    NOT_APPLICABLE = "not applicable"
    """The server has nothing the check applies to (no resource type of its schema)."""
    NOT_SENT = "not sent"
    """The client library refused to send the request: the server was not asked."""
    STOPPED = "stopped"
    """The run was cancelled, or stopped early, before the check could end."""


@dataclass(frozen=True)
class CheckId:
    """Names one check: a checker, and the resource type it ran for (None for server checks)."""

    checker: str
    resource_type: str | None = None

    @property
    def is_summary(self) -> bool:
        """A suite's summary restates the results of its suite: no count counts it."""
        return self.checker == SUMMARY_CHECKER

    def __str__(self) -> str:
        return f"{self.resource_type}/{self.checker}" if self.resource_type else self.checker


@dataclass(frozen=True)
class ResultKey:
    """Names one result of a run however its results are ordered: its check, and which of that
    check's results it is (a check may give several, always in the same order)."""

    check_id: CheckId
    nth: int = 0


def result_keys(results: Iterable[CheckResult]) -> list[ResultKey]:
    """The key of each result, in the order given."""
    seen: Counter[CheckId] = Counter()
    keys = []
    for result in results:
        keys.append(ResultKey(result.check_id, seen[result.check_id]))
        seen[result.check_id] += 1
    return keys


@dataclass
class CheckResult:
    """One outcome of one check (SPEC.md §2.2), with the HTTP exchanges it made."""

    status: Status
    title: str | None = None
    description: str | None = None
    reason: str | None = None
    data: Any | None = PackedField()
    """The answer the check examined (a model, JSON values, a body's text). Kept packed: each
    read gives a new, equal copy; set it again to change it (packing.py)."""
    tags: Set[str] = frozenset()
    """The check's tags: its checker's own set, shared by its results (never changed)."""
    resource_type: str | None = None
    exchanges: list[Exchange] = field(default_factory=list)
    section: str | None = None
    """The section of the RFC the check verifies, such as "3.3"."""
    rfc: int = 7644
    """The RFC that section is in: 7644 (the protocol) or 7643 (the schema)."""
    leftovers: list[str] = field(default_factory=list)
    """Ids of resources this check created and could not delete."""
    cause: str | None = None
    """The request failing as a whole that this result follows from, when it is one another
    result reports too (``PATCH /v2/Users/{id} answered 501``): the same text on each (causes.py)."""
    blocks: bool | None = None
    """For an identity provider's step: whether the provider cannot go on past it, whatever its
    status by the RFCs says (None: as that status says: a failure, or a step that did not run)."""
    skip_cause: SkipCause | None = None
    """Why a SKIPPED result did not run, when the engine knows it (None: the check's own reason)."""
    exchanges_left_out: int = 0
    """Exchanges of this result a saved report left out (a SUCCESS's, unless asked for): sent, not kept."""

    @property
    def check_id(self) -> CheckId:
        return CheckId(self.title or "", self.resource_type)

    @property
    def deselected(self) -> bool:
        """SKIPPED only because the run's selection (tags, resource types) left the check out:
        nothing the server did; the app shows no row for it, and no count counts it."""
        return self.status is Status.SKIPPED and self.skip_cause is SkipCause.DESELECTED

    def __repr__(self) -> str:
        parts = [f"status={self.status.name}", f"title={self.title!r}"]
        if self.resource_type:
            parts.append(f"resource_type={self.resource_type!r}")
        if self.reason:
            parts.append(f"reason={self.reason!r}")
        return f"CheckResult({', '.join(parts)})"


class PrerequisiteFailed(Exception):
    """Something a check needs (a resource to work on) could not be made: the check is SKIPPED,
    naming why, and the check of that very step (object_creation ...) reports the fault once.
    `made` is what could not be made (a resource model), when known."""

    def __init__(self, message: str, made: Any = None):
        super().__init__(message)
        self.made = made


class SCIMTesterError(Exception):
    """Raised when a check fails and the run was configured with raise_exceptions (SPEC.md §2.4)."""

    def __init__(self, message: str, conf: CheckConfig):
        super().__init__(message)
        self.message = message
        self.conf = conf

    def __str__(self) -> str:
        return self.message
