"""The store contract, run against every implementation: the JSON files and PostgreSQL.

Whatever keeps the data, a reader sees the same snapshot, a writer's change is all or
nothing, ids are never reused, purge removes the text everywhere, and one user's data is
never reached through another user's store.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from pipeline import pgstore, store
from pipeline.errors import ConfigError, LockTimeout, SaveFailed, StateError
from pipeline.models import HistoryEntry, LtmFile, Memory, Message, SessionFile
from pipeline.paths import DEFAULT_USER
from pipeline.store import Change, Snapshot, Store
from tests.faults import failing_file_write, failing_statement
from tests.helpers import PROJECT, echo_responder, invoke, start_turn, turn_env
from tests.llm_server import ScriptedLLM
from tests.strategies import NOW, memory

# --- The two implementations, behind one factory --------------------------------------------


@dataclass
class Backend:
    """Makes stores of one kind, and fails their Nth write for the fault class."""

    name: str
    make: Callable[..., Store]
    fail_nth: Callable[[int], contextlib.AbstractContextManager[list[int]]]
    make_newer: Callable[[], None]
    # Damage what a user stored, by hand: one memory's confidence, the current session.
    damage: Callable[[str], None]


def _file_backend(tmp_path: Path) -> Backend:
    root = tmp_path / "state"

    def make(user: str = DEFAULT_USER, session: str | None = None) -> Store:
        return store.FileStore(store.StatePaths(root, user, session))

    def newer() -> None:
        path = store.StatePaths(root).ltm
        data = json.loads(path.read_text())
        path.write_text(json.dumps({**data, "schema_version": 99}))

    def damage(part: str) -> None:
        paths = store.StatePaths(root)
        if part == "session":
            paths.session.write_text('{"schema_version": 1, "messages": 7}')
            return
        data = json.loads(paths.ltm.read_text())
        data["memories"][0]["confidence"] = 5
        paths.ltm.write_text(json.dumps(data))

    return Backend("file", make, failing_file_write, newer, damage)


def _pg_backend(url: str) -> Backend:
    def make(user: str = DEFAULT_USER, session: str | None = None) -> Store:
        return pgstore.PostgresStore(url, user, session)

    def newer() -> None:
        pgstore.connection(url).execute("UPDATE schema_version SET version = 99")
        _forget_connections()

    def damage(part: str) -> None:
        conn = pgstore.connection(url)
        if part == "session":
            conn.execute("""UPDATE sessions SET data = '{"schema_version": 1, "messages": 7}'""")
            return
        conn.execute(
            "UPDATE memories SET data = jsonb_set(data, '{confidence}', '5') "
            "WHERE id = (SELECT min(id) FROM memories)"
        )

    return Backend(
        "postgresql",
        make,
        lambda n: failing_statement(n, url, drop=n % 2 == 0),
        newer,
        damage,
    )


def _forget_connections() -> None:
    for conn in pgstore._connections.values():
        conn.close()
    pgstore._connections.clear()


@pytest.fixture(params=["file", "postgresql"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    """Each contract test runs once per store implementation."""
    if request.param == "file":
        yield _file_backend(tmp_path)
        return
    yield _pg_backend(request.getfixturevalue("pg_url"))


# --- Helpers --------------------------------------------------------------------------------


def add_memories(*contents: str, extra: dict[str, Any] | None = None) -> Callable[..., Any]:
    """A merge that creates memories with the next ids, a history line each, a counter,
    and one turn in the session."""

    def merge(disk: Snapshot) -> Change[list[str]]:
        ids, history = [], []
        for content in contents:
            mid = f"mem_{disk.ltm.next_seq:04d}"
            disk.ltm.next_seq += 1
            disk.ltm.memories.append(
                memory(mid, content, age_hours=0).model_copy(update=extra or {})
            )
            history.append(HistoryEntry(memory_id=mid, at=NOW, event="created"))
            ids.append(mid)
        session = disk.session or SessionFile(session_id="s-1", created_at=NOW)
        turn = f"t-{len(session.messages)}"
        session.messages.append(
            Message(role="user", content=" ".join(contents), timestamp=NOW, turn_id=turn)
        )
        return Change(
            result=ids,
            ltm=disk.ltm,
            session=session,
            history=history,
            counters={"created": len(ids)},
        )

    return merge


def observe(s: Store) -> dict[str, Any]:
    """Everything a user can observe through a store, as plain data."""
    snap = s.load(now=NOW, quarantine_ltm=False)
    return {
        "next_seq": snap.ltm.next_seq,
        "memories": [m.model_dump(mode="json") for m in snap.ltm.memories],
        "session": snap.session.model_dump(mode="json") if snap.session else None,
        "history": [h.model_dump(mode="json") for h in s.read_history(snap.ltm)],
        "counters": s.read_counters(),
    }


def commit(s: Store, merge: Callable[..., Any], **kw: Any) -> Any:
    result, _ = s.transact(merge, now=NOW, lock_timeout=5, **kw)
    return result


# --- load / transact ------------------------------------------------------------------------


def test_a_commit_round_trips_every_part(backend: Backend) -> None:
    """Memories (unknown fields included), session, history and counters read back as
    written, in order."""
    s = backend.make()
    assert commit(s, add_memories("User likes tea", "User owns a bike", extra={"x_tag": [1]})) == [
        "mem_0001",
        "mem_0002",
    ]
    commit(s, add_memories("User lives in Porto"))
    seen = observe(s)
    assert [m["content"] for m in seen["memories"]] == [
        "User likes tea",
        "User owns a bike",
        "User lives in Porto",
    ]
    assert seen["memories"][0]["x_tag"] == [1]
    assert seen["next_seq"] == 4
    assert [h["memory_id"] for h in seen["history"]] == ["mem_0001", "mem_0002", "mem_0003"]
    assert seen["counters"] == {"created": 3}
    assert len(seen["session"]["messages"]) == 2
    assert [h.memory_id for h in s.read_history(s.load(now=NOW).ltm, "mem_0002")] == ["mem_0002"]


def test_a_changed_memory_is_written_and_others_stay(backend: Backend) -> None:
    """A commit that edits one memory and removes another leaves the rest as they were,
    in their order; next_seq never goes back, so no id is issued twice."""
    s = backend.make()
    commit(s, add_memories("User likes tea", "User owns a bike", "User lives in Porto"))

    def edit(disk: Snapshot) -> Change[None]:
        disk.ltm.memories[2].confidence = 0.5
        disk.ltm.memories = [m for m in disk.ltm.memories if m.id != "mem_0002"]
        return Change(result=None, ltm=disk.ltm)

    commit(s, edit)
    commit(s, add_memories("User plays chess"))
    seen = observe(s)
    assert [(m["id"], m["confidence"]) for m in seen["memories"]] == [
        ("mem_0001", 0.9),
        ("mem_0003", 0.5),
        ("mem_0004", 0.9),
    ]


def test_a_merge_that_raises_saves_nothing(backend: Backend) -> None:
    """An error inside the merge leaves the store exactly as before."""
    s = backend.make()
    commit(s, add_memories("User likes tea"))
    before = observe(s)

    def broken(disk: Snapshot) -> Change[None]:
        add_memories("User owns a bike")(disk)
        raise ValueError("merge failed")

    with pytest.raises(ValueError, match="merge failed"):
        commit(s, broken)
    assert observe(s) == before


def test_a_dry_run_commit_keeps_the_memories_and_saves_the_session(backend: Backend) -> None:
    """write_ltm=False records the session and counters but no memory or history."""
    s = backend.make()
    commit(s, add_memories("User likes tea"))
    before = observe(s)
    commit(s, add_memories("User owns a bike"), write_ltm=False)
    after = observe(s)
    assert after["memories"] == before["memories"]
    assert after["history"] == before["history"]
    assert len(after["session"]["messages"]) == 2
    assert after["counters"] == {"created": 2}


def test_version_changes_with_each_memory_commit(backend: Backend) -> None:
    """version() changes whenever the memories change, so warm caches can trust it."""
    s = backend.make()
    first = s.version()
    commit(s, add_memories("User likes tea"))
    second = s.version()
    commit(s, add_memories("User owns a bike"))
    assert len({first, second, s.version()}) == 3


def test_archives_and_overflow_are_kept(backend: Backend) -> None:
    """An archived session and turns that overflowed the window are stored, not dropped,
    and purge reaches them."""
    s = backend.make()
    commit(s, add_memories("User likes green tea"))
    old = SessionFile(
        session_id="s-old",
        created_at=NOW,
        messages=[
            Message(role="user", content="I said User likes green tea", timestamp=NOW, turn_id="t")
        ],
    )
    fresh = SessionFile(session_id="s-new", created_at=NOW)

    def roll(_disk: Snapshot) -> Change[None]:
        return Change(result=None, session=fresh, archive_session=old, overflow=list(old.messages))

    commit(s, roll)
    assert observe(s)["session"]["session_id"] == "s-new"
    dump = json.dumps(_everything(backend, s))
    assert dump.count("I said User likes green tea") == 2  # the archive and the overflow
    s.purge_memory("mem_0001", now=NOW, lock_timeout=5)
    dump = json.dumps(_everything(backend, s))
    assert "green tea" not in dump
    assert dump.count("I said [purged]") == 2


def _everything(backend: Backend, s: Store) -> Any:
    """Every byte the store holds for its user (all files, or every row of every table)."""
    if isinstance(s, store.FileStore):
        home = s.paths.home
        return {
            str(p.relative_to(home)): p.read_bytes().decode("utf-8", "replace")
            for p in sorted(home.rglob("*"))
            if p.is_file() and not p.name.startswith(".")
        }
    assert isinstance(s, pgstore.PostgresStore)
    conn = pgstore.connection(s.url)
    out = {}
    for (table,) in conn.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> "
        "'schema_version' ORDER BY 1"
    ).fetchall():
        rows = conn.execute(
            f"SELECT to_jsonb(t) - 'seq' - 'user_id' FROM {table} t WHERE user_id = %s",
            (s.user,),
        ).fetchall()
        out[table] = sorted(json.dumps(r[0], sort_keys=True) for r in rows)
    return out


# --- purge, clear, vectors ------------------------------------------------------------------


def test_purge_removes_the_text_everywhere_and_keeps_a_line(backend: Backend) -> None:
    """After a purge the text is in no memory, history row, session or vector; the
    history says it was purged; the other memories stay; an unknown id is None."""
    import numpy as np

    from pipeline.embeddings import content_key

    s = backend.make()
    commit(s, add_memories("User's secret hobby is falconry", "User likes tea"))
    key = content_key("User's secret hobby is falconry")
    vectors = {key: np.ones(4, np.float32), content_key("User likes tea"): np.zeros(4, np.float32)}
    s.write_vectors(vectors, "model-a", lock_timeout=5)
    purged, _ = s.purge_memory("mem_0001", now=NOW, lock_timeout=5)
    assert purged is not None
    assert purged.content == "User's secret hobby is falconry"
    assert "falconry" not in json.dumps(_everything(backend, s))
    seen = observe(s)
    assert [m["id"] for m in seen["memories"]] == ["mem_0002"]
    assert [(h["memory_id"], h["event"]) for h in seen["history"]] == [
        ("mem_0002", "created"),
        ("mem_0001", "purged"),
    ]
    assert set(s.read_vectors("model-a")) == {content_key("User likes tea")}
    assert s.purge_memory("mem_0099", now=NOW, lock_timeout=5)[0] is None
    commit(s, add_memories("User plays chess"))
    assert observe(s)["memories"][-1]["id"] == "mem_0003"  # the purged id is not reused


def test_clear_memory_and_session_count_and_are_idempotent(backend: Backend) -> None:
    """Clearing reports what it removed, then 0; the session and the memories are cleared
    independently."""
    s = backend.make()
    commit(s, add_memories("User likes tea", "User owns a bike"))
    commit(s, add_memories("User plays chess"))
    assert s.clear_session(lock_timeout=5) == 2
    assert s.clear_session(lock_timeout=5) == 0
    assert len(observe(s)["memories"]) == 3
    assert s.clear_memory(lock_timeout=5) == 3
    assert s.clear_memory(lock_timeout=5) == 0
    seen = observe(s)
    assert seen["memories"] == []
    assert seen["history"] == []
    assert seen["session"] is None


def test_vectors_round_trip_by_model_and_version(backend: Backend) -> None:
    """The vector cache holds exactly what was written last, per model; writing it
    changes vectors_version."""
    import numpy as np

    s = backend.make()
    assert s.read_vectors("m") == {}
    before = s.vectors_version()
    s.write_vectors({"a": np.arange(4, dtype=np.float32)}, "m", lock_timeout=5)
    middle = s.vectors_version()
    s.write_vectors({"b": np.ones(4, np.float32)}, "m", lock_timeout=5)
    cached = s.read_vectors("m")
    assert set(cached) == {"b"}
    assert cached["b"].tolist() == [1.0] * 4
    assert s.read_vectors("other-model") == {}
    assert len({before, middle, s.vectors_version()}) == 3


def test_a_newer_schema_is_refused_and_nothing_changes(backend: Backend) -> None:
    """A store written by a newer version is refused with StateError and left as it is."""
    s = backend.make()
    commit(s, add_memories("User likes tea"))
    backend.make_newer()
    with pytest.raises(StateError, match="schema_version 99"):
        backend.make().load(now=NOW)
    with pytest.raises(StateError, match="schema_version 99"):
        commit(backend.make(), add_memories("User owns a bike"))


def test_an_invalid_memory_is_moved_aside_and_the_others_stay(backend: Backend) -> None:
    """One memory that fails validation: a read skips it and leaves it in place; a
    writer moves it aside (kept, with its reason) and the other memories stay in use."""
    s = backend.make()
    commit(s, add_memories("User likes tea", "User owns a bike"))
    backend.damage("memory")
    dry = s.load(now=NOW, quarantine_ltm=False)
    assert [m.id for m in dry.ltm.memories] == ["mem_0002"]
    assert dry.warnings
    _, warnings = s.transact(add_memories("User plays chess"), now=NOW, lock_timeout=5)
    assert any("could not be read" in w for w in warnings)
    assert [m["id"] for m in observe(s)["memories"]] == ["mem_0002", "mem_0003"]
    assert '"confidence": 5' in json.dumps(_everything(backend, s)).replace("\\", "")


def test_an_unreadable_session_is_kept_aside_and_a_new_one_starts(backend: Backend) -> None:
    """A session that does not validate is not overwritten: the commit keeps it under
    another name, says so, and starts the session afresh."""
    s = backend.make()
    commit(s, add_memories("User likes tea"))
    backend.damage("session")
    _, warnings = s.transact(add_memories("User plays chess"), now=NOW, lock_timeout=5)
    assert any("session" in w for w in warnings)
    assert len(observe(s)["session"]["messages"]) == 1
    assert '"messages": 7' in json.dumps(_everything(backend, s)).replace("\\", "")


def test_a_known_snapshot_is_reused_only_while_current(backend: Backend) -> None:
    """A commit given the snapshot a turn loaded still sees a commit made in between."""
    s = backend.make()
    commit(s, add_memories("User likes tea"))
    known = s.load(now=NOW)
    commit(s, add_memories("User owns a bike"))
    s.transact(add_memories("User plays chess"), now=NOW, lock_timeout=5, known=known)
    assert [m["content"] for m in observe(s)["memories"]] == [
        "User likes tea",
        "User owns a bike",
        "User plays chess",
    ]


def test_a_held_lock_is_a_lock_timeout(backend: Backend) -> None:
    """While another writer holds the user's lock, a commit waits, then says so."""
    s = backend.make()
    commit(s, add_memories("User likes tea"))
    with _holding_lock(backend, s):
        started = time.monotonic()
        with pytest.raises(LockTimeout):
            s.transact(add_memories("User owns a bike"), now=NOW, lock_timeout=0.3)
        assert time.monotonic() - started < 5
    assert len(observe(s)["memories"]) == 1


