"""The one module that touches state files: paths, lock, reads, quarantine, atomic writes.

Every write goes through `transact()`: take the folder's lock, re-read both files, let the
caller merge its changes into what is on disk *now*, and write each changed file
atomically (temp file in the same folder, flush, fsync, os.replace, fsync the folder).
LLM calls never happen under the lock.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from .errors import LockTimeout, StateError
from .models import SCHEMA_VERSION, HistoryEntry, LtmFile, Memory, SessionFile

if TYPE_CHECKING:
    import numpy as np

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]")


DEFAULT_USER = "default-user"


@dataclass(frozen=True)
class StatePaths:
    """Where one user's memory and one session live inside a state folder.

    The default user keeps the top-level files (state/ltm.json, state/session.json);
    any other user has state/users/<id>/. A named session is sessions/<id>.json in the
    user's folder, the unnamed one session.json. One lock guards the whole folder.
    """

    root: Path
    user: str = DEFAULT_USER
    session_name: str | None = None

    @property
    def home(self) -> Path:
        return self.root if self.user == DEFAULT_USER else self.root / "users" / self.user

    @property
    def ltm(self) -> Path:
        return self.home / "ltm.json"

    @property
    def session(self) -> Path:
        if self.session_name is None:
            return self.home / "session.json"
        return self.archive / f"{self.session_name}.json"

    @property
    def archive(self) -> Path:
        return self.home / "sessions"

    @property
    def history(self) -> Path:
        return self.home / "ltm.history.jsonl"

    @property
    def counters(self) -> Path:
        return self.home / "ltm.counters.json"

    @property
    def vectors(self) -> Path:
        return self.home / "ltm.vectors.npz"

    @property
    def lock(self) -> Path:
        return self.root / ".state.lock"


@dataclass
class Snapshot:
    """Both files as read; `warnings` says what could not be read and where it was moved.

    `ltm_digest` identifies the bytes `ltm` was parsed from (None if there was no file).
    """

    ltm: LtmFile
    session: SessionFile | None
    warnings: list[str] = field(default_factory=list)
    ltm_digest: str | None = None


@dataclass
class Change(Generic[T]):
    """What a transaction wants written. None leaves a file as it is."""

    result: T
    ltm: LtmFile | None = None
    session: SessionFile | None = None
    archive_session: SessionFile | None = None
    history: list[HistoryEntry] = field(default_factory=list)
    counters: dict[str, int] = field(default_factory=dict)  # increments


def load(paths: StatePaths, *, now: datetime, quarantine_ltm: bool = True) -> Snapshot:
    """Read both files without the lock (writers replace files atomically).

    An unreadable file is moved aside under the lock and the turn goes on without it;
    with `quarantine_ltm=False` (a dry run) ltm.json is left exactly where it is.
    """
    warnings: list[str] = []
    ltm, digest = _read(
        paths, paths.ltm, LtmFile, now=now, warnings=warnings, move_aside=quarantine_ltm
    )
    session, _ = _read(
        paths, paths.session, SessionFile, now=now, warnings=warnings, move_aside=True
    )
    return Snapshot(ltm=ltm or LtmFile(), session=session, warnings=warnings, ltm_digest=digest)


def transact(
    paths: StatePaths,
    merge: Callable[[Snapshot], Change[T]],
    *,
    now: datetime,
    lock_timeout: float,
    write_ltm: bool = True,
    known: Snapshot | None = None,
) -> tuple[T, list[str]]:
    """Lock, re-read, merge, write atomically. Returns merge's result and any warnings.

    `known` is a snapshot loaded earlier and not modified since: if ltm.json still holds
    the very bytes it was parsed from, its parsed form is reused instead of parsed again.
    """
    ensure_folder(paths)
    from filelock import FileLock, Timeout

    reuse = (known.ltm, known.ltm_digest) if known and known.ltm_digest else None
    try:
        with FileLock(paths.lock, timeout=lock_timeout):
            _remove_stale_temp_files(paths)
            warnings: list[str] = []
            ltm, digest = _read_locked(
                paths.ltm, LtmFile, now=now, warnings=warnings, move_aside=write_ltm, reuse=reuse
            )
            session, _ = _read_locked(
                paths.session, SessionFile, now=now, warnings=warnings, move_aside=True
            )
            change = merge(
                Snapshot(
                    ltm=ltm or LtmFile(), session=session, warnings=warnings, ltm_digest=digest
                )
            )
            # ltm.json first: if we die between the two writes, the memories a turn earned
            # are kept and only its transcript lines are lost, never the other way round.
            if write_ltm and change.ltm is not None:
                committed = ltm.history_bytes if ltm else 0
                change.ltm.history_bytes = _append_history(paths, committed, change.history)
                _write_model(paths.ltm, change.ltm)
            if change.counters:
                _add_counters(paths, change.counters)
            if change.archive_session is not None:
                _archive(paths, change.archive_session)
            if change.session is not None:
                _write_model(paths.session, change.session)
            return change.result, warnings
    except Timeout as exc:
        raise LockTimeout(
            f"The state folder {paths.root} is locked by another process "
            f"(waited {lock_timeout:g} s for {paths.lock}). Try again, or raise "
            f"MEMTEST_LOCK_TIMEOUT."
        ) from exc


def ensure_folder(paths: StatePaths) -> None:
    """Create the state folders, private to the user (they hold personal data)."""
    paths.root.mkdir(mode=0o700, parents=True, exist_ok=True)
    paths.home.mkdir(mode=0o700, parents=True, exist_ok=True)
    if paths.session_name is not None:
        paths.archive.mkdir(mode=0o700, exist_ok=True)


# --- Reading --------------------------------------------------------------------------------


class _Unreadable(Exception):
    pass


def _read(
    paths: StatePaths,
    path: Path,
    model: type[M],
    *,
    now: datetime,
    warnings: list[str],
    move_aside: bool,
) -> tuple[M | None, str | None]:
    """Parse without the lock; only an unreadable file takes the lock to be dealt with."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, None
    try:
        return _parse(raw, path, model), _digest(raw)
    except _Unreadable:
        pass
    if not move_aside:
        return _read_locked(path, model, now=now, warnings=warnings, move_aside=False)
    from filelock import FileLock

    with FileLock(paths.lock, timeout=30):
        return _read_locked(path, model, now=now, warnings=warnings, move_aside=True)


