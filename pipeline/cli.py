"""Command line: parse arguments, run one turn, map errors to messages and exit codes."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from .config import VARIABLES, Locations, settings_from_args
from .credentials import redact, redact_tree
from .errors import ArgumentError, MemtestError, UsageError, as_error, error_json, usage_failure
from .streaming import AnswerPrinter, write_stdout

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130

DESCRIPTION = """\
One turn of a memory-aware assistant. Reads the session (session.json) and long-term
memory (ltm.json) in the state folder, asks the model for an answer, prints it, then asks
the model what is worth remembering and lets a programmatic gate decide what is written.

state folder: {state_dir}
settings:     {env_file}"""

EPILOG = """\
commands (each has --help):
  memory list|search|show|forget|restore|reinforce|approve|add|export|import|stats|clear
         |status, and seed 003's names create (add), get (show), delete (forget)
  session clear
  reset         these three need no model and no API key
  chat          talk turn by turn (needs the API key); /help inside lists its commands
  mcp           serve the memory to an agent over MCP (the mcp extra); see mcp --help

exit codes: 0 turn done (also when the memory step was skipped), 1 the turn failed,
2 usage or configuration error.

configuration (environment or .env; the environment wins):
""" + "\n".join(
    f"  {name:<31} {text} (default: {default})" for name, (text, default) in VARIABLES.items()
)


class Parser(argparse.ArgumentParser):
    """argparse, but a bad command line raises ArgumentError instead of exiting, so that
    it is reported like every other error (one line, exit 2, the --json error object)."""

    def error(self, message: str) -> NoReturn:
        raise ArgumentError(f"{message} (see {self.prog} --help)")


def program_name(project_dir: Path | None) -> str:
    """How the user started us: the checkout's script or the installed command."""
    return "memory_test.py" if project_dir else "memory-test"


def build_parser(project_dir: Path | None = None) -> argparse.ArgumentParser:
    """The turn's command line; the help names the default folders of this installation."""
    where = Locations.find(project_dir)
    parser = Parser(
        prog=program_name(project_dir),
        description=DESCRIPTION.format(state_dir=where.state_dir, env_file=where.env_file),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "-i",
        "--input",
        metavar="TEXT",
        required=True,
        help="what the user says this turn ('-' reads it from standard input)",
    )
    parser.add_argument(
        "--new-session",
        action="store_true",
        help="archive the current session to sessions/ in the state folder and start a new one",
    )
    parser.add_argument(
        "--dry-run-memory",
        action="store_true",
        help="run the whole turn and show the memory decisions, but leave "
        "ltm.json untouched (the session still records the turn)",
    )
    parser.add_argument(
        "--show-trace",
        action="store_true",
        help="print retrieval, gate decisions, writes, tokens and timings to stderr",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object with the answer and all decisions instead of the plain answer",
    )
    parser.add_argument(
        "--stream",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="print the answer as it arrives, a sentence at a time (default: on when "
        "standard output is a terminal; --json always prints one complete object)",
    )
    parser.add_argument(
        "--state-dir",
        metavar="DIR",
        help=f"state folder (default: MEMTEST_STATE_DIR or {where.state_dir})",
    )
    parser.add_argument(
        "--store",
        metavar="URL",
        help="keep the memory in this PostgreSQL database (postgresql://…) instead of the "
        "state folder (default: MEMTEST_STORE)",
    )
    parser.add_argument(
        "--user",
        metavar="ID",
        help="whose long-term memory to use (default: MEMTEST_USER_ID or default-user)",
    )
    parser.add_argument(
        "--session",
        metavar="ID",
        help="a named session to use (default: MEMTEST_SESSION_ID, else the current one)",
    )
    parser.add_argument(
        "--project",
        metavar="NAME",
        help="work in this project: recall its memories, global ones and those with no "
        "project, and label what is learned with it (default: MEMTEST_PROJECT)",
    )
    parser.add_argument(
        "--agent",
        metavar="NAME",
        help="work as this agent, like --project (default: MEMTEST_AGENT)",
    )
    parser.add_argument(
        "--env-file",
        metavar="PATH",
        help=f"read settings from this file instead of {where.env_file}",
    )
    return parser


