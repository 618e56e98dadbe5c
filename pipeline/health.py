"""The store's health for `memory status` (seed 003): can it be read, and what needs a look.

Reading is all it does: an unreadable ltm.json is reported, not moved aside (the next
command that uses the memory does that), and the lock is only tried, never waited for.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .errors import MemtestError
from .models import SCHEMA_VERSION
from .store import FileStore, Store

# What the file store leaves beside a file it could not read (see store._read_locked).
QUARANTINE_PATTERNS = ("*.corrupt-*", "*.invalid-*")
LEFT_IN_PLACE = "(left in place: dry run)"


@dataclass(frozen=True)
class Health:
    """Whether the memory can be read, and the counts; `problems` say what is wrong."""

    status: str  # "healthy" or "unhealthy" (the memory cannot be read at all)
    store: str
    readable: bool
    schema_version: int | None  # of the stored memory; None when there is none yet
    known_schema_version: int
    lock: str  # "free", "busy" (held by another process), "unusable" or "n/a" (not a file store)
    pending_commit: bool  # a commit record was found (the read carried it out)
    quarantined: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    memories: int = 0
    by_status: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Every field, as seed 003's `status` prints it."""
        return {
            "status": self.status,
            "store": self.store,
            "readable": self.readable,
            "schema_version": self.schema_version,
            "known_schema_version": self.known_schema_version,
            "lock": self.lock,
            "pending_commit": self.pending_commit,
            "quarantined": self.quarantined,
            "problems": self.problems,
            "memory_count": self.memories,
            "by_status": self.by_status,
        }


def check_health(store: Store, *, now: datetime) -> Health:
    """Read the memory without quarantining anything, try the lock, list side files."""
    files = store if isinstance(store, FileStore) else None
    pending = files is not None and os.path.lexists(files.paths.commit_record)
    lock = _probe_lock(files) if files is not None else "n/a"
    quarantined = _quarantined(files) if files is not None else []
    try:
        snapshot = store.load(now=now, quarantine_ltm=False)
    except (MemtestError, OSError) as exc:
        return Health(
            status="unhealthy",
            store=store.describe(),
            readable=False,
            schema_version=None,
            known_schema_version=SCHEMA_VERSION,
            lock=lock,
            pending_commit=pending,
            quarantined=quarantined,
            problems=[str(exc)],
        )
    # With no ltm file at all there is nothing stored yet: healthy, version unknown.
    stored = files is None or files.paths.ltm.exists()
    # The store's own words for an ltm.json it left in place (quarantine_ltm=False).
    unreadable = [w for w in snapshot.warnings if w.startswith("ltm.json could not be read")]
    problems = [
        w.replace(LEFT_IN_PLACE, "(left in place; the next command that uses it moves it aside)")
        for w in snapshot.warnings
    ]
    return Health(
        status="unhealthy" if unreadable else "healthy",
        store=store.describe(),
        readable=not unreadable,
        schema_version=snapshot.ltm.schema_version if stored and not unreadable else None,
        known_schema_version=SCHEMA_VERSION,
        lock=lock,
        pending_commit=pending,
        quarantined=quarantined,
        problems=problems,
        memories=len(snapshot.ltm.memories),
        by_status=dict(Counter(m.status for m in snapshot.ltm.memories)),
    )


def _probe_lock(files: FileStore) -> str:
    """Try the folder's lock once without waiting; a folder not made yet has a free lock."""
    lock_path = files.paths.lock
    if not lock_path.parent.is_dir():
        return "free"
    from filelock import FileLock, Timeout

    try:
        with FileLock(lock_path, timeout=0):
            return "free"
    except Timeout:
        return "busy"
    except OSError:
        return "unusable"


def _quarantined(files: FileStore) -> list[str]:
    """Side files of unreadable state in this user's folder and its sessions, by name."""
    found: set[str] = set()
    for folder in (files.paths.home, files.paths.archive):
        if folder.is_dir():
            for pattern in QUARANTINE_PATTERNS:
                found.update(str(p.relative_to(files.paths.home)) for p in folder.glob(pattern))
    return sorted(found)
