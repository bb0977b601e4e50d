"""The scim-tui command: the terminal app by default; `check` for CI, `tags`, `demo-server`.

Only the standard library is imported up front: the engine, the reports and Textual load when
a command needs them, so `--help` and `--version` answer at once, and a Ctrl-C or a SIGTERM
while the rest loads ends the command with one line, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import logging
import sys
from collections.abc import Callable
from collections.abc import Sequence

from scim_tui import __version__
from scim_tui.choices import FAIL_ON
from scim_tui.choices import FORMATS
from scim_tui.choices import JOBS
from scim_tui.choices import MAX_RATE
from scim_tui.choices import PROVIDERS
from scim_tui.choices import RESOURCE_TYPES
from scim_tui.choices import Limit
from scim_tui.errors import UserError
from scim_tui.signals import RunInterrupted
from scim_tui.signals import exit_status
from scim_tui.signals import raise_on_signals
from scim_tui.signals import stopped_line

EXIT_USAGE = 2


class Parser(argparse.ArgumentParser):
    """argparse, with its errors on one line."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> Parser:
    parser = Parser(prog="scim-tui", description="Check whether a SCIM 2.0 server behaves as RFC 7643 and RFC 7644 say.")
    parser.add_argument("--version", action="version", version=f"scim-tui {__version__}")
    target = parser.add_mutually_exclusive_group()
    target.add_argument("--profile", dest="app_profile", metavar="NAME", help="open the app on this profile")
    target.add_argument("--demo", dest="app_demo", action="store_true", help="open the app on the embedded demo server")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_check(
        commands.add_parser(
            "check",
            help="run the checks without the app (for CI)",
            description="Run the checks, write a report, exit 0 (pass), 1 (fail) or 2 (bad usage, unreachable target).",
        )
    )
    commands.add_parser("tags", help="list the tags that select checks: each with its number of checks and what it selects")
    serve = commands.add_parser("demo-server", help="serve the embedded SCIM server until interrupted")
    serve.add_argument("--port", type=_port, default=0, help="the loopback port (default: a free one)")
    return parser


def _add_check(parser: argparse.ArgumentParser) -> None:
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--profile", metavar="NAME", help="a saved profile")
    target.add_argument("--url", help="the base URL of the SCIM endpoints")
    target.add_argument("--demo", action="store_true", help="the embedded demo server")
    parser.add_argument("--bearer-token-env", metavar="VAR", help="with --url: send the bearer token held in this environment variable")
    parser.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="with --url: a header sent with every request (repeatable; its value is treated as a secret)",
    )
    parser.add_argument(
        "--include-tags", action="append", default=[], metavar="TAGS", help="run only checks with one of these tags (comma-separated, repeatable)"
    )
    parser.add_argument("--exclude-tags", action="append", default=[], metavar="TAGS", help="skip checks with one of these tags (comma-separated, repeatable)")
    parser.add_argument("--resource-type", action="append", default=[], metavar="NAME", help="test only this resource type (repeatable)")
    parser.add_argument(
        "--jobs",
        type=_number(JOBS, "--jobs"),
        metavar="N",
        help=f"checks run at once, {JOBS.low} to {JOBS.high} (default: the profile's, else 4; 1 for a fragile server)",
    )
    parser.add_argument(
        "--max-rate",
        type=_number(MAX_RATE, "--max-rate"),
        metavar="N",
        help=f"requests per second at most, {MAX_RATE.low} to {MAX_RATE.high} (default: the profile's, else no limit)",
    )
    parser.add_argument(
        "--max-resource-types",
        type=_number(RESOURCE_TYPES, "--max-resource-types"),
        metavar="N",
        help=f"resource types checked at most, {RESOURCE_TYPES.low} to {RESOURCE_TYPES.high} (default: the "
        f"profile's, else {RESOURCE_TYPES.example}); the others are SKIPPED saying so",
    )
    parser.add_argument("--format", choices=FORMATS, default="text", help="the report format (default: text)")
    parser.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE instead of standard output")
    parser.add_argument("--har", metavar="FILE", help="also write every request and response of the run to FILE as HAR 1.2 (secrets replaced by ***)")
    parser.add_argument(
        "--every-exchange",
        action="store_true",
        help="the JSON report keeps the requests and responses of successes too (by default, those of the other results only)",
    )
    parser.add_argument(
        "--fail-on", choices=list(FAIL_ON), default="error", help="exit 1 when a result is this bad or worse (default: error, i.e. ERROR or CRITICAL)"
    )
    parser.add_argument(
        "--require-ready",
        action="append",
        default=[],
        metavar="PROVIDERS",
        help=f"exit 1 when one of these identity providers is NOT READY ({', '.join(PROVIDERS)}; comma-separated, "
        "repeatable; added to the profile's require_ready)",
    )
    parser.add_argument("--no-history", action="store_true", help="do not save this run in the profile's history")
    accepted = parser.add_mutually_exclusive_group()
    accepted.add_argument("--baseline", metavar="FILE", help="failures accepted for now (TOML): only the others, or worse ones, fail the run")
    accepted.add_argument(
        "--update-baseline", metavar="FILE", help="write this run's failures (DEVIATION and worse) to FILE as the accepted ones, keeping its notes"
    )
    documents = parser.add_argument_group("discovery documents", "for a server that does not serve them: JSON files that stand in for what it serves")
    documents.add_argument("--service-provider-config", metavar="FILE", help="the ServiceProviderConfig (an object)")
    documents.add_argument("--resource-types", metavar="FILE", help="the resource types (a ListResponse, a list or one object)")
    documents.add_argument("--schemas", metavar="FILE", help="the schemas (a ListResponse, a list or one object)")


