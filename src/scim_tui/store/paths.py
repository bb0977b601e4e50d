"""Where scim-tui keeps its files, and how every file is read and written, so that no path can hurt.

- Where: the config dir (profiles) and the data dir (history, baselines, the app's state,
  journals), each found through one function here, which an environment variable redirects.
- Read: only a regular file, and no more than a limit (checker/limits.py). A named pipe would
  hang the read, /dev/zero never end it, a 3 GB file fill the memory: each is refused in one
  sentence instead.
- Written: a regular file (or a new one) is replaced whole, atomically, at the end of its
  symbolic links, so a linked file stays linked. Anything else (/dev/null, /dev/stdout, a named
  pipe, a terminal) is written in place: it is never replaced by a regular file.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import secrets
import stat
import sys
from collections.abc import Iterable
from pathlib import Path

import platformdirs

from scim_tui.checker.limits import byte_size

PRIVATE = 0o600
"""The mode of a file holding a literal secret: readable by its owner only."""
_OWN_DESCRIPTOR = re.compile(r"/dev/std(?P<std>out|err)|/dev/fd/(?P<fd>\d+)|/proc/self/fd/(?P<proc>\d+)")
"""Paths that name a descriptor of this process: written to that descriptor, at its offset."""
_STANDARD = {"out": 1, "err": 2}
_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))


class FileRefused(OSError):
    """A file not read: not a regular file, or larger than its limit; ``strerror`` says which."""


def read_bounded(path: Path, limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; FileRefused for anything else, any
    OSError as it comes. Opened without blocking, so a named pipe is refused, not waited on."""
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(descriptor, "rb") as file:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise FileRefused(errno.EINVAL, f"it is {kind_of(mode)}, not a regular file", str(path))
        content = file.read(limit + 1)
    if len(content) > limit:
        raise FileRefused(errno.EFBIG, f"it is larger than {byte_size(limit)}, more than such a file ever holds", str(path))
    return content


def kind_of(mode: int) -> str:
    """What a file's mode says it is, in words ("a named pipe", "a device" ...)."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def write_atomically(path: Path, content: bytes | Iterable[bytes], private: bool = False, mode: int | None = None) -> None:
    """Replace a file's content all at once: a crash or a full disk leaves the old content whole.
    `content` may come in pieces, written as they come.

    A symbolic link is followed, and the file it leads to replaced. A path that is not a regular
    file (/dev/null, /dev/stdout, a named pipe) is written in place, never replaced.

    The file gets ``mode`` when given (an edited file keeps its own), else 0600 when
    ``private``, else 0644 less the umask. The temporary file has its final mode before any
    byte is written, and 0600 from its creation when ``private``, so a secret is never
    readable by others, not even for an instant.
    """
    pieces = [content] if isinstance(content, bytes) else content
    if _written_in_place(path):
        _write_in_place(path, pieces)
        return
    path = Path(os.path.realpath(path))
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE if private else 0o644)
    try:
        with os.fdopen(descriptor, "wb") as file:
            if mode is not None:
                os.fchmod(file.fileno(), mode)
            for piece in pieces:
                file.write(piece)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    _sync_directory(path.parent)


def _written_in_place(path: Path) -> bool:
    """Whether a path is something other than a regular file (followed through its links), or
    names a descriptor of this process (/dev/stdout, even when it is redirected to a file)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return False
    return not stat.S_ISREG(mode) or _descriptor_named(path) is not None


def _descriptor_named(path: Path) -> int | None:
    match = _OWN_DESCRIPTOR.fullmatch(os.path.abspath(path))
    if match is None:
        return None
    return _STANDARD[match["std"]] if match["std"] else int(match["fd"] or match["proc"])


def _write_in_place(path: Path, pieces: Iterable[bytes]) -> None:
    """Write to the file a path names as it is: to this process's own descriptor, at its offset
    (what the process wrote there before stays, and what it writes after follows), else opened
    without being created or truncated (a device, a named pipe)."""
    number = _descriptor_named(path)
    if number is not None:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        descriptor = os.dup(number)
    else:
        descriptor = os.open(path, os.O_WRONLY)
    with os.fdopen(descriptor, "wb") as file:
        for piece in pieces:
            file.write(piece)


def _sync_directory(directory: Path) -> None:
    """Make the rename itself durable (not possible on every platform)."""
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


CONFIG_DIR_VARIABLE = "SCIM_TUI_CONFIG_DIR"


def config_dir() -> Path:
    """Where scim-tui keeps its settings: $SCIM_TUI_CONFIG_DIR, else the platform's user config dir."""
    override = os.environ.get(CONFIG_DIR_VARIABLE)
    if override:
        return Path(override).expanduser()
    return platformdirs.user_config_path("scim-tui", appauthor=False)


def data_dir() -> Path:
    """Where scim-tui keeps what it writes for itself: the run history and the app's state."""
    return platformdirs.user_data_path("scim-tui", appauthor=False)


def slug(name: str) -> str:
    """The file stem of a profile: its name in lower case, runs of other characters as one dash."""
    return re.sub(r"[^a-z0-9]+", "-", name.casefold()).strip("-")


def storage_name(profile_name: str) -> str:
    """The name of a profile's own files in the data dir: safe for a path, unique per profile name."""
    name = slug(profile_name) or "profile"
    if name != profile_name:
        name = f"{name}-{hashlib.sha256(profile_name.encode()).hexdigest()[:8]}"
    return name
