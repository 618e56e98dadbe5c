"""Commands that manage memory without the model: no API key, no `openai` import.

    memory list|search|show|forget|restore|reinforce|approve|add|export|import|migrate
           |stats|clear|status, and seed 003's create (add), get (show), delete (forget)
    session clear
    reset

Each command is declared here with its own options (the shared ones come from
`cli.shared_options`), calls the library (`pipeline.api.Memory`) and formats what it
returns as text or JSON; `cli.main` reports its errors. Every change goes through the
store (lock, re-read, atomic write) and gets a history line.
"""

from __future__ import annotations

import contextlib
import copy
import json
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import click

from .cli import CONTEXT, Command, Group, invocation, json_output, settings_from, shared_options
from .credentials import redact, redact_tree
from .errors import NotFound, UsageError
from .kinds import DECAY_POLICIES, MEMORY_TYPES, SUBJECTS
from .quicklist import Listing, Quick, listing, quick_list

if TYPE_CHECKING:
    from .api import GateVerdict, Memory, MemoryView, StatusChange
    from .models import HistoryEntry

EXIT_FAILED = 1
__all__ = ["NotFound", "memory_group", "reset_command", "session_group"]

Handler = Callable[["Memory", SimpleNamespace], tuple[Any, str]]


def run_command(handler: Handler, options: dict[str, Any], quick: Quick | None = None) -> int:
    """Open the memory with the command's settings, run `handler`, print what it returns
    as text or JSON. Errors go up to `cli.main`, which reports them. `quick` answers
    without the library when it can (see `quicklist`); None from it means it cannot."""
    as_json = json_output(options)
    settings = settings_from(options, invocation().project_dir)
    args = SimpleNamespace(**options, json=as_json)
    answered = quick(settings, args) if quick is not None else None
    if answered is not None:
        payload, text = answered
    else:
        from .api import Memory

        memory = Memory(settings=settings)
        try:
            payload, text = handler(memory, args)
        finally:
            _warn(memory)
    # Memories stored before a detector knew a value are hidden on the way out too (a
    # Listing has had its fields redacted already).
    if as_json:
        print(json.dumps(redact_tree(payload), ensure_ascii=False, indent=2))
    elif text:
        print(text if isinstance(text, Listing) else redact(text))
    # `status` reports an unreadable store in full, then fails like seed 003's does.
    if isinstance(payload, dict) and payload.get("status") == "unhealthy":
        return EXIT_FAILED
    return 0


def _warn(memory: Memory) -> None:
    """Print, then drop, the warnings the library collected (a file moved aside...)."""
    for warning in memory.warnings:
        print(f"memory-test: warning: {warning}", file=sys.stderr)
    memory.warnings.clear()


# --- Reading ------------------------------------------------------------------------------


def _row(view: MemoryView) -> tuple[str, str, float, int, str, str, dict[str, Any]]:
    m = view.memory
    return (m.id, m.type, view.current_confidence, m.hit_count, m.content, m.status, m.labels())


def _line(view: MemoryView) -> str:
    return listing([_row(view)])


def _filters(args: SimpleNamespace) -> dict[str, Any]:
    """What `list` and `search` pass on: project and agent are in the settings already."""
    return {
        "personality": getattr(args, "personality", None),
        "only_global": getattr(args, "only_global", False),
    }


def list_memories(memory: Memory, args: SimpleNamespace) -> tuple[Any, str]:
    shown = memory.list(all=args.all, type=args.type, **_filters(args))
    if args.json:
        return {"user_id": memory.user_id, "memories": [v.to_json() for v in shown]}, ""
    if not shown:
        return None, f"No memories for {memory.user_id}."
    return None, listing([_row(v) for v in shown])


def search_memories(memory: Memory, args: SimpleNamespace) -> tuple[Any, str]:
    found = memory.search(args.query, limit=args.limit, type=args.type, **_filters(args))
    payload = {
        "selection_mode": found.selection_mode,
        "results": [{**h.memory.to_json(), "score": h.score, "why": h.why} for h in found.hits],
    }
    if not found.hits:
        return payload, "No matching memories."
    return payload, "\n".join(f"{_line(h.memory)}   ({h.why})" for h in found.hits)


def show_memory(memory: Memory, args: SimpleNamespace) -> tuple[Any, str]:
    view = memory.get(args.id)
    history = memory.history(view.id)
    payload = {**view.to_json(), "history": [h.model_dump(mode="json") for h in history]}
    m = view.memory
    lines = [
        f"{m.id} ({m.status}, {m.type}/{m.subject}, source {m.source}, decay {m.decay})",
        f"  {m.content}",
        f"  confidence {m.confidence:.2f} stored, "
        f"{view.current_confidence:.2f} now; "
        f"{m.hit_count} hit(s); created {m.created_at:%Y-%m-%d %H:%M}, "
        f"last reinforced {m.last_reinforced:%Y-%m-%d %H:%M} (UTC)",
        f"  why: {m.reason or '-'}",
        "history:",
    ]
    for h in history:
        change = _describe_change(h)
        lines.append(
            f"  {h.at:%Y-%m-%d %H:%M} {h.event:<18} turn {h.turn_id or '-'}"
            + (f" · {change}" if change else "")
            + (f" · {h.reason}" if h.reason else "")
        )
    return payload, "\n".join(lines)