@contextlib.contextmanager
def _holding_lock(backend: Backend, s: Store) -> Iterator[None]:
    if isinstance(s, store.FileStore):
        from filelock import FileLock

        with FileLock(s.paths.lock):
            yield
        return
    assert isinstance(s, pgstore.PostgresStore)
    import psycopg

    with psycopg.connect(s.url) as other, other.transaction():
        other.execute("SELECT pg_advisory_xact_lock(%s)", (pgstore._lock_key(s.user),))
        yield


# --- users are isolated ---------------------------------------------------------------------


def test_no_operation_on_one_user_reaches_another(backend: Backend) -> None:
    """Two users with identical memories, sessions and vectors: forgetting, purging and
    clearing one leaves every byte of the other exactly as it was."""
    import numpy as np

    from pipeline.embeddings import content_key

    alice, bob = backend.make("alice"), backend.make("bob")
    for s in (alice, bob):
        commit(s, add_memories("User likes tea", "User owns a bike", "User plays chess"))
        s.write_vectors(
            {content_key("User likes tea"): np.ones(4, np.float32)}, "m", lock_timeout=5
        )
    bob_before = _everything(backend, bob)
    assert bob_before == _everything(backend, alice)

    def forget(disk: Snapshot) -> Change[None]:
        disk.ltm.memories[1].status = "forgotten"
        return Change(result=None, ltm=disk.ltm)

    commit(alice, forget)
    alice.purge_memory("mem_0001", now=NOW, lock_timeout=5)
    alice.clear_session(lock_timeout=5)
    assert alice.clear_memory(lock_timeout=5) == 2
    assert _everything(backend, bob) == bob_before
    assert [m["content"] for m in observe(bob)["memories"]] == [
        "User likes tea",
        "User owns a bike",
        "User plays chess",
    ]


