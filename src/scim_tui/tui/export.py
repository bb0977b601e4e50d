"""Writing a run's report to a new file in a directory (the current one, from the run screen)."""

from __future__ import annotations

from pathlib import Path

from scim_tui.profiles import slug
from scim_tui.reports import EXTENSIONS
from scim_tui.reports import RunReport
from scim_tui.reports import report_pieces


def export_report(report: RunReport, format: str, directory: Path) -> Path:  # noqa: A002
    """Write the report to a file named after the profile and the start time; never over an existing file.

    Raises OSError when the directory cannot be written.
    """
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
