"""Command line: one click group for every command; the group's own callback is the turn.

The shared options (--state-dir, --store, --user, --session, --project, --agent,
--env-file, --json, --format) are declared once here (`shared_options`) and resolved into
Settings by one function (`settings_from`); `main` maps every error to its message and
exit code. The other commands live beside the code they call and are imported only when
named, so a turn never loads the memory commands, the chat or the MCP server.
"""

from __future__ import annotations

import inspect
import itertools
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import click

from .config import VARIABLES, Locations, Settings, load_settings
from .credentials import redact, redact_tree
from .errors import ArgumentError, MemtestError, UsageError, as_error, error_json
from .streaming import AnswerPrinter, write_stdout

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130

DESCRIPTION = """\
One turn of a memory-aware assistant. Reads the session (session.json) and long-term
memory (ltm.json) in the state folder, asks the model for an answer, prints it, then asks
the model what is worth remembering and lets a programmatic gate decide what is written.

default state folder: {state_dir}
default settings:     {env_file}
(--state-dir / MEMTEST_STATE_DIR and --env-file / MEMTEST_ENV_FILE choose others)"""

EPILOG = """\
commands (each has --help):
  memory list|search|show|forget|restore|reinforce|approve|add|export|import|migrate
         |stats|clear|status, and seed 003's names create (add), get (show), delete (forget)
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

F = TypeVar("F", bound=Callable[..., Any])


@dataclass
class Invocation:
    """What one run of the command line knows beyond its options: where it was started
    from, whether errors are wanted as JSON, and what a failed turn had done so far."""

    project_dir: Path | None
    json_wanted: bool = False
    partial: dict[str, Any] = field(default_factory=dict)

    @property
    def where(self) -> Locations:
        """The default folders of this installation (checkout or installed command)."""
        return Locations.find(self.project_dir)


def invocation() -> Invocation:
    """The Invocation of the command line being run."""
    return click.get_current_context().find_object(Invocation) or Invocation(None)


def program_name(project_dir: Path | None) -> str:
    """How the user started us: the checkout's script or the installed command."""
    return "memory_test.py" if project_dir else "memory-test"


# --- Help text ----------------------------------------------------------------------------


def _folders(ctx: click.Context, text: str) -> str:
    where = (ctx.find_object(Invocation) or Invocation(None)).where
    return text.format(state_dir=where.state_dir, env_file=where.env_file)


class FolderOption(click.Option):
    """An option whose help names this installation's default folders ({state_dir},
    {env_file}): the checkout's when run as memory_test.py, the XDG ones when installed."""

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        record = super().get_help_record(ctx)
        return None if record is None else (record[0], _folders(ctx, record[1]))


class _Written:
    """Description and epilog printed as written: they hold tables and aligned lists."""

    help: str | None
    epilog: str | None

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        if self.help:
            formatter.write_paragraph()
            formatter.write(_folders(ctx, inspect.cleandoc(self.help)) + "\n")

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        if self.epilog:
            formatter.write_paragraph()
            formatter.write(self.epilog.rstrip("\n") + "\n")


class Command(_Written, click.Command):
    """A command whose description and epilog keep their layout."""


class Group(_Written, click.Group):
    """A group of commands whose description and epilog keep their layout."""

    command_class = Command

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """As click parses them; a shared option given to the group itself ("memory --json
        list") is pointed to where it belongs, after the command."""
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as exc:
            shared = {flag for flags, _help in SHARED.values() for flag in flags}
            if exc.option_name in shared:
                raise misplaced([exc.option_name], ctx, "COMMAND") from None
            raise


def misplaced(options: list[str], ctx: click.Context, command: str) -> click.UsageError:
    """The error for options written before the command they belong to."""
    return click.UsageError(
        f"{', '.join(options)}: options go after the command "
        f"({ctx.command_path} {command} ... {options[0]} ...)",
        ctx,
    )


CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

