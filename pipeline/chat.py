"""`memory_test.py chat`: an interactive loop for people, one turn per line.

Slash commands manage state without the model. A failed turn prints its error and the
loop goes on (seed 000); Ctrl-D and Ctrl-C leave cleanly, with every finished turn saved.
"""

from __future__ import annotations

import sys
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import click

from .cli import CONTEXT, Command, invocation, settings_from, shared_options
from .config import require_api_key
from .credentials import redact
from .errors import MemtestError, as_error
from .streaming import AnswerPrinter, write_stdout

if TYPE_CHECKING:
    from .api import Memory
    from .reflect import Completer

HELP = """\
/memories       list this user's memories
/trace on|off   show or hide the trace of each turn
/session-clear  forget this session's turns
/memory-clear   delete this user's long-term memory
/reset          both
/help           this list
/quit           leave (Ctrl-D and Ctrl-C also leave)"""


@click.command(
    "chat", cls=Command, context_settings=CONTEXT, epilog="commands inside the chat:\n" + HELP
)
@shared_options(
    "state_dir",
    "store",
    "user",
    "session",
    "project",
    "agent",
    "env_file",
    project="work in this project, as a turn does (default: MEMTEST_PROJECT)",
    agent="work as this agent, as a turn does (default: MEMTEST_AGENT)",
)
@click.option("--show-trace", is_flag=True, help="start with the trace on")
def chat_command(show_trace: bool, **options: Any) -> int:
    """Talk with the assistant, one turn per line (needs the API key); /help inside
    lists the chat's own commands."""
    settings = settings_from(options, invocation().project_dir)
    require_api_key(settings)
    from .api import Memory
    from .llm import ChatModel

    memory = Memory(settings=settings)
    memory.keep_warm()  # the embedder and vector cache, kept for every turn
    with ChatModel(settings) as model:
        return _loop(memory, model, trace=show_trace)


def _loop(memory: Memory, model: Completer, *, trace: bool) -> int:
    interactive = sys.stdin.isatty()
    print(
        f"memory-test chat · user {memory.user_id} · /help for commands · Ctrl-D to leave",
        file=sys.stderr,
    )
    while True:
        try:
            line = input("you> " if interactive else "").strip()
        except (EOFError, KeyboardInterrupt):
            print(file=sys.stderr)
            return 0
        if not line:
            continue
        if line.startswith("/"):
            trace, leave = _command(line, memory, trace)
            if leave:
                return 0
            continue
        # On a terminal the answer streams in; piped, each answer is printed whole.
        printer = AnswerPrinter(write_stdout, prefix="assistant> ")
        streaming = sys.stdout.isatty()
        try:
            result = memory.turn(
                line,
                model=model,
                on_answer=printer.finish,
                on_delta=printer.delta if streaming else None,
            )
        except (MemtestError, OSError) as exc:
            printer.abort()
            print(f"memory-test: error: {redact(str(as_error(exc)))}", file=sys.stderr)
            continue
        except KeyboardInterrupt:
            printer.abort()
            print("\n(interrupted; this turn was not saved)", file=sys.stderr)
            return 0
        if trace:
            print(result.report.format_trace(), file=sys.stderr)
        elif result.memory_step == "skipped":
            print(f"(memory step skipped: {result.report.memory_step_note})", file=sys.stderr)


def _command(line: str, memory: Memory, trace: bool) -> tuple[bool, bool]:
    """Run a slash command; returns (trace on?, leave?)."""
    name, _, rest = line.partition(" ")
    try:
        if name == "/quit":
            return trace, True
        if name == "/trace" and rest.strip() in ("on", "off"):
            trace = rest.strip() == "on"
            print(f"(trace {'on' if trace else 'off'})")
        elif name == "/memories":
            from .commands import list_memories

            _, text = list_memories(memory, SimpleNamespace(all=False, type=None, json=False))
            print(text)
        elif name == "/session-clear":
            print(_cleared_session(memory.clear(memory=False, session=True).turns))
        elif name == "/memory-clear":
            print(_cleared_memory(memory.clear(memory=True).memories))
        elif name == "/reset":
            cleared = memory.clear(memory=True, session=True)
            print(_cleared_session(cleared.turns))
            print(_cleared_memory(cleared.memories))
        elif name == "/help":
            print(HELP)
        else:
            print(f"(unknown command {line!r}; /help lists them)")
    except MemtestError as exc:
        print(f"memory-test: error: {redact(str(exc))}", file=sys.stderr)
    return trace, False


def _cleared_session(turns: int | None) -> str:
    return f"(session cleared: {turns} turns)" if turns else "(the session is already empty)"


def _cleared_memory(count: int | None) -> str:
    return (
        f"(long-term memory cleared: {count} memories)"
        if count
        else "(long-term memory is already empty)"
    )
