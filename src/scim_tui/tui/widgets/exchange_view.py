"""A result's data, and a body, as highlighted JSON when they are JSON."""

from __future__ import annotations

import json
from typing import Any

from rich.console import RenderableType
from rich.json import JSON
from rich.text import Text

from scim_tui.reports.model import jsonable


def body_view(body: str | None) -> Text:
    """A body as highlighted JSON when it is JSON, else as plain text."""
    if not body:
        return Text("(no body)", style="dim")
    try:
        json.loads(body)
    except ValueError:
        return Text(body)
    return JSON(body, indent=2).text


def data_view(data: Any) -> RenderableType:
    """A result's data as highlighted JSON (models as the SCIM JSON a server would send); a
    body that is not JSON (an HTML page) as the text it is, line by line."""
    if data is None:
        return Text("(none)", style="dim")
    if isinstance(data, str):
        return body_view(data)
    return JSON.from_data(jsonable(data), indent=2)
