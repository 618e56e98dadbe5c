"""The one module that touches state files: paths, lock, reads, quarantine, commits.

Every write goes through `transact()`: take the folder's lock, finish or discard what an
interrupted earlier commit left, re-read the files, let the caller merge its changes into
what is on disk *now*, and commit every changed file at once (see `_Commit`). LLM calls
never happen under the lock. Reads are bounded and of regular files only (`safeio`).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import secrets
from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ValidationError

from .errors import (
    LockTimeout,
    NotEmpty,
    RecoveryFailed,
    SaveFailed,
    StateError,
    StateFolderError,
    UnsafeFile,
)
from .models import (
    SCHEMA_VERSION,
    HistoryEntry,
    LtmFile,
    Memory,
    Message,
    Scope,
    SessionFile,
)
from .paths import StatePaths
from .safeio import check_regular_or_missing, open_regular, read_regular

if TYPE_CHECKING:
    import numpy as np

    from .retrieval import PoolStats

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]")

# How to choose another folder: the state folder, or a migration's target.
_ELSEWHERE = " (--state-dir or MEMTEST_STATE_DIR; for a migration, another --to)"
# Errors that mean "the disk cannot take this now", not "this folder is the wrong place".
_DISK_ERRORS = (errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EROFS)


@dataclass
class Snapshot:
    """Both files as read; `warnings` says what could not be read and where it was moved.

    `ltm_digest` identifies the bytes `ltm` was parsed from (None if there was no file).
    `partial` says `ltm.memories` holds only the memories a `Focus` asked for (in their
    stored order; `next_seq` and the file's other fields are whole).
    """

    ltm: LtmFile
    session: SessionFile | None
    warnings: list[str] = field(default_factory=list)
    ltm_digest: str | None = None
    partial: bool = False


@dataclass(frozen=True)
class Focus:
    """The memories a merge will look at, so that a store with an index may read only them.

    `texts`: texts the gate compares with the stored memories; the memories that could be
    the same fact as one of them (see `gate.same_fact_terms`) are enough. `ids`: memories
    named directly (a reinforced or revised target, a memory to forget). `created_since`:
    memories created by reflection after this instant (the daily quota counts them). A
    store without such an index reads every memory, as without a focus.
    """

    texts: tuple[str, ...] = ()
    ids: frozenset[str] = frozenset()
    created_since: datetime | None = None


@dataclass(frozen=True)
class Recall:
    """What a turn's lexical retrieval will rank, for a store that can find it by index:
    the query's weighted terms (given the session as stored: earlier turns weigh in), the
    scope it sees, the confidence floor (after decay over `horizon_hours`) and how many
    memories it shows at most."""

    weights: Callable[[SessionFile | None], Mapping[str, float]]
    scope: Scope
    min_confidence: float
    horizon_hours: float
    limit: int


@dataclass
class Recalled:
    """A partial snapshot holding every memory that can rank in a `Recall`'s first
    `limit`, BM25's counts over all it could rank, and how many memories there are."""

    snapshot: Snapshot
    stats: PoolStats
    total: int


@dataclass
class Change(Generic[T]):
    """What a transaction wants written. None leaves a file as it is."""

    result: T
    ltm: LtmFile | None = None
    session: SessionFile | None = None
    archive_session: SessionFile | None = None
    history: list[HistoryEntry] = field(default_factory=list)
    counters: dict[str, int] = field(default_factory=dict)  # increments
    # Turns that left the session's window without a summary: archived, never dropped.
    overflow: list[Message] = field(default_factory=list)


@dataclass
class UserState:
    """Everything a store holds for one user, as a migration copies it.

    `sessions` are by name ("" is the unnamed current session); `archives` are sessions
    archived by a new session, oldest first; `overflow` holds the turns that left a
    session's window, by session. `set_aside` names what the store keeps aside as
    unreadable (never copied). The vector cache is derived data and is not part of it.
    """

    ltm: LtmFile = field(default_factory=LtmFile)
    history: list[HistoryEntry] = field(default_factory=list)
    counters: dict[str, int] = field(default_factory=dict)
    sessions: dict[str, SessionFile] = field(default_factory=dict)
    archives: list[SessionFile] = field(default_factory=list)
    overflow: dict[str, SessionFile] = field(default_factory=dict)
    set_aside: list[str] = field(default_factory=list)

    def is_empty(self) -> bool:
        """True when there is nothing of this user to copy (and no id ever issued)."""
        return not (
            self.ltm.memories
            or self.ltm.next_seq != 1
            or self.history
            or self.counters
            or self.sessions
            or self.archives
            or self.overflow
        )


# --- Write primitives ---------------------------------------------------------------------
#
# Every change this module makes to the disk goes through the five functions below. Tests
# set `fault_hook` to make the Nth of them fail (ENOSPC, EIO...) and check that the state
# is then exactly as before or exactly as after the change, in the manner of SQLite's
# I/O-error tests. The hook is called with the operation's name and path before it runs.

fault_hook: Callable[[str, Path], None] | None = None


def _io(op: str, path: Path) -> None:
    if fault_hook is not None:
        fault_hook(op, path)


def _write_new(path: Path, data: bytes) -> None:
    """Create `path` (it must not exist), write `data`, fsync it."""
    _io("write", path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise
    os.close(fd)


def _replace(src: Path, dst: Path) -> None:
    _io("rename", dst)
    os.replace(src, dst)


def _unlink(path: Path) -> None:
    """Remove `path`; a file already gone is fine (this is how recovery stays idempotent)."""
    _io("unlink", path)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def _fsync_dir(folder: Path) -> None:
    _io("fsync", folder)
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _temp_name(target: Path) -> Path:
    return target.parent / f".{target.name}.{secrets.token_hex(4)}.tmp"


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Replace one file so that a reader sees the old or the new file, never half."""
    tmp = _temp_name(path)
    try:
        _write_new(tmp, data)
        _replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def _dump(model: BaseModel) -> bytes:
    return (model.model_dump_json(indent=1) + "\n").encode("utf-8")


# --- The commit -------------------------------------------------------------------------


class _Commit:
    """All the files one change writes, made visible together or not at all.

    Prepare: every new file is written in full to a temp file beside its target and
    fsynced; history lines are appended past the mark `history_bytes` (invisible until the
    new ltm.json is in place). Commit point: a change of one file is a single rename; a
    change of several writes a commit record (.commit.json: the renames and deletions to
    do) with one atomic rename. Then the record is carried out and removed. A process that
    dies before the commit point leaves temp files and an uncommitted history tail, which
    the next writer removes (rolled back); one that dies after it leaves the record, which
    the next reader or writer carries out again (rolled forward: each rename is done only
    if its temp file is still there, so doing it twice is harmless).
    """

    def __init__(self, paths: StatePaths) -> None:
        self.paths = paths
        self.renames: list[tuple[Path, Path]] = []
        self.unlinks: list[Path] = []
        self.appended: tuple[Path, int] | None = None  # history file, its committed length

    def stage(self, target: Path, data: bytes) -> None:
        tmp = _temp_name(target)
        self.renames.append((tmp, target))
        _write_new(tmp, data)

    def remove(self, target: Path) -> None:
        self.unlinks.append(target)

    def append_history(self, committed: int, entries: list[HistoryEntry]) -> int:
        self.appended = (self.paths.history, committed)
        return _append_history(self.paths, committed, entries)

    def commit(self) -> None:
        """The commit point. Before it returns, an OSError means nothing was changed."""
        if len(self.renames) + len(self.unlinks) > 1:
            record = {
                "renames": [[self._rel(t), self._rel(d)] for t, d in self.renames],
                "unlinks": [self._rel(p) for p in self.unlinks],
            }
            tmp = _temp_name(self.paths.commit_record)
            try:
                _write_new(tmp, json.dumps(record).encode("utf-8"))
                _replace(tmp, self.paths.commit_record)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        elif self.renames:
            _replace(*self.renames[0])
        elif self.unlinks:
            _unlink(self.unlinks[0])

    def finish(self) -> None:
        """Carry the commit out (after the commit point: an error leaves it to recovery)."""
        if len(self.renames) + len(self.unlinks) > 1:
            _fsync_dir(self.paths.root)  # the record is durable before any file moves
            _carry_out(self.paths, self.renames, self.unlinks)
        elif self.renames or self.unlinks:
            target = self.renames[0][1] if self.renames else self.unlinks[0]
            _fsync_dir(target.parent)

    def roll_back(self) -> None:
        """Undo the prepare step (before the commit point); errors here are ignored, the
        next writer cleans up what is left."""
        for tmp, _ in self.renames:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        if self.appended is not None:
            path, committed = self.appended
            with contextlib.suppress(OSError), open(path, "r+b") as handle:
                handle.truncate(committed)

    def _rel(self, path: Path) -> str:
        return os.path.relpath(path, self.paths.root)


def _carry_out(paths: StatePaths, renames: list[tuple[Path, Path]], unlinks: list[Path]) -> None:
    for tmp, target in renames:
        if os.path.lexists(tmp):
            _replace(tmp, target)
    for path in unlinks:
        _unlink(path)
    for folder in dict.fromkeys(p.parent for p in (*(t for _, t in renames), *unlinks)):
        if folder.is_dir():
            _fsync_dir(folder)
    _unlink(paths.commit_record)
    _fsync_dir(paths.root)


def _recover(paths: StatePaths) -> list[str]:
    """Under the lock: carry out a commit record left by a process that stopped after its
    commit point. Returns a warning when there was one."""
    try:
        raw = read_regular(paths.commit_record, max_bytes=1 << 20)
    except FileNotFoundError:
        return []
    root = paths.root.resolve()

    def inside(rel: Any) -> Path:
        if not isinstance(rel, str):
            raise ValueError("not a path")
        path = paths.root / rel
        if not path.resolve().is_relative_to(root) or ".." in Path(rel).parts:
            raise ValueError(f"{rel!r} is outside the state folder")
        return path

    try:
        record = json.loads(raw)
        renames = [(inside(t), inside(d)) for t, d in record["renames"]]
        unlinks = [inside(p) for p in record["unlinks"]]
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        # Records are written atomically, so this one was damaged by hand: keep it, undo.
        aside = _free_name(paths.root, "commit.json.corrupt")
        _replace(paths.commit_record, aside)
        return [
            f"an unreadable commit record was moved to {aside.name} ({exc}); its change "
            "was not applied"
        ]
    try:
        _carry_out(paths, renames, unlinks)
    except OSError as exc:
        raise RecoveryFailed(
            f"An earlier change was saved but its files could not all be put in place: "
            f"{_describe(exc)}. It stays recorded in {paths.commit_record} and the next "
            "command will finish it."
        ) from exc
    return ["finished saving a change that an earlier run had committed but not completed"]


def _describe(exc: OSError) -> str:
    where = f" ({exc.filename})" if exc.filename else ""
    return f"{exc.strerror or exc}{where}"


@contextlib.contextmanager
def _locked(paths: StatePaths, lock_timeout: float) -> Iterator[list[str]]:
    """The folder's lock, with the state recovered: yields the recovery warnings."""
    ensure_folder(paths)
    _check_lock_file(paths)
    from filelock import FileLock, Timeout

    try:
        with FileLock(paths.lock, timeout=lock_timeout):
            warnings = _recover(paths)
            _remove_stale_temp_files(paths)
            yield warnings
    except Timeout as exc:
        raise LockTimeout(
            f"The state folder {paths.root} is locked by another process "
            f"(waited {lock_timeout:g} s for {paths.lock}). Try again, or raise "
            f"MEMTEST_LOCK_TIMEOUT."
        ) from exc


def ensure_usable(paths: StatePaths) -> None:
    """Create the folders and the lock file now, so a folder that cannot hold state fails
    at once (before a model call), not after the lock timeout."""
    ensure_folder(paths)
    _check_lock_file(paths)


def _check_lock_file(paths: StatePaths) -> None:
    """Fail at once, not after the lock timeout, when the lock file cannot exist here."""
    try:
        fd = os.open(paths.lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
    except OSError as exc:
        if exc.errno in _DISK_ERRORS:
            raise SaveFailed(
                f"Cannot create the lock file {paths.lock}: {exc.strerror}. Nothing was saved.",
                cause=exc,
            ) from exc
        raise StateFolderError(
            f"The state folder {paths.root} cannot be used: {exc.strerror} creating "
            f"{paths.lock.name}. Choose another folder" + _ELSEWHERE + "."
        ) from exc
    os.close(fd)


def load(paths: StatePaths, *, now: datetime, quarantine_ltm: bool = True) -> Snapshot:
    """Read both files without the lock (writers replace files atomically).

    An unreadable file is moved aside under the lock and the turn goes on without it;
    with `quarantine_ltm=False` (a dry run) ltm.json is left exactly where it is.
    """
    warnings: list[str] = []
    if os.path.lexists(paths.commit_record):
        with _locked(paths, 30) as recovered:
            warnings.extend(recovered)
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
    """Lock, re-read, merge, commit all at once. Returns merge's result and any warnings.

    SaveFailed means nothing of the change was saved. After the commit point a failure
    only leaves a warning: the change is saved, and the next command finishes its files.
    `known` is a snapshot loaded earlier and not modified since: if ltm.json still holds
    the very bytes it was parsed from, its parsed form is reused instead of parsed again.
    """
    reuse = (known.ltm, known.ltm_digest) if known and known.ltm_digest else None
    with _locked(paths, lock_timeout) as warnings:
        ltm, digest = _read_locked(
            paths,
            paths.ltm,
            LtmFile,
            now=now,
            warnings=warnings,
            move_aside=write_ltm,
            reuse=reuse,
        )
        session, _ = _read_locked(
            paths, paths.session, SessionFile, now=now, warnings=warnings, move_aside=True
        )
        change = merge(
            Snapshot(ltm=ltm or LtmFile(), session=session, warnings=warnings, ltm_digest=digest)
        )
        commit = _Commit(paths)
        try:
            _prepare(paths, commit, change, ltm, now=now, write_ltm=write_ltm)
            commit.commit()
        except OSError as exc:
            commit.roll_back()
            raise SaveFailed(
                f"Could not save: {_describe(exc)}. Nothing was saved; the state is "
                "exactly as it was before.",
                cause=exc,
            ) from exc
        try:
            commit.finish()
        except OSError as exc:
            warnings.append(
                f"saved, but putting the files in place failed ({_describe(exc)}); "
                "the next command finishes it"
            )
        return change.result, warnings


def _prepare(
    paths: StatePaths,
    commit: _Commit,
    change: Change[Any],
    ltm_on_disk: LtmFile | None,
    *,
    now: datetime,
    write_ltm: bool,
) -> None:
    if write_ltm and change.ltm is not None:
        committed = ltm_on_disk.history_bytes if ltm_on_disk else 0
        change.ltm.history_bytes = commit.append_history(committed, change.history)
        commit.stage(paths.ltm, _dump(change.ltm))
    if change.counters:
        commit.stage(paths.counters, _counters_bytes(paths, change.counters, now=now))
    if change.archive_session is not None:
        paths.archive.mkdir(mode=0o700, exist_ok=True)
        name = _SAFE_NAME.sub("_", change.archive_session.session_id)[:100] or "session"
        commit.stage(_free_name(paths.archive, name, ".json"), _dump(change.archive_session))
    if change.overflow and change.session is not None:
        commit.stage(*_overflow_file(paths, change.session, change.overflow, now=now))
    if change.session is not None:
        commit.stage(paths.session, _dump(change.session))


def _overflow_file(
    paths: StatePaths, session: SessionFile, messages: list[Message], *, now: datetime
) -> tuple[Path, bytes]:
    """The session's overflow archive with `messages` added (it is a session file too)."""
    paths.overflow.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = paths.overflow / f"{_SAFE_NAME.sub('_', session.session_id)[:100] or 'session'}.json"
    archived, _ = _read_locked(paths, path, SessionFile, now=now, warnings=[], move_aside=True)
    if archived is None:
        archived = session.model_copy(update={"messages": [], "session_summary": ""})
    archived.messages.extend(messages)
    return path, _dump(archived)


def ensure_folder(paths: StatePaths) -> None:
    """Create the state folders, private to the user (they hold personal data)."""
    try:
        paths.root.mkdir(mode=0o700, parents=True, exist_ok=True)
        paths.home.mkdir(mode=0o700, parents=True, exist_ok=True)
        if paths.session_name is not None:
            paths.archive.mkdir(mode=0o700, exist_ok=True)
    except FileExistsError as exc:
        raise StateFolderError(
            f"{exc.filename} is a file where a state folder should be; "
            "choose another folder" + _ELSEWHERE
        ) from exc
    except OSError as exc:
        if exc.errno in _DISK_ERRORS:
            raise SaveFailed(
                f"Cannot create the state folder: {_describe(exc)}. Nothing was saved.",
                cause=exc,
            ) from exc
        raise StateFolderError(
            f"The state folder {paths.root} cannot be used: {_describe(exc)}. "
            "Choose another folder" + _ELSEWHERE + "."
        ) from exc


# --- Reading --------------------------------------------------------------------------------


class _Unreadable(Exception):
    pass


def _read_raw(path: Path, max_bytes: int) -> bytes | None:
    """A state file's bytes; None if there is none. Refuses what is not a regular file."""
    try:
        return read_regular(path, max_bytes=max_bytes)
    except FileNotFoundError:
        return None
    except UnsafeFile:
        raise
    except OSError as exc:
        raise StateError(
            f"Cannot read {path}: {exc.strerror or exc}. Nothing was changed."
        ) from exc


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
    raw = _read_raw(path, paths.max_bytes)
    if raw is None:
        return None, None
    try:
        parsed, rejected = _parse(raw, path, model)
        if not rejected:
            return parsed, _digest(raw)
    except _Unreadable:
        pass
    if not move_aside:
        return _read_locked(paths, path, model, now=now, warnings=warnings, move_aside=False)
    with _locked(paths, 30) as recovered:
        warnings.extend(recovered)
        return _read_locked(paths, path, model, now=now, warnings=warnings, move_aside=True)


def _read_locked(
    paths: StatePaths,
    path: Path,
    model: type[M],
    *,
    now: datetime,
    warnings: list[str],
    move_aside: bool,
    reuse: tuple[M, str] | None = None,
) -> tuple[M | None, str | None]:
    """Read (under the lock). An unreadable file is renamed to <name>.corrupt-<timestamp>;
    memories that fail validation go to ltm.json.invalid-<timestamp>.jsonl, with why."""
    raw = _read_raw(path, paths.max_bytes)
    if raw is None:
        return None, None
    digest = _digest(raw)
    if reuse is not None and reuse[1] == digest:
        return reuse[0], digest
    try:
        parsed, rejected = _parse(raw, path, model)
    except _Unreadable as exc:
        if not move_aside:
            warnings.append(
                f"{path.name} could not be read ({exc}); continuing without it "
                "(left in place: dry run)"
            )
            return None, None
        aside = _set_aside_name(path, "corrupt", now)
        _replace(path, aside)
        companion = path.with_name("ltm.history.jsonl")
        if path.name == "ltm.json" and companion.exists():
            # The history belongs to the store that could not be read: keep them together.
            _replace(companion, path.parent / f"{aside.name}.history.jsonl")
        _fsync_dir(path.parent)
        warnings.append(
            f"{path.name} could not be read ({exc}); moved it to {aside.name} "
            "and continued with an empty one"
        )
        return None, None
    if not rejected:
        return parsed, digest
    reasons = "; ".join(reason for _, reason in rejected[:3])
    if not move_aside:
        warnings.append(
            f"{len(rejected)} memory(ies) in {path.name} could not be read ({reasons}); "
            "continuing without them (left in place: dry run)"
        )
        return parsed, None
    # The side file is written before ltm.json loses them: a crash in between leaves them
    # in both places (moved again next time), never in neither.
    side = _set_aside_name(path, "invalid", now, ".jsonl")
    lines = "".join(
        json.dumps({"reason": reason, "memory": memory}, ensure_ascii=False) + "\n"
        for memory, reason in rejected
    )
    atomic_write_text(side, lines)
    fixed = _dump(parsed)
    atomic_write_bytes(path, fixed)
    warnings.append(
        f"{len(rejected)} memory(ies) in {path.name} could not be read ({reasons}); moved "
        f"them to {side.name}; the other {len(parsed.memories)} are in use"  # type: ignore[attr-defined]
    )
    return parsed, _digest(fixed)


def _digest(raw: bytes) -> str:
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


def _parse(raw: bytes, path: Path, model: type[M]) -> tuple[M, list[tuple[Any, str]]]:
    """Validate straight from bytes (the fast path); if that fails, find out why.

    Returns the parsed file and, for ltm.json, the memories that failed validation with
    their reasons (the rest stay in use). A newer schema_version raises StateError; any
    other unreadable file, whatever the cause (invalid bytes, nesting too deep, a value
    out of range), raises _Unreadable.
    """
    try:
        parsed = model.model_validate_json(raw)
    except ValidationError:
        return _parse_slowly(raw, path, model)
    except RecursionError:
        raise _Unreadable("nested too deeply") from None
    _check_schema(getattr(parsed, "schema_version", SCHEMA_VERSION), path)
    return parsed, []


def _parse_slowly(raw: bytes, path: Path, model: type[M]) -> tuple[M, list[tuple[Any, str]]]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _Unreadable(f"not UTF-8 text (at byte {exc.start})") from None
    try:
        data = json.loads(text)
    except RecursionError:
        raise _Unreadable("nested too deeply") from None
    except ValueError as exc:
        raise _Unreadable(f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise _Unreadable(f"top level: expected an object, found {type(data).__name__}")
    if "schema_version" in data:
        _check_schema(data["schema_version"], path)
    memories = data.get("memories") if model is LtmFile else None
    if not isinstance(memories, list):
        return _validate(model, data), []  # raises with the reason if it is invalid
    top = _validate(model, {**data, "memories": []})
    kept, rejected = [], []
    for i, item in enumerate(memories):
        try:
            kept.append(_validate(Memory, item))
        except _Unreadable as exc:
            name = item.get("id") if isinstance(item, dict) else None
            rejected.append((item, f"memories.{i}{f' ({name})' if name else ''}: {exc}"))
    top.memories = kept  # type: ignore[attr-defined]
    return top, rejected


def _validate(model: type[M], data: Any) -> M:
    try:
        return model.model_validate(data)
    except RecursionError:
        raise _Unreadable("nested too deeply") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "top level"
        raise _Unreadable(f"{where}: {first['msg']}") from None


def _check_schema(version: Any, path: Path) -> None:
    """A newer integer version is refused (StateError); anything but an integer from 1 to
    the known version is unreadable, whatever its JSON type ("1", 1.0, true, -5)."""
    if type(version) is int and version > SCHEMA_VERSION:
        raise StateError(
            f"{path} has schema_version {version}, but this version of memory-test only "
            f"knows {SCHEMA_VERSION}. Upgrade memory-test; nothing was changed."
        )
    if type(version) is not int or version < 1:
        raise _Unreadable(
            f"schema_version {json.dumps(version)[:40]} is not an integer from 1 to "
            f"{SCHEMA_VERSION}"
        )


def _set_aside_name(path: Path, kind: str, now: datetime, suffix: str = "") -> Path:
    """Where `path` (or part of it) is kept aside: `<name>.<kind>-<time><suffix>`, the
    shape `memory status` and a migration look for, never an existing file."""
    return _free_name(path.parent, f"{path.name}.{kind}-{now:%Y%m%dT%H%M%S}", suffix)


def _free_name(folder: Path, base: str, suffix: str = "") -> Path:
    """folder/base+suffix, or base-1+suffix, base-2+suffix... whichever does not exist yet."""
    candidate, n = folder / f"{base}{suffix}", 1
    while os.path.lexists(candidate):
        candidate = folder / f"{base}-{n}{suffix}"
        n += 1
    return candidate


# --- History ------------------------------------------------------------------------------


def _append_history(paths: StatePaths, committed: int, entries: list[HistoryEntry]) -> int:
    """Append history lines after the committed part; return the new committed length.

    Bytes past `committed` were written by a commit that died before it replaced
    ltm.json: they describe changes that never happened, so they are cut off first.
    Runs under the lock, before ltm.json is replaced (the commit point).
    """
    path = paths.history
    check_regular_or_missing(path)
    if committed == 0 and path.exists() and path.stat().st_size > 0 and not paths.ltm.exists():
        # History without its store (ltm.json deleted by hand): keep it, start afresh.
        _replace(path, _free_name(paths.home, f"{path.name}.orphaned"))
    if not entries and not path.exists():
        return 0
    _io("append", path)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    with os.fdopen(fd, "r+b") as handle:
        size = handle.seek(0, os.SEEK_END)
        if size > committed:
            handle.truncate(committed)
        handle.seek(min(size, committed))
        handle.write(b"".join(e.model_dump_json().encode("utf-8") + b"\n" for e in entries))
        handle.flush()
        os.fsync(handle.fileno())
        return handle.tell()


def read_history(
    paths: StatePaths, ltm: LtmFile, memory_id: str | None = None
) -> list[HistoryEntry]:
    """The committed history (of one memory, if given), oldest first."""
    try:
        raw = read_regular(paths.history, max_bytes=paths.max_bytes, limit=ltm.history_bytes)
    except FileNotFoundError:
        return []
    out = []
    for line in raw.splitlines():
        try:
            entry = HistoryEntry.model_validate_json(line)
        except (ValidationError, RecursionError):
            continue  # a damaged line is skipped; the rest of the record still reads
        if memory_id is None or entry.memory_id == memory_id:
            out.append(entry)
    return out


def _remove_stale_temp_files(paths: StatePaths) -> None:
    # Writers only create temp files while holding the lock, and recovery has just used
    # any a commit record named, so the ones found now were left by a process that died
    # before its commit point.
    for folder in (paths.root, paths.home, paths.archive, paths.overflow):
        for stale in folder.glob(".*.tmp"):
            with contextlib.suppress(FileNotFoundError):
                stale.unlink()


# --- The semantic vector cache ------------------------------------------------------------


def read_vectors(paths: StatePaths, model_id: str) -> dict[str, np.ndarray]:
    """Cached vectors by content key; empty if missing, unreadable or from another model.

    The cache is derived data: an unreadable one is simply rebuilt, never trusted.
    """
    import numpy as np

    try:
        with open_regular(paths.vectors) as handle:
            if os.fstat(handle.fileno()).st_size > paths.max_bytes:
                return {}
            with np.load(handle, allow_pickle=False) as data:
                if str(data["model_id"]) != model_id:
                    return {}
                return dict(zip(data["keys"].tolist(), data["vectors"], strict=True))
    except (OSError, ValueError, KeyError, EOFError, UnsafeFile):
        return {}


def _vectors_bytes(keys: Any, vectors: Any, model_id: Any) -> bytes:
    import io

    import numpy as np

    buffer = io.BytesIO()
    np.savez(buffer, keys=keys, vectors=vectors, model_id=model_id)
    return buffer.getvalue()


def write_vectors(
    paths: StatePaths, vectors: dict[str, np.ndarray], model_id: str, *, lock_timeout: float
) -> None:
    """Replace the cache atomically under the lock. It is derived data, so a busy lock or
    a failed write just skips it (the next turn embeds what is missing)."""
    import numpy as np

    keys = sorted(vectors)
    matrix = np.stack([vectors[k] for k in keys]) if keys else np.zeros((0, 0), np.float32)
    data = _vectors_bytes(np.array(keys), matrix, np.array(model_id))
    try:
        with _locked(paths, lock_timeout):
            atomic_write_bytes(paths.vectors, data)
    except (LockTimeout, SaveFailed, OSError):
        return


# --- Forgetting for good and clearing -----------------------------------------------------


def purge_memory(
    paths: StatePaths, memory_id: str, *, now: datetime, lock_timeout: float
) -> tuple[Memory | None, list[str]]:
    """Remove a memory and its text everywhere: ltm.json, its history, its cached vector,
    and exact copies of the text in this user's session transcripts. The history keeps a
    line saying that it was purged, without the text. None if there is no such memory.

    All of these files change in one commit: a purge that fails before its commit point
    changes nothing; one interrupted after it is finished by the next command.
    """
    with _locked(paths, lock_timeout) as warnings:
        ltm, _ = _read_locked(
            paths, paths.ltm, LtmFile, now=now, warnings=warnings, move_aside=True
        )
        target = next((m for m in ltm.memories if m.id == memory_id), None) if ltm else None
        if ltm is None or target is None:
            return None, warnings
        kept = [h for h in read_history(paths, ltm) if h.memory_id != memory_id]
        kept.append(
            HistoryEntry(
                memory_id=memory_id, at=now, event="purged", reason="by command; text removed"
            )
        )
        history = b"".join(h.model_dump_json().encode("utf-8") + b"\n" for h in kept)
        ltm.memories = [m for m in ltm.memories if m.id != memory_id]
        ltm.history_bytes = len(history)
        commit = _Commit(paths)
        try:
            commit.stage(paths.history, history)
            commit.stage(paths.ltm, _dump(ltm))
            vectors = _vectors_without(paths, target.content)
            if vectors is not None:
                commit.stage(paths.vectors, vectors)
            sessions = (
                paths.home / "session.json",
                *sorted(paths.archive.glob("*.json")),
                *sorted(paths.overflow.glob("*.json")),
            )
            for session_path in sessions:
                scrubbed = _scrubbed_session(paths, session_path, target.content)
                if scrubbed is not None:
                    commit.stage(session_path, scrubbed)
            commit.commit()
        except OSError as exc:
            commit.roll_back()
            raise SaveFailed(
                f"Could not purge {memory_id}: {_describe(exc)}. Nothing was changed; its "
                "text is still stored. Run the purge again when the disk is writable.",
                cause=exc,
            ) from exc
        try:
            commit.finish()
        except OSError as exc:
            warnings.append(
                f"the purge is saved, but putting its files in place failed "
                f"({_describe(exc)}); the next command finishes it"
            )
        return target, warnings


def _vectors_without(paths: StatePaths, content: str) -> bytes | None:
    if not paths.vectors.exists():
        return None
    import numpy as np

    from .embeddings import content_key

    try:
        with open_regular(paths.vectors) as handle, np.load(handle, allow_pickle=False) as data:
            keys, vectors, model_id = data["keys"], data["vectors"], data["model_id"]
    except (ValueError, KeyError, EOFError, UnsafeFile):
        return b""  # unreadable derived data: replaced by an empty file, rebuilt later
    keep = keys != content_key(content)
    return _vectors_bytes(keys[keep], vectors[keep], model_id)


def _scrubbed_session(paths: StatePaths, path: Path, content: str) -> bytes | None:
    """The session file with `content` replaced by [purged]; None if it does not hold it."""
    try:
        raw = read_regular(path, max_bytes=paths.max_bytes)
        session, _ = _parse(raw, path, SessionFile)
    except (FileNotFoundError, _Unreadable, StateError):
        return None
    needle = content.strip()
    if needle not in session.session_summary and not any(
        needle in m.content for m in session.messages
    ):
        return None
    session.session_summary = session.session_summary.replace(needle, "[purged]")
    for message in session.messages:
        message.content = message.content.replace(needle, "[purged]")
    return _dump(session)


def _remove_all(paths: StatePaths, files: list[Path], what: str) -> None:
    commit = _Commit(paths)
    for path in files:
        if os.path.lexists(path):
            commit.remove(path)
    try:
        commit.commit()
    except OSError as exc:
        raise SaveFailed(
            f"Could not clear {what}: {_describe(exc)}. Nothing was changed.", cause=exc
        ) from exc
    with contextlib.suppress(OSError):
        commit.finish()


def clear_memory(paths: StatePaths, *, lock_timeout: float) -> int:
    """Delete this user's long-term memory, its history and vectors; return how many
    memories there were (0: nothing to clear)."""
    with _locked(paths, lock_timeout):
        count = 0
        try:
            raw = _read_raw(paths.ltm, paths.max_bytes)
            if raw is not None:
                count = len(_parse(raw, paths.ltm, LtmFile)[0].memories) or 0
        except (_Unreadable, StateError):
            count = 1  # unreadable, but there was something: clearing is the request
        _remove_all(paths, [paths.ltm, paths.history, paths.vectors], "long-term memory")
        return count


def clear_session(paths: StatePaths, *, lock_timeout: float) -> int:
    """Delete the current session's turns and summary; return how many turns it had."""
    with _locked(paths, lock_timeout):
        try:
            raw = _read_raw(paths.session, paths.max_bytes)
            if raw is None:
                return 0
            session, _ = _parse(raw, paths.session, SessionFile)
            turns = len({m.turn_id for m in session.messages}) or int(bool(session.session_summary))
        except (_Unreadable, StateError):
            turns = 1
        _remove_all(paths, [paths.session], "the session")
        return turns


# --- Counters (seed 004): a small file of its own, so counting never rewrites ltm.json ----


def read_counters(paths: StatePaths) -> dict[str, int]:
    """The gate counters; empty if there are none or the file cannot be read."""
    try:
        return _parse_counters(read_regular(paths.counters, max_bytes=paths.max_bytes))
    except (FileNotFoundError, _Unreadable, UnsafeFile):
        return {}


def _parse_counters(raw: bytes) -> dict[str, int]:
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise _Unreadable(str(exc)) from None
    if not isinstance(data, dict):
        raise _Unreadable("not an object")
    return {str(k): v for k, v in data.items() if type(v) is int}


def _counters_bytes(paths: StatePaths, increments: dict[str, int], *, now: datetime) -> bytes:
    """The counters file with `increments` added; an unreadable one is moved aside first."""
    try:
        totals = _parse_counters(read_regular(paths.counters, max_bytes=paths.max_bytes))
    except FileNotFoundError:
        totals = {}
    except _Unreadable:
        _replace(paths.counters, _set_aside_name(paths.counters, "corrupt", now))
        totals = {}
    for key, value in increments.items():
        totals[key] = totals.get(key, 0) + value
    return (json.dumps(dict(sorted(totals.items())), indent=1) + "\n").encode("utf-8")


# --- The store interface ------------------------------------------------------------------


@runtime_checkable
class Store(Protocol):
    """One user's long-term memory and one session, wherever they are kept.

    Everything above this seam (the gate, apply, retrieval, prompts, commands) reads a
    `Snapshot` and writes through `transact(merge)`: the store re-reads under its own lock,
    calls the pure merge, and commits every part of the change at once, or none of it.
    The JSON-file store (`FileStore`) is the embedded default.
    """

    def describe(self) -> str:
        """Where this store keeps its data, for messages and `memory stats`."""
        ...

    def ensure_usable(self) -> None:
        """Fail now (before any model call) if this store cannot hold state."""
        ...

    def load(self, *, now: datetime, quarantine_ltm: bool = True) -> Snapshot:
        """The memories and the session as committed, without taking the lock."""
        ...

    def transact(
        self,
        merge: Callable[[Snapshot], Change[T]],
        *,
        now: datetime,
        lock_timeout: float,
        write_ltm: bool = True,
        known: Snapshot | None = None,
        focus: Focus | None = None,
    ) -> tuple[T, list[str]]:
        """Lock, re-read, merge, commit all at once; merge's result and any warnings.

        With `focus` the merge may be given only the memories it names (`Snapshot.partial`);
        memories it is not given are left exactly as they are."""
        ...

    def recall(self, request: Recall, *, now: datetime) -> Recalled | None:
        """The memories a lexical retrieval can rank first, read through an index with the
        session; None when this store has no such index (then `load` everything)."""
        ...

    def read_history(self, ltm: LtmFile, memory_id: str | None = None) -> list[HistoryEntry]:
        """The committed history (of one memory, if given), oldest first."""
        ...

    def read_counters(self) -> dict[str, int]:
        """The gate counters."""
        ...

    def purge_memory(
        self, memory_id: str, *, now: datetime, lock_timeout: float
    ) -> tuple[Memory | None, list[str]]:
        """Remove a memory and its text everywhere; None if there is no such memory."""
        ...

    def clear_memory(self, *, lock_timeout: float) -> int:
        """Delete this user's long-term memory; how many memories there were."""
        ...

    def clear_session(self, *, lock_timeout: float) -> int:
        """Delete the current session; how many turns it had."""
        ...

    def read_vectors(self, model_id: str) -> dict[str, np.ndarray]:
        """The vector cache by content key (derived data: empty when unusable)."""
        ...

    def write_vectors(
        self, vectors: dict[str, np.ndarray], model_id: str, *, lock_timeout: float
    ) -> None:
        """Replace the vector cache; a failure only skips it."""
        ...

    def version(self) -> Hashable:
        """A value that changes whenever the committed memories change."""
        ...

    def vectors_version(self) -> Hashable:
        """A value that changes whenever the vector cache changes."""
        ...

    def usage(self) -> dict[str, int]:
        """Bytes held, by part, for `memory stats`."""
        ...

    def read_user(self, *, lock_timeout: float) -> UserState:
        """Everything this user has (every session, not only this store's), one
        consistent view; changes nothing. StateError if a memory or session cannot be
        read; what the store itself skips on reading is named in `set_aside`."""
        ...

    def write_user(
        self,
        state: UserState,
        *,
        lock_timeout: float,
        verify: Callable[[UserState], None] | None = None,
    ) -> None:
        """Write a whole user into this store in one commit, ids as they are, after
        `verify` accepted what was written, read back; NotEmpty (nothing written) if the
        user already has data here."""
        ...


@dataclass(frozen=True)
class FileStore:
    """The embedded default: JSON files in a state folder, guarded by one file lock."""

    paths: StatePaths

    def describe(self) -> str:
        return str(self.paths.home)

    def ensure_usable(self) -> None:
        ensure_usable(self.paths)

    def load(self, *, now: datetime, quarantine_ltm: bool = True) -> Snapshot:
        return load(self.paths, now=now, quarantine_ltm=quarantine_ltm)

    def transact(
        self,
        merge: Callable[[Snapshot], Change[T]],
        *,
        now: datetime,
        lock_timeout: float,
        write_ltm: bool = True,
        known: Snapshot | None = None,
        focus: Focus | None = None,
    ) -> tuple[T, list[str]]:
        # One file holds every memory: reading all of them is the only way to read any.
        return transact(
            self.paths, merge, now=now, lock_timeout=lock_timeout, write_ltm=write_ltm, known=known
        )

    def recall(self, request: Recall, *, now: datetime) -> Recalled | None:
        return None  # ltm.json is read whole either way

    def read_history(self, ltm: LtmFile, memory_id: str | None = None) -> list[HistoryEntry]:
        return read_history(self.paths, ltm, memory_id)

    def read_counters(self) -> dict[str, int]:
        return read_counters(self.paths)

    def purge_memory(
        self, memory_id: str, *, now: datetime, lock_timeout: float
    ) -> tuple[Memory | None, list[str]]:
        return purge_memory(self.paths, memory_id, now=now, lock_timeout=lock_timeout)

    def clear_memory(self, *, lock_timeout: float) -> int:
        return clear_memory(self.paths, lock_timeout=lock_timeout)

    def clear_session(self, *, lock_timeout: float) -> int:
        return clear_session(self.paths, lock_timeout=lock_timeout)

    def read_vectors(self, model_id: str) -> dict[str, np.ndarray]:
        return read_vectors(self.paths, model_id)

    def write_vectors(
        self, vectors: dict[str, np.ndarray], model_id: str, *, lock_timeout: float
    ) -> None:
        write_vectors(self.paths, vectors, model_id, lock_timeout=lock_timeout)

    def version(self) -> Hashable:
        return _file_key(self.paths.ltm)

    def vectors_version(self) -> Hashable:
        return _file_key(self.paths.vectors)

    def usage(self) -> dict[str, int]:
        p = self.paths
        sizes = {}
        for path in (p.ltm, p.history, p.vectors, p.counters, p.session):
            with contextlib.suppress(OSError):
                sizes[path.name] = path.stat().st_size
        return sizes

    def read_user(self, *, lock_timeout: float) -> UserState:
        return read_user(self.paths, lock_timeout=lock_timeout)

    def write_user(
        self,
        state: UserState,
        *,
        lock_timeout: float,
        verify: Callable[[UserState], None] | None = None,
    ) -> None:
        write_user(self.paths, state, lock_timeout=lock_timeout, verify=verify)


def _file_key(path: Path) -> tuple[int, int, int] | None:
    """Size, modification time and inode: writers replace files atomically, so a new
    file is a new inode even within one clock tick."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


# --- A whole user at once: what a migration between stores reads and writes ---------------

# Side files of unreadable state (see _read_locked, _append_history, _recover).
_SET_ASIDE_PATTERNS = ("*.corrupt-*", "*.invalid-*", "*.orphaned*")


def read_user(paths: StatePaths, *, lock_timeout: float) -> UserState:
    """Every file of this user, read under the lock so no commit is half seen.

    In the files an archived session and a named session are both sessions/<name>.json,
    and the file store reads either as the named session: so they come back as
    `sessions`, and `archives` is empty. Nothing is moved aside (this is a read).
    """
    if not paths.home.is_dir():
        return UserState()  # no folder: nothing stored, and nothing is created
    with _locked(paths, lock_timeout):
        found = (paths.ltm, paths.history, paths.counters, paths.home / "session.json")
        listed = (*sorted(paths.archive.glob("*.json")), *sorted(paths.overflow.glob("*.json")))
        files = {}
        for path in (*found, *listed):
            raw = _read_raw(path, paths.max_bytes)
            if raw is not None:
                files[path] = raw
        set_aside = [
            str(p.relative_to(paths.home))
            for folder in (paths.home, paths.archive, paths.overflow)
            for pattern in _SET_ASIDE_PATTERNS
            for p in sorted(folder.glob(pattern))
        ]
    state = _parse_user(paths, files)
    state.set_aside[:0] = set_aside
    return state


def _parse_user(paths: StatePaths, files: dict[Path, bytes]) -> UserState:
    """A whole user from the bytes of its files, by path.

    What the store itself skips when it reads (a damaged history line, an unreadable
    counters file, a history without its ltm.json) is not copied and is named in
    `set_aside`. A memory or session that cannot be read is a StateError: it is the data
    itself, and copying the rest would leave it behind unnoticed.
    """
    problems: list[str] = []
    state = UserState()

    def parsed(path: Path, model: type[M]) -> M | None:
        if path not in files:
            return None
        try:
            value, rejected = _parse(files[path], path, model)
        except _Unreadable as exc:
            problems.append(f"{path.relative_to(paths.home)}: {exc}")
            return None
        if rejected:
            problems.append(f"{path.relative_to(paths.home)}: {rejected[0][1]}")
        return value

    state.ltm = parsed(paths.ltm, LtmFile) or LtmFile()
    history = files.get(paths.history, b"")
    if history and paths.ltm not in files:
        state.set_aside.append(f"{paths.history.name} (without ltm.json)")
    for number, line in enumerate(history[: state.ltm.history_bytes].splitlines(), 1):
        try:
            state.history.append(HistoryEntry.model_validate_json(line))
        except (ValidationError, RecursionError):
            state.set_aside.append(f"{paths.history.name} line {number} (unreadable)")
    if paths.counters in files:
        try:
            state.counters = _parse_counters(files[paths.counters])
        except _Unreadable:
            state.set_aside.append(f"{paths.counters.name} (unreadable)")
    for path in files:
        if path.suffix != ".json" or path in (paths.ltm, paths.counters):
            continue
        session = parsed(path, SessionFile)
        if session is None:
            continue
        if path.parent == paths.overflow:
            state.overflow[path.stem] = session
        else:
            state.sessions["" if path.parent == paths.home else path.stem] = session
    if problems:
        raise StateError(
            f"Cannot read all of {paths.home}: {'; '.join(problems[:3])}. Nothing was "
            "copied. `memory list` on this store moves unreadable memories aside, and a "
            "turn in an unreadable session sets it aside."
        )
    return state


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _user_files(paths: StatePaths) -> list[str]:
    """The files that hold this user's data (a history without ltm.json counts too)."""
    found = [p for p in (paths.ltm, paths.counters, paths.home / "session.json") if p.exists()]
    if _size(paths.history):
        found.append(paths.history)
    for folder in (paths.archive, paths.overflow):
        found.extend(sorted(folder.glob("*.json")))
    return [str(p.relative_to(paths.home)) for p in found]


def write_user(
    paths: StatePaths,
    state: UserState,
    *,
    lock_timeout: float,
    verify: Callable[[UserState], None] | None = None,
) -> None:
    """Write a whole user into an empty folder as one commit (see `_Commit`): all of its
    files appear together, or none does. `verify` is given the user read back from the
    written files before the commit point; if it raises, nothing becomes visible.

    Archived sessions become sessions/<session id>.json, as a new session archives them.
    """
    with _locked(paths, lock_timeout):
        present = _user_files(paths)
        if present:
            raise NotEmpty(
                f"{paths.home} already holds data for user {paths.user} "
                f"({', '.join(present[:4])}); a migration needs an empty target. Nothing "
                "was written."
            )
        files = _user_state_files(paths, state)
        commit = _Commit(paths)
        try:
            if any(p.parent == paths.overflow for p in files):
                paths.overflow.mkdir(mode=0o700, parents=True, exist_ok=True)
            elif any(p.parent == paths.archive for p in files):
                paths.archive.mkdir(mode=0o700, exist_ok=True)
            for path, data in files.items():
                commit.stage(path, data)
            if verify is not None:
                # What the disk now holds in the temp files, before they become visible.
                staged = {
                    t: read_regular(tmp, max_bytes=paths.max_bytes) for tmp, t in commit.renames
                }
                verify(_parse_user(paths, staged))
            commit.commit()
        except OSError as exc:
            commit.roll_back()
            raise SaveFailed(
                f"Could not write user {paths.user} into {paths.home}: {_describe(exc)}. "
                "Nothing was written.",
                cause=exc,
            ) from exc
        except BaseException:
            commit.roll_back()
            raise
        # After the commit point a failure to move files is finished by the next command.
        with contextlib.suppress(OSError):
            commit.finish()


def _user_state_files(paths: StatePaths, state: UserState) -> dict[Path, bytes]:
    """Each file a whole user is written as, by path."""
    files: dict[Path, bytes] = {}
    history = b"".join(h.model_dump_json().encode("utf-8") + b"\n" for h in state.history)
    ltm = state.ltm.model_copy(update={"history_bytes": len(history)})
    if history:
        files[paths.history] = history
    if history or ltm.memories or ltm.next_seq != 1 or ltm.__pydantic_extra__:
        files[paths.ltm] = _dump(ltm)
    if state.counters:
        counters = dict(sorted(state.counters.items()))
        files[paths.counters] = (json.dumps(counters, indent=1) + "\n").encode("utf-8")
    for name, session in state.sessions.items():
        if name == "":
            files[paths.home / "session.json"] = _dump(session)
            continue
        if _SAFE_NAME.search(name) or name.startswith(".") or len(name) > 200:
            raise StateError(f"session {name!r} cannot be a file name; nothing was written")
        files[paths.archive / f"{name}.json"] = _dump(session)
    for session in state.archives:
        base = _SAFE_NAME.sub("_", session.session_id)[:100] or "session"
        path, n = paths.archive / f"{base}.json", 1
        while path in files:
            path, n = paths.archive / f"{base}-{n}.json", n + 1
        files[path] = _dump(session)
    for key, session in state.overflow.items():
        path = paths.overflow / f"{_SAFE_NAME.sub('_', key)[:100] or 'session'}.json"
        if path in files:
            raise StateError(f"two overflow archives would be {path.name}; nothing was written")
        files[path] = _dump(session)
    return files
