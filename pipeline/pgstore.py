"""The PostgreSQL store: the `Store` contract kept by one database for many users.

Every write is one transaction that takes a per-user advisory lock
(`pg_advisory_xact_lock`), re-reads that user's memories and session, calls the pure
merge (never the model), and writes memories, history, counters, the session, archives
and `next_seq` before it commits: a failure at any statement, or a dropped connection,
rolls all of it back. Memories are JSONB rows keyed (user_id, id), so unknown fields are
kept, and a commit writes only the rows that changed. Every query names the user in its
key; no query reads or writes across users. Ranking stays in Python (no pgvector).

psycopg is imported only here, and only when a postgresql:// store is selected.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

from pydantic import ValidationError

from .errors import ConfigError, LockTimeout, NotEmpty, SaveFailed, StateError
from .models import (
    LABELS,
    SCHEMA_VERSION,
    HistoryEntry,
    LtmFile,
    Memory,
    Message,
    SessionFile,
)
from .store import Change, Focus, Recall, Recalled, Snapshot, UserState

if TYPE_CHECKING:
    import numpy as np
    import psycopg

T = TypeVar("T")

# The database schema's own version (the `schema_version` table), separate from the
# JSON files' schema_version. A database written by a newer program is refused.
PG_SCHEMA_VERSION = 3

_SCHEMA = """
CREATE TABLE users (
    user_id text PRIMARY KEY,
    next_seq bigint NOT NULL DEFAULT 1,
    next_pos bigint NOT NULL DEFAULT 0,
    version bigint NOT NULL DEFAULT 0,
    vectors_version bigint NOT NULL DEFAULT 0,
    extra jsonb NOT NULL DEFAULT '{}'
);
CREATE TABLE memories (
    user_id text NOT NULL,
    id text NOT NULL,
    pos bigint NOT NULL,
    data jsonb NOT NULL,
    PRIMARY KEY (user_id, id)
);
CREATE INDEX memories_by_position ON memories (user_id, pos);
CREATE TABLE history (
    user_id text NOT NULL,
    seq bigserial,
    memory_id text NOT NULL,
    data jsonb NOT NULL,
    PRIMARY KEY (user_id, seq)
);
CREATE INDEX history_by_memory ON history (user_id, memory_id);
CREATE TABLE counters (
    user_id text NOT NULL,
    name text NOT NULL,
    value bigint NOT NULL,
    PRIMARY KEY (user_id, name)
);
CREATE TABLE sessions (
    user_id text NOT NULL,
    name text NOT NULL,
    data jsonb NOT NULL,
    PRIMARY KEY (user_id, name)
);
CREATE TABLE archived_sessions (
    user_id text NOT NULL,
    seq bigserial,
    session_id text NOT NULL,
    data jsonb NOT NULL,
    PRIMARY KEY (user_id, seq)
);
CREATE TABLE overflow (
    user_id text NOT NULL,
    session_id text NOT NULL,
    data jsonb NOT NULL,
    PRIMARY KEY (user_id, session_id)
);
CREATE TABLE vectors (
    user_id text NOT NULL,
    model_id text NOT NULL,
    key text NOT NULL,
    vector bytea NOT NULL,
    PRIMARY KEY (user_id, model_id, key)
);
CREATE TABLE invalid_memories (
    user_id text NOT NULL,
    seq bigserial,
    at timestamptz NOT NULL,
    reason text NOT NULL,
    data jsonb NOT NULL,
    PRIMARY KEY (user_id, seq)
);
"""
# Version 2: what the gate and lexical retrieval need to find memories without reading
# the others, kept in the same transaction as every write of `memories.data`: each
# memory's terms (`memory_terms` by term, with their counts in the content and in the
# type and subject; `memories.terms`, the distinct content terms) and, as columns, the
# fields that say whether and how it can rank (`_INDEXED`). They are derived from `data`
# with `text.terms`: a change to how terms are made needs a schema step that computes them
# again (`_index_existing`).
_SCHEMA_2 = """
ALTER TABLE memories
    ADD COLUMN terms text[], ADD COLUMN doc_len integer, ADD COLUMN type text,
    ADD COLUMN status text, ADD COLUMN source text, ADD COLUMN decay text,
    ADD COLUMN confidence float8, ADD COLUMN created_us bigint, ADD COLUMN reinforced_us bigint,
    ADD COLUMN project text, ADD COLUMN agent text, ADD COLUMN personality text,
    ADD COLUMN is_global boolean;
CREATE INDEX memories_by_creation ON memories (user_id, created_us) WHERE source = 'reflection';
CREATE TABLE memory_terms (
    user_id text NOT NULL,
    term text NOT NULL,
    memory_id text NOT NULL,
    content_tf integer NOT NULL,
    label_tf integer NOT NULL,
    PRIMARY KEY (user_id, term, memory_id)
);
CREATE INDEX memory_terms_by_memory ON memory_terms (user_id, memory_id);
"""
_INDEXED = (
    "terms, doc_len, type, status, source, decay, confidence, created_us, reinforced_us, "
    "project, agent, personality, is_global"
)


# Version 3: what a recall filters and ranks by, where it reads. Each term row carries its
# memory's pool columns (`_POOL_COLUMNS`, rewritten with them in the same transaction), so
# the memories a query term finds are scored from one index without visiting `memories`;
# and `memories` gets an index holding the same columns beside each key, for counting the
# pool. Both are read alone once VACUUM (or autovacuum) has marked the pages all-visible.
_POOL_COLUMNS = (
    "status, decay, confidence, created_us, reinforced_us, doc_len, project, agent, "
    "personality, is_global"
)
_SCHEMA_3 = f"""
ALTER TABLE memory_terms
    ADD COLUMN status text, ADD COLUMN decay text, ADD COLUMN confidence float8,
    ADD COLUMN created_us bigint, ADD COLUMN reinforced_us bigint, ADD COLUMN doc_len integer,
    ADD COLUMN project text, ADD COLUMN agent text, ADD COLUMN personality text,
    ADD COLUMN is_global boolean;
CREATE INDEX memory_terms_for_recall ON memory_terms (user_id, term) INCLUDE (
    memory_id, content_tf, label_tf, {_POOL_COLUMNS});
CREATE INDEX memories_for_recall ON memories (user_id, id) INCLUDE (
    {_POOL_COLUMNS}, type, pos)
