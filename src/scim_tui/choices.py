"""The choices the command line offers, importable without the engine (so the command starts fast)."""

FORMATS = ("text", "json", "junit", "markdown")
"""The report formats."""
FAIL_ON = ("compliant", "acceptable", "deviation", "error", "critical")
"""--fail-on: the least bad status that fails a run, from the mildest to the worst."""
