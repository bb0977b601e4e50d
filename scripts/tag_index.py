"""Write src/scim_tui/checker/tag_index.py from the registry: run it after a check's tags change
(tests/test_tag_guide.py fails until then)."""

from __future__ import annotations

from pathlib import Path

from scim_tui.checker import tag_guide

INDEX = Path(tag_guide.__file__).with_name("tag_index.py")


def main() -> None:
    INDEX.write_text(tag_guide.index_source(), encoding="utf-8")
    print(f"Wrote {INDEX}")


if __name__ == "__main__":
    main()
