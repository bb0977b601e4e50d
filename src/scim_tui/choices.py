"""The choices the command line offers and the ranges of a profile's numbers, importable without
the engine (so the command starts fast)."""

from dataclasses import dataclass

from scim_tui.checker.limits import DEFAULT_RESPONSE_BYTES
from scim_tui.checker.limits import MAX_RESOURCE_TYPES

FORMATS = ("text", "json", "junit", "markdown", "har", "entra-gallery")
"""The report formats (entra-gallery: the outcome of Microsoft's gallery validation replayed, shaped as its result file)."""
FAIL_ON = ("compliant", "acceptable", "deviation", "error", "critical")
"""--fail-on: the least bad status that fails a run, from the mildest to the worst."""
PROVIDERS = ("entra", "entra_gallery", "google", "jumpcloud", "okta", "onelogin", "pingfederate", "rippling", "sailpoint")
"""The identity providers whose readiness a run can require (--require-ready, a profile's
`require_ready`): the engine's verdict of each is the check `<key>_readiness`."""


@dataclass(frozen=True)
class Limit:
    """The range a number of a profile must be in, said the same way by the files, the form and the flags."""

    low: int
    high: int
    unit: str
    """What the number counts, as in "a number of seconds"."""
    example: int
    shown: str = ""
    """The range in words, when its bounds are hard to read (bytes)."""

    def describe(self) -> str:
        return f"{self.unit} from {self.low} to {self.high}{f' ({self.shown})' if self.shown else ''}"


TIMEOUT = Limit(1, 600, "a number of seconds", 30)
JOBS = Limit(1, 32, "a whole number of checks run at once", 4)
MAX_RESPONSE_BYTES = Limit(1024, 1024**3, "a whole number of bytes", DEFAULT_RESPONSE_BYTES, shown="1 KiB to 1 GiB")
MAX_RATE = Limit(1, 1000, "a whole number of requests per second", 10)
RESOURCE_TYPES = Limit(1, 1000, "a whole number of resource types", MAX_RESOURCE_TYPES)
"""The resource types a run checks at most; the example is the default (checker/limits.py)."""
LIMITS = {"timeout": TIMEOUT, "jobs": JOBS, "max_response_bytes": MAX_RESPONSE_BYTES, "max_rate": MAX_RATE, "max_resource_types": RESOURCE_TYPES}
"""The numbers of a profile and their ranges, by key."""
