"""What a person fixes: bad usage, a bad profile, a target that cannot be reached.

Each message is one line naming the problem and the fix; `scim-tui check` exits 2 on one.
Importing this module costs nothing, so the command catches these before loading the rest.
"""


class UserError(Exception):
    """A problem of the command line, a profile or a target, told in one line that names the fix."""
