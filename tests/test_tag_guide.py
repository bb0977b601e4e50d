"""`scim-tui tags`: every tag of the engine described in one line, and listed in docs/checks.md."""

from __future__ import annotations

from pathlib import Path

from scim_tui.checker import get_all_available_tags
from scim_tui.checker.tag_guide import DESCRIPTIONS
from scim_tui.checker.tag_guide import tag_lines

CHECKS = Path(__file__).parent.parent / "docs" / "checks.md"


def test_every_tag_has_a_description_and_no_description_is_stale():
    assert set(DESCRIPTIONS) == set(get_all_available_tags())


def test_the_docs_list_every_tag_as_scim_tui_tags_prints_it():
    assert "\n".join(tag_lines()) in CHECKS.read_text(encoding="utf-8"), "paste `scim-tui tags` into docs/checks.md"