def test_named_sessions_are_separate(backend: Backend) -> None:
    """A named session and the current one of the same user are different sessions,
    over the same memories."""
    current, named = backend.make("alice"), backend.make("alice", "work")
    commit(current, add_memories("User likes tea"))
    commit(named, add_memories("User owns a bike"))
    assert len(observe(current)["session"]["messages"]) == 1
    assert len(observe(named)["session"]["messages"]) == 1
    assert len(observe(current)["memories"]) == 2


# --- the fault class ------------------------------------------------------------------------


FAULTY_OPERATIONS: dict[str, Callable[[Store], object]] = {
    "commit": lambda s: commit(s, add_memories("User plays chess", "User lives in Porto")),
    "purge": lambda s: s.purge_memory("mem_0001", now=NOW, lock_timeout=5),
    "clear memory": lambda s: s.clear_memory(lock_timeout=5),
    "clear session": lambda s: s.clear_session(lock_timeout=5),
}


@pytest.mark.parametrize("operation", FAULTY_OPERATIONS)
def test_a_failure_at_any_write_leaves_exactly_before_or_after(
    backend: Backend, operation: str
) -> None:
    """Fail each write of a commit, a purge or a clear in turn (a disk error for the
    files; an error or a dropped connection at each statement for PostgreSQL): the store
    then holds exactly the state before, and says nothing was saved, or exactly the
    state after."""
    run = FAULTY_OPERATIONS[operation]
    s = backend.make()
    commit(s, add_memories("User likes tea", "User owns a bike"))
    before = observe(s)
    with backend.fail_nth(10**9) as counted:
        run(s)
    after = observe(s)
    assert after != before
    total = counted[0]
    assert total >= 1
    outcomes = []
    for n in range(1, total + 1):
        _restore(backend, s, before)
        with backend.fail_nth(n):
            try:
                run(s)
                outcome = "saved"
            except SaveFailed:
                outcome = "not saved"
            except StateError as exc:
                # The connection dropped at COMMIT itself: the client cannot know whether the
                # server committed, and says so; the state must still be one or the other.
                outcome = "unknown" if "may or may not have been saved" in str(exc) else str(exc)
        seen = observe(s)
        assert seen in (before, after), n
        assert outcome in ("saved", "not saved", "unknown"), (n, outcome)
        if outcome != "unknown":
            assert (seen == after) == (outcome == "saved"), (n, outcome)
        outcomes.append(outcome)
    assert "not saved" in outcomes


