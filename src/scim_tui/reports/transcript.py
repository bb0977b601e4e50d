"""An HTTP exchange as text a person reads: the request, then the response, bodies cut short."""

from __future__ import annotations

import json

from scim_tui.checker import CheckResult
from scim_tui.checker import Exchange
from scim_tui.checker.exchanges import answers
from scim_tui.checker.exchanges import request_line


def failing_exchange(result: CheckResult) -> Exchange | None:
    """The exchange that shows a result's problem: the last one that failed, else the last one."""
    standing = answers(result.exchanges)
    failed = [e for e in standing if e.error or (e.status_code or 0) >= 400]
    chosen = failed or standing
    return chosen[-1] if chosen else None


def request_text(exchange: Exchange, limit: int | None = None) -> str:
    lines = [f"{request_line(exchange)} HTTP/1.1", *_headers(exchange.request_headers)]
    return _with_body(lines, exchange.request_body, limit)


def response_text(exchange: Exchange, limit: int | None = None) -> str:
    if exchange.status_code is None:
        return f"(no response: {exchange.error or 'unknown error'})"
    lines = [f"HTTP/1.1 {exchange.status_code}", *_headers(exchange.response_headers)]
    return _with_body(lines, exchange.response_body, limit)


def exchange_text(exchange: Exchange, limit: int | None = None) -> str:
    """The request, then the response; bodies cut at ``limit`` characters, whole without one."""
    return f"{request_text(exchange, limit)}\n\n{response_text(exchange, limit)}"


def _headers(headers: dict[str, str]) -> list[str]:
    return [f"{name}: {value}" for name, value in headers.items()]


def _with_body(lines: list[str], body: str | None, limit: int | None) -> str:
    if body:
        lines += ["", cut(pretty_body(body), limit)]
    return "\n".join(lines)


def pretty_body(body: str) -> str:
    """A JSON body indented, any other body as it came."""
    try:
        return json.dumps(json.loads(body), indent=2, ensure_ascii=False)
    except ValueError:
        return body


def cut(text: str, limit: int | None) -> str:
    if limit is None or len(text) <= limit:
        return text
    return f"{text[:limit]}\n… ({len(text) - limit} more characters)"
