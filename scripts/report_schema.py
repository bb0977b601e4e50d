"""Write the JSON report's JSON Schema from its pydantic models (scim_tui.reports.saved).

Run from the repository root after changing a model: ``.venv/bin/python scripts/report_schema.py``.
tests/reports/test_json.py fails while the file differs from what the models say.
"""

from __future__ import annotations

import json
from pathlib import Path

from scim_tui.reports.saved import json_schema

SCHEMA_FILE = Path(__file__).resolve().parents[1] / "src" / "scim_tui" / "reports" / "report.schema.json"


def schema_text() -> str:
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    SCHEMA_FILE.write_text(schema_text(), encoding="utf-8")
    print(f"wrote {SCHEMA_FILE}")
