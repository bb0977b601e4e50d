"""The choice of checks a run is made with: tags to include or exclude, resource types.

The app remembers it per profile (store/selections.py), a profile starts from one, the command
builds one from its flags, and every report records the one it was made with.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel
from pydantic import ConfigDict
from pydantic import Field

from scim_tui.checker import CheckConfig
from scim_tui.checker.pacing import Pacing


class Selection(BaseModel):
    """The last choice of checks made for a profile, so the next run starts from it."""

    model_config = ConfigDict(extra="forbid")

    include_tags: list[str] = Field(default_factory=list)
    exclude_tags: list[str] = Field(default_factory=list)
    resource_types: list[str] = Field(default_factory=list)

    def check_config(
        self, jobs: int | None = None, max_rate: int | None = None, max_resource_types: int | None = None, require_ready: Iterable[str] = ()
    ) -> CheckConfig:
        """The engine configuration of this selection (an empty list means everything)."""
        conf = CheckConfig(
            include_tags=set(self.include_tags) or None,
            exclude_tags=set(self.exclude_tags) or None,
            resource_types=list(self.resource_types) or None,
            pacing=Pacing(max_rate=max_rate),
            require_ready=frozenset(require_ready),
        )
        if jobs:
            conf.jobs = jobs
        if max_resource_types:
            conf.max_resource_types = max_resource_types
        return conf