"""


def _stored_memories(conn: psycopg.Connection[Any]) -> dict[str, list[Memory]]:
    """Every user's memories that validate (the others are moved aside by the next full
    read, as any unreadable row is)."""
    by_user: dict[str, list[Memory]] = {}
    for user, text in conn.execute("SELECT user_id, data::text FROM memories ORDER BY user_id"):
        try:
            by_user.setdefault(user, []).append(Memory.model_validate_json(text))
        except (ValidationError, RecursionError):
            continue
    return by_user


def _index_existing(conn: psycopg.Connection[Any]) -> None:
    """Fill version 2's columns for the memories a version 1 database holds (their terms
    come with version 3)."""
    conn.execute(_SCHEMA_2)
    columns = _INDEXED.replace(",", " = %s,") + " = %s"
    for user, memories in _stored_memories(conn).items():
        _Tx(conn).many(
            f"UPDATE memories SET {columns} WHERE user_id = %s AND id = %s",
            [(*_indexed(m), user, m.id) for m in memories],
        )


def _index_for_recall(conn: psycopg.Connection[Any]) -> None:
    """Add version 3's columns and indexes, and write every memory's terms again with them."""
    conn.execute(_SCHEMA_3)
    conn.execute("DELETE FROM memory_terms")
    for user, memories in _stored_memories(conn).items():
        _index_terms(_Tx(conn), user, memories)


# Schema steps by the version they lead to; version 1 is `_SCHEMA` itself.
_MIGRATIONS: dict[int, Callable[[psycopg.Connection[Any]], None]] = {
    2: _index_existing,
    3: _index_for_recall,
}
_SCHEMA_LOCK = 0x6D656D7465737430  # "memtest0": one migrator at a time
_CURRENT = ""  # sessions.name of the unnamed (current) session

# Tests set this to make the Nth statement of a write fail (or to drop the connection
# there), in the manner of the file store's `fault_hook`. Called with the statement.
fault_hook: Callable[[str], None] | None = None

_connections: dict[str, psycopg.Connection[Any]] = {}


def redacted(url: str) -> str:
    """The URL without its password, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return parts._replace(netloc=netloc).geturl()


def check_url(
    url: str,
    *,
    setting: str = "MEMTEST_STORE",
    fix: str = "unset it to keep the JSON files in the state folder",
) -> str:
    """`url` if it is a postgresql:// URL libpq can parse, else a ConfigError that says
    what to do (`fix`)."""
    if urlsplit(url).scheme not in ("postgresql", "postgres"):
        raise ConfigError(f"{setting}={redacted(url)!r} is not a postgresql:// URL; {fix}")
    psycopg = _psycopg()
    try:
        urlsplit(url).port  # noqa: B018 (it raises on a port that is not a number)
        psycopg.conninfo.conninfo_to_dict(url)
    except (ValueError, psycopg.ProgrammingError) as exc:
        raise ConfigError(f"{setting}={redacted(url)!r} is not a valid URL: {exc}") from None
    return url


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError:
        raise ConfigError(
            "MEMTEST_STORE names a PostgreSQL store, but psycopg is not installed: "
            "pip install 'memory-test[postgresql]'"
        ) from None
    return psycopg


def connection(url: str) -> psycopg.Connection[Any]:
    """This process's connection to `url`, opened and its schema checked on first use."""
    conn = _connections.get(url)
    if conn is not None and not conn.closed and not conn.broken:
        return conn
    driver = _psycopg()
    try:
        opened: psycopg.Connection[Any] = driver.connect(url, autocommit=True, connect_timeout=10)
    except driver.Error as exc:
        raise StateError(
            f"Cannot connect to the PostgreSQL store {redacted(url)}: {_first_line(exc)}. "
            "Check the URL and that the server is running; nothing was changed."
        ) from None
    try:
        _migrate(opened, url)
    except StateError:
        opened.close()
        raise
    except driver.Error as exc:
        opened.close()
        raise StateError(
            f"Cannot set up the tables of the PostgreSQL store {redacted(url)}: "
            f"{_first_line(exc)}. Nothing was changed."
        ) from None
    _connections[url] = opened
    return opened


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _migrate(conn: psycopg.Connection[Any], url: str) -> None:
    """Create the tables, or bring an older schema up to date; refuse a newer one."""
    # The usual case, a database already at this version, costs one statement; anything
    # else (no table yet, an older or newer version) is settled under the schema lock.
    psycopg = _psycopg()
    try:
        row = conn.execute("SELECT max(version) FROM schema_version").fetchone()
    except psycopg.errors.UndefinedTable:
        row = None
    if row is not None and row[0] == PG_SCHEMA_VERSION:
        return
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL)")
        row = conn.execute("SELECT max(version) FROM schema_version").fetchone()
        found = row[0] if row else None
        if found is None:
            conn.execute(_SCHEMA)
            conn.execute("INSERT INTO schema_version VALUES (1)")
            found = 1
        if found > PG_SCHEMA_VERSION:
            raise StateError(
                f"The PostgreSQL store {redacted(url)} has schema_version {found}, but this "
                f"version of memory-test only knows {PG_SCHEMA_VERSION}. Upgrade "
                "memory-test; nothing was changed."
            )
        for version in range(found + 1, PG_SCHEMA_VERSION + 1):
            _MIGRATIONS[version](conn)
            conn.execute("UPDATE schema_version SET version = %s", (version,))


