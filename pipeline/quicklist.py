"""`memory list` straight from ltm.json, without pydantic, when the file is in the form this
program writes.

In a fresh process, building the pydantic models costs more than the rest of the command
(Python, click and reading 1,000 memories). The files this program writes are in one
canonical form, which `read_canonical` checks field by field. Anything else returns None:
a hand edit, a field it does not know, a value pydantic would have to coerce, a commit
still to be finished, a session file that is not a regular file, a PostgreSQL store. The
command then takes the library's path, which validates, moves aside and warns as every
command does. The session's content is not read (a listing does not show it): a session
file that cannot be read is moved aside by the next command that uses the session. What
is accepted here the models accept and read as the same values (tests/test_quicklist.py
checks it on generated and mutated files), so both paths print the same bytes.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from .config import validate_label
from .credentials import redact_fields
from .errors import StateError
from .kinds import LABELS, MEMORY_TYPES, SCHEMA_VERSION, STATUSES, Scope, decayed
from .safeio import read_regular

if TYPE_CHECKING:
    from .config import Settings

# A command's answer as (JSON payload, text), or None when only the library can give it.
Quick = Callable[["Settings", SimpleNamespace], "tuple[Any, str] | None"]

# Memory's fields in the models' order (tests hold them to `Memory.model_fields`), with the
# default of each optional one; the labels after them, as the file spells them.
FIELDS = (
    "id",
    "type",
    "subject",
    "content",
    "confidence",
    "reason",
    "created_at",
    "last_reinforced",
    "hit_count",
    "source_turn_id",
    "status",
    "source",
    "decay",
)
DEFAULTS: dict[str, Any] = {
    "reason": "",
    "hit_count": 1,
    "source_turn_id": None,
    "status": "active",
    "source": "reflection",
    "decay": "stable",
}
_REQUIRED = frozenset(name for name in FIELDS if name not in DEFAULTS)
_TEXTS = ("id", "type", "subject", "content", "reason", "status", "source", "decay")
_KNOWN = frozenset((*FIELDS, *LABELS, "global"))
_TOP = frozenset(("schema_version", "next_seq", "history_bytes", "memories"))
_INT64 = range(-(2**63), 2**63)
_CANONICAL_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.(?!000000)\d{6})?Z")


def _text(value: object) -> bool:
    """A string pydantic reads as itself and stdout can print (no lone surrogates)."""
    if type(value) is not str:
        return False
    if value.isascii():
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _integer(value: object) -> bool:
    return type(value) is int and value in _INT64


def _instant(value: object) -> datetime | None:
    """A UTC time exactly as the models write it (`2026-11-23T12:00:00Z`, with six digits of
    microseconds when there are any), else None."""
    if type(value) is not str or _CANONICAL_TIME.fullmatch(value) is None:
        return None
    try:
        return datetime.fromisoformat(value)  # the ranges: month 13 or second 61 fail here
    except ValueError:
        return None


def _memory(item: object) -> dict[str, Any] | None:
    """One memory with its times parsed, if it is in the canonical form."""
    if type(item) is not dict or not _KNOWN.issuperset(item) or not item.keys() >= _REQUIRED:
        return None
    memory: dict[str, Any] = {**DEFAULTS, **item}
    for name in _TEXTS:  # a loop: this runs for every memory of a listing
        if not _text(memory[name]):
            return None
    confidence = memory["confidence"]
    if type(confidence) not in (float, int) or not 0.0 <= confidence <= 1.0:
        return None  # NaN fails the comparison too
    memory["confidence"] = float(confidence)
    if not _integer(memory["hit_count"]):
        return None
    if memory["source_turn_id"] is not None and not _text(memory["source_turn_id"]):
        return None
    for name in LABELS:
        label = memory.get(name)
        if label is not None and not (_text(label) and label):  # "" is read as unset
            return None
    if type(memory.get("global", False)) is not bool:
        return None
    created, reinforced = _instant(memory["created_at"]), _instant(memory["last_reinforced"])
    if created is None or reinforced is None:
        return None
    memory["_times"] = (created, reinforced)
    return memory


def _plain_or_missing(path: Path) -> bool:
    """Whether `path` is a regular file (not a link) or absent."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        return True
    except OSError:
        return False


def read_canonical(raw: bytes) -> list[dict[str, Any]] | None:
    """The memories of an ltm.json in the canonical form, in file order; None otherwise."""
    import json

    try:
        document = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if type(document) is not dict or not _TOP.issuperset(document):
        return None
    if document.get("schema_version", SCHEMA_VERSION) != SCHEMA_VERSION or not all(
        _integer(document.get(name, 0)) for name in ("schema_version", "next_seq", "history_bytes")
    ):
        return None
    items = document.get("memories", [])
    if type(items) is not list:
        return None
    memories = []
    for item in items:
        memory = _memory(item)
        if memory is None:
            return None
        memories.append(memory)
    return memories