def _describe_change(h: HistoryEntry) -> str:
    before, after = h.before or {}, h.after or {}
    parts = []
    for key in ("content", "confidence", "status", "hit_count"):
        if key in after and before.get(key) != after[key]:
            parts.append(
                f"{key} {before[key]!r} → {after[key]!r}"
                if key in before
                else f"{key} {after[key]!r}"
            )
    return "; ".join(parts)


def stats(memory: Memory, args: SimpleNamespace) -> tuple[Any, str]:
    found = memory.stats()
    payload = {
        "user_id": found.user_id,
        "memories": found.memories,
        "by_status": found.by_status,
        "by_type": found.by_type,
        "counters": found.counters,
        "file_bytes": found.file_bytes,
    }
    by_status = ", ".join(f"{n} {s}" for s, n in sorted(found.by_status.items()))
    lines = [f"user {found.user_id}: {found.memories} memories ({by_status or 'none'})"]
    if found.by_type:
        by_type = ", ".join(f"{t} {n}" for t, n in sorted(found.by_type.items()))
        lines.append("active by type: " + by_type)
    if found.counters:
        counters = ", ".join(f"{k} {v}" for k, v in sorted(found.counters.items()))
        lines.append("gate counters: " + counters)
    files = found.file_bytes
    lines.append("files: " + (", ".join(f"{k} {v:,} B" for k, v in files.items()) or "none"))
    return payload, "\n".join(lines)


def status(memory: Memory, args: SimpleNamespace) -> tuple[Any, str]:
    health = memory.status()
    payload = {"user_id": memory.user_id, **health.to_json()}
    by_status = ", ".join(f"{n} {s}" for s, n in sorted(health.by_status.items()))
    version = (
        f"schema {health.schema_version} (this version knows {health.known_schema_version})"
        if health.schema_version is not None
        else "nothing stored yet"
    )
    lines = [
        f"{health.status}: {health.store}",
        f"  {health.memories} memories ({by_status or 'none'}); {version}",
        f"  lock {health.lock}"
        + ("; an unfinished commit was found and finished" if health.pending_commit else ""),
    ]
    if health.quarantined:
        lines.append("  moved aside earlier: " + ", ".join(health.quarantined))
    lines.extend(f"  problem: {p}" for p in health.problems)
    return payload, "\n".join(lines)


def export_memories(memory: Memory, args: SimpleNamespace) -> tuple[Any, str]:
    rows = memory.export(all=args.all)
    if args.json:
        return {"memories": rows}, ""
    return None, "\n".join(json.dumps(r, ensure_ascii=False) for r in rows)


def migrate(memory: Memory, args: SimpleNamespace) -> tuple[Any, str]:
    result = memory.migrate(to=args.to)
    lines = [
        f"Copied {result.user}'s state from {result.source} to {result.target} "
        "and read it back: it matches.",
        f"  memories {result.memories}, history lines {result.history}, sessions "
        f"{result.sessions} ({result.archived_sessions} archived, {result.overflow} "
        f"overflow), counters {result.counters}; next id mem_{result.next_seq:04d}",
    ]
    lines.extend(f"  left behind (unreadable in the source): {item}" for item in result.left_behind)
    return result.to_json(), "\n".join(lines)


# --- Changing -----------------------------------------------------------------------------


def _moved(change: StatusChange, done: str) -> tuple[dict[str, Any], str]:
    payload = {"id": change.id, "status": change.status, "changed": change.changed}
    if not change.changed:
        return payload, f"{change.id} is already {change.status}."
    return payload, f"{done} {change.id}: {change.content}"


def forget(memory: Memory, args: SimpleNamespace) -> tuple[Any, str]:
    if args.purge:
        memory.forget(args.id, purge=True)
        return {
            "id": args.id,
            "purged": True,
        }, f"Purged {args.id}: its text is gone from the store, its history and the sessions."
    change = memory.forget(args.id)
    payload, text = _moved(change, "Forgot")
    if change.changed:
        text += (
            f"\n(restore with `memory restore {change.id}`; remove for good with "
            f"`memory forget {change.id} --purge`)"
        )
    return payload, text


def restore(memory: Memory, args: SimpleNamespace) -> tuple[Any, str]:
    return _moved(memory.restore(args.id), "Restored")


