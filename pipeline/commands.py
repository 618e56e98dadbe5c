"""Commands that manage memory without the model: no API key, no `openai` import.

    memory list|search|show|forget|restore|reinforce|approve|add|export|import|stats|clear
           |status, and seed 003's create (add), get (show), delete (forget)
    session clear
    reset

Each command parses its arguments, calls the library (`pipeline.api.Memory`) and formats
what it returns as text or JSON. Every change goes through the store (lock, re-read, atomic
write) and gets a history line.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .api import GateVerdict, Memory, MemoryView, StatusChange
from .cli import Parser, program_name
from .config import Locations, settings_from_args
from .credentials import redact, redact_tree
from .errors import (
    ArgumentError,
    MemtestError,
    NotFound,
    UsageError,
    as_error,
    error_json,
    usage_failure,
)
from .models import DECAY_POLICIES, MEMORY_TYPES, SUBJECTS, HistoryEntry
from .models import Memory as StoredMemory

COMMANDS = ("memory", "session", "reset")
EXIT_FAILED = 1
__all__ = ["COMMANDS", "NotFound", "build_parser", "main"]


def _warn(memory: Memory) -> None:
    """Print, then drop, the warnings the library collected (a file moved aside...)."""
    for warning in memory.warnings:
        print(f"memory-test: warning: {warning}", file=sys.stderr)
    memory.warnings.clear()


def build_parser(project_dir: Path | None = None) -> argparse.ArgumentParser:
    """The `memory`, `session` and `reset` commands; the help names the default folders."""
    where = Locations.find(project_dir)
    common = Parser(add_help=False)
    common.add_argument("--json", action="store_true", help="print JSON instead of text")
    common.add_argument(
        "--state-dir", metavar="DIR", help=f"state folder (default: {where.state_dir})"
    )
    common.add_argument(
        "--store", metavar="URL", help="a PostgreSQL database instead (default: MEMTEST_STORE)"
    )
    common.add_argument("--user", metavar="ID", help="whose memory (default: default-user)")
    common.add_argument("--session", metavar="ID", help="a named session")
    common.add_argument(
        "--env-file", metavar="PATH", help=f"settings file instead of {where.env_file}"
    )
    common.add_argument(
        "--format",
        choices=("json", "text"),
        help="json is --json; text (the default) is for people",
    )

    parser = Parser(
        prog=program_name(project_dir),
        description="Manage long-term memory and sessions; no model call, no API key.",
    )
    top = parser.add_subparsers(dest="group", required=True, metavar="COMMAND")

    memory = top.add_parser("memory", help="inspect and manage long-term memories")
    sub = memory.add_subparsers(dest="action", required=True, metavar="ACTION")
    p = sub.add_parser("list", parents=[common], help="list memories")
    p.add_argument("--type", choices=MEMORY_TYPES, help="only this type")
    p.add_argument("--all", action="store_true", help="include forgotten memories and drafts")
    _label_options(p, writing=False)
    p = sub.add_parser("search", parents=[common], help="memories relevant to a query")
    p.add_argument("query")
    p.add_argument("--limit", type=int, default=10)
    p.add_argument("--type", choices=MEMORY_TYPES, help="only this type")
    _label_options(p, writing=False)
    p = sub.add_parser(
        "show", aliases=["get"], parents=[common], help="one memory and its whole history"
    )
    p.add_argument("id")
    p = sub.add_parser(
        "forget", aliases=["delete"], parents=[common], help="forget a memory (restorable)"
    )
    p.add_argument("id")
    p.add_argument(
        "--purge",
        action="store_true",
        help="remove its text for good: from the store, the history and the session transcripts",
    )
    for name, text in (
        ("restore", "bring back a forgotten memory"),
        ("reinforce", "confirm a memory: reset its decay, count a hit"),
        ("approve", "make a draft memory active"),
    ):
        sub.add_parser(name, parents=[common], help=text).add_argument("id")
    p = sub.add_parser(
        "add",
        aliases=["create"],
        parents=[common],
        help="write a memory yourself, through the gate",
    )
    p.add_argument("text")
    p.add_argument("--type", choices=MEMORY_TYPES, required=True)
    p.add_argument("--subject", choices=SUBJECTS, default="user")
    p.add_argument("--decay", choices=DECAY_POLICIES, help="default: by type")
    _label_options(p, writing=True)
    p = sub.add_parser("export", parents=[common], help="all memories as JSON lines on stdout")
    p.add_argument("--all", action="store_true", help="include forgotten memories and drafts")
    p = sub.add_parser(
        "import", parents=[common], help="add memories from a JSON-lines file, through the gate"
    )
    p.add_argument("file", help="a file written by `memory export` ('-': standard input)")
    sub.add_parser("stats", parents=[common], help="counts and file sizes")
    sub.add_parser(
        "status",
        parents=[common],
        help="the store's health (readable, schema version, lock, files moved aside) and "
        "counts; exit 1 when it cannot be read",
    )
    sub.add_parser("clear", parents=[common], help="delete this user's long-term memory")

    session = top.add_parser("session", help="manage the short-term session")
    ssub = session.add_subparsers(dest="action", required=True, metavar="ACTION")
    ssub.add_parser("clear", parents=[common], help="delete the current session's turns")

    top.add_parser("reset", parents=[common], help="clear the session and long-term memory")
    return parser


def _label_options(parser: argparse.ArgumentParser, *, writing: bool) -> None:
    """Seed 003's metadata: labels for a memory written, or the scope a listing sees."""
    if writing:
        parser.add_argument("--project", metavar="NAME", help="label it with a project")
        parser.add_argument("--agent", metavar="NAME", help="label it with an agent")
        parser.add_argument(
            "--personality", metavar="NAME", help="label it with a personality (a role)"
        )
        parser.add_argument(
            "--global",
            dest="is_global",
            action="store_true",
            help="seen from every project, agent and personality",
        )
        return
    parser.add_argument(
        "--project",
        metavar="NAME",
        help="as seen from this project: its memories, global ones and those with no project",
    )
    parser.add_argument("--agent", metavar="NAME", help="as seen by this agent (like --project)")
    parser.add_argument(
        "--personality", metavar="NAME", help="as seen by this personality (like --project)"
    )
    parser.add_argument(
        "--global", dest="only_global", action="store_true", help="only global memories"
    )


