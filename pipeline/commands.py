"""Commands that manage memory without the model: no API key, no `openai` import.

    memory list|search|show|forget|restore|reinforce|approve|add|export|import|stats|clear
    session clear
    reset

Every change goes through the store (lock, re-read, atomic write) and gets a history line.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from . import store
from .cli import Parser, program_name
from .config import Locations, Settings, load_settings
from .credentials import redact, redact_tree
from .errors import ArgumentError, MemtestError, UsageError, as_error, error_json, usage_failure
from .models import (
    DECAY_POLICIES,
    MEMORY_TYPES,
    SUBJECTS,
    CandidateIn,
    GateResult,
    HistoryEntry,
    LtmFile,
    Memory,
)

COMMANDS = ("memory", "session", "reset")


class NotFound(MemtestError):
    """No memory with that id for this user."""


def utcnow() -> datetime:
    return datetime.now(UTC)


def _warn(warnings: list[str]) -> None:
    for warning in warnings:
        print(f"memory-test: warning: {warning}", file=sys.stderr)


def build_parser(project_dir: Path | None = None) -> argparse.ArgumentParser:
    """The `memory`, `session` and `reset` commands; the help names the default folders."""
    where = Locations.find(project_dir)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="print JSON instead of text")
    common.add_argument(
        "--state-dir", metavar="DIR", help=f"state folder (default: {where.state_dir})"
    )
    common.add_argument("--user", metavar="ID", help="whose memory (default: default-user)")
    common.add_argument("--session", metavar="ID", help="a named session")
    common.add_argument(
        "--env-file", metavar="PATH", help=f"settings file instead of {where.env_file}"
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
    p = sub.add_parser("search", parents=[common], help="memories relevant to a query")
    p.add_argument("query")
    p.add_argument("--limit", type=int, default=10)
    p = sub.add_parser("show", parents=[common], help="one memory and its whole history")
    p.add_argument("id")
    p = sub.add_parser("forget", parents=[common], help="forget a memory (restorable)")
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
    p = sub.add_parser("add", parents=[common], help="write a memory yourself, through the gate")
    p.add_argument("text")
    p.add_argument("--type", choices=MEMORY_TYPES, required=True)
    p.add_argument("--subject", choices=SUBJECTS, default="user")
    p.add_argument("--decay", choices=DECAY_POLICIES, help="default: by type")
    p = sub.add_parser("export", parents=[common], help="all memories as JSON lines on stdout")
    p.add_argument("--all", action="store_true", help="include forgotten memories and drafts")
    p = sub.add_parser(
        "import", parents=[common], help="add memories from a JSON-lines file, through the gate"
    )
    p.add_argument("file", help="a file written by `memory export` ('-': standard input)")
    sub.add_parser("stats", parents=[common], help="counts and file sizes")
    sub.add_parser("clear", parents=[common], help="delete this user's long-term memory")

    session = top.add_parser("session", help="manage the short-term session")
    ssub = session.add_subparsers(dest="action", required=True, metavar="ACTION")
    ssub.add_parser("clear", parents=[common], help="delete the current session's turns")

    top.add_parser("reset", parents=[common], help="clear the session and long-term memory")
    return parser


def main(argv: Sequence[str], *, project_dir: Path | None = None) -> int:
    try:
        args = build_parser(project_dir).parse_args(argv)
    except ArgumentError as exc:
        return usage_failure(exc, json_wanted="--json" in argv)
    try:
        settings = load_settings(
            state_dir=args.state_dir,
            env_file=args.env_file,
            user=args.user,
            session=args.session,
            project_dir=project_dir,
        )
        handler = HANDLERS[(args.group, getattr(args, "action", None))]
        payload, text = handler(settings, args)
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
    return 0


# --- Reading ------------------------------------------------------------------------------


def _memory_json(m: Memory, settings: Settings, now: datetime) -> dict[str, Any]:
    return {
        **m.model_dump(mode="json"),
        "current_confidence": round(m.current_confidence(now, settings.decay_horizon_hours), 4),
    }


def _line(m: Memory, settings: Settings, now: datetime) -> str:
    current = m.current_confidence(now, settings.decay_horizon_hours)
    status = "" if m.status == "active" else f" [{m.status}]"
    return f"{m.id}  {m.type:<12} {current:.2f}  hits {m.hit_count:<3} {m.content}{status}"


def list_memories(settings: Settings, args: argparse.Namespace) -> tuple[Any, str]:
    now = utcnow()
    ltm = settings.store.load(now=now).ltm
    shown = [
        m
        for m in ltm.memories
        if (args.all or m.status == "active") and (not args.type or m.type == args.type)
    ]
    payload = {
        "user_id": settings.user_id,
        "memories": [_memory_json(m, settings, now) for m in shown],
    }
    if not shown:
        return payload, f"No memories for {settings.user_id}."
    return payload, "\n".join(_line(m, settings, now) for m in shown)


def search_memories(settings: Settings, args: argparse.Namespace) -> tuple[Any, str]:
    from .retrieval import Retriever, retrieve_relevant

    now = utcnow()
    memories = settings.store.load(now=now).ltm.memories
    retriever = Retriever.create(semantic=settings.semantic_retrieval())
    vectors = None
    if retriever.embedder is not None:
        from .embeddings import cached_vectors

        vectors, _, _ = cached_vectors(
            settings.store,
            [m.content for m in memories],
            retriever.embedder,
            save_lock_timeout=settings.lock_timeout,
        )
    found = retrieve_relevant(
        memories,
        query=args.query,
        min_confidence=0.0,
        token_budget=10**9,
        max_items=max(1, args.limit),
        retriever=retriever,
        vectors=vectors,
        now=now,
        horizon_hours=settings.decay_horizon_hours,
    )
    payload = {
        "selection_mode": found.selection_mode,
        "results": [
            {**_memory_json(r.memory, settings, now), "score": r.score, "why": r.why}
            for r in found.used
        ],
    }
    if not found.used:
        return payload, "No matching memories."
    return payload, "\n".join(f"{_line(r.memory, settings, now)}   ({r.why})" for r in found.used)


def show_memory(settings: Settings, args: argparse.Namespace) -> tuple[Any, str]:
    now = utcnow()
    ltm = settings.store.load(now=now).ltm
    memory = _find(ltm, args.id, settings)
    history = settings.store.read_history(ltm, memory.id)
    payload = {
        **_memory_json(memory, settings, now),
        "history": [h.model_dump(mode="json") for h in history],
    }
    lines = [
        f"{memory.id} ({memory.status}, {memory.type}/{memory.subject}, source {memory.source},"
        f" decay {memory.decay})",
        f"  {memory.content}",
        f"  confidence {memory.confidence:.2f} stored, "
        f"{memory.current_confidence(now, settings.decay_horizon_hours):.2f} now; "
        f"{memory.hit_count} hit(s); created {memory.created_at:%Y-%m-%d %H:%M}, "
        f"last reinforced {memory.last_reinforced:%Y-%m-%d %H:%M} (UTC)",
        f"  why: {memory.reason or '-'}",
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


def stats(settings: Settings, args: argparse.Namespace) -> tuple[Any, str]:
    state = settings.store
    ltm = state.load(now=utcnow()).ltm
    counters = state.read_counters()
    by_status = Counter(m.status for m in ltm.memories)
    by_type = Counter(m.type for m in ltm.memories if m.status == "active")
    files = state.usage()
    payload = {
        "user_id": settings.user_id,
        "memories": len(ltm.memories),
        "by_status": dict(by_status),
        "by_type": dict(by_type),
        "counters": counters,
        "file_bytes": files,
    }
    lines = [
        f"user {settings.user_id}: {len(ltm.memories)} memories "
        f"({', '.join(f'{n} {s}' for s, n in sorted(by_status.items())) or 'none'})"
    ]
    if by_type:
        lines.append("active by type: " + ", ".join(f"{t} {n}" for t, n in sorted(by_type.items())))
    if counters:
        lines.append("gate counters: " + ", ".join(f"{k} {v}" for k, v in sorted(counters.items())))
    lines.append("files: " + (", ".join(f"{k} {v:,} B" for k, v in files.items()) or "none"))
    return payload, "\n".join(lines)


def export_memories(settings: Settings, args: argparse.Namespace) -> tuple[Any, str]:
    ltm = settings.store.load(now=utcnow()).ltm
    rows = [m.model_dump(mode="json") for m in ltm.memories if args.all or m.status == "active"]
    if args.json:
        return {"memories": rows}, ""
    return None, "\n".join(json.dumps(r, ensure_ascii=False) for r in rows)


def _find(ltm: LtmFile, memory_id: str, settings: Settings) -> Memory:
    for memory in ltm.memories:
        if memory.id == memory_id:
            return memory
    raise NotFound(
        f"no memory {memory_id!r} for user {settings.user_id} "
        "(see `memory_test.py memory list --all`)"
    )


# --- Changing -----------------------------------------------------------------------------


def _change_memory(
    settings: Settings,
    memory_id: str,
    change: Edit,
) -> tuple[Memory, str | None]:
    """Apply `change` to one memory under the lock; it returns (event, before, after), or
    None when there is nothing to do. Returns the memory and the event recorded."""

    def merge(disk: store.Snapshot) -> store.Change[tuple[Memory, str | None]]:
        now = utcnow()
        memory = _find(disk.ltm, memory_id, settings)
        outcome = change(memory, now)
        if outcome is None:
            return store.Change(result=(memory, None))
        event, before, after = outcome
        entry = HistoryEntry(
            memory_id=memory.id,
            at=now,
            event=event,
            reason="by command",
            before=before,
            after=after,
        )
        return store.Change(result=(memory, event), ltm=disk.ltm, history=[entry])

    result, warnings = settings.store.transact(
        merge, now=utcnow(), lock_timeout=settings.lock_timeout
    )
    _warn(warnings)
    return result


Edit = Callable[[Memory, datetime], tuple[str, dict[str, Any], dict[str, Any]] | None]


def _set_status(target: str, allowed_from: tuple[str, ...], event: str) -> Edit:
    """An edit that moves a memory to `target` status (None if it is there already)."""

    def change(memory: Memory, _now: datetime) -> tuple[str, dict[str, Any], dict[str, Any]] | None:
        if memory.status == target:
            return None
        if memory.status not in allowed_from:
            raise UsageError(
                f"{memory.id} is {memory.status}; {event} applies to "
                f"{' or '.join(allowed_from)} memories"
            )
        before = {"status": memory.status}
        memory.status = target
        return event, before, {"status": target}

    return change


def _move(
    settings: Settings,
    memory_id: str,
    *,
    to: str,
    allowed_from: tuple[str, ...],
    event: str,
    done: str,
) -> tuple[dict[str, Any], str, Memory | None]:
    """Move a memory to status `to`; returns the payload, the message and the memory if it
    changed (None when it already had that status)."""
    memory, recorded = _change_memory(settings, memory_id, _set_status(to, allowed_from, event))
    payload = {"id": memory.id, "status": to, "changed": recorded is not None}
    if recorded is None:
        return payload, f"{memory.id} is already {to}.", None
    return payload, f"{done} {memory.id}: {memory.content}", memory


def forget(settings: Settings, args: argparse.Namespace) -> tuple[Any, str]:
    if args.purge:
        return purge(settings, args)
    payload, text, moved = _move(
        settings,
        args.id,
        to="forgotten",
        allowed_from=("active", "draft"),
        event="forgotten",
        done="Forgot",
    )
    if moved is not None:
        text += (
            f"\n(restore with `memory restore {moved.id}`; remove for good with "
            "`memory forget --purge`)"
        )
    return payload, text


def restore(settings: Settings, args: argparse.Namespace) -> tuple[Any, str]:
    payload, text, moved = _move(
        settings,
        args.id,
        to="active",
        allowed_from=("forgotten",),
        event="restored",
        done="Restored",
    )
    if moved is not None:
        _embed_written(settings, [moved.content])
    return payload, text


def approve(settings: Settings, args: argparse.Namespace) -> tuple[Any, str]:
    payload, text, moved = _move(
        settings, args.id, to="active", allowed_from=("draft",), event="approved", done="Approved"
    )
    if moved is not None:
        _embed_written(settings, [moved.content])
    return payload, text


def reinforce(settings: Settings, args: argparse.Namespace) -> tuple[Any, str]:
    def change(memory: Memory, now: datetime) -> tuple[str, dict[str, Any], dict[str, Any]]:
        if memory.status != "active":
            raise UsageError(
                f"{memory.id} is {memory.status}; only active memories are "
                "reinforced (restore or approve it first)"
            )
        before = {
            "hit_count": memory.hit_count,
            "last_reinforced": memory.last_reinforced.isoformat(),
        }
        memory.hit_count += 1
        memory.last_reinforced = now
        return (
            "reinforced",
            before,
            {"hit_count": memory.hit_count, "last_reinforced": now.isoformat()},
        )

    memory, _ = _change_memory(settings, args.id, change)
    now = utcnow()
    current = memory.current_confidence(now, settings.decay_horizon_hours)
    return {
        **_memory_json(memory, settings, now)
    }, f"Reinforced {memory.id} (confidence {current:.2f} now, {memory.hit_count} hits)."


def purge(settings: Settings, args: argparse.Namespace) -> tuple[Any, str]:
    result, warnings = settings.store.purge_memory(
        args.id, now=utcnow(), lock_timeout=settings.lock_timeout
    )
    _warn(warnings)
    if result is None:
        raise NotFound(f"no memory {args.id!r} for user {settings.user_id}")
    return {
        "id": args.id,
        "purged": True,
    }, f"Purged {args.id}: its text is gone from the store, its history and the sessions."


def add_memory(settings: Settings, args: argparse.Namespace) -> tuple[Any, str]:
    candidate = CandidateIn(
        type=args.type,
        subject=args.subject,
        content=args.text,
        confidence=1.0,
        reason="added by hand",
        decay=args.decay,
    )
    written = _write_through_gate(settings, [candidate], source="human")
    return _report_writes(written)


def import_memories(settings: Settings, args: argparse.Namespace) -> tuple[Any, str]:
    candidates, originals = [], []
    for number, row in _import_rows(args.file, settings):
        try:
            candidate = CandidateIn(
                type=row["type"],
                subject=row.get("subject", "user"),
                content=row["content"],
                confidence=float(row.get("confidence", 1.0)),
                reason=row.get("reason") or "imported",
                decay=row.get("decay"),
            )
            # A full row (from `memory export`) must be a valid memory as it stands.
            if row.keys() >= _FULL_ROW:
                fields = {k: v for k, v in row.items() if k not in _COMPUTED}
                row = {**row, _VALIDATED: Memory.model_validate({**fields, "id": "mem_import"})}
        except (ValueError, KeyError, TypeError, ValidationError, RecursionError) as exc:
            reason = "nested too deeply" if isinstance(exc, RecursionError) else exc
            raise UsageError(f"{args.file} line {number}: not a memory ({reason})") from None
        candidates.append(candidate)
        originals.append(row)
    written = _write_through_gate(settings, candidates, source="import", originals=originals)
    return _report_writes(written)


# The fields that make an import row a whole memory whose stored fields are kept.
_FULL_ROW = {"type", "content", "created_at", "last_reinforced"}
_COMPUTED = {"current_confidence"}
_VALIDATED = "\0memory"  # where a full row keeps its validated form (not a JSON key)


def _import_rows(name: str, settings: Settings) -> Iterator[tuple[int, dict[str, Any]]]:
    """JSON objects from a file or standard input, streamed one line at a time; only a
    regular file or a pipe is read, and neither a line nor the whole may exceed the cap."""
    from .safeio import iter_lines, open_regular

    limit = settings.paths.max_bytes
    with contextlib.ExitStack() as stack:
        if name == "-":
            handle = sys.stdin.buffer
        else:
            try:
                handle = stack.enter_context(open_regular(Path(name), what="import"))
            except FileNotFoundError:
                raise UsageError(f"{name}: no such file") from None
        lines = iter_lines(
            handle, name=name, max_line=1 << 20, max_total=limit, setting="MEMTEST_MAX_STATE_MB"
        )
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except RecursionError:
                raise UsageError(f"{name} line {number}: nested too deeply") from None
            except ValueError as exc:
                raise UsageError(f"{name} line {number}: not JSON ({exc})") from None
            if not isinstance(row, dict):
                raise UsageError(f"{name} line {number}: not a memory (not an object)")
            yield number, row


def _restore_imported(
    ltm: LtmFile,
    applied: Any,
    originals: list[dict[str, Any]],
    *,
    first_free: int,
) -> None:
    """Give memories created by an import the fields their rows carried (timestamps,
    source, hit count, status, unknown fields...). A row's id is kept when this store never
    issued it; otherwise the memory keeps the new id it was given."""
    position = {m.id: i for i, m in enumerate(ltm.memories)}
    renamed: dict[str, str] = {}
    for decision, row in zip(applied.result.candidates, originals, strict=True):
        if decision.verdict != "accepted" or decision.memory_id is None:
            continue
        if _VALIDATED not in row:
            continue
        index = position[decision.memory_id]
        keep_id = _keepable_id(row.get("id"), first_free, position)
        restored = row[_VALIDATED].model_copy(
            update={"id": keep_id or decision.memory_id, "content": row["content"].strip()}
        )
        ltm.memories[index] = restored
        if keep_id:
            renamed[decision.memory_id] = keep_id
            del position[decision.memory_id]
            position[keep_id] = index
            match = _MEM_ID.fullmatch(keep_id)
            if match:
                ltm.next_seq = max(ltm.next_seq, int(match.group(1)) + 1)
    for entry in applied.history:
        entry.memory_id = renamed.get(entry.memory_id, entry.memory_id)
    for write in applied.writes:
        write["memory_id"] = renamed.get(write["memory_id"], write["memory_id"])
    applied.result = GateResult(
        candidates=[
            replace(d, memory_id=renamed[d.memory_id]) if d.memory_id in renamed else d
            for d in applied.result.candidates
        ],
        revisions=applied.result.revisions,
    )


_MEM_ID = re.compile(r"mem_(\d+)")


def _keepable_id(wanted: Any, first_free: int, taken: dict[str, int]) -> str | None:
    """`wanted` if this store never issued it: a mem_N id at or past the store's counter
    before the import, and not taken."""
    if not isinstance(wanted, str) or wanted in taken:
        return None
    match = _MEM_ID.fullmatch(wanted)
    return wanted if match and int(match.group(1)) >= first_free else None


def _write_through_gate(
    settings: Settings,
    candidates: list[CandidateIn],
    *,
    source: str,
    originals: list[dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """The gate's rules, minus the automatic quotas and confidence floor: a person chose
    these. Secrets, planted instructions, junk and duplicates are still refused. All of it
    is one commit, however many memories."""
    from .apply import apply_decisions
    from .batch import gate_many

    policy = replace(
        settings.policy, min_confidence=0.0, max_per_turn=len(candidates) or 1, max_per_day=10**9
    )
    created: list[str] = []

    def merge(disk: store.Snapshot) -> store.Change[list[dict[str, Any]]]:
        now = utcnow()
        result = gate_many(candidates, disk.ltm.memories, policy=policy, now=now)
        first_free = disk.ltm.next_seq
        if originals is not None:
            # New ids start past every id the rows keep, so the two never collide.
            kept = [_keepable_id(r.get("id"), first_free, {}) for r in originals]
            numbers = [int(k[4:]) for k in kept if k]
            disk.ltm.next_seq = max([first_free, *(n + 1 for n in numbers)])
        applied = apply_decisions(
            disk.ltm, candidates, [], result, turn_id=None, now=now, source=source
        )
        if originals is not None:
            _restore_imported(disk.ltm, applied, originals, first_free=first_free)
        ids = {d.memory_id for d in applied.result.candidates if d.verdict == "accepted"}
        created[:] = [m.content for m in disk.ltm.memories if m.id in ids]
        rows = [
            {
                "content": redact(c.content),
                "verdict": d.verdict,
                "reason": d.reason,
                "detail": d.detail,
                "memory_id": d.memory_id,
            }
            for c, d in zip(candidates, applied.result.candidates, strict=True)
        ]
        return store.Change(
            result=rows, ltm=disk.ltm if applied.writes else None, history=applied.history
        )

    rows, warnings = settings.store.transact(
        merge, now=utcnow(), lock_timeout=settings.lock_timeout
    )
    _warn(warnings)
    _embed_written(settings, created)
    return rows


def _embed_written(settings: Settings, texts: list[str]) -> None:
    """With semantic retrieval, embed what a command wrote (in batches), so the next
    search finds every vector cached."""
    from .embeddings import semantic_available

    if not texts or not settings.semantic_retrieval() or not semantic_available():
        return
    from .embeddings import Embedder, embed_new

    embed_new(settings.store, texts, Embedder(), lock_timeout=settings.lock_timeout)


def _report_writes(rows: list[dict[str, Any]]) -> tuple[Any, str]:
    lines = []
    for row in rows:
        target = f" {row['memory_id']}" if row["memory_id"] else ""
        detail = f" ({row['detail']})" if row["detail"] else ""
        lines.append(f"{row['verdict']}{target} [{row['reason']}]{detail}: {row['content']}")
    new = sum(r["verdict"] == "accepted" for r in rows)
    merged = sum(r["verdict"] == "merged" for r in rows)
    lines.append(f"{new} new, {merged} reinforced, {len(rows) - new - merged} refused.")
    return {"results": rows}, "\n".join(lines)


# --- Clearing (seed 000: immediate, idempotent, informational when already empty) --------


def clear_memory(settings: Settings, args: argparse.Namespace) -> tuple[Any, str]:
    removed = settings.store.clear_memory(lock_timeout=settings.lock_timeout)
    if not removed:
        return {"cleared": False}, f"Long-term memory of {settings.user_id} is already empty."
    return {
        "cleared": True,
        "memories": removed,
    }, f"Cleared {removed} memories of {settings.user_id} (and their history)."


def clear_session(settings: Settings, args: argparse.Namespace) -> tuple[Any, str]:
    turns = settings.store.clear_session(lock_timeout=settings.lock_timeout)
    if not turns:
        return {"cleared": False}, "The session is already empty."
    return {"cleared": True, "turns": turns}, f"Cleared the session ({turns} turns)."


def reset(settings: Settings, args: argparse.Namespace) -> tuple[Any, str]:
    session_payload, session_text = clear_session(settings, args)
    memory_payload, memory_text = clear_memory(settings, args)
    return {"session": session_payload, "memory": memory_payload}, f"{session_text}\n{memory_text}"


HANDLERS: dict[
    tuple[str, str | None], Callable[[Settings, argparse.Namespace], tuple[Any, str]]
] = {
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
    ("memory", "clear"): clear_memory,
    ("session", "clear"): clear_session,
    ("reset", None): reset,
}
