"""Bounded reads of regular files only.

State files and imports are read through here so that nothing a careless script or a
hostile local process puts in their place can hang or exhaust the program: a FIFO, a
device (`ltm.json -> /dev/zero`), a socket or a folder is refused at once, without
blocking, and a regular file larger than the cap is refused before it is read.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from .errors import UnsafeFile

DEFAULT_MAX_BYTES = 256 * 1024 * 1024

_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


def kind_of(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def _refuse(path: Path, mode: int, what: str) -> UnsafeFile:
    return UnsafeFile(
        f"{path} is {kind_of(mode)}, not a regular file; {what} reads only regular files. "
        "Move it away and run again; nothing was changed."
    )


def _too_large(path: Path, size: int, max_bytes: int, setting: str) -> UnsafeFile:
    return UnsafeFile(
        f"{path} is {size:,} bytes, over the limit of {max_bytes:,} bytes "
        f"({setting}); nothing was read or changed. Raise {setting} if the file is genuine."
    )


@contextlib.contextmanager
def open_regular(path: Path, *, what: str = "memory-test") -> Iterator[io.BufferedReader]:
    """Open `path` for reading if it is a regular file (symlinks to one are fine).

    O_NONBLOCK keeps open() itself from waiting on a FIFO with no writer; fstat on the
    opened descriptor then decides, so a file swapped in between is still checked.
    FileNotFoundError passes through for the caller to treat as "no file".
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise _refuse(path, mode, what)
        os.set_blocking(fd, True)
        handle = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with handle:
        yield handle


def read_regular(
    path: Path,
    *,
    max_bytes: int,
    setting: str = "MEMTEST_MAX_STATE_MB",
    limit: int | None = None,
) -> bytes:
    """The bytes of a regular file, at most `max_bytes` (else UnsafeFile).

    `limit` reads only the first `limit` bytes (the committed part of an append-only log).
    """
    with open_regular(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        if limit is not None:
            size = min(size, limit)
        if size > max_bytes:
            raise _too_large(path, size, max_bytes, setting)
        # One byte more than allowed, so a file that grows while it is read is caught too.
        raw = handle.read(max_bytes + 1 if limit is None else size)
    if len(raw) > max_bytes:
        raise _too_large(path, len(raw), max_bytes, setting)
    return raw


def check_regular_or_missing(path: Path) -> None:
    """Raise UnsafeFile if `path` exists and is not a regular file (symlinks followed)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError:
        return  # a dangling or looping link: the caller's open() will report it
    if not stat.S_ISREG(mode):
        raise _refuse(path, mode, "memory-test")


def iter_lines(
    handle: IO[bytes], *, name: str, max_line: int, max_total: int, setting: str
) -> Iterator[bytes]:
    """Lines of a stream, read one at a time: a line over `max_line` bytes or a stream over
    `max_total` bytes is refused (UnsafeFile) without reading the rest."""
    total = 0
    while True:
        line = handle.readline(max_line + 1)
        if not line:
            return
        total += len(line)
        if len(line) > max_line:
            raise UnsafeFile(
                f"{name}: a line is longer than {max_line:,} bytes; nothing was changed"
            )
        if total > max_total:
            raise UnsafeFile(
                f"{name} is over the limit of {max_total:,} bytes ({setting}); nothing was changed"
            )
        yield line
