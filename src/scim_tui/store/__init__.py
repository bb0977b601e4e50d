"""What scim-tui keeps on disk: profiles (TOML), the app's remembered selections, baselines of
accepted failures, the run history, the journals of runs' creations; paths.py says where, and
reads and writes every file safely.

It may import checker, reports and the shared modules beside it (errors, choices, selection);
never the network, the command line or the app, nor Textual.
"""
