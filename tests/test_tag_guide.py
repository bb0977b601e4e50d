"""`scim-tui tags`: every tag of the engine described in one line, and listed in docs/checks.md."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from scim_tui.checker import get_all_available_tags
from scim_tui.checker import tag_index
from scim_tui.checker.tag_guide import DESCRIPTIONS
from scim_tui.checker.tag_guide import index_source
from scim_tui.checker.tag_guide import tag_lines

CHECKS = Path(__file__).parent.parent / "docs" / "checks.md"


def test_every_tag_has_a_description_and_no_description_is_stale():
    assert set(DESCRIPTIONS) == set(get_all_available_tags())


def test_the_docs_list_every_tag_as_scim_tui_tags_prints_it():
    assert "\n".join(tag_lines()) in CHECKS.read_text(encoding="utf-8"), "paste `scim-tui tags` into docs/checks.md"


def test_the_tag_index_is_made_from_the_registry_as_it_is():
    assert Path(tag_index.__file__).read_text(encoding="utf-8") == index_source(), "run `python scripts/tag_index.py`"


def test_scim_tui_tags_loads_no_check_module():
    """Listing the tags reads the index: no check module, no scim2 library, no Textual."""
    code = (
        "import sys, io, contextlib\n"
        "from scim_tui.cli.main import run\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out: assert run(['tags']) == 0\n"
        "assert out.getvalue().startswith('auth'), out.getvalue()[:80]\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith(('scim_tui.checker.checks', 'scim2', 'textual', 'pydantic')))))\n"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert loaded == []
