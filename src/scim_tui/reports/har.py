"""The HAR report: every exchange of a run as an HTTP Archive 1.2 log, for browser dev tools,
HAR viewers and the server's team.

Each request the server received is one entry, once (the results of a check may share
exchanges; a request answered busy, 429 or 503, and sent again is an entry per attempt), in the
order they were sent, each with its own start time and duration, commented with the check that
made it, or as the run's own (the probe before the run, discovery, the resources the checks
share, clean-up). The exchanges were redacted when they were recorded, so the log holds no
secret. A request that got no answer has status 0, as browsers write it, and the reason in its
comment. A report saved before exchanges kept their start time has every entry start at the
run's start.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any
from urllib.parse import parse_qsl
from urllib.parse import urlsplit

from scim_tui import __version__
from scim_tui.checker import CheckResult
from scim_tui.checker import Exchange
from scim_tui.checker.exchanges import Role
from scim_tui.checker.exchanges import header
from scim_tui.checker.exchanges import status_line
from scim_tui.reports.model import RunReport

HTTP_VERSION = "HTTP/1.1"


def render(report: RunReport) -> str:
    return json.dumps(har_log(report), indent=2, ensure_ascii=False) + "\n"


RUN_OWN = "the run's own request, outside any check (the probe before the run, discovery, the resources the checks share, or clean-up)"


def har_log(report: RunReport) -> dict[str, Any]:
    return {
        "log": {
            "version": "1.2",
            "creator": {"name": "scim-tui", "version": __version__},
            "comment": f"scim-tui run against {report.target}; secrets replaced by ***",
            "entries": [_entry(exchange, result, exchange.started or report.started_at) for exchange, result in report.every_exchange()],
        }
    }


def _entry(exchange: Exchange, result: CheckResult | None, started: datetime) -> dict[str, Any]:
    milliseconds = round(exchange.elapsed * 1000, 3)
    told = [part for part in (exchange.note, exchange.error and f"no response: {exchange.error}") if part]
    made = f"{result.check_id} ({result.status.name})" if result is not None else RUN_OWN
    purpose = [exchange.purpose] if result is not None or exchange.role is not Role.JUDGED else []
    return {
        "startedDateTime": started.isoformat(timespec="milliseconds"),
        "time": milliseconds,
        "request": _request(exchange),
        "response": _response(exchange),
        "cache": {},
        "timings": {"send": 0, "wait": milliseconds, "receive": 0},
        "comment": " · ".join([made, *purpose, *told]),
    }


def _request(exchange: Exchange) -> dict[str, Any]:
    request: dict[str, Any] = {
        "method": exchange.method,
        "url": exchange.url,
        "httpVersion": HTTP_VERSION,
        "cookies": [],
        "headers": _headers(exchange.request_headers),
        "queryString": [{"name": name, "value": value} for name, value in parse_qsl(urlsplit(exchange.url).query, keep_blank_values=True)],
        "headersSize": -1,
        "bodySize": len((exchange.request_body or "").encode()),
    }
    if exchange.request_body is not None:
        request["postData"] = {"mimeType": header(exchange.request_headers, "Content-Type"), "text": exchange.request_body}
    return request


def _response(exchange: Exchange) -> dict[str, Any]:
    body = exchange.response_body or ""
    return {
        "status": exchange.status_code or 0,
        "statusText": status_line(exchange.status_code).partition(" ")[2] if exchange.status_code else "",
        "httpVersion": HTTP_VERSION if exchange.status_code else "",
        "cookies": [],
        "headers": _headers(exchange.response_headers),
        "content": {"size": len(body.encode()), "mimeType": header(exchange.response_headers, "Content-Type"), "text": body},
        "redirectURL": header(exchange.response_headers, "Location") if 300 <= (exchange.status_code or 0) < 400 else "",
        "headersSize": -1,
        "bodySize": -1 if exchange.status_code is None else len(body.encode()),
    }


def _headers(headers: Mapping[str, str]) -> list[dict[str, str]]:
    return [{"name": name, "value": value} for name, value in headers.items()]