def confidence_now(memory: dict[str, Any], now: datetime, horizon_hours: float) -> float:
    """As `Memory.current_confidence` computes it, from the same values."""
    created, reinforced = memory["_times"]
    return decayed(
        memory["confidence"],
        memory["decay"],
        created_at=created,
        last_reinforced=reinforced,
        now=now,
        horizon_hours=horizon_hours,
    )


def labels(memory: dict[str, Any]) -> dict[str, Any]:
    """Seed 003's labels, as `Memory.labels` shows them (unset: null, false)."""
    return {**{name: memory.get(name) for name in LABELS}, "global": memory.get("global", False)}


def as_json(memory: dict[str, Any], current: float) -> dict[str, Any]:
    """What `MemoryView.to_json` gives for the same memory."""
    return {
        **{name: memory[name] for name in FIELDS},
        **labels(memory),
        "current_confidence": round(current, 4),
    }


class Listing(str):
    """Output whose fields are redacted already (`credentials.redact_fields`; all but the
    ones the program writes), so the command does not scan it again as one text."""


def listing(rows: list[tuple[str, str, float, int, str, str, dict[str, Any]]]) -> Listing:
    """Memories as `memory list` shows them, one line each: (id, type, confidence now,
    hits, content, status, labels), every text field the program did not write redacted."""
    texts = [
        text
        for memory_id, type, _c, _h, content, status, labels in rows
        for text in (memory_id, type, content, status, *_label_values(labels))
    ]
    # What the program itself writes (an id mem_NNNN, a known type or status) holds no
    # secret; everything else is scanned.
    scanned = [text for text in texts if not _program_written(text)]
    redacted = dict(zip(scanned, redact_fields(scanned), strict=True))
    clean = iter([redacted.get(text, text) for text in texts])
    lines = []
    for memory_id, type, current, hits, content, status, labels in rows:
        memory_id, type, content, status = next(clean), next(clean), next(clean), next(clean)
        shown = [f"{name} {next(clean)}" for name in labels if isinstance(labels[name], str)]
        if labels.get("global"):
            shown.insert(0, "global")
        lines.append(
            f"{memory_id}  {type:<12} {current:.2f}  hits {hits:<3} {content}"
            + ("" if status == "active" else f" [{status}]")
            + (f"  ({', '.join(shown)})" if shown else "")
        )
    return Listing("\n".join(lines))


_VOCABULARY = frozenset((*MEMORY_TYPES, *STATUSES))
_PROGRAM_ID = re.compile(r"mem_\d{1,12}")


def _program_written(text: str) -> bool:
    return text in _VOCABULARY or _PROGRAM_ID.fullmatch(text) is not None


def _label_values(labels: dict[str, Any]) -> list[str]:
    return [value for value in labels.values() if isinstance(value, str)]


def quick_list(
    settings: Settings, args: SimpleNamespace, now: datetime | None = None
) -> tuple[Any, str] | None:
    """`memory list` from the JSON files, or None when the library must answer."""
    if settings.store_url:
        return None
    paths = settings.paths
    if os.path.lexists(paths.commit_record):
        return None  # a commit to finish first: the library does it under the lock
    if not _plain_or_missing(paths.session):
        return None  # the library refuses it (a FIFO, a device, a folder) as any command does
    try:
        raw = read_regular(paths.ltm, max_bytes=paths.max_bytes)
    except FileNotFoundError:
        memories: list[dict[str, Any]] | None = []
    except (OSError, StateError):
        return None  # the library says what is wrong
    else:
        memories = read_canonical(raw)
    if memories is None:
        return None
    personality = getattr(args, "personality", None)
    scope = Scope(
        project=settings.project,
        agent=settings.agent,
        personality=None if personality is None else validate_label("personality", personality),
    )
    now = now or datetime.now(UTC)
    shown = []
    for memory in memories:
        if not args.all and memory["status"] != "active":
            continue
        if args.type and memory["type"] != args.type:
            continue
        seen = labels(memory)
        if getattr(args, "only_global", False) and not seen["global"]:
            continue
        if scope.admits(SimpleNamespace(**seen, is_global=seen["global"])):  # type: ignore[arg-type]
            current = confidence_now(memory, now, settings.decay_horizon_hours)
            shown.append((memory, seen, current))
    if args.json:
        listed = [as_json(m, current) for m, _seen, current in shown]
        return {"user_id": settings.user_id, "memories": listed}, ""
    if not shown:
        return None, f"No memories for {settings.user_id}."
    return None, listing(
        [
            (m["id"], m["type"], c, m["hit_count"], m["content"], m["status"], seen)
            for m, seen, c in shown
        ]
    )