def _restore(backend: Backend, s: Store, state: dict[str, Any]) -> None:
    """Put the store back to `state` (memories, history, counters, session)."""
    ltm = LtmFile(next_seq=state["next_seq"], memories=[Memory(**m) for m in state["memories"]])
    s.clear_memory(lock_timeout=5)
    s.clear_session(lock_timeout=5)
    if isinstance(s, store.FileStore):
        with contextlib.suppress(FileNotFoundError):
            s.paths.counters.unlink()
    else:
        assert isinstance(s, pgstore.PostgresStore)
        pgstore.connection(s.url).execute("DELETE FROM counters WHERE user_id = %s", (s.user,))
        pgstore.connection(s.url).execute(
            "UPDATE users SET next_seq = %s WHERE user_id = %s", (state["next_seq"], s.user)
        )
    session = SessionFile.model_validate(state["session"]) if state["session"] else None
    history = [HistoryEntry.model_validate(h) for h in state["history"]]

    def put(_disk: Snapshot) -> Change[None]:
        return Change(
            result=None, ltm=ltm, session=session, history=history, counters=state["counters"]
        )

    commit(s, put)
    assert observe(s) == state


# --- configuration and messages -------------------------------------------------------------


def test_memtest_store_selects_postgresql(pg_url: str, tmp_path: Path) -> None:
    """MEMTEST_STORE=postgresql://… makes Settings.store a PostgresStore for the user and
    session; unset, it is the JSON files."""
    from pipeline.config import load_settings

    env = {"MEMTEST_STATE_DIR": str(tmp_path), "MEMTEST_ENV_FILE": os.environ["MEMTEST_ENV_FILE"]}
    assert isinstance(load_settings(environ=env).store, store.FileStore)
    chosen = load_settings(environ={**env, "MEMTEST_STORE": pg_url}, user="ann", session="w").store
    assert chosen == pgstore.PostgresStore(pg_url, "ann", "w")


