"""An exchange as a curl command, with redacted values turned into environment variables."""

from __future__ import annotations

import re

from scim_tui.checker import Exchange
from scim_tui.checker.secrets import REDACTED

SKIPPED_HEADERS = frozenset({"host", "content-length", "connection", "accept-encoding", "user-agent"})
SECRET_VARIABLE = "SCIM_SECRET"


def variable_for(header: str) -> str:
    """``Authorization`` → ``SCIM_AUTHORIZATION`` (the whole value, such as ``Bearer …``)."""
    return "SCIM_" + re.sub(r"[^A-Za-z0-9]+", "_", header).strip("_").upper()


def quoted(value: str, variable: str = SECRET_VARIABLE) -> str:
    """Double-quote for a POSIX shell, with each redacted part as ``${variable}``."""
    escaped = re.sub(r'([\\"$`])', r"\\\1", value)
    return '"' + escaped.replace(REDACTED, "${" + variable + "}") + '"'


def curl_command(exchange: Exchange) -> str:
    parts = ["curl", "-X", exchange.method, quoted(exchange.url)]
    for name, value in exchange.request_headers.items():
        if name.lower() in SKIPPED_HEADERS:
            continue
        parts += ["-H", quoted(f"{name}: {value}", variable_for(name))]
    if exchange.request_body:
        parts += ["--data-raw", quoted(exchange.request_body)]
    return " ".join(parts)


def variables_of(command: str) -> list[str]:
    """What each ``${SCIM_…}`` variable of a curl command must hold, a line each."""
    lines = []
    for variable in dict.fromkeys(re.findall(r"\$\{(SCIM_[A-Z0-9_]+)\}", command)):
        if variable == SECRET_VARIABLE:
            lines.append(f"${{{variable}}}: a secret of the profile, written in the URL or the body")
        elif variable == variable_for("Authorization"):
            lines.append(f"${{{variable}}}: the whole Authorization header value, such as 'Bearer <token>' or 'Basic <base64>'")
        else:
            lines.append(f"${{{variable}}}: the whole value of that header")
    return lines