def approve(memory: Memory, args: SimpleNamespace) -> tuple[Any, str]:
    return _moved(memory.approve(args.id), "Approved")


def reinforce(memory: Memory, args: SimpleNamespace) -> tuple[Any, str]:
    view = memory.reinforce(args.id)
    return view.to_json(), (
        f"Reinforced {view.id} (confidence {view.current_confidence:.2f} now, "
        f"{view.memory.hit_count} hits)."
    )


def add_memory(memory: Memory, args: SimpleNamespace) -> tuple[Any, str]:
    verdict = memory.add(
        args.text,
        type=args.type,
        subject=args.subject,
        decay=args.decay,
        personality=args.personality,
        is_global=args.is_global,
    )
    return _report_writes([verdict])


def import_memories(memory: Memory, args: SimpleNamespace) -> tuple[Any, str]:
    """Only a regular file or a pipe is read (see safeio.open_regular)."""
    from .safeio import open_regular

    with contextlib.ExitStack() as stack:
        if args.file == "-":
            handle = sys.stdin.buffer
        else:
            try:
                handle = stack.enter_context(open_regular(Path(args.file), what="import"))
            except FileNotFoundError:
                raise UsageError(f"{args.file}: no such file") from None
        verdicts = memory.import_lines(handle, name=args.file)
    return _report_writes(verdicts)


def _report_writes(verdicts: list[GateVerdict]) -> tuple[Any, str]:
    lines = []
    for v in verdicts:
        target = f" {v.memory_id}" if v.memory_id else ""
        detail = f" ({v.detail})" if v.detail else ""
        lines.append(f"{v.verdict}{target} [{v.reason}]{detail}: {v.content}")
    new = sum(v.verdict == "accepted" for v in verdicts)
    merged = sum(v.verdict == "merged" for v in verdicts)
    lines.append(f"{new} new, {merged} reinforced, {len(verdicts) - new - merged} refused.")
    return {"results": [v.to_json() for v in verdicts]}, "\n".join(lines)


# --- Clearing (seed 000: immediate, idempotent, informational when already empty) --------


def _memory_cleared(user_id: str, removed: int | None) -> tuple[dict[str, Any], str]:
    if not removed:
        return {"cleared": False}, f"Long-term memory of {user_id} is already empty."
    return {
        "cleared": True,
        "memories": removed,
    }, f"Cleared {removed} memories of {user_id} (and their history)."


def _session_cleared(turns: int | None) -> tuple[dict[str, Any], str]:
    if not turns:
        return {"cleared": False}, "The session is already empty."
    return {"cleared": True, "turns": turns}, f"Cleared the session ({turns} turns)."


def clear_memory(memory: Memory, args: SimpleNamespace) -> tuple[Any, str]:
    return _memory_cleared(memory.user_id, memory.clear(memory=True).memories)


def clear_session(memory: Memory, args: SimpleNamespace) -> tuple[Any, str]:
    return _session_cleared(memory.clear(memory=False, session=True).turns)


def reset_all(memory: Memory, args: SimpleNamespace) -> tuple[Any, str]:
    cleared = memory.clear(memory=True, session=True)
    session_payload, session_text = _session_cleared(cleared.turns)
    memory_payload, memory_text = _memory_cleared(memory.user_id, cleared.memories)
    return {"session": session_payload, "memory": memory_payload}, f"{session_text}\n{memory_text}"


# --- The commands -------------------------------------------------------------------------
# Each declares only its own options; the shared ones (COMMON) come from cli.shared_options.

COMMON = ("json", "format", "state_dir", "store", "user", "session", "env_file")
# What --project and --agent mean to a command that lists, and to one that writes.
SCOPE = {
    "project": "as seen from this project: its memories, global ones and those with no project",
    "agent": "as seen by this agent (like --project)",
}
LABELS = {"project": "label it with a project", "agent": "label it with an agent"}

type_filter = click.option("--type", type=click.Choice(MEMORY_TYPES), help="only this type")
include_all = click.option("--all", is_flag=True, help="include forgotten memories and drafts")
memory_id = click.argument("id")


def scope_filters(function: Callable[..., Any]) -> Callable[..., Any]:
    """--project, --agent, --personality and --global of `list` and `search`."""
    function = click.option("--global", "only_global", is_flag=True, help="only global memories")(
        function
    )
    function = click.option(
        "--personality", metavar="NAME", help="as seen by this personality (like --project)"
    )(function)
    return shared_options("project", "agent", **SCOPE)(function)


# (group, command): what each command runs, for callers that have parsed options already.
HANDLERS: dict[tuple[str, str], Handler] = {}