def _wants_json(argv: Sequence[str]) -> bool:
    """Whether a command line that did not parse asked for JSON (for its error)."""
    pairs = zip(argv, [*argv[1:], ""], strict=True)
    return "--json" in argv or "--format=json" in argv or ("--format", "json") in pairs


def main(argv: Sequence[str], *, project_dir: Path | None = None) -> int:
    try:
        args = build_parser(project_dir).parse_args(argv)
        if args.json and args.format == "text":
            raise ArgumentError("--json and --format text contradict each other")
        args.json = args.json or args.format == "json"
    except ArgumentError as exc:
        return usage_failure(exc, json_wanted=_wants_json(argv))
    try:
        settings = settings_from_args(args, project_dir)
        handler = HANDLERS[(args.group, getattr(args, "action", None))]
        memory = Memory(settings=settings)
        try:
            payload, text = handler(memory, args)
        finally:
            _warn(memory)
    except (MemtestError, OSError) as exc:
        error = as_error(exc)
        if args.json:
            print(
                json.dumps(
                    {"error": redact_tree(error_json(error)), "saved": False}, ensure_ascii=False
                )
            )
        print(f"memory-test: error: {redact(str(error))}", file=sys.stderr)
        return error.exit_code
    # Memories stored before a detector knew a value are hidden on the way out too.
    if args.json:
        print(json.dumps(redact_tree(payload), ensure_ascii=False, indent=2))
    elif text:
        print(redact(text))
    # `status` reports an unreadable store in full, then fails like seed 003's does.
    if isinstance(payload, dict) and payload.get("status") == "unhealthy":
        return EXIT_FAILED
    return 0


# --- Reading ------------------------------------------------------------------------------


def _line(view: MemoryView) -> str:
    m = view.memory
    status = "" if m.status == "active" else f" [{m.status}]"
    return (
        f"{m.id}  {m.type:<12} {view.current_confidence:.2f}  hits {m.hit_count:<3} "
        f"{m.content}{status}{_labels_text(m)}"
    )


def _labels_text(m: StoredMemory) -> str:
    labels = [f"{name} {value}" for name, value in m.labels().items() if isinstance(value, str)]
    if m.is_global:
        labels.insert(0, "global")
    return f"  ({', '.join(labels)})" if labels else ""


def _filters(args: argparse.Namespace) -> dict[str, Any]:
    """What `list` and `search` pass on: project and agent are in the settings already."""
    return {
        "personality": getattr(args, "personality", None),
        "only_global": getattr(args, "only_global", False),
    }


