"""`python -m scim_tui.cli`: the command, as the `scim-tui` entry point runs it."""

from scim_tui.cli.main import main

main()
