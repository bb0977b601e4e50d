"""The command line: arguments and the app by default (main.py), `scim-tui check` (check.py).

It may import every layer below it (the run pipeline, net, store, reports, checker) and loads the
app (scim_tui.tui) only to start it. The app never imports it.
"""