@pytest.mark.parametrize(
    "url", ["mysql://host/db", "postgresql://host:notaport/db", "postgresql:///db?nosuch=1"]
)
def test_a_bad_store_url_is_a_configuration_error(url: str) -> None:
    """A URL that is not postgresql:// or does not parse is exit 2, naming the setting."""
    from pipeline.config import load_settings

    with pytest.raises(ConfigError, match="MEMTEST_STORE"):
        load_settings(environ={"MEMTEST_STORE": url, **_env_file()})


def test_the_store_flag_and_the_library_select_postgresql(pg_url: str, tmp_path: Path) -> None:
    """--store on the command line wins over MEMTEST_STORE, Memory(store=…) selects the
    database in the library, and an empty or foreign --store is a usage error (exit 2)."""
    from pipeline.api import Memory

    state = tmp_path / "state"
    with ScriptedLLM() as server:
        env = turn_env(server, state, MEMTEST_STORE="postgresql:///elsewhere?host=/nonexistent")
        added = invoke(
            "memory", "add", "User rows on Sundays", "--type", "habit", "--store", pg_url, env=env
        )
        assert added.returncode == 0, added.stderr
        for bad in ("", "mysql://h/db"):
            refused = invoke("memory", "list", "--store", bad, env=env)
            assert (refused.returncode, "--store" in refused.stderr) == (2, True), refused.stderr
    assert not (state / "ltm.json").exists()
    library = Memory(tmp_path / "unused", store=pg_url)
    assert [v.memory.content for v in library.list()] == ["User rows on Sundays"]
    with pytest.raises(ConfigError, match="store"):
        Memory(tmp_path, store="sqlite:///x.db")