def _read_locked(
    path: Path,
    model: type[M],
    *,
    now: datetime,
    warnings: list[str],
    move_aside: bool,
    reuse: tuple[M, str] | None = None,
) -> tuple[M | None, str | None]:
    """Read (under the lock); an unreadable file is renamed to <name>.corrupt-<timestamp>."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, None
    digest = _digest(raw)
    if reuse is not None and reuse[1] == digest:
        return reuse[0], digest
    try:
        return _parse(raw, path, model), digest
    except _Unreadable as exc:
        if not move_aside:
            warnings.append(
                f"{path.name} could not be read ({exc}); continuing without it "
                "(left in place: dry run)"
            )
            return None, None
        aside = _free_name(path.parent, f"{path.name}.corrupt-{now:%Y%m%dT%H%M%S}")
        os.replace(path, aside)
        companion = path.with_name("ltm.history.jsonl")
        if path.name == "ltm.json" and companion.exists():
            # The history belongs to the store that could not be read: keep them together.
            os.replace(companion, path.parent / f"{aside.name}.history.jsonl")
        _fsync_dir(path.parent)
        warnings.append(
            f"{path.name} could not be read ({exc}); moved it to {aside.name} "
            "and continued with an empty one"
        )
        return None, None


def _digest(raw: bytes) -> str:
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


def _parse(raw: bytes, path: Path, model: type[M]) -> M:
    """Validate straight from bytes; a newer schema_version is refused, not quarantined."""
    try:
        parsed = model.model_validate_json(raw)
    except ValidationError as exc:
        _refuse_newer_schema(raw, path)
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "top level"
        raise _Unreadable(f"{where}: {first['msg']}") from exc
    if getattr(parsed, "schema_version", SCHEMA_VERSION) > SCHEMA_VERSION:
        _refuse_newer_schema(raw, path)
    return parsed


def _refuse_newer_schema(raw: bytes, path: Path) -> None:
    """Raise StateError if `raw` declares a schema_version newer than this code knows."""
    try:
        data = json.loads(raw)
    except ValueError:
        return
    version = data.get("schema_version") if isinstance(data, dict) else None
    if isinstance(version, int) and version > SCHEMA_VERSION:
        raise StateError(
            f"{path} has schema_version {version}, but this version of memory-test only "
            f"knows {SCHEMA_VERSION}. Upgrade memory-test; nothing was changed."
        )


def _free_name(folder: Path, base: str, suffix: str = "") -> Path:
    """folder/base+suffix, or base-1+suffix, base-2+suffix... whichever does not exist yet."""
    candidate, n = folder / f"{base}{suffix}", 1
    while candidate.exists():
        candidate = folder / f"{base}-{n}{suffix}"
        n += 1
    return candidate


# --- Writing --------------------------------------------------------------------------------


def _write_model(path: Path, model: BaseModel) -> None:
    atomic_write_text(path, model.model_dump_json(indent=1) + "\n")


def atomic_write_text(path: Path, text: str) -> None:
    """Replace `path` with `text` so that a reader sees the old or the new file, never half."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def _append_history(paths: StatePaths, committed: int, entries: list[HistoryEntry]) -> int:
    """Append history lines after the committed part; return the new committed length.

    Bytes past `committed` were written by a commit that died before it replaced
    ltm.json: they describe changes that never happened, so they are cut off first.
    Runs under the lock, before ltm.json is replaced (the commit point).
    """
    path = paths.history
    if committed == 0 and path.exists() and path.stat().st_size > 0 and not paths.ltm.exists():
        # History without its store (ltm.json deleted by hand): keep it, start afresh.
        os.replace(path, _free_name(paths.home, f"{path.name}.orphaned"))
    if not entries and not path.exists():
        return 0
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    with os.fdopen(fd, "r+b") as handle:
        size = handle.seek(0, os.SEEK_END)
        if size > committed:
            handle.truncate(committed)
        handle.seek(min(size, committed))
        for entry in entries:
            handle.write(entry.model_dump_json().encode("utf-8") + b"\n")
        handle.flush()
        os.fsync(handle.fileno())
        return handle.tell()