def _lock_key(user: str) -> int:
    """A signed 64-bit advisory lock key for one user."""
    digest = hashlib.blake2b(f"memtest-user:{user}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


@dataclass
class _Baseline:
    """The memories as read inside a transaction, to write back only what changed."""

    fields: dict[str, tuple[dict[str, Any], dict[str, Any] | None]]
    order: list[str]
    next_seq: int
    extra: dict[str, Any]


def _baseline(ltm: LtmFile) -> _Baseline:
    # Shallow copies are enough: the merge replaces field values, it does not edit them.
    return _Baseline(
        {m.id: (dict(m.__dict__), dict(m.__pydantic_extra__ or {}) or None) for m in ltm.memories},
        [m.id for m in ltm.memories],
        ltm.next_seq,
        dict(ltm.__pydantic_extra__ or {}),
    )


def _changed(memory: Memory, before: tuple[dict[str, Any], dict[str, Any] | None]) -> bool:
    return memory.__dict__ != before[0] or (memory.__pydantic_extra__ or None) != before[1]


@dataclass(frozen=True)
class PostgresStore:
    """One user's memory and one session in a PostgreSQL database (`url`)."""

    url: str
    user: str
    session_name: str | None = None

    # --- connection and statements -------------------------------------------------------

    @property
    def _session_key(self) -> str:
        return _CURRENT if self.session_name is None else self.session_name

    def _conn(self) -> psycopg.Connection[Any]:
        return connection(self.url)

    @contextmanager
    def _write(self, lock_timeout: float, what: str) -> Iterator[_Tx]:
        """A transaction holding this user's lock; errors become the store's messages.

        Any failure before COMMIT rolls everything back: SaveFailed, nothing saved. A
        connection lost during COMMIT itself cannot say whether the server committed.
        """
        psycopg = _psycopg()
        conn = self._conn()
        tx = _Tx(conn)
        try:
            with conn.transaction():
                # The timeout is set before the lock is asked for (a select list is
                # evaluated left to right), in one round trip.
                tx.run(
                    "SELECT set_config('lock_timeout', %s, true), pg_advisory_xact_lock(%s)",
                    (f"{max(lock_timeout * 1000, 1):.0f}", _lock_key(self.user)),
                )
                yield tx
                _hook("COMMIT")
                tx.committing = True  # from here on, the server may have committed
        except psycopg.errors.LockNotAvailable:
            raise LockTimeout(
                f"The memory of {self.user} in {redacted(self.url)} is locked by another "
                f"process (waited {lock_timeout:g} s). Try again, or raise MEMTEST_LOCK_TIMEOUT."
            ) from None
        except psycopg.Error as exc:
            if tx.committing and isinstance(exc, psycopg.OperationalError):
                raise StateError(
                    f"The connection to {redacted(self.url)} was lost while {what} was being "
                    f"committed ({_first_line(exc)}); it may or may not have been saved. "
                    "Check with `memory list` before repeating it."
                ) from None
            raise SaveFailed(
                f"Could not save {what} to {redacted(self.url)}: {_first_line(exc)}. Nothing "
                "was saved; the store is exactly as it was before."
            ) from None

    @contextmanager
    def _reading(self) -> Iterator[psycopg.Connection[Any]]:
        """The connection for a plain read; a database error becomes a StateError."""
        psycopg = _psycopg()
        try:
            yield self._conn()
        except psycopg.Error as exc:
            raise StateError(
                f"Cannot read from {redacted(self.url)}: {_first_line(exc)}. Nothing was changed."
            ) from None

    # --- the Store interface -------------------------------------------------------------

    def describe(self) -> str:
        return f"{redacted(self.url)} (user {self.user})"

    def ensure_usable(self) -> None:
        self._conn()

    def load(self, *, now: datetime, quarantine_ltm: bool = True) -> Snapshot:
        psycopg = _psycopg()
        conn = self._conn()
        warnings: list[str] = []
        try:
            with conn.transaction():
                # One consistent view of the memories and the session, without the lock.
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                ltm, version = _read_ltm(_Tx(conn), self.user, now, warnings, move_aside=False)
                session = _read_session(_Tx(conn), self.user, self._session_key)
        except psycopg.Error as exc:
            raise StateError(
                f"Cannot read from {redacted(self.url)}: {_first_line(exc)}. Nothing was changed."
            ) from None
        if warnings and quarantine_ltm:
            # Rows that do not validate are moved aside under the lock, as ltm.json's are.
            warnings = []
            with self._write(30, "the invalid memories") as tx:
                ltm, version = _read_ltm(tx, self.user, now, warnings, move_aside=True)
        return Snapshot(ltm=ltm, session=session, warnings=warnings, ltm_digest=f"pg:{version}")

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

        With `focus`, only the memories it names are read (from `memory_terms` and the
        indexed columns): the merge gets a partial snapshot, and the others stay as they are.
        """
        warnings: list[str] = []
        with self._write(lock_timeout, "the change") as tx:
            if focus is not None:
                ltm, version = _read_focused(tx, self.user, focus)
            else:
                ltm, version = _read_ltm(
                    tx, self.user, now, warnings, move_aside=write_ltm, known=known
                )
            session = _read_session(tx, self.user, self._session_key, now, warnings)
            base = _baseline(ltm)
            change = merge(
                Snapshot(
                    ltm=ltm,
                    session=session,
                    warnings=warnings,
                    ltm_digest=f"pg:{version}",
                    partial=focus is not None,
                )
            )
            if write_ltm and change.ltm is not None:
                _write_memories(tx, self.user, base, change.ltm)
                _insert_history(tx, self.user, change.history)
            if change.counters:
                tx.many(
                    "INSERT INTO counters (user_id, name, value) VALUES (%s, %s, %s) "
                    "ON CONFLICT (user_id, name) DO UPDATE SET value = counters.value + "
                    "EXCLUDED.value",
                    [(self.user, k, v) for k, v in sorted(change.counters.items())],
                )
            if change.archive_session is not None:
                tx.run(
                    "INSERT INTO archived_sessions (user_id, session_id, data) "
                    "VALUES (%s, %s, %s::jsonb)",
                    (
                        self.user,
                        change.archive_session.session_id,
                        change.archive_session.model_dump_json(),
                    ),
                )
            if change.overflow and change.session is not None:
                _append_overflow(tx, self.user, change.session, change.overflow)
            if change.session is not None:
                tx.run(
                    "INSERT INTO sessions (user_id, name, data) VALUES (%s, %s, %s::jsonb) "
                    "ON CONFLICT (user_id, name) DO UPDATE SET data = EXCLUDED.data",
                    (self.user, self._session_key, change.session.model_dump_json()),
                )
        return change.result, warnings

    def recall(self, request: Recall, *, now: datetime) -> Recalled | None:
        """The memories a lexical retrieval can rank in its first `request.limit`, found
        through `memory_terms` and the indexed columns, with BM25's counts over every
        memory it could rank (see `_RECALL`), in one consistent read without the lock."""
        from .retrieval import TYPE_PRIORITY, PoolStats

        psycopg = _psycopg()
        conn = self._conn()
        scope = ["m.is_global"] + [
            f"(m.{name} IS NULL OR m.{name} = %({name})s)"
            for name in LABELS
            if getattr(request.scope, name) is not None
        ]
        params = {
            "user": self.user,
            "now": _micros(now),
            "horizon": float(request.horizon_hours),
            "floor": float(request.min_confidence),
            "limit": max(1, request.limit),
            "priority": list(TYPE_PRIORITY),
            **{name: getattr(request.scope, name) for name in LABELS},
        }
        visible = f"({' OR '.join(scope)})" if request.scope else "TRUE"
        try:
            with conn.transaction():
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                tx = _Tx(conn)
                session = _read_session(tx, self.user, self._session_key)
                weights = request.weights(session)
                params["words"] = words = sorted(weights)
                params["weights"] = [float(weights[w]) for w in words]
                # The ranking's counts, the memories it can show and the user's row, in
                # one statement.
                row = tx.run(_RECALL.replace("{visible}", visible), params).fetchone()
                assert row is not None  # the statement always returns one row
                found, texts = row[0], row[1]
                ltm, version = _partial(None if row[3] is None else row[2:], texts)
        except psycopg.Error as exc:
            raise StateError(
                f"Cannot read from {redacted(self.url)}: {_first_line(exc)}. Nothing was changed."
            ) from None
        snapshot = Snapshot(ltm=ltm, session=session, ltm_digest=f"pg:{version}", partial=True)
        stats = PoolStats(n=found["n"], total_len=found["total"], df=found["df"])
        return Recalled(snapshot=snapshot, stats=stats, total=found["count"])

    def read_history(self, ltm: LtmFile, memory_id: str | None = None) -> list[HistoryEntry]:
        query = "SELECT data::text FROM history WHERE user_id = %s ORDER BY seq"
        params: tuple[str, ...] = (self.user,)
        if memory_id is not None:
            query = query.replace("ORDER BY", "AND memory_id = %s ORDER BY")
            params = (self.user, memory_id)
        with self._reading() as conn:
            rows = conn.execute(query, params).fetchall()
        out = []
        for (text,) in rows:
            try:
                out.append(HistoryEntry.model_validate_json(text))
            except (ValidationError, RecursionError):
                continue  # a damaged row is skipped; the rest of the record still reads
        return out

    def read_counters(self) -> dict[str, int]:
        with self._reading() as conn:
            rows = conn.execute(
                "SELECT name, value FROM counters WHERE user_id = %s", (self.user,)
            ).fetchall()
        return {name: int(value) for name, value in rows}

    def purge_memory(
        self, memory_id: str, *, now: datetime, lock_timeout: float
    ) -> tuple[Memory | None, list[str]]:
        """Remove the memory, its history, its vectors and its text in every session of
        this user, in one transaction; the history keeps a line without the text."""
        with self._write(lock_timeout, f"the purge of {memory_id}") as tx:
            row = tx.run(
                "SELECT data::text FROM memories WHERE user_id = %s AND id = %s FOR UPDATE",
                (self.user, memory_id),
            ).fetchone()
            if row is None:
                return None, []
            target = Memory.model_validate_json(row[0])
            tx.run("DELETE FROM memories WHERE user_id = %s AND id = %s", (self.user, memory_id))
            tx.run(
                "DELETE FROM memory_terms WHERE user_id = %s AND memory_id = %s",
                (self.user, memory_id),
            )
            tx.run(
                "DELETE FROM history WHERE user_id = %s AND memory_id = %s", (self.user, memory_id)
            )
            entry = HistoryEntry(
                memory_id=memory_id, at=now, event="purged", reason="by command; text removed"
            )
            _insert_history(tx, self.user, [entry])
            from .embeddings import content_key

            tx.run(
                "DELETE FROM vectors WHERE user_id = %s AND key = %s",
                (self.user, content_key(target.content)),
            )
            _scrub_sessions(tx, self.user, target.content)
            tx.run(
                "UPDATE users SET version = version + 1, vectors_version = vectors_version + 1 "
                "WHERE user_id = %s",
                (self.user,),
            )
        return target, []

    def clear_memory(self, *, lock_timeout: float) -> int:
        """Delete the memories, history and vectors; `next_seq` stays, so no id returns."""
        with self._write(lock_timeout, "the clearing of long-term memory") as tx:
            row = tx.run(
                "SELECT count(*) FROM memories WHERE user_id = %s", (self.user,)
            ).fetchone()
            count = int(row[0]) if row else 0
            for table in ("memories", "memory_terms", "history", "vectors", "invalid_memories"):
                tx.run(f"DELETE FROM {table} WHERE user_id = %s", (self.user,))
            tx.run(
                "UPDATE users SET version = version + 1, vectors_version = vectors_version + 1, "
                "extra = '{}' WHERE user_id = %s",
                (self.user,),
            )
        return count

    def clear_session(self, *, lock_timeout: float) -> int:
        with self._write(lock_timeout, "the clearing of the session") as tx:
            session = _read_session(tx, self.user, self._session_key)
            if session is None:
                return 0
            turns = len({m.turn_id for m in session.messages}) or int(bool(session.session_summary))
            tx.run(
                "DELETE FROM sessions WHERE user_id = %s AND name = %s",
                (self.user, self._session_key),
            )
        return turns

    def read_vectors(self, model_id: str) -> dict[str, np.ndarray]:
        import numpy as np

        with self._reading() as conn:
            rows = conn.execute(
                "SELECT key, vector FROM vectors WHERE user_id = %s AND model_id = %s",
                (self.user, model_id),
            ).fetchall()
        return {key: np.frombuffer(blob, dtype=np.float32) for key, blob in rows}

    def write_vectors(
        self, vectors: dict[str, np.ndarray], model_id: str, *, lock_timeout: float
    ) -> None:
        """Make the cache hold exactly `vectors`, writing only the rows that differ. It is
        derived data: a failure only skips it."""
        import numpy as np

        try:
            with self._write(lock_timeout, "the vector cache") as tx:
                rows = tx.run(
                    "SELECT key FROM vectors WHERE user_id = %s AND model_id = %s",
                    (self.user, model_id),
                ).fetchall()
                present = {key for (key,) in rows}
                stale = sorted(present - vectors.keys())
                tx.run(
                    "DELETE FROM vectors WHERE user_id = %s AND (model_id <> %s OR key = ANY(%s))",
                    (self.user, model_id, stale),
                )
                tx.many(
                    "INSERT INTO vectors (user_id, model_id, key, vector) VALUES (%s, %s, %s, %s)",
                    [
                        (self.user, model_id, k, np.asarray(vectors[k], np.float32).tobytes())
                        for k in sorted(vectors.keys() - present)
                    ],
                )
                _ensure_user(tx, self.user)
                tx.run(
                    "UPDATE users SET vectors_version = vectors_version + 1 WHERE user_id = %s",
                    (self.user,),
                )
        except (LockTimeout, SaveFailed, StateError):
            return

    def version(self) -> Hashable:
        row = (
            self._conn()
            .execute("SELECT version FROM users WHERE user_id = %s", (self.user,))
            .fetchone()
        )
        return None if row is None else int(row[0])

    def vectors_version(self) -> Hashable:
        row = (
            self._conn()
            .execute("SELECT vectors_version FROM users WHERE user_id = %s", (self.user,))
            .fetchone()
        )
        return None if row is None else int(row[0])

    def usage(self) -> dict[str, int]:
        sizes = {}
        parts = (
            ("memories", "SELECT sum(pg_column_size(data)) FROM memories WHERE user_id = %s"),
            ("history", "SELECT sum(pg_column_size(data)) FROM history WHERE user_id = %s"),
            ("sessions", "SELECT sum(pg_column_size(data)) FROM sessions WHERE user_id = %s"),
            ("vectors", "SELECT sum(length(vector)) FROM vectors WHERE user_id = %s"),
        )
        with self._reading() as conn:
            for part, query in parts:
                row = conn.execute(query, (self.user,)).fetchone()
                if row and row[0] is not None:
                    sizes[part] = int(row[0])
        return sizes

    def read_user(self, *, lock_timeout: float) -> UserState:
        """Every row of this user, in one REPEATABLE READ snapshot (no lock needed)."""
        psycopg = _psycopg()
        conn = self._conn()
        problems: list[str] = []
        try:
            with conn.transaction():
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                state = _read_user(_Tx(conn), self.user, problems)
        except psycopg.Error as exc:
            raise StateError(
                f"Cannot read from {redacted(self.url)}: {_first_line(exc)}. Nothing was changed."
            ) from None
        if problems:
            raise StateError(
                f"Cannot read all of user {self.user} in {redacted(self.url)}: "
                f"{'; '.join(problems[:3])}. Nothing was copied. `memory list` on this store "
                "moves unreadable memories aside, and a turn in an unreadable session sets "
                "it aside."
            )
        return state

    def write_user(
        self,
        state: UserState,
        *,
        lock_timeout: float,
        verify: Callable[[UserState], None] | None = None,
    ) -> None:
        """Insert every row of a whole user in one transaction, after checking, under the
        user's lock, that the user has no rows and has never been issued an id here.
        `verify` is given the rows read back inside the transaction, before COMMIT; if it
        raises, the transaction is rolled back."""
        with self._write(lock_timeout, f"user {self.user}") as tx:
            held = _rows_held(tx, self.user)
            if held:
                raise NotEmpty(
                    f"{redacted(self.url)} already holds data for user {self.user} "
                    f"({', '.join(held)}); a migration needs an empty target. Nothing was "
                    "written."
                )
            _insert_user(tx, self.user, state)
            if verify is not None:
                problems: list[str] = []
                copied = _read_user(tx, self.user, problems)
                if problems:
                    raise StateError(
                        f"The rows written for {self.user} cannot be read back: "
                        f"{'; '.join(problems[:3])}. Nothing was written."
                    )
                verify(copied)


# --- Statements -----------------------------------------------------------------------------


def _hook(statement: str) -> None:
    if fault_hook is not None:
        fault_hook(statement)


class _Tx:
    """The statements of one transaction, each announced to `fault_hook` first."""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.conn = conn
        self.committing = False

    def run(self, query: str, params: tuple[Any, ...] | dict[str, Any] = ()) -> psycopg.Cursor[Any]:
        _hook(query)
        return self.conn.execute(query, params)

    def many(self, query: str, rows: list[tuple[Any, ...]]) -> None:
        if rows:
            _hook(query)
            with self.conn.cursor() as cursor:
                cursor.executemany(query, rows)


def _ensure_user(tx: _Tx, user: str) -> None:
    tx.run("INSERT INTO users (user_id) VALUES (%s) ON CONFLICT (user_id) DO NOTHING", (user,))


def _read_ltm(
    tx: _Tx,
    user: str,
    now: datetime,
    warnings: list[str],
    *,
    move_aside: bool,
    known: Snapshot | None = None,
) -> tuple[LtmFile, int]:
    """The user's memories in their order, as one LtmFile, and the user's version.

    Rows are validated together (the fast path); if that fails, one by one, and a row
    that does not validate is moved to `invalid_memories` with its reason (with
    `move_aside`), or left where it is and skipped (a dry run or a plain read). `known`,
    a snapshot loaded earlier and not modified since, is reused when no commit has
    changed the memories after it (the version says so): a turn's commit then skips
    reading and validating every row again.
    """
    row = tx.run(
        "SELECT next_seq, version, extra::text FROM users WHERE user_id = %s", (user,)
    ).fetchone()
    next_seq, version, extra = (1, 0, "{}") if row is None else row
    if known is not None and known.ltm_digest == f"pg:{version}":
        return known.ltm, int(version)
    rows = tx.run(
        "SELECT id, data::text FROM memories WHERE user_id = %s ORDER BY pos", (user,)
    ).fetchall()
    head = json.loads(extra)
    head.update(schema_version=SCHEMA_VERSION, next_seq=int(next_seq), history_bytes=0)
    document = json.dumps(head)[:-1] + ', "memories": [' + ",".join(r[1] for r in rows) + "]}"
    try:
        return LtmFile.model_validate_json(document), int(version)
    except ValidationError:
        pass
    ltm = LtmFile.model_validate({**head, "memories": []})
    rejected = []
    for memory_id, text in rows:
        try:
            ltm.memories.append(Memory.model_validate_json(text))
        except (ValidationError, RecursionError) as exc:
            reason = str(exc).splitlines()[0] if isinstance(exc, ValidationError) else "too deep"
            rejected.append((memory_id, text, reason))
    if not rejected:
        raise StateError(f"The memories of {user} could not be read: {document[:200]}")
    if not move_aside:
        warnings.append(
            f"{len(rejected)} memory(ies) could not be read ({rejected[0][2]}); continuing "
            "without them (left in place)"
        )
        return ltm, int(version)
    for memory_id, text, reason in rejected:
        tx.run(
            "INSERT INTO invalid_memories (user_id, at, reason, data) "
            "VALUES (%s, %s, %s, %s::jsonb)",
            (user, now, f"{memory_id}: {reason}", text),
        )
        tx.run("DELETE FROM memories WHERE user_id = %s AND id = %s", (user, memory_id))
        tx.run("DELETE FROM memory_terms WHERE user_id = %s AND memory_id = %s", (user, memory_id))
    warnings.append(
        f"{len(rejected)} memory(ies) could not be read ({rejected[0][2]}); moved them to the "
        f"invalid_memories table; the other {len(ltm.memories)} are in use"
    )
    return ltm, int(version)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _micros(at: datetime) -> int:
    """Microseconds since 1970 (UTC), exactly as Python's datetime arithmetic counts them."""
    return (at - _EPOCH) // timedelta(microseconds=1)


# The memories holding at least `need` of text k's terms. Any such memory holds one of any
# len - need + 1 of them, so only the rarest few are looked up in `memory_terms` (their
# counts capped: a count only has to tell a rare term from a common one), and what they
# find is then checked against each memory's own terms (`memories.terms`).
_NEAR = """
WITH q AS (
    SELECT * FROM unnest(%(keys)s::int[], %(words)s::text[], %(needs)s::int[]) AS q(k, term, need)
), counted AS (
    SELECT q.*, (SELECT count(*) FROM (SELECT 1 FROM memory_terms t
        WHERE t.user_id = %(user)s AND t.term = q.term AND t.content_tf > 0 LIMIT 500)
        AS capped) AS df
    FROM q
), ranked AS (
    SELECT counted.*, row_number() OVER (PARTITION BY k ORDER BY df, term) AS rank,
        count(*) OVER (PARTITION BY k) AS size
    FROM counted
), found AS (
    SELECT DISTINCT r.k, t.memory_id FROM ranked r
    JOIN memory_terms t ON t.user_id = %(user)s AND t.term = r.term AND t.content_tf > 0
    WHERE r.rank <= r.size - r.need + 1
), wanted AS (
    SELECT k, array_agg(term) AS terms, max(need) AS need FROM q GROUP BY k
)
SELECT m.id FROM found f
JOIN wanted w ON w.k = f.k
JOIN memories m ON m.user_id = %(user)s AND m.id = f.memory_id
WHERE (SELECT count(*) FROM unnest(m.terms) AS x WHERE x = ANY(w.terms)) >= w.need
"""


# A memory's confidence after decay, as `Memory.current_confidence` computes it: the same
# float8 operations in the same order, so the two agree to the last bit (for ages under
# 2**53 microseconds, about 285 years, which float8 counts exactly).
_DECAYED = """CASE m.decay
    WHEN 'contextual' THEN m.confidence * greatest(0.0::float8, 1.0::float8 - greatest(0.0::float8,
        (%(now)s::bigint - m.created_us)::float8 / 1000000.0::float8 / 3600.0::float8)
        / %(horizon)s::float8)
    WHEN 'reinforceable' THEN m.confidence * greatest(0.0::float8, 1.0::float8 - greatest(
        0.0::float8, (%(now)s::bigint - m.reinforced_us)::float8 / 1000000.0::float8
        / 3600.0::float8) / %(horizon)s::float8)
    ELSE m.confidence END"""

# What `retrieve_relevant` ranks (the pool: active, visible from the scope, confident
# enough after decay) and, of it, every memory that can be in the first `limit`:
# - by BM25 (scored here in float8; the ranking in Python recomputes it exactly, so a
#   margin far above float8's error keeps every memory that could tie the last one);
# - by confidence, recency and id: a memory matching no query term ranks by these alone,
#   after every memory that matches and is at least as confident, so the first `limit`
#   of them hold every non-matching memory that can be shown (needed only while such a
#   memory, whose score is at most 0.01, can beat the last one shown);
# - by type priority, the order when no memory matches at all.
# With them: the pool's size, total length and document frequencies, for exact scores.
# The pool is filtered where it is read (a materialised pool costs more than the scans):
# in `memories` for its counts, in `memory_terms` (whose rows carry the same columns) for
# the memories a query term finds.
_POOL = (
    "m.user_id = %(user)s AND m.status = 'active' AND {visible} AND " + _DECAYED + " >= %(floor)s"
)
_RECALL = f"""
WITH stats AS MATERIALIZED (
    SELECT count(*) FILTER (WHERE {_POOL}) AS n,
        coalesce(sum(m.doc_len) FILTER (WHERE {_POOL}), 0) AS total, count(*) AS stored
    FROM memories m WHERE m.user_id = %(user)s
), q AS (
    SELECT * FROM unnest(%(words)s::text[], %(weights)s::float8[]) AS q(term, weight)
), hits AS MATERIALIZED (
    SELECT m.memory_id AS id, q.term, q.weight, (m.content_tf + m.label_tf)::float8 AS tf,
        m.doc_len, {_DECAYED} AS conf
    FROM memory_terms m
    JOIN q ON m.term = q.term
    WHERE {_POOL}
), df AS MATERIALIZED (
    SELECT h.term, count(*) AS df, ln(1 + (s.n - count(*) + 0.5) / (count(*) + 0.5)) AS idf,
        s.total::float8 / s.n AS avg_len
    FROM hits h CROSS JOIN stats s GROUP BY h.term, s.n, s.total
), ranked AS MATERIALIZED (
    SELECT id, bm25 * (0.5 + 0.5 * conf) + 0.01 * conf AS score FROM (
        SELECT h.id, min(h.conf) AS conf, sum(h.weight * d.idf * h.tf * 2.2
            / (h.tf + 1.2 * (0.25 + 0.75 * h.doc_len / d.avg_len))) AS bm25
        FROM hits h JOIN df d ON d.term = h.term
        GROUP BY h.id
    ) AS summed
), cut AS MATERIALIZED (
    SELECT score FROM ranked ORDER BY score DESC OFFSET %(limit)s - 1 LIMIT 1
), picked AS (
    SELECT id FROM ranked
    WHERE score >= coalesce((SELECT score FROM cut), '-infinity'::float8) - 1e-6
    UNION SELECT id FROM (
        SELECT m.id FROM memories m WHERE {_POOL}
        ORDER BY {_DECAYED} DESC, m.reinforced_us DESC, m.id COLLATE "C"
        LIMIT %(limit)s
    ) AS confident
    WHERE coalesce((SELECT score FROM cut), 0) <= 0.0100001
    UNION SELECT id FROM (
        SELECT m.id FROM memories m WHERE {_POOL}
        ORDER BY coalesce(array_position(%(priority)s::text[], m.type), 1000),
            {_DECAYED} DESC, m.reinforced_us DESC, m.id COLLATE "C"
        LIMIT %(limit)s
    ) AS prior
    WHERE NOT EXISTS (SELECT FROM hits)
)
SELECT json_build_object(
    'n', (SELECT n FROM stats),
    'total', (SELECT total FROM stats),
    'df', (SELECT coalesce(json_object_agg(term, df), '{{}}'::json) FROM df),
    'count', (SELECT stored FROM stats)
), array(
    SELECT m.data::text FROM memories m
    WHERE m.user_id = %(user)s AND m.id IN (SELECT id FROM picked) ORDER BY m.pos
), u.next_seq, u.version, u.extra::text
FROM (SELECT) AS one LEFT JOIN users u ON u.user_id = %(user)s
"""


def _read_focused(tx: _Tx, user: str, focus: Focus) -> tuple[LtmFile, int]:
    """The memories `focus` names, in their stored order, as a partial LtmFile.

    A memory is read when it is one of `focus.ids`, was created by reflection after
    `focus.created_since`, or holds at least as many of a text's terms as the gate needs
    before it compares the two (`same_fact_terms`): the gate then decides exactly as it
    would over every memory. A row that does not validate is skipped here (reading it is
    left to a full read, which moves it aside).
    """
    from .gate import same_fact_terms

    keys: list[int] = []
    words: list[str] = []
    needs: list[int] = []
    for k, text in enumerate(dict.fromkeys(focus.texts)):
        wanted, need = same_fact_terms(text)
        for term in sorted(wanted):
            keys.append(k)
            words.append(term)
            needs.append(need)
    since = None if focus.created_since is None else _micros(focus.created_since)
    row = tx.run(
        # One set of ids from three index lookups (an OR of them would scan every row),
        # and the user's row, in one statement.
        "SELECT array(SELECT data::text FROM memories WHERE user_id = %(user)s AND id IN ("
        " SELECT unnest(%(ids)s::text[])"
        " UNION SELECT id FROM memories WHERE user_id = %(user)s AND source = 'reflection'"
        "  AND created_us > %(since)s"
        " UNION SELECT id FROM (" + _NEAR + ") AS near"
        ") ORDER BY pos), u.next_seq, u.version, u.extra::text"
        " FROM (SELECT) AS one LEFT JOIN users u ON u.user_id = %(user)s",
        {
            "user": user,
            "ids": sorted(focus.ids),
            "since": since,
            "keys": keys,
            "words": words,
            "needs": needs,
        },
    ).fetchone()
    assert row is not None  # the statement always returns one row
    return _partial(None if row[2] is None else row[1:], row[0])


def _partial(user_row: tuple[Any, ...] | None, texts: list[str]) -> tuple[LtmFile, int]:
    """A partial LtmFile of the memory rows `texts` (in order) under the user's row
    (next_seq, version, extra), and the version; rows that do not validate are skipped."""
    next_seq, version, extra = (1, 0, "{}") if user_row is None else user_row
    head = json.loads(extra)
    head.update(schema_version=SCHEMA_VERSION, next_seq=int(next_seq), history_bytes=0)
    ltm = LtmFile.model_validate({**head, "memories": []})
    for text in texts:
        try:
            ltm.memories.append(Memory.model_validate_json(text))
        except (ValidationError, RecursionError):
            continue
    return ltm, int(version)


def _label_terms(memory: Memory) -> tuple[str, ...]:
    """The terms retrieval adds to a memory's content terms (see `MemoryIndex`)."""
    from .text import terms

    return (*terms(memory.type), *terms(memory.subject))


def _indexed(memory: Memory) -> tuple[Any, ...]:
    """The values of the `_INDEXED` columns for one memory."""
    from .text import terms

    content = terms(memory.content)
    return (
        sorted(set(content)),
        len(content) + len(_label_terms(memory)),
        memory.type,
        memory.status,
        memory.source,
        memory.decay,
        memory.confidence,
        _micros(memory.created_at),
        _micros(memory.last_reinforced),
        memory.project,
        memory.agent,
        memory.personality,
        memory.is_global,
    )


# Where each pool column stands among the `_INDEXED` ones.
_POOL_AT = tuple(_INDEXED.split(", ").index(name) for name in _POOL_COLUMNS.split(", "))


def _index_terms(tx: _Tx, user: str, memories: list[Memory]) -> None:
    """Add the terms of `memories` to `memory_terms`, one row per distinct term, each with
    its memory's pool columns."""
    from collections import Counter

    from .text import terms

    rows = []
    for m in memories:
        content, labels = Counter(terms(m.content)), Counter(_label_terms(m))
        pool = _pool_values(m)
        for term in sorted(content.keys() | labels.keys()):
            rows.append((user, term, m.id, content[term], labels[term], *pool))
    tx.many(
        f"INSERT INTO memory_terms (user_id, term, memory_id, content_tf, label_tf, "
        f"{_POOL_COLUMNS}) VALUES (%s, %s, %s, %s, %s{', %s' * _POOL_COLUMNS.count(',')}, %s)",
        rows,
    )


# The fields of a memory that its pool columns are made of (besides its text).
_POOL_FIELDS = (
    "status",
    "decay",
    "confidence",
    "created_at",
    "last_reinforced",
    "project",
    "agent",
    "personality",
    "is_global",
)


def _pool_values(memory: Memory) -> tuple[Any, ...]:
    """The values of the `_POOL_COLUMNS` for one memory: those of its `_INDEXED` columns."""
    indexed = _indexed(memory)
    return tuple(indexed[i] for i in _POOL_AT)


def _read_session(
    tx: _Tx, user: str, name: str, now: datetime | None = None, warnings: list[str] | None = None
) -> SessionFile | None:
    """The session; one that does not validate is renamed `<name>.corrupt-<time>` (kept,
    never overwritten) when `now` is given (under the lock), else skipped."""
    row = tx.run(
        "SELECT data::text FROM sessions WHERE user_id = %s AND name = %s", (user, name)
    ).fetchone()
    if row is None:
        return None
    try:
        return SessionFile.model_validate_json(row[0])
    except (ValidationError, RecursionError) as exc:
        reason = str(exc).splitlines()[0] if isinstance(exc, ValidationError) else "too deep"
    if now is None:
        return None
    aside = f"{name or 'session'}.corrupt-{now:%Y%m%dT%H%M%S%f}"
    tx.run("UPDATE sessions SET name = %s WHERE user_id = %s AND name = %s", (aside, user, name))
    if warnings is not None:
        warnings.append(
            f"the session could not be read ({reason}); kept it as session {aside!r} and "
            "started an empty one"
        )
    return None


def _write_memories(tx: _Tx, user: str, base: _Baseline, ltm: LtmFile) -> None:
    """Write the rows that differ from `base` (new, changed, removed) and the user row."""
    ids = [m.id for m in ltm.memories]
    kept = set(ids)
    removed = [i for i in base.order if i not in kept]
    old_order = [i for i in base.order if i in kept]
    reordered = [i for i in ids if i in base.fields] != old_order
    row = tx.run("SELECT next_pos FROM users WHERE user_id = %s", (user,)).fetchone()
    if row is None:  # a new user (no one else can add the row: we hold the user's lock)
        _ensure_user(tx, user)
    next_pos = int(row[0]) if row else 0
    upserts = []
    reindexed: list[Memory] = []
    repooled: list[Memory] = []  # same terms, other pool columns (status, confidence...)
    for memory in ltm.memories:
        before = base.fields.get(memory.id)
        if before is None or reordered or _changed(memory, before):
            upserts.append((user, memory.id, next_pos, memory.model_dump_json(), *_indexed(memory)))
            next_pos += 1
            if before is None or any(
                getattr(memory, name) != before[0].get(name)
                for name in ("content", "type", "subject")
            ):
                reindexed.append(memory)
            elif any(getattr(memory, name) != before[0].get(name) for name in _POOL_FIELDS):
                repooled.append(memory)
    if removed:
        tx.run("DELETE FROM memories WHERE user_id = %s AND id = ANY(%s)", (user, removed))
    stale = removed + [m.id for m in reindexed if m.id in base.fields]
    if stale:
        tx.run("DELETE FROM memory_terms WHERE user_id = %s AND memory_id = ANY(%s)", (user, stale))
    # A changed memory moves to the end only if the order changed; otherwise it keeps its
    # position (the ON CONFLICT branch leaves pos alone).
    tx.many(
        f"INSERT INTO memories (user_id, id, pos, data, {_INDEXED}) "
        f"VALUES (%s, %s, %s, %s::jsonb{', %s' * _INDEXED.count(',')}, %s) "
        "ON CONFLICT (user_id, id) DO UPDATE SET data = EXCLUDED.data, "
        + ", ".join(f"{c} = EXCLUDED.{c}" for c in _INDEXED.split(", "))
        + (", pos = EXCLUDED.pos" if reordered else ""),
        upserts,
    )
    _index_terms(tx, user, reindexed)
    tx.many(
        f"UPDATE memory_terms SET ({_POOL_COLUMNS}) = ({', '.join(['%s'] * 10)}) "
        "WHERE user_id = %s AND memory_id = %s",
        [(*_pool_values(m), user, m.id) for m in repooled],
    )
    extra = json.dumps(ltm.__pydantic_extra__ or {})
    tx.run(
        "UPDATE users SET next_seq = GREATEST(next_seq, %s), next_pos = %s, "
        "version = version + 1, extra = %s::jsonb WHERE user_id = %s",
        (ltm.next_seq, next_pos, extra, user),
    )


def _insert_history(tx: _Tx, user: str, entries: list[HistoryEntry]) -> None:
    tx.many(
        "INSERT INTO history (user_id, memory_id, data) VALUES (%s, %s, %s::jsonb)",
        [(user, e.memory_id, e.model_dump_json()) for e in entries],
    )


def _append_overflow(tx: _Tx, user: str, session: SessionFile, messages: list[Message]) -> None:
    row = tx.run(
        "SELECT data::text FROM overflow WHERE user_id = %s AND session_id = %s",
        (user, session.session_id),
    ).fetchone()
    archived = (
        SessionFile.model_validate_json(row[0])
        if row
        else session.model_copy(update={"messages": [], "session_summary": ""})
    )
    archived.messages.extend(messages)
    tx.run(
        "INSERT INTO overflow (user_id, session_id, data) VALUES (%s, %s, %s::jsonb) "
        "ON CONFLICT (user_id, session_id) DO UPDATE SET data = EXCLUDED.data",
        (user, session.session_id, archived.model_dump_json()),
    )


def _scrub_sessions(tx: _Tx, user: str, content: str) -> None:
    """Replace `content` with [purged] in this user's sessions, archives and overflow."""
    needle = content.strip()
    tables = (
        ("sessions", "name"),
        ("archived_sessions", "seq"),
        ("overflow", "session_id"),
    )
    for table, key in tables:
        rows = tx.run(
            f"SELECT {key}, data::text FROM {table} WHERE user_id = %s FOR UPDATE", (user,)
        ).fetchall()
        for key_value, text in rows:
            try:
                session = SessionFile.model_validate_json(text)
            except (ValidationError, RecursionError):
                continue  # an unreadable session is left as it is, as the file store does
            if needle not in session.session_summary and not any(
                needle in m.content for m in session.messages
            ):
                continue
            session.session_summary = session.session_summary.replace(needle, "[purged]")
            for message in session.messages:
                message.content = message.content.replace(needle, "[purged]")
            tx.run(
                f"UPDATE {table} SET data = %s::jsonb WHERE user_id = %s AND {key} = %s",
                (session.model_dump_json(), user, key_value),
            )


# --- A whole user at once: what a migration between stores reads and writes ---------------

_CORRUPT_SESSION = re.compile(r"\.corrupt-\d{8}T\d+$")  # named by `_read_session`
_USER_TABLES = ("memories", "history", "counters", "sessions", "archived_sessions", "overflow")


def _read_user(tx: _Tx, user: str, problems: list[str]) -> UserState:
    """All of one user's rows as a UserState; rows that do not validate are `problems`."""
    warnings: list[str] = []
    ltm, _ = _read_ltm(tx, user, datetime.now(UTC), warnings, move_aside=False)
    problems.extend(w.split("; continuing")[0] for w in warnings)
    state = UserState(ltm=ltm)
    rows = tx.run("SELECT seq, data::text FROM history WHERE user_id = %s ORDER BY seq", (user,))
    state.history = _validated(HistoryEntry, rows.fetchall(), "history row", problems)
    counters = tx.run("SELECT name, value FROM counters WHERE user_id = %s", (user,))
    state.counters = {name: int(value) for name, value in counters.fetchall()}
    rows = tx.run("SELECT name, data::text FROM sessions WHERE user_id = %s ORDER BY name", (user,))
    for name, text in rows.fetchall():
        if _CORRUPT_SESSION.search(name):
            state.set_aside.append(f"session {name!r}")
            continue
        for session in _validated(SessionFile, [(name, text)], "session", problems):
            state.sessions[name] = session
    rows = tx.run(
        "SELECT seq, data::text FROM archived_sessions WHERE user_id = %s ORDER BY seq", (user,)
    )
    state.archives = _validated(SessionFile, rows.fetchall(), "archived session", problems)
    rows = tx.run(
        "SELECT session_id, data::text FROM overflow WHERE user_id = %s ORDER BY session_id",
        (user,),
    )
    for session_id, text in rows.fetchall():
        for session in _validated(SessionFile, [(session_id, text)], "overflow", problems):
            state.overflow[session_id] = session
    row = tx.run("SELECT count(*) FROM invalid_memories WHERE user_id = %s", (user,)).fetchone()
    if row and row[0]:
        state.set_aside.append(f"{row[0]} row(s) of invalid_memories")
    return state


def _validated(
    model: type[Any], rows: list[tuple[Any, str]], what: str, problems: list[str]
) -> list[Any]:
    out = []
    for key, text in rows:
        try:
            out.append(model.model_validate_json(text))
        except (ValidationError, RecursionError):
            problems.append(f"{what} {key!r} cannot be read")
    return out


def _rows_held(tx: _Tx, user: str) -> list[str]:
    """What this user has in the database: tables with rows, or ids issued before."""
    held = []
    for table in (*_USER_TABLES, "invalid_memories"):
        row = tx.run(f"SELECT count(*) FROM {table} WHERE user_id = %s", (user,)).fetchone()
        if row and row[0]:
            held.append(f"{row[0]} row(s) in {table}")
    row = tx.run("SELECT next_seq FROM users WHERE user_id = %s", (user,)).fetchone()
    if row and row[0] != 1:
        # Cleared memories keep next_seq here, so their ids could come back otherwise.
        held.append(f"ids up to mem_{int(row[0]) - 1:04d} issued before")
    return held


def _insert_user(tx: _Tx, user: str, state: UserState) -> None:
    """Every row of `state`, in its order (positions and sequence numbers follow it)."""
    ltm = state.ltm
    tx.run(
        "INSERT INTO users (user_id, next_seq, next_pos, version, extra) "
        "VALUES (%s, %s, %s, 1, %s::jsonb) ON CONFLICT (user_id) DO UPDATE SET "
        "next_seq = EXCLUDED.next_seq, next_pos = EXCLUDED.next_pos, "
        "version = users.version + 1, extra = EXCLUDED.extra",
        (user, ltm.next_seq, len(ltm.memories), json.dumps(ltm.__pydantic_extra__ or {})),
    )
    # The index is written with the rows, as every other write does, so focused reads and
    # recall see migrated memories.
    tx.many(
        f"INSERT INTO memories (user_id, id, pos, data, {_INDEXED}) "
        f"VALUES (%s, %s, %s, %s::jsonb{', %s' * _INDEXED.count(',')}, %s)",
        [
            (user, m.id, pos, m.model_dump_json(), *_indexed(m))
            for pos, m in enumerate(ltm.memories)
        ],
    )
    _index_terms(tx, user, list(ltm.memories))
    _insert_history(tx, user, state.history)
    tx.many(
        "INSERT INTO counters (user_id, name, value) VALUES (%s, %s, %s)",
        [(user, name, value) for name, value in sorted(state.counters.items())],
    )
    tx.many(
        "INSERT INTO sessions (user_id, name, data) VALUES (%s, %s, %s::jsonb)",
        [(user, name, s.model_dump_json()) for name, s in state.sessions.items()],
    )
    tx.many(
        "INSERT INTO archived_sessions (user_id, session_id, data) VALUES (%s, %s, %s::jsonb)",
        [(user, s.session_id, s.model_dump_json()) for s in state.archives],
    )
    tx.many(
        "INSERT INTO overflow (user_id, session_id, data) VALUES (%s, %s, %s::jsonb)",
        [(user, key, s.model_dump_json()) for key, s in state.overflow.items()],
    )
