"""Reports as the history keeps them: a real run's, and a saved one with fields changed."""

from __future__ import annotations

import json
from datetime import UTC
from datetime import datetime

from scim_tui.checker import CheckConfig
from scim_tui.checker import iter_checks
from scim_tui.reports import RunReport
from tests.support.servers import make_client


def real_report(url: str, started_at: datetime, profile: str = "Staging") -> RunReport:
    with make_client(url) as client:
        results = list(iter_checks(client, CheckConfig(include_tags={"service-provider-config", "misc"})))
    return RunReport.create(results, target=url, started_at=started_at, duration=0.5, profile=profile)


def report_with(**changes) -> bytes:
    """A stored report that reads back, with some fields changed (None removes one)."""
    document = RunReport.create([], target="http://x/v2", started_at=datetime(2025, 1, 1, tzinfo=UTC), duration=1.0, profile="Staging").to_dict()
    document["results"] = [{"check_id": "random_url", "title": "random_url", "status": "SUCCESS", "exchanges": [{"method": "GET", "url": "http://x/v2/y"}]}]
    for key, value in changes.items():
        target, _, field = key.rpartition("__")
        container = document
        for part in filter(None, target.split("__")):
            container = container[int(part)] if isinstance(container, list) else container[part]
        if value is None:
            del container[field]
        else:
            container[field] = value
    return json.dumps(document).encode()