def _env_file() -> dict[str, str]:
    return {"MEMTEST_ENV_FILE": os.environ["MEMTEST_ENV_FILE"]}


def test_an_unreachable_server_is_one_line_and_exit_1(tmp_path: Path) -> None:
    """No server at the URL: the CLI says which store it could not reach, exits 1, and
    prints no traceback (the password is not shown)."""
    url = f"postgresql://me:hunter2@/db?host={tmp_path}&connect_timeout=2"
    for args in (("memory", "list"), ("-i", "hello")):
        with ScriptedLLM() as server:
            result = invoke(*args, env=turn_env(server, tmp_path / "s", MEMTEST_STORE=url))
        assert result.returncode == 1, result.stderr
        assert "Cannot connect to the PostgreSQL store" in result.stderr
        assert "Traceback" not in result.stderr
        assert "hunter2" not in result.stderr
        assert server.requests == []  # refused before any model call


def test_the_cli_runs_turns_and_commands_on_postgresql(pg_url: str, tmp_path: Path) -> None:
    """Turns (a dry run and a new session too), memory add/list/forget/purge and export
    through the CLI, with MEMTEST_STORE: the data is in the database and no state file is
    written."""
    state = tmp_path / "state"
    with ScriptedLLM(responder=echo_responder) as server:
        env = turn_env(server, state, MEMTEST_STORE=pg_url)
        turn = invoke("-i", "remember: User has a dog named Rex", env=env)
        assert turn.returncode == 0, turn.stderr
        dry = invoke("-i", "remember: User hates rain", "--dry-run-memory", env=env)
        assert dry.returncode == 0, dry.stderr
        fresh = invoke("-i", "hello again", "--new-session", env=env)
        assert fresh.returncode == 0, fresh.stderr
    conn = pgstore.connection(pg_url)
    archived = conn.execute("SELECT data FROM archived_sessions").fetchall()
    assert len(archived) == 1
    assert len(archived[0][0]["messages"]) == 4  # the first two turns, kept whole
    session = pgstore.PostgresStore(pg_url, DEFAULT_USER).load(now=NOW).session
    assert session is not None
    assert [m.content for m in session.messages] == ["hello again", "echo: hello again"]
    added = invoke("memory", "add", "User lives in Porto", "--type", "identity", env=env)
    assert added.returncode == 0, added.stderr
    listed = invoke("memory", "list", "--json", env=env)
    contents = [m["content"] for m in json.loads(listed.stdout)["memories"]]
    assert contents == ["User has a dog named Rex", "User lives in Porto"]
    assert invoke("memory", "forget", "mem_0001", env=env).returncode == 0
    assert invoke("memory", "forget", "--purge", "mem_0002", env=env).returncode == 0
    exported = invoke("memory", "export", "--all", env=env)
    assert [json.loads(line)["status"] for line in exported.stdout.splitlines()] == ["forgotten"]
    assert not list(state.rglob("*.json"))


