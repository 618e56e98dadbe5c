"""Failures injected into a store's writes, for the contract and migration suites."""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path

from pipeline import pgstore, store


@contextlib.contextmanager
def failing_file_write(n: int) -> Iterator[list[int]]:
    """The Nth file write of the JSON store fails with ENOSPC; yields the count so far."""
    seen = [0]

    def hook(_op: str, path: Path) -> None:
        seen[0] += 1
        if seen[0] == n:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    store.fault_hook = hook
    try:
        yield seen
    finally:
        store.fault_hook = None


@contextlib.contextmanager
def failing_statement(n: int, url: str, *, drop: bool) -> Iterator[list[int]]:
    """Fail the Nth statement of a write: with an error, or by killing the connection's
    server process first (the statement then meets a dropped connection)."""
    import psycopg

    seen = [0]

    def hook(_statement: str) -> None:
        seen[0] += 1
        if seen[0] != n:
            return
        if not drop:
            raise psycopg.errors.DiskFull("could not extend file: No space left on device")
        victim = pgstore.connection(url).info.backend_pid
        with psycopg.connect(url, autocommit=True) as other:
            other.execute("SELECT pg_terminate_backend(%s)", (victim,))

    pgstore.fault_hook = hook
    try:
        yield seen
    finally:
        pgstore.fault_hook = None
