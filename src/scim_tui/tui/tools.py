"""The user's own tools: the pager and the editor, opened on a text in a temporary file."""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass


class ToolError(Exception):
    """Why a tool cannot be opened, in one line that says what to set."""


@dataclass(frozen=True, slots=True)
class Tool:
    kind: str
    variables: tuple[str, ...]
    """The environment variables that name it, the first one set wins."""
    fallback: str | None = None
    """The command used when none is set, if it is installed."""


PAGER = Tool("pager", ("PAGER",), fallback="less")
EDITOR = Tool("editor", ("VISUAL", "EDITOR"))
TOOLS = {tool.kind: tool for tool in (PAGER, EDITOR)}


def tool_command(tool: Tool, environ: Mapping[str, str]) -> list[str]:
    """The command line that opens the tool, from the environment, else its fallback."""
    named = " or ".join(f"${variable}" for variable in tool.variables)
    for variable in tool.variables:
        value = environ.get(variable, "").strip()
        if not value:
            continue
        try:
            command = shlex.split(value)
        except ValueError as error:
            raise ToolError(f"${variable} ({value}) is not a command line ({error}): fix its quotes.") from None
        if shutil.which(command[0], path=environ.get("PATH")) is None:
            raise ToolError(f"${variable} names {command[0]}, which is not installed here: set ${variable} to your {tool.kind}.")
        return command
    if tool.fallback and shutil.which(tool.fallback, path=environ.get("PATH")):
        return [tool.fallback]
    fallback = f" ({tool.fallback} is not installed either)" if tool.fallback else ""
    raise ToolError(f"No {tool.kind} found: set {named} to one{fallback}.")


def open_text(command: list[str], text: str, name: str) -> int:
    """Run the command on a read-only temporary file holding the text, wait for it to end,
    delete the file; the command's exit status."""
    descriptor, path = tempfile.mkstemp(prefix=f"scim-tui-{name}-", suffix=".txt")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(text)
        os.chmod(path, stat.S_IRUSR)
        return subprocess.run([*command, path], check=False).returncode
    finally:
        with contextlib.suppress(FileNotFoundError):  # the tool may have removed it
            os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)  # Windows deletes no read-only file
            os.unlink(path)