# name: (flags, help) of each shared option; `shared_options` adds them to a command.
SHARED: dict[str, tuple[tuple[str, ...], str]] = {
    "json": (("--json", "as_json"), "print JSON instead of text"),
    "format": (("--format", "output_format"), "json is --json; text (the default) is for people"),
    "state_dir": (("--state-dir",), "state folder (default: MEMTEST_STATE_DIR or {state_dir})"),
    "store": (
        ("--store",),
        "keep the memory in this PostgreSQL database (postgresql://…) instead of the state "
        "folder (default: MEMTEST_STORE)",
    ),
    "user": (("--user",), "whose long-term memory (default: MEMTEST_USER_ID or default-user)"),
    "session": (
        ("--session",),
        "a named session (default: MEMTEST_SESSION_ID, else the current one)",
    ),
    "project": (
        ("--project",),
        "work in this project: recall its memories, global ones and those with no "
        "project, and label what is learned with it (default: MEMTEST_PROJECT)",
    ),
    "agent": (("--agent",), "work as this agent, like --project (default: MEMTEST_AGENT)"),
    "env_file": (("--env-file",), "read settings from this file instead of {env_file}"),
}
METAVARS = {"state_dir": "DIR", "store": "URL", "user": "ID", "session": "ID", "env_file": "PATH"}


def shared_options(*names: str, **helps: str) -> Callable[[F], F]:
    """Add the named shared options to a command, in that order; `helps` overrides the
    help of an option where a command gives it a narrower meaning."""

    def add(function: F) -> F:
        for name in reversed(names):
            flags, text = SHARED[name]
            text = helps.get(name, text)
            if name == "json":
                function = click.option(*flags, is_flag=True, help=text)(function)
            elif name == "format":
                choice = click.Choice(["json", "text"])
                function = click.option(*flags, type=choice, help=text)(function)
            else:
                metavar = METAVARS.get(name, "NAME")
                option = click.option(*flags, metavar=metavar, help=text, cls=FolderOption)
                function = option(function)
        return function

    return add


def settings_from(options: Mapping[str, Any], project_dir: Path | None) -> Settings:
    """Settings for a command line: its shared options, then the environment, then .env."""
    return load_settings(
        state_dir=options.get("state_dir"),
        store=options.get("store"),
        env_file=options.get("env_file"),
        user=options.get("user"),
        session=options.get("session"),
        project=options.get("project"),
        agent=options.get("agent"),
        project_dir=project_dir,
    )


def json_output(options: Mapping[str, Any]) -> bool:
    """Whether --json or --format asked for JSON; the two must not contradict each other.
    Recorded on the Invocation, so that an error is reported in the same form."""
    as_json = bool(options.get("as_json"))
    if as_json and options.get("output_format") == "text":
        raise ArgumentError("--json and --format text contradict each other")
    wanted = as_json or options.get("output_format") == "json"
    invocation().json_wanted = wanted
    return wanted


# --- The turn -----------------------------------------------------------------------------