# --- real processes -------------------------------------------------------------------------


PROCESSES = 24


@pytest.mark.slow
@pytest.mark.parametrize("shared", [True, False], ids=["one-user", "24-users"])
def test_24_concurrent_turns_lose_nothing(pg_url: str, tmp_path: Path, shared: bool) -> None:
    """24 CLI processes run turns at once on one database, for one shared user or for 24
    users: every turn is in its session, every memory and history row is there, and the
    ids are distinct."""
    with ScriptedLLM(responder=echo_responder) as server:
        env = turn_env(server, tmp_path / "state", MEMTEST_STORE=pg_url, MEMTEST_MAX_PER_DAY="100")
        procs = [
            start_turn(
                f"remember: User has a pet number {i}",
                {**env, "MEMTEST_USER_ID": "shared" if shared else f"user-{i}"},
            )
            for i in range(PROCESSES)
        ]
        outputs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0] * PROCESSES, [o[1] for o in outputs]
    users = ["shared"] if shared else [f"user-{i}" for i in range(PROCESSES)]
    contents, turns, history = [], 0, 0
    for user in users:
        s = pgstore.PostgresStore(pg_url, user)
        snap = s.load(now=NOW)
        assert len({m.id for m in snap.ltm.memories}) == len(snap.ltm.memories)
        contents += [m.content for m in snap.ltm.memories]
        assert snap.session is not None
        turn_ids = {m.turn_id for m in snap.session.messages}
        # Past twice the window, the oldest turns leave the session for the overflow.
        for (text,) in pgstore.connection(pg_url).execute(
            "SELECT data::text FROM overflow WHERE user_id = %s", (user,)
        ):
            turn_ids |= {m.turn_id for m in SessionFile.model_validate_json(text).messages}
        turns += len(turn_ids)
        history += len(s.read_history(snap.ltm))
    assert sorted(contents) == sorted(f"User has a pet number {i}" for i in range(PROCESSES))
    assert turns == PROCESSES
    assert history == PROCESSES


WRITER = """
import sys
from datetime import UTC, datetime
from pipeline import pgstore, store
from pipeline.models import HistoryEntry, LtmFile, Memory, SessionFile
now = datetime.now(UTC)
s = pgstore.PostgresStore(sys.argv[1], "alice")

def next_generation(disk):
    n = disk.ltm.next_seq + 1
    ltm = LtmFile(next_seq=n, memories=[
        Memory(id=f"mem_{i:05d}", type="habit", subject="user",
               content=f"generation {n} fact {i} " + "x" * 200, confidence=0.8,
               created_at=now, last_reinforced=now) for i in range(1500)])
    entry = HistoryEntry(memory_id="mem_00000", at=now, event="revised", after={"generation": n})
    return store.Change(result=n, ltm=ltm, session=SessionFile(session_id=f"gen-{n}",
                        created_at=now), history=[entry], counters={"generations": 1})

while True:
    n, _ = s.transact(next_generation, now=now, lock_timeout=30)
    print(n, flush=True)
"""


