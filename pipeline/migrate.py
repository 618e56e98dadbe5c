"""Moving one user's whole state from one store to another (JSON files, PostgreSQL).

A migration reads everything the source holds for the user in one consistent view
(memories with every field, history, counters, `next_seq`, every session, archive and
overflow) and writes it into the target in one commit. Before that commit the target
reads back what it wrote and the counts and a digest are compared with the source: a
copy that differs is rolled back, never made visible. Ids are kept as they are, so the
target must hold nothing for that user; the source is only read. The vector cache is
derived data and is rebuilt by the target on first use.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import StateError, UsageError
from .paths import StatePaths
from .store import FileStore, Store, UserState


@dataclass(frozen=True)
class MigrateResult:
    """What a migration copied, verified in the target, and what it left behind."""

    user: str
    source: str
    target: str
    memories: int
    history: int
    counters: int
    sessions: int
    archived_sessions: int
    overflow: int
    next_seq: int
    digest: str  # of the copied state, equal in source and target
    left_behind: tuple[str, ...] = ()  # data the source keeps aside as unreadable

    def to_json(self) -> dict[str, Any]:
        """Every field, as plain JSON values."""
        return {**self.__dict__, "left_behind": list(self.left_behind)}


def open_store(to: Store | str | Path, *, user: str, max_bytes: int) -> Store:
    """The store `to` names for `user`: a Store as it is, a postgresql:// URL, or a
    state folder (a path)."""
    if isinstance(to, Path):
        return FileStore(StatePaths(to, user, max_bytes=max_bytes))
    if isinstance(to, str):
        if "://" in to or to.startswith(("postgresql:", "postgres:")):
            from .pgstore import PostgresStore, check_url

            target = check_url(to, setting="the migration target", fix="give one or a folder")
            return PostgresStore(target, user)
        if not to.strip():
            raise UsageError("the migration target is empty: give a postgresql:// URL or a folder")
        # As --state-dir does: a shell leaves "--to=~/x" unexpanded.
        try:
            folder = Path(to).expanduser()
        except RuntimeError:  # ~someone who does not exist
            raise UsageError(f"the migration target {to}: no such user's home folder") from None
        return FileStore(StatePaths(folder, user, max_bytes=max_bytes))
    if isinstance(to, Store):
        return to
    raise UsageError(f"cannot migrate to {to!r}: give a postgresql:// URL or a folder")


def migrate(source: Store, target: Store, *, lock_timeout: float) -> MigrateResult:
    """Copy one user's whole state from `source` into an empty `target`, all or nothing,
    and verify it there.

    Raises UsageError when the source holds nothing for the user; NotEmpty when the
    target already holds data for the user; StateError when the source cannot be read
    in full or the copy read back does not match; SaveFailed when the write failed;
    LockTimeout when either store stays locked. After any of them the target is as it
    was, and the source is never written.
    """
    state = source.read_user(lock_timeout=lock_timeout)
    if state.is_empty():
        raise UsageError(f"{source.describe()} holds nothing to migrate for this user")
    expected, wanted = _compared(state), digest(state)

    def same_as_source(copied: UserState) -> None:
        found = _compared(copied)
        if found != expected or digest(copied) != wanted:
            differs = [k for k in expected if expected[k] != found[k]] or ["the contents"]
            raise StateError(
                f"The copy in {target.describe()} does not match the source "
                f"({', '.join(differs)} differ: expected {expected}, read back {found}). "
                "Nothing was written; the source is unchanged."
            )

    target.write_user(state, lock_timeout=lock_timeout, verify=same_as_source)
    return MigrateResult(
        user=_user_of(source),
        source=source.describe(),
        target=target.describe(),
        **_counts(state),
        digest=wanted,
        left_behind=tuple(state.set_aside),
    )


def _counts(state: UserState) -> dict[str, int]:
    return {
        "memories": len(state.ltm.memories),
        "history": len(state.history),
        "counters": len(state.counters),
        "sessions": len(state.sessions),
        "archived_sessions": len(state.archives),
        "overflow": len(state.overflow),
        "next_seq": state.ltm.next_seq,
    }


def _compared(state: UserState) -> dict[str, int]:
    """The counts a copy must match; an archived session written to the files is read
    back as a named one (see `store.read_user`), so all sessions are counted together."""
    counts = _counts(state)
    counts["sessions"] += counts.pop("archived_sessions")
    return counts


def digest(state: UserState) -> str:
    """A hash of everything a migration copies, independent of how a store orders keys.

    The file store has no separate archives (see `store.read_user`), so archived and
    named sessions are hashed as one set, where only the current session is marked.
    """
    ltm = state.ltm.model_dump(mode="json", exclude={"history_bytes", "schema_version"})
    sessions = [
        {"current": name == "", **s.model_dump(mode="json")} for name, s in state.sessions.items()
    ]
    sessions += [{"current": False, **s.model_dump(mode="json")} for s in state.archives]
    canonical = {
        "ltm": ltm,
        "history": [h.model_dump(mode="json") for h in state.history],
        "counters": state.counters,
        "sessions": sorted(json.dumps(s, sort_keys=True) for s in sessions),
        "overflow": {k: v.model_dump(mode="json") for k, v in sorted(state.overflow.items())},
    }
    text = json.dumps(canonical, sort_keys=True, ensure_ascii=False)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def _user_of(s: Store) -> str:
    if isinstance(s, FileStore):
        return s.paths.user
    return str(getattr(s, "user", ""))