class Root(Group):
    """The turn, and the commands it names in its epilog, imported only when run."""

    COMMANDS = ("memory", "session", "reset", "chat", "mcp")

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        # Plain import statements: each module loads only when its command is named.
        if cmd_name in ("memory", "session", "reset"):
            from . import commands

            named: dict[str, click.Command] = {
                "memory": commands.memory_group,
                "session": commands.session_group,
                "reset": commands.reset_command,
            }
            return named[cmd_name]
        if cmd_name == "chat":
            from .chat import chat_command

            return chat_command
        if cmd_name == "mcp":
            from .mcp_server import mcp_command

            return mcp_command
        return None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The epilog lists the commands, with more to say than their first lines."""


@click.group(
    cls=Root,
    help=DESCRIPTION,
    epilog=EPILOG,
    invoke_without_command=True,
    context_settings=CONTEXT,
    options_metavar="-i TEXT [OPTIONS]",
    subcommand_metavar="| COMMAND ...",
)
@click.option(
    "-i",
    "--input",
    "text",
    metavar="TEXT",
    help="what the user says this turn ('-' reads it from standard input)",
)
@click.option(
    "--new-session",
    is_flag=True,
    help="archive the current session to sessions/ in the state folder and start a new one",
)
@click.option(
    "--dry-run-memory",
    is_flag=True,
    help="run the whole turn and show the memory decisions, but leave ltm.json untouched "
    "(the session still records the turn)",
)
@click.option(
    "--show-trace",
    is_flag=True,
    help="print retrieval, gate decisions, writes, tokens and timings to stderr",
)
@shared_options(
    "json",
    json="print one JSON object with the answer and all decisions instead of the plain answer",
)
@click.option(
    "--stream/--no-stream",
    default=None,
    help="print the answer as it arrives, a sentence at a time (default: on when standard "
    "output is a terminal; --json always prints one complete object)",
)
@shared_options("state_dir", "store", "user", "session", "project", "agent", "env_file")
@click.pass_context
def root(ctx: click.Context, /, text: str | None, **options: Any) -> int:
    """One turn: read the input, answer, remember what passes the gate."""
    if ctx.invoked_subcommand is not None:
        values = {"text": text, **options}
        given = [p.opts[0] for p in ctx.command.params if values.get(p.name) not in (None, False)]
        if given:
            raise misplaced(given, ctx, ctx.invoked_subcommand)
        return EXIT_OK
    if text is None:
        raise click.UsageError("the following arguments are required: -i/--input")
    return run_turn(text, options, invocation())


def run_turn(text: str, options: dict[str, Any], run: Invocation) -> int:
    """Run one turn and print its answer as soon as it exists; the trace, warnings and
    --json object at the end. A failure re-raises, with what the turn did kept for --json."""
    as_json = bool(options["as_json"])
    run.json_wanted = as_json
    report = None
    # --json prints one object at the end; otherwise the answer is printed as soon as it
    # exists, and streamed in as it arrives on a terminal or with --stream.
    printer = None if as_json else AnswerPrinter(write_stdout)
    stream = sys.stdout.isatty() if options["stream"] is None else options["stream"]
    try:
        settings = settings_from(options, run.project_dir)
        user_input = read_input(text, max_bytes=settings.max_input_bytes)

        from .api import Memory
        from .turn import new_report

        new_session, dry_run = options["new_session"], options["dry_run_memory"]
        # Filled as the turn goes, so a failed turn still reports what it did (--json).
        report = new_report(settings, dry_run=dry_run, new_session=new_session)
        Memory(settings=settings).turn(
            user_input,
            new_session=new_session,
            dry_run=dry_run,
            on_answer=printer.finish if printer else None,
            on_delta=printer.delta if printer and stream else None,
            report=report,
        )
    except (MemtestError, OSError):
        if printer:
            printer.abort()
        run.partial = _report_turn(report, trace=options["show_trace"])
        raise
    except KeyboardInterrupt:
        if printer:
            printer.abort()
        print("memory-test: interrupted; nothing was saved for this turn", file=sys.stderr)
        return EXIT_INTERRUPTED
    payload = _report_turn(report, trace=options["show_trace"])
    if as_json:
        # A turn is saved whole or not at all (see store._Commit): no error means saved.
        print(json.dumps({**payload, "saved": True}, ensure_ascii=False, indent=2), flush=True)
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


def _report_turn(report: object, *, trace: bool) -> dict[str, Any]:
    """Print the trace (or the warnings and a skipped memory step) to stderr; return the
    turn's --json object so far."""
    from .report import TurnReport

    if not isinstance(report, TurnReport):
        return {}
    if trace:
        print(report.format_trace(), file=sys.stderr)
    else:
        for warning in report.warnings:
            print(f"memory-test: warning: {redact(warning)}", file=sys.stderr)
        if report.memory_step == "skipped":
            note = redact(report.memory_step_note)
            print(f"memory-test: memory step skipped: {note}", file=sys.stderr)
    return report.to_json()


# --- Errors and exit codes ----------------------------------------------------------------


def _wants_json(argv: Sequence[str]) -> bool:
    """Whether a command line that did not parse asked for JSON (for its error)."""
    pairs = itertools.pairwise(argv)
    return "--json" in argv or "--format=json" in argv or ("--format", "json") in pairs


def fail(error: MemtestError, run: Invocation) -> int:
    """Report an error: one line on stderr and, when JSON was asked for, one object on
    stdout with `error` and `saved: false` (after what a failed turn did). Returns the
    error's exit code."""
    print(f"memory-test: error: {redact(str(error))}", file=sys.stderr)
    if run.json_wanted:
        payload = {**run.partial, "saved": False, "error": redact_tree(error_json(error))}
        print(json.dumps(payload, ensure_ascii=False, indent=2), flush=True)
    return error.exit_code


def main(argv: Sequence[str] | None = None, *, project_dir: Path | None = None) -> int:
    """Run the command line. `project_dir` is given by memory_test.py in a checkout (state
    and .env there); the installed `memory-test` command leaves it out (XDG folders)."""
    args = list(sys.argv[1:] if argv is None else argv)
    run = Invocation(project_dir, json_wanted=_wants_json(args))
    name = program_name(project_dir)
    try:
        code = root.main(args, prog_name=name, standalone_mode=False, obj=run)
    except click.UsageError as exc:
        where = exc.ctx.command_path if exc.ctx else name
        return fail(ArgumentError(f"{exc.format_message()} (see {where} --help)"), run)
    except (MemtestError, OSError) as exc:
        return fail(as_error(exc), run)
    except click.Abort:
        print("memory-test: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return code if isinstance(code, int) else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
