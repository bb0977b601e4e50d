"""A two-column grid of labelled facts: a bold label, then its value."""

from __future__ import annotations

from collections.abc import Iterable

from rich.table import Table
from rich.text import Text


def facts_table(rows: Iterable[tuple[str, str | Text]]) -> Table:
    """One row per fact. A str value is shown as plain text, never read as markup: values
    often carry a server's words or a user's."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column(ratio=1, overflow="fold")  # a word wider than the column (a URL) goes on the next line, not cut
    for label, value in rows:
        table.add_row(label, value if isinstance(value, Text) else Text(value))
    return table