def read_history(
    paths: StatePaths, ltm: LtmFile, memory_id: str | None = None
) -> list[HistoryEntry]:
    """The committed history (of one memory, if given), oldest first."""
    try:
        with paths.history.open("rb") as handle:
            raw = handle.read(ltm.history_bytes)
    except FileNotFoundError:
        return []
    out = []
    for line in raw.splitlines():
        try:
            entry = HistoryEntry.model_validate_json(line)
        except ValidationError:
            continue  # a damaged line is skipped; the rest of the record still reads
        if memory_id is None or entry.memory_id == memory_id:
            out.append(entry)
    return out


def _archive(paths: StatePaths, session: SessionFile) -> None:
    paths.archive.mkdir(mode=0o700, exist_ok=True)
    name = _SAFE_NAME.sub("_", session.session_id)[:100] or "session"
    _write_model(_free_name(paths.archive, name, ".json"), session)


def _remove_stale_temp_files(paths: StatePaths) -> None:
    # Writers only create temp files while holding the lock, so any found now were left by
    # a process that died mid-write.
    for stale in (
        *paths.root.glob(".*.tmp"),
        *paths.home.glob(".*.tmp"),
        *paths.archive.glob(".*.tmp"),
    ):
        with contextlib.suppress(FileNotFoundError):
            stale.unlink()


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# --- The semantic vector cache ------------------------------------------------------------


def read_vectors(paths: StatePaths, model_id: str) -> dict[str, np.ndarray]:
    """Cached vectors by content key; empty if missing, unreadable or from another model.

    The cache is derived data: an unreadable one is simply rebuilt, never trusted.
    """
    import numpy as np

    try:
        with np.load(paths.vectors, allow_pickle=False) as data:
            if str(data["model_id"]) != model_id:
                return {}
            return dict(zip(data["keys"].tolist(), data["vectors"], strict=True))
    except (OSError, ValueError, KeyError):
        return {}


