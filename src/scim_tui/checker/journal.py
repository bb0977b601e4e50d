"""What a run writes down before each creation, so that a run killed before its clean-up (kill -9,
a power cut) leaves the next run of the same target what to look for.

The engine does no disk I/O: a front end hands iter_checks a Journal (the command and the app
keep theirs in the data dir: scim_tui.store.journal). The guard (guard.py) adds each creation to it
before the creation is sent, and removes it once settled (deleted, or never made). A run is
handed what the runs of its target that did not end left (`earlier`): it looks for each by its
markers, deletes what a GET of its own URL proves the run's, and tells the journal (`recovered`).
"""

from __future__ import annotations

from typing import Protocol

from scim_tui.checker.context import CheckContext
from scim_tui.checker.context import ResourceManager
from scim_tui.checker.guard import Creation
from scim_tui.checker.guard import Pending

LEFT_BY_AN_EARLIER_RUN = "a run of this server that ended before its clean-up created it"


class Journal(Protocol):
    """A run's journal of its creations, and what earlier runs of the same target left."""

    def add(self, creation: Creation) -> None:
        """Called before a creation is sent: from then on, a killed run leaves it behind."""

    def remove(self, creation: Creation) -> None:
        """Called once a creation is settled: deleted, or never made."""

    def earlier(self) -> list[Creation]:
        """The creations runs of this target that did not end left unsettled, to look for."""

    def recovered(self, deleted: list[str], remaining: list[str]) -> None:
        """What was found of `earlier` and deleted, and what may remain, once all were looked for."""


def recover(context: CheckContext, journal: Journal) -> None:
    """Look for what the runs of this target that did not end left, and delete what a GET of its
    own URL proves the run's (through the guarded path, as any clean-up)."""
    left = journal.earlier()
    if not left:
        return
    manager = ResourceManager(context)
    for creation in left:
        manager.record(Pending(creation.kind, creation.endpoint, creation.markers, LEFT_BY_AN_EARLIER_RUN, created=True))
    remaining = manager.cleanup()
    journal.recovered(manager.deleted, remaining)
