"""The one module that touches state files: paths, lock, reads, quarantine, atomic writes.

Every write goes through `transact()`: take the folder's lock, re-read both files, let the
caller merge its changes into what is on disk *now*, and write each changed file
atomically (temp file in the same folder, flush, fsync, os.replace, fsync the folder).
LLM calls never happen under the lock.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Generic, TypeVar

from pydantic import BaseModel, ValidationError

from .errors import LockTimeout, StateError
from .models import SCHEMA_VERSION, LtmFile, SessionFile

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]")


@dataclass(frozen=True)
class StatePaths:
    """Where one state folder keeps its files."""

    root: Path

    @property
    def ltm(self) -> Path:
        return self.root / "ltm.json"

    @property
    def session(self) -> Path:
        return self.root / "session.json"

    @property
    def archive(self) -> Path:
        return self.root / "sessions"

    @property
    def lock(self) -> Path:
        return self.root / ".state.lock"


@dataclass
class Snapshot:
    """Both files as read; `warnings` says what could not be read and where it was moved."""

    ltm: LtmFile
    session: SessionFile | None
    warnings: list[str] = field(default_factory=list)


@dataclass
class Change(Generic[T]):
    """What a transaction wants written. None leaves a file as it is."""

    result: T
    ltm: LtmFile | None = None
    session: SessionFile | None = None
    archive_session: SessionFile | None = None


def load(paths: StatePaths, *, now: datetime, quarantine_ltm: bool = True) -> Snapshot:
    """Read both files without the lock (writers replace files atomically).

    An unreadable file is moved aside under the lock and the turn goes on without it;
    with `quarantine_ltm=False` (a dry run) ltm.json is left exactly where it is.
    """
    warnings: list[str] = []
    ltm = _read(
        paths.ltm, LtmFile, now=now, warnings=warnings, lock=paths.lock, move_aside=quarantine_ltm
    )
    session = _read(
        paths.session, SessionFile, now=now, warnings=warnings, lock=paths.lock, move_aside=True
    )
    return Snapshot(ltm=ltm or LtmFile(), session=session, warnings=warnings)


def transact(
    paths: StatePaths,
    merge: Callable[[Snapshot], Change[T]],
    *,
    now: datetime,
    lock_timeout: float,
    write_ltm: bool = True,
) -> tuple[T, list[str]]:
    """Lock, re-read, merge, write atomically. Returns merge's result and any warnings."""
    ensure_folder(paths)
    from filelock import FileLock, Timeout

    try:
        with FileLock(paths.lock, timeout=lock_timeout):
            _remove_stale_temp_files(paths)
            warnings: list[str] = []
            ltm = _read_locked(paths.ltm, LtmFile, now=now, warnings=warnings, move_aside=write_ltm)
            session = _read_locked(
                paths.session, SessionFile, now=now, warnings=warnings, move_aside=True
            )
            change = merge(Snapshot(ltm=ltm or LtmFile(), session=session, warnings=warnings))
            # ltm.json first: if we die between the two writes, the memories a turn earned
            # are kept and only its transcript lines are lost, never the other way round.
            if write_ltm and change.ltm is not None:
                _write_model(paths.ltm, change.ltm)
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
    """Create the state folder, private to the user (it holds personal data)."""
    paths.root.mkdir(mode=0o700, parents=True, exist_ok=True)


# --- Reading --------------------------------------------------------------------------------


def _read(
    path: Path, model: type[M], *, now: datetime, warnings: list[str], lock: Path, move_aside: bool
) -> M | None:
    try:
        return _parse(path, model)
    except FileNotFoundError:
        return None
    except _Unreadable:
        pass
    if not move_aside:
        warnings.append(
            f"{path.name} could not be read; continuing without it (left in place: dry run)"
        )
        return None
    from filelock import FileLock

    with FileLock(lock, timeout=30):
        return _read_locked(path, model, now=now, warnings=warnings, move_aside=True)


def _read_locked(
    path: Path, model: type[M], *, now: datetime, warnings: list[str], move_aside: bool
) -> M | None:
    """Read under the lock; an unreadable file is renamed to <name>.corrupt-<timestamp>."""
    try:
        return _parse(path, model)
    except FileNotFoundError:
        return None
    except _Unreadable as exc:
        if not move_aside:
            warnings.append(
                f"{path.name} could not be read ({exc}); continuing without it "
                "(left in place: dry run)"
            )
            return None
        aside = _free_name(path.parent, f"{path.name}.corrupt-{now:%Y%m%dT%H%M%S}")
        os.replace(path, aside)
        _fsync_dir(path.parent)
        warnings.append(
            f"{path.name} could not be read ({exc}); moved it to {aside.name} "
            "and continued with an empty one"
        )
        return None


class _Unreadable(Exception):
    pass


def _parse(path: Path, model: type[M]) -> M:
    raw = path.read_bytes()
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _Unreadable(f"not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise _Unreadable("not a JSON object")
    version = data.get("schema_version", SCHEMA_VERSION)
    if isinstance(version, int) and version > SCHEMA_VERSION:
        raise StateError(
            f"{path} has schema_version {version}, but this version of memory-test only "
            f"knows {SCHEMA_VERSION}. Upgrade memory-test; nothing was changed."
        )
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "top level"
        raise _Unreadable(f"{where}: {first['msg']}") from exc


def _free_name(folder: Path, base: str, suffix: str = "") -> Path:
    """folder/base+suffix, or base-1+suffix, base-2+suffix... whichever does not exist yet."""
    candidate, n = folder / f"{base}{suffix}", 1
    while candidate.exists():
        candidate = folder / f"{base}-{n}{suffix}"
        n += 1
    return candidate


# --- Writing --------------------------------------------------------------------------------


def _write_model(path: Path, model: BaseModel) -> None:
    text = json.dumps(model.model_dump(mode="json"), ensure_ascii=False, indent=1)
    atomic_write_text(path, text + "\n")


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


def _archive(paths: StatePaths, session: SessionFile) -> None:
    paths.archive.mkdir(mode=0o700, exist_ok=True)
    name = _SAFE_NAME.sub("_", session.session_id)[:100] or "session"
    _write_model(_free_name(paths.archive, name, ".json"), session)


def _remove_stale_temp_files(paths: StatePaths) -> None:
    # Writers only create temp files while holding the lock, so any found now were left by
    # a process that died mid-write.
    for stale in paths.root.glob(".*.tmp"):
        with contextlib.suppress(FileNotFoundError):
            stale.unlink()


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