def _number(limit: Limit, flag: str) -> Callable[[str], int]:
    """The argparse type of a flag whose value is a whole number within `limit`."""

    def parse(text: str) -> int:
        if not (text.isascii() and text.isdigit() and len(text) <= 5 and limit.low <= int(text) <= limit.high):
            raise argparse.ArgumentTypeError(f"{text!r} is not {limit.describe()}: write e.g. {flag} {limit.example}")
        return int(text)

    return parse


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0 to 65535)")
    return int(text)


def run(argv: Sequence[str] | None = None) -> int:
    """Parse the arguments, do what they ask, and return the exit status."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(format="scim-tui: warning: %(message)s", level=logging.WARNING, stream=sys.stderr)
    try:
        return _dispatch(args)
    except UserError as exc:
        _say(f"scim-tui: error: {exc}")
        return EXIT_USAGE
    except RunInterrupted as interrupted:
        _say(f"scim-tui: {interrupted.message()}")
        return exit_status(interrupted.interrupt)
    except KeyboardInterrupt as interrupt:  # before a run started (loading, connecting)
        _say(f"scim-tui: {stopped_line(interrupt)}.")
        return exit_status(interrupt)


def _dispatch(args: argparse.Namespace) -> int:
    if args.command == "check":
        from scim_tui.cli.check import check

        return check(args)
    if args.command == "tags":
        from scim_tui.checker.tag_guide import tag_lines

        print("\n".join(tag_lines()))
        return 0
    if args.command == "demo-server":
        return _serve_demo(args.port)
    # What the app loads and builds before its first screen lives until exit, and the collector's
    # passes over it, as it grew, took a sixth of the time to that screen: the app turns the
    # collector on again once the screen is drawn (ScimTuiApp.load_the_rest). What it would have
    # freed by then is a few hundred kilobytes.
    gc.disable()
    from scim_tui.store.profiles import Profile
    from scim_tui.store.profiles import find_profile
    from scim_tui.tui.app import run_app  # only the app needs Textual

    profile = Profile.demo_profile() if args.app_demo else find_profile(args.app_profile) if args.app_profile else None
    return run_app(profile)


def _serve_demo(port: int) -> int:
    import threading

    from scim_tui.demo import DemoServer

    server = DemoServer(port=port)
    try:
        url = server.start()
    except OSError as exc:
        _say(f"scim-tui: error: cannot serve on port {port}: {exc.strerror or exc}: choose another --port.")
        return EXIT_USAGE
    print(f"Serving the demo SCIM server at {url} (Ctrl-C to stop).", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        print("Stopped.")
    finally:
        server.stop()
    return 0


def _say(line: str) -> None:
    """One line on standard error; nothing when it is gone (a closed terminal, a reader that left)."""
    with contextlib.suppress(OSError):
        print(line, file=sys.stderr, flush=True)


def main() -> None:
    raise_on_signals()
    try:
        sys.exit(run())
    except KeyboardInterrupt as interrupt:  # while parsing or loading
        _say(f"scim-tui: {stopped_line(interrupt)}.")
        sys.exit(exit_status(interrupt))
    except BrokenPipeError:  # the reader of the output went away (`| head`): not an error
        sys.stderr.close()
        sys.exit(1)