@click.group("memory", cls=Group, context_settings=CONTEXT, no_args_is_help=False)
def memory_group() -> None:
    """Inspect and manage long-term memories; no model call, no API key."""


@click.group("session", cls=Group, context_settings=CONTEXT, no_args_is_help=False)
def session_group() -> None:
    """Manage the short-term session; no model call, no API key."""


def declare(
    group: click.Group,
    name: str,
    handler: Handler,
    *,
    alias: str | None = None,
    quick: Quick | None = None,
) -> Callable[[Callable[..., Any]], click.Command]:
    """`group name`, with the shared options, running `handler` (or `quick`, when it can
    answer); `alias` is seed 003's name for the same command."""

    def make(function: Callable[..., Any]) -> click.Command:
        HANDLERS[(str(group.name), name)] = handler

        def run(**options: Any) -> int:
            return run_command(handler, options, quick)

        run.__doc__ = function.__doc__
        # The command's own options and arguments are listed first, the shared ones after.
        shared_options(*COMMON)(run)
        run.__click_params__.extend(getattr(function, "__click_params__", []))  # type: ignore[attr-defined]
        made = click.command(name, cls=Command, context_settings=CONTEXT)(run)
        group.add_command(made)
        if alias:
            other = copy.copy(made)
            other.name = alias
            other.help = f"{made.help} Seed 003's name for `{name}`."
            other.short_help = f"Seed 003's name for {name}."
            group.add_command(other)
            HANDLERS[(str(group.name), alias)] = handler
        return made

    return make


@declare(memory_group, "list", list_memories, quick=quick_list)
@type_filter
@include_all
@scope_filters
def _list() -> None:
    """List memories."""


@declare(memory_group, "search", search_memories)
@click.argument("query")
@click.option(
    "--limit", type=click.IntRange(min=1), default=10, show_default=True, help="at most this many"
)
@type_filter
@scope_filters
def _search() -> None:
    """Memories relevant to a query, ranked as a turn ranks them."""


@declare(memory_group, "show", show_memory, alias="get")
@memory_id
def _show() -> None:
    """One memory and its whole history."""


@declare(memory_group, "forget", forget, alias="delete")
@memory_id
@click.option(
    "--purge",
    is_flag=True,
    help="remove its text for good: from the store, the history and the session transcripts",
)
def _forget() -> None:
    """Forget a memory (restorable with `memory restore`)."""


@declare(memory_group, "restore", restore)
@memory_id
def _restore() -> None:
    """Bring back a forgotten memory."""


@declare(memory_group, "reinforce", reinforce)
@memory_id
def _reinforce() -> None:
    """Confirm a memory: reset its decay, count a hit."""


@declare(memory_group, "approve", approve)
@memory_id
def _approve() -> None:
    """Make a draft memory active."""


@declare(memory_group, "add", add_memory, alias="create")
@click.argument("text")
@click.option("--type", type=click.Choice(MEMORY_TYPES), required=True, help="its type")
@click.option(
    "--subject", type=click.Choice(SUBJECTS), default="user", show_default=True, help="whose"
)
@click.option("--decay", type=click.Choice(DECAY_POLICIES), help="default: by type")
@shared_options("project", "agent", **LABELS)
@click.option("--personality", metavar="NAME", help="label it with a personality (a role)")
@click.option(
    "--global", "is_global", is_flag=True, help="seen from every project, agent and personality"
)
def _add() -> None:
    """Write a memory yourself, through the gate."""


@declare(memory_group, "export", export_memories)
@include_all
def _export() -> None:
    """All memories as JSON lines on stdout."""


@declare(memory_group, "import", import_memories)
@click.argument("file")
def _import() -> None:
    """Add memories from a JSON-lines file written by `memory export` ('-': standard
    input), through the gate."""


@declare(memory_group, "migrate", migrate)
@click.option(
    "--to",
    required=True,
    metavar="TARGET",
    help="a postgresql:// URL or a state folder that holds nothing for this user",
)
def _migrate() -> None:
    """Copy this user's whole state (memories, history, counters, sessions) into another
    store, in one commit, checked by reading it back; this store is only read."""


@declare(memory_group, "stats", stats)
def _stats() -> None:
    """Counts and file sizes."""


@declare(memory_group, "status", status)
def _status() -> None:
    """The store's health (readable, schema version, lock, files moved aside) and counts;
    exit 1 when it cannot be read."""


@declare(memory_group, "clear", clear_memory)
def _clear() -> None:
    """Delete this user's long-term memory."""


@declare(session_group, "clear", clear_session)
def _clear_session() -> None:
    """Delete the current session's turns."""


@click.command("reset", cls=Command, context_settings=CONTEXT)
@shared_options(*COMMON)
def reset_command(**options: Any) -> int:
    """Clear the session and long-term memory; no model call, no API key."""
    return run_command(reset_all, options)
