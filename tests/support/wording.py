"""Words no reason may carry as its own: a library's internals and dumps. A reason may still
quote what the server said (a SCIM Error's detail), in the server's words, whatever they are."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from scim_tui.checker import CheckResult

LIBRARY_WORDING = re.compile(
    r"validation errors? for|Input should|Unable to extract tag|Field required|Extra inputs are not permitted|\[type=|input_value|"
    r"For further information|errors\.pydantic\.dev|pydantic|Union\[|Value error,"
)


def own_words(result: CheckResult, found: Iterable[str]) -> list[str]:
    """Of the words `found` in a result's reason, those no SCIM Error the check received said in its detail."""
    details = [detail for exchange in result.exchanges if isinstance(detail := _detail(exchange.response_body), str)]
    return [word for word in found if not any(word in detail for detail in details)]


def _detail(body: str | None) -> object:
    try:
        answer = json.loads(body or "")
    except ValueError:
        return None
    return answer.get("detail") if isinstance(answer, dict) else None


def library_wording(result: CheckResult) -> list[str]:
    """The library wording a result's reason carries as its own."""
    return own_words(result, (match.group() for match in LIBRARY_WORDING.finditer(result.reason or "")))