@pytest.mark.slow
def test_a_writer_killed_at_any_instant_leaves_the_database_consistent(pg_url: str) -> None:
    """SIGKILL a writer of 1,500-memory generations again and again: the memories, the
    session, the history and the counters always hold the same whole generation."""
    rng = random.Random(11)
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(PROJECT)}
    s = pgstore.PostgresStore(pg_url, "alice")
    for _ in range(10):
        with subprocess.Popen(
            [sys.executable, "-c", WRITER, pg_url], stdout=subprocess.PIPE, text=True, env=env
        ) as proc:
            assert proc.stdout is not None
            proc.stdout.readline()  # at least one whole commit
            time.sleep(rng.uniform(0.0, 0.5))
            proc.send_signal(signal.SIGKILL)
        # The server finishes or rolls back what the dead client sent; wait for that.
        _wait_for_other_sessions_to_end(pg_url)
        snap = s.load(now=NOW)
        generation = snap.ltm.next_seq
        assert len(snap.ltm.memories) == 1500
        assert all(m.content.startswith(f"generation {generation} ") for m in snap.ltm.memories)
        history = s.read_history(snap.ltm)
        assert [h.after["generation"] for h in history if h.after] == list(range(2, generation + 1))
        assert s.read_counters() == {"generations": generation - 1}
        assert snap.session is not None
        assert snap.session.session_id == f"gen-{generation}"
    assert generation > 10


def _wait_for_other_sessions_to_end(url: str, timeout: float = 30) -> None:
    conn = pgstore.connection(url)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid()"
        ).fetchone()
        if row is not None and row[0] == 0:
            return
        time.sleep(0.02)
    raise AssertionError("the killed writer's session did not end")


def test_old_timestamps_survive(backend: Backend) -> None:
    """Timestamps are stored as written (UTC), not as the time of the commit."""
    s = backend.make()
    old = NOW - timedelta(days=400)

    def put(disk: Snapshot) -> Change[None]:
        disk.ltm.memories.append(
            memory("mem_0001", "User likes tea", age_hours=0).model_copy(
                update={"created_at": old, "last_reinforced": old}
            )
        )
        disk.ltm.next_seq = 2
        return Change(result=None, ltm=disk.ltm)

    commit(s, put)
    assert s.load(now=NOW).ltm.memories[0].created_at == old


def test_export_from_the_files_imports_into_postgresql_with_every_field(
    pg_url: str, tmp_path: Path
) -> None:
    """`memory export --all` from the JSON files, `memory import` with MEMTEST_STORE: the
    memories arrive with every field (ids, timestamps, status, source, unknown fields)
    and their history."""
    state = tmp_path / "state"
    files = store.FileStore(store.StatePaths(state))
    commit(files, add_memories("User likes tea", "User owns a bike", extra={"x_tag": "kept"}))

    def forget(disk: Snapshot) -> Change[None]:
        disk.ltm.memories[1].status = "forgotten"
        return Change(result=None, ltm=disk.ltm)

    commit(files, forget)
    env = {
        "MEMTEST_STATE_DIR": str(state),
        "MEMTEST_ENV_FILE": os.environ["MEMTEST_ENV_FILE"],
        "MEMTEST_RETRIEVER": "lexical",
    }
    exported = invoke("memory", "export", "--all", env=env)
    assert exported.returncode == 0, exported.stderr
    dump = tmp_path / "memories.jsonl"
    dump.write_text(exported.stdout)
    imported = invoke("memory", "import", str(dump), env={**env, "MEMTEST_STORE": pg_url})
    assert imported.returncode == 0, imported.stderr
    moved, kept = observe(pgstore.PostgresStore(pg_url, DEFAULT_USER)), observe(files)
    assert moved["memories"] == kept["memories"]
    # The history comes along; the import adds one `created` line of its own per memory.
    assert [h for h in moved["history"] if h["reason"] != "imported"] == kept["history"]