def write_vectors(
    paths: StatePaths, vectors: dict[str, np.ndarray], model_id: str, *, lock_timeout: float
) -> None:
    """Replace the cache atomically under the lock (a busy lock just skips the write)."""
    import numpy as np
    from filelock import FileLock, Timeout

    ensure_folder(paths)
    keys = sorted(vectors)
    matrix = np.stack([vectors[k] for k in keys]) if keys else np.zeros((0, 0), np.float32)
    try:
        with FileLock(paths.lock, timeout=lock_timeout):
            fd, tmp = tempfile.mkstemp(dir=paths.home, prefix=".ltm.vectors.", suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as handle:
                    np.savez(
                        handle, keys=np.array(keys), vectors=matrix, model_id=np.array(model_id)
                    )
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(tmp, paths.vectors)
            except BaseException:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(tmp)
                raise
            _fsync_dir(paths.home)
    except Timeout:
        return


# --- Forgetting for good and clearing -----------------------------------------------------


def purge_memory(
    paths: StatePaths, memory_id: str, *, now: datetime, lock_timeout: float
) -> Memory | None:
    """Remove a memory and its text everywhere: ltm.json, its history, its cached vector,
    and exact copies of the text in this user's session transcripts. The history keeps a
    line saying that it was purged, without the text. None if there is no such memory.

    Order: the new history replaces the old one first, then ltm.json; a crash in between
    leaves readable files, and running the purge again finishes it.
    """
    from filelock import FileLock

    ensure_folder(paths)
    with FileLock(paths.lock, timeout=lock_timeout):
        warnings: list[str] = []
        ltm, _ = _read_locked(paths.ltm, LtmFile, now=now, warnings=warnings, move_aside=True)
        target = next((m for m in ltm.memories if m.id == memory_id), None) if ltm else None
        if ltm is None or target is None:
            return None
        kept = [h for h in read_history(paths, ltm) if h.memory_id != memory_id]
        kept.append(
            HistoryEntry(
                memory_id=memory_id, at=now, event="purged", reason="by command; text removed"
            )
        )
        text = "".join(h.model_dump_json() + "\n" for h in kept)
        atomic_write_text(paths.history, text)
        ltm.memories = [m for m in ltm.memories if m.id != memory_id]
        ltm.history_bytes = len(text.encode("utf-8"))
        _write_model(paths.ltm, ltm)
        _drop_vector(paths, target.content)
        for session_path in (paths.home / "session.json", *sorted(paths.archive.glob("*.json"))):
            _scrub_session(session_path, target.content)
        return target


def _drop_vector(paths: StatePaths, content: str) -> None:
    if not paths.vectors.exists():
        return
    import numpy as np

    from .embeddings import content_key

    with np.load(paths.vectors, allow_pickle=False) as data:
        keys, vectors, model_id = data["keys"], data["vectors"], data["model_id"]
    keep = keys != content_key(content)
    fd, tmp = tempfile.mkstemp(dir=paths.home, prefix=".ltm.vectors.", suffix=".tmp")
    with os.fdopen(fd, "wb") as handle:
        np.savez(handle, keys=keys[keep], vectors=vectors[keep], model_id=model_id)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, paths.vectors)


def _scrub_session(path: Path, content: str) -> None:
    try:
        session = _parse(path.read_bytes(), path, SessionFile)
    except (FileNotFoundError, _Unreadable):
        return
    needle = content.strip()
    if needle not in session.session_summary and not any(
        needle in m.content for m in session.messages
    ):
        return
    session.session_summary = session.session_summary.replace(needle, "[purged]")
    for message in session.messages:
        message.content = message.content.replace(needle, "[purged]")
    _write_model(path, session)


def clear_memory(paths: StatePaths, *, lock_timeout: float) -> int:
    """Delete this user's long-term memory, its history and vectors; return how many
    memories there were (0: nothing to clear)."""
    from filelock import FileLock

    ensure_folder(paths)
    with FileLock(paths.lock, timeout=lock_timeout):
        count = 0
        if paths.ltm.exists():
            try:
                count = len(_parse(paths.ltm.read_bytes(), paths.ltm, LtmFile).memories)
            except _Unreadable:
                count = 1  # unreadable, but there was something: clearing is the request
        for path in (paths.ltm, paths.history, paths.vectors):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        _fsync_dir(paths.home)
        return count


def clear_session(paths: StatePaths, *, lock_timeout: float) -> int:
    """Delete the current session's turns and summary; return how many turns it had."""
    from filelock import FileLock

    ensure_folder(paths)
    with FileLock(paths.lock, timeout=lock_timeout):
        try:
            session = _parse(paths.session.read_bytes(), paths.session, SessionFile)
            turns = len({m.turn_id for m in session.messages}) or int(bool(session.session_summary))
        except FileNotFoundError:
            return 0
        except _Unreadable:
            turns = 1
        paths.session.unlink()
        _fsync_dir(paths.session.parent)
        return turns


# --- Counters (seed 004): a small file of its own, so counting never rewrites ltm.json ----


def read_counters(paths: StatePaths) -> dict[str, int]:
    try:
        data = json.loads(paths.counters.read_bytes())
    except (FileNotFoundError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): v for k, v in data.items() if isinstance(v, int)}


def _add_counters(paths: StatePaths, increments: dict[str, int]) -> None:
    totals = read_counters(paths)
    for key, value in increments.items():
        totals[key] = totals.get(key, 0) + value
    atomic_write_text(paths.counters, json.dumps(dict(sorted(totals.items())), indent=1) + "\n")
