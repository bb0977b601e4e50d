"""scim-tui: a SCIM 2.0 compliance checker with a terminal app and a headless mode."""

__version__ = "0.1.0"