def list_memories(memory: Memory, args: argparse.Namespace) -> tuple[Any, str]:
    shown = memory.list(all=args.all, type=args.type, **_filters(args))
    payload = {"user_id": memory.user_id, "memories": [v.to_json() for v in shown]}
    if not shown:
        return payload, f"No memories for {memory.user_id}."
    return payload, "\n".join(_line(v) for v in shown)


def search_memories(memory: Memory, args: argparse.Namespace) -> tuple[Any, str]:
    found = memory.search(args.query, limit=args.limit, type=args.type, **_filters(args))
    payload = {
        "selection_mode": found.selection_mode,
        "results": [{**h.memory.to_json(), "score": h.score, "why": h.why} for h in found.hits],
    }
    if not found.hits:
        return payload, "No matching memories."
    return payload, "\n".join(f"{_line(h.memory)}   ({h.why})" for h in found.hits)


def show_memory(memory: Memory, args: argparse.Namespace) -> tuple[Any, str]:
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


def stats(memory: Memory, args: argparse.Namespace) -> tuple[Any, str]:
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


def status(memory: Memory, args: argparse.Namespace) -> tuple[Any, str]:
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


def export_memories(memory: Memory, args: argparse.Namespace) -> tuple[Any, str]:
    rows = memory.export(all=args.all)
    if args.json:
        return {"memories": rows}, ""
    return None, "\n".join(json.dumps(r, ensure_ascii=False) for r in rows)


# --- Changing -----------------------------------------------------------------------------


def _moved(change: StatusChange, done: str) -> tuple[dict[str, Any], str]:
    payload = {"id": change.id, "status": change.status, "changed": change.changed}
    if not change.changed:
        return payload, f"{change.id} is already {change.status}."
    return payload, f"{done} {change.id}: {change.content}"


def forget(memory: Memory, args: argparse.Namespace) -> tuple[Any, str]:
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
            "`memory forget --purge`)"
        )
    return payload, text


def restore(memory: Memory, args: argparse.Namespace) -> tuple[Any, str]:
    return _moved(memory.restore(args.id), "Restored")


def approve(memory: Memory, args: argparse.Namespace) -> tuple[Any, str]:
    return _moved(memory.approve(args.id), "Approved")


def reinforce(memory: Memory, args: argparse.Namespace) -> tuple[Any, str]:
    view = memory.reinforce(args.id)
    return view.to_json(), (
        f"Reinforced {view.id} (confidence {view.current_confidence:.2f} now, "
        f"{view.memory.hit_count} hits)."
    )


def add_memory(memory: Memory, args: argparse.Namespace) -> tuple[Any, str]:
    verdict = memory.add(
        args.text,
        type=args.type,
        subject=args.subject,
        decay=args.decay,
        personality=args.personality,
        is_global=args.is_global,
    )
    return _report_writes([verdict])


def import_memories(memory: Memory, args: argparse.Namespace) -> tuple[Any, str]:
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


def clear_memory(memory: Memory, args: argparse.Namespace) -> tuple[Any, str]:
    return _memory_cleared(memory.user_id, memory.clear(memory=True).memories)


def clear_session(memory: Memory, args: argparse.Namespace) -> tuple[Any, str]:
    return _session_cleared(memory.clear(memory=False, session=True).turns)


def reset(memory: Memory, args: argparse.Namespace) -> tuple[Any, str]:
    cleared = memory.clear(memory=True, session=True)
    session_payload, session_text = _session_cleared(cleared.turns)
    memory_payload, memory_text = _memory_cleared(memory.user_id, cleared.memories)
    return {"session": session_payload, "memory": memory_payload}, f"{session_text}\n{memory_text}"


HANDLERS: dict[tuple[str, str | None], Callable[[Memory, argparse.Namespace], tuple[Any, str]]] = {
    ("memory", "list"): list_memories,
    ("memory", "search"): search_memories,
    ("memory", "show"): show_memory,
    ("memory", "forget"): forget,
    ("memory", "restore"): restore,
    ("memory", "reinforce"): reinforce,
    ("memory", "approve"): approve,
    ("memory", "add"): add_memory,
    ("memory", "export"): export_memories,
    ("memory", "import"): import_memories,
    ("memory", "stats"): stats,
    ("memory", "status"): status,
    ("memory", "get"): show_memory,
    ("memory", "delete"): forget,
    ("memory", "create"): add_memory,
    ("memory", "clear"): clear_memory,
    ("session", "clear"): clear_session,
    ("reset", None): reset,
}