def main(argv: Sequence[str] | None = None, *, project_dir: Path | None = None) -> int:
    """Run the command line. `project_dir` is given by memory_test.py in a checkout (state
    and .env there); the installed `memory-test` command leaves it out (XDG folders)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("memory", "session", "reset"):
        from .commands import main as run_command  # no model, no openai import

        return run_command(argv, project_dir=project_dir)
    if argv and argv[0] == "mcp":
        from .mcp_server import main as run_mcp  # the mcp package only here

        return run_mcp(argv[1:], project_dir=project_dir)
    if argv and argv[0] == "chat":
        from .chat import main as run_chat

        return run_chat(argv[1:], project_dir=project_dir)
    try:
        args = build_parser(project_dir).parse_args(argv)
    except ArgumentError as exc:
        return usage_failure(exc, json_wanted="--json" in argv)
    report = None
    # --json prints one object at the end; otherwise the answer is printed as soon as it
    # exists, and streamed in as it arrives on a terminal or with --stream.
    printer = None if args.json else AnswerPrinter(write_stdout)
    stream = sys.stdout.isatty() if args.stream is None else args.stream
    try:
        settings = settings_from_args(args, project_dir)
        user_input = read_input(args.input, max_bytes=settings.max_input_bytes)

        from .api import Memory
        from .turn import new_report

        # Filled as the turn goes, so a failed turn still reports what it did (--json).
        report = new_report(settings, dry_run=args.dry_run_memory, new_session=args.new_session)
        Memory(settings=settings).turn(
            user_input,
            new_session=args.new_session,
            dry_run=args.dry_run_memory,
            on_answer=printer.finish if printer else None,
            on_delta=printer.delta if printer and stream else None,
            report=report,
        )
    except (MemtestError, OSError) as exc:
        if printer:
            printer.abort()
        error = as_error(exc)
        _finish(args, report, error=error)
        return error.exit_code
    except KeyboardInterrupt:
        if printer:
            printer.abort()
        print("memory-test: interrupted; nothing was saved for this turn", file=sys.stderr)
        return EXIT_INTERRUPTED
    _finish(args, report)
    return EXIT_OK


def read_input(raw: str, *, max_bytes: int) -> str:
    """The turn's input, checked before anything is sent: UTF-8 text, at most `max_bytes`
    (MEMTEST_MAX_INPUT_KB). Standard input is read only up to one byte past the limit."""
    if raw == "-":
        data, source = sys.stdin.buffer.read(max_bytes + 1), "standard input"
    else:
        source = "-i"
        try:
            data = raw.encode("utf-8")
        except UnicodeEncodeError:  # undecodable bytes in argv arrive as lone surrogates
            raise UsageError("-i is not valid UTF-8 text; nothing was sent to the model") from None
    if len(data) > max_bytes:
        raise UsageError(
            f"the input ({source}) is over the limit of {max_bytes:,} bytes "
            "(MEMTEST_MAX_INPUT_KB); nothing was sent to the model"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"{source} is not valid UTF-8 text (at byte {exc.start}); nothing was sent to the model"
        ) from None
    if not text.strip():
        raise UsageError("-i needs some text (or '-' with text on standard input)")
    return text.strip()


def _finish(args: argparse.Namespace, report: object, *, error: MemtestError | None = None) -> None:
    from .report import TurnReport

    turn = report if isinstance(report, TurnReport) else None
    if turn and args.show_trace:
        print(turn.format_trace(), file=sys.stderr)
    elif turn:
        for warning in turn.warnings:
            print(f"memory-test: warning: {redact(warning)}", file=sys.stderr)
        if turn.memory_step == "skipped":
            note = redact(turn.memory_step_note)
            print(f"memory-test: memory step skipped: {note}", file=sys.stderr)
    if error is not None:
        print(f"memory-test: error: {redact(str(error))}", file=sys.stderr)
    if args.json:
        payload = turn.to_json() if turn else {}
        # A turn is saved whole or not at all (see store._Commit): no error means saved.
        payload["saved"] = error is None
        if error is not None:
            payload["error"] = redact_tree(error_json(error))
        print(json.dumps(payload, ensure_ascii=False, indent=2), flush=True)


if __name__ == "__main__":
    sys.exit(main())
