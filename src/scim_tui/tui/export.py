"""Writing a run's report to a new file in a folder (the app's exports folder unless told another)."""

from __future__ import annotations

from pathlib import Path

from scim_tui.reports import EXTENSIONS
from scim_tui.reports import RunReport
from scim_tui.reports import report_pieces
from scim_tui.store.paths import data_dir
from scim_tui.store.paths import slug


def exports_dir() -> Path:
    """Where exports go unless told another folder: the app's own, never the current directory
    (which may be a git checkout)."""
    return data_dir() / "exports"


def export_report(report: RunReport, format: str, directory: Path) -> Path:  # noqa: A002
    """Write the report to a file named after the profile and the start time, in the directory
    (created if missing); never over an existing file.

    Raises OSError when the directory cannot be made or written.
    """
    directory.mkdir(parents=True, exist_ok=True)
    stem = f"scim-tui-{slug(report.profile or '') or 'run'}-{report.started_at:%Y%m%d-%H%M%S}"
    for attempt in range(1, 1000):
        path = directory / f"{stem}{'' if attempt == 1 else f'-{attempt}'}.{EXTENSIONS[format]}"
        try:
            with path.open("x", encoding="utf-8") as file:
                file.writelines(report_pieces(report, format))
        except FileExistsError:
            continue
        return path
    raise FileExistsError(f"too many exports named {stem} in {directory}")
