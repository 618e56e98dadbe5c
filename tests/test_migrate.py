"""Moving one user's whole state between stores: JSON files <-> PostgreSQL, PostgreSQL ->
PostgreSQL. Every field, the history, counters, next_seq and every session arrive; other
users, the source and (on failure or refusal) the target stay exactly as they were."""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline import Memory as Library
from pipeline import pgstore, store
from pipeline.errors import NotEmpty, SaveFailed, StateError, UsageError
from pipeline.migrate import MigrateResult, digest, migrate
from pipeline.models import HistoryEntry, LtmFile, Message, SessionFile
from pipeline.paths import DEFAULT_USER
from pipeline.store import Change, FileStore, Snapshot, StatePaths, Store, UserState
from tests.faults import failing_file_write, failing_statement
from tests.strategies import NOW, memory

USER = "sam"


# --- Building a user with every kind of state -----------------------------------------------


def commit(s: Store, merge: Callable[[Snapshot], Change[Any]]) -> None:
    s.transact(merge, now=NOW, lock_timeout=5)


def add(*contents: str, extra: dict[str, Any] | None = None) -> Callable[..., Change[None]]:
    """A merge that creates memories with the next ids, a history line each, a counter,
    and one turn in the session."""

    def merge(disk: Snapshot) -> Change[None]:
        history = []
        for content in contents:
            mid = f"mem_{disk.ltm.next_seq:04d}"
            disk.ltm.next_seq += 1
            disk.ltm.memories.append(
                memory(mid, content, age_hours=30).model_copy(update=extra or {})
            )
            history.append(HistoryEntry(memory_id=mid, at=NOW, event="created", turn_id="t-1"))
        session = disk.session or SessionFile(session_id="s-1", created_at=NOW)
        turn = f"t-{len(session.messages)}"
        session.messages.append(
            Message(role="user", content=" / ".join(contents), timestamp=NOW, turn_id=turn)
        )
        return Change(
            result=None, ltm=disk.ltm, session=session, history=history, counters={"created": 1}
        )

    return merge


def build_user(make: Callable[[str | None], Store]) -> None:
    """Memories with unknown fields and labels, a forgotten and a removed one (so next_seq
    runs ahead of the ids), history, counters, the current session, a named session, an
    archived session and overflow."""
    current = make(None)
    commit(current, add("User likes green tea", "User owns a red bike", extra={"x_tag": [1]}))
    commit(current, add("User lives in Porto", extra={"project": "home", "x_note": {"k": "v"}}))
    commit(current, add("User plays chess on Sundays"))

    def edit(disk: Snapshot) -> Change[None]:
        disk.ltm.memories[1].status = "forgotten"
        disk.ltm.memories = [m for m in disk.ltm.memories if m.id != "mem_0004"]
        history = [HistoryEntry(memory_id="mem_0002", at=NOW, event="forgotten", reason="asked")]
        return Change(result=None, ltm=disk.ltm, history=history, counters={"forgotten": 1})

    commit(current, edit)
    old = current.load(now=NOW).session
    assert old is not None
    fresh = SessionFile(session_id="s-2", created_at=NOW + timedelta(hours=1))
    left = [Message(role="user", content="an old turn", timestamp=NOW, turn_id="t-old")]

    def roll(_disk: Snapshot) -> Change[None]:
        return Change(result=None, session=fresh, archive_session=old, overflow=left)

    commit(current, roll)
    commit(make("work"), add("User writes Rust at work"))


def file_maker(root: Path, user: str = USER) -> Callable[[str | None], Store]:
    return lambda session: FileStore(StatePaths(root, user, session))


def pg_maker(url: str, user: str = USER) -> Callable[[str | None], Store]:
    return lambda session: pgstore.PostgresStore(url, user, session)


def all_files(root: Path) -> dict[str, bytes]:
    """Every state file under a folder (temp files and the lock excepted), byte for byte."""
    if not root.exists():
        return {}
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.startswith(".")
    }


def all_rows(url: str) -> dict[str, list[str]]:
    """Every row of every table of a database, for every user."""
    conn = pgstore.connection(url)
    out = {}
    tables = conn.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1"
    ).fetchall()
    for (table,) in tables:
        rows = conn.execute(f"SELECT to_jsonb(t) FROM {table} t").fetchall()
        out[table] = sorted(json.dumps(r[0], sort_keys=True) for r in rows)
    return out


def fields(state: UserState) -> dict[str, Any]:
    """A whole user as plain data, field by field."""
    return {
        "ltm": state.ltm.model_dump(mode="json", exclude={"history_bytes"}),
        "history": [h.model_dump(mode="json") for h in state.history],
        "counters": state.counters,
        "sessions": {k: v.model_dump(mode="json") for k, v in state.sessions.items()},
        "archives": [s.model_dump(mode="json") for s in state.archives],
        "overflow": {k: v.model_dump(mode="json") for k, v in state.overflow.items()},
    }


# --- Round trips ------------------------------------------------------------------------------


def test_files_to_postgresql_and_back_is_identical(pg_url: str, tmp_path: Path) -> None:
    """Files -> PostgreSQL -> files: every file of the user comes back byte for byte
    (memories with unknown fields, history, counters, the current, named and archived
    sessions, overflow), and PostgreSQL holds the same fields."""
    source = tmp_path / "source"
    build_user(file_maker(source))
    before = all_files(source)
    there = Library(source, user=USER).migrate(to=pg_url)
    assert (there.memories, there.history, there.counters) == (4, 6, 2)
    assert (there.sessions, there.archived_sessions, there.overflow, there.next_seq) == (
        3,
        0,
        1,
        6,
    )
    back = tmp_path / "back"
    again = Library(store=pg_url, user=USER).migrate(to=back)
    assert again.digest == there.digest
    assert all_files(source) == before  # the source is only read
    copied = all_files(back)
    assert copied == {k: v for k, v in before.items() if k.startswith("users/")}
    assert sorted(copied) == [
        "users/sam/ltm.counters.json",
        "users/sam/ltm.history.jsonl",
        "users/sam/ltm.json",
        "users/sam/session.json",
        "users/sam/sessions/overflow/s-2.json",
        "users/sam/sessions/s-1.json",
        "users/sam/sessions/work.json",
    ]
    pg = pgstore.PostgresStore(pg_url, USER).read_user(lock_timeout=5)
    assert fields(pg) == fields(FileStore(StatePaths(source, USER)).read_user(lock_timeout=5))
    assert pg.ltm.memories[0].model_extra == {"x_tag": [1]}


def test_postgresql_to_files_to_postgresql_keeps_archives_as_sessions(
    pg_server: Any, tmp_path: Path
) -> None:
    """PostgreSQL -> files -> another PostgreSQL database: memories, history, counters,
    next_seq and overflow are field-identical; an archived session arrives as a file in
    sessions/, which the file store reads as a named session, and goes on as one."""
    first, second = pg_server.new_database(), pg_server.new_database()
    build_user(pg_maker(first))
    rows_before = all_rows(first)
    result = Library(store=first, user=USER).migrate(to=tmp_path / "files")
    assert (result.sessions, result.archived_sessions) == (2, 1)
    files = FileStore(StatePaths(tmp_path / "files", USER)).read_user(lock_timeout=5)
    assert sorted(files.sessions) == ["", "s-1", "work"]
    again = Library(tmp_path / "files", user=USER).migrate(to=second)
    assert again.digest == result.digest
    assert all_rows(first) == rows_before
    a = fields(pgstore.PostgresStore(first, USER).read_user(lock_timeout=5))
    b = fields(pgstore.PostgresStore(second, USER).read_user(lock_timeout=5))
    assert a["ltm"] == b["ltm"]
    assert a["history"] == b["history"]
    assert a["counters"] == b["counters"]
    assert a["overflow"] == b["overflow"]
    assert b["sessions"]["s-1"] == a["archives"][0]
    assert {k: v for k, v in b["sessions"].items() if k != "s-1"} == a["sessions"]


def test_postgresql_to_postgresql_is_identical(pg_server: Any) -> None:
    """PostgreSQL -> PostgreSQL: every field, archives as archives, in order."""
    first, second = pg_server.new_database(), pg_server.new_database()
    build_user(pg_maker(first))
    result = migrate(
        pgstore.PostgresStore(first, USER), pgstore.PostgresStore(second, USER), lock_timeout=5
    )
    assert isinstance(result, MigrateResult)
    assert result.to_json()["memories"] == 4
    a = pgstore.PostgresStore(first, USER).read_user(lock_timeout=5)
    b = pgstore.PostgresStore(second, USER).read_user(lock_timeout=5)
    assert fields(a) == fields(b)


def test_next_seq_is_carried_so_no_id_is_reused(pg_url: str, tmp_path: Path) -> None:
    """A memory written in the target after a move gets the next id of the source
    (mem_0006 here: mem_0004 was issued and removed before the move), in both directions."""
    build_user(file_maker(tmp_path / "source"))
    Library(tmp_path / "source", user=USER).migrate(to=pg_url)
    target = pgstore.PostgresStore(pg_url, USER)
    commit(target, add("User drinks oat milk"))
    assert target.load(now=NOW).ltm.memories[-1].id == "mem_0006"
    Library(store=pg_url, user=USER).migrate(to=tmp_path / "back")
    back = FileStore(StatePaths(tmp_path / "back", USER))
    commit(back, add("User bakes bread"))
    assert [m.id for m in back.load(now=NOW).ltm.memories][-2:] == ["mem_0006", "mem_0007"]


# --- Other users, refusals ----------------------------------------------------------------


def test_other_users_are_neither_copied_nor_touched(pg_url: str, tmp_path: Path) -> None:
    """Only the migrating user's data moves: the source's other users stay behind, and
    the target's other users keep every row byte for byte."""
    source = tmp_path / "source"
    build_user(file_maker(source))
    build_user(file_maker(source, DEFAULT_USER))
    build_user(pg_maker(pg_url, "ana"))
    ana_before = [r for rows in all_rows(pg_url).values() for r in rows if '"ana"' in r]
    Library(source, user=USER).migrate(to=pg_url)
    rows = all_rows(pg_url)
    users = {
        json.loads(r)["user_id"] for t, rs in rows.items() if t != "schema_version" for r in rs
    }
    assert users == {USER, "ana"}
    assert [r for rs in rows.values() for r in rs if '"ana"' in r] == ana_before
    Library(store=pg_url, user="ana").migrate(to=tmp_path / "ana")
    assert sorted(p.parent.name for p in (tmp_path / "ana").rglob("ltm.json")) == ["ana"]


def test_a_target_with_data_for_the_user_is_refused(pg_url: str, tmp_path: Path) -> None:
    """NotEmpty, and nothing written, when the target holds the user's memories or
    sessions, or (PostgreSQL) once issued ids that a clear left behind."""
    source = tmp_path / "source"
    build_user(file_maker(source))
    commit(pgstore.PostgresStore(pg_url, USER, "work"), add("User likes jazz"))
    rows = all_rows(pg_url)
    with pytest.raises(NotEmpty, match=r"already holds data for user sam.*Nothing was written"):
        Library(source, user=USER).migrate(to=pg_url)
    assert all_rows(pg_url) == rows
    pgstore.PostgresStore(pg_url, USER).clear_memory(lock_timeout=5)
    pgstore.PostgresStore(pg_url, USER, "work").clear_session(lock_timeout=5)
    pgstore.connection(pg_url).execute("DELETE FROM counters")
    with pytest.raises(NotEmpty, match="ids up to mem_0001 issued before"):
        Library(source, user=USER).migrate(to=pg_url)
    files_target = tmp_path / "target"
    commit(FileStore(StatePaths(files_target, USER, "other")), add("User likes jazz"))
    files = all_files(files_target)
    with pytest.raises(NotEmpty, match=r"sessions/other\.json"):
        Library(source, user=USER).migrate(to=files_target)
    assert all_files(files_target) == files
    with pytest.raises(NotEmpty):  # a store into itself is not empty either
        Library(source, user=USER).migrate(to=source)


def test_an_empty_source_or_a_bad_target_is_a_usage_error(tmp_path: Path) -> None:
    """Nothing stored for the user, a target that is not a URL or folder: UsageError,
    and no folder is created for the empty source."""
    with pytest.raises(UsageError, match="holds nothing to migrate"):
        Library(tmp_path / "none", user=USER).migrate(to=tmp_path / "target")
    assert not (tmp_path / "none").exists()
    build_user(file_maker(tmp_path / "source"))
    with pytest.raises(UsageError, match="not a postgresql:// URL"):
        Library(tmp_path / "source", user=USER).migrate(to="mysql://db/x")
    with pytest.raises(UsageError, match="target is empty"):
        Library(tmp_path / "source", user=USER).migrate(to=" ")


def test_a_target_folder_that_cannot_be_made_says_to_choose_another_target(
    tmp_path: Path,
) -> None:
    """A target under a file: a usage error that names the folder and, beside the state
    folder's settings, --to; the source is untouched."""
    build_user(file_maker(tmp_path / "source"))
    (tmp_path / "a-file").write_text("")
    before = (tmp_path / "source" / "users" / USER / "ltm.json").read_bytes()
    with pytest.raises(UsageError, match=r"a-file.*another --to"):
        Library(tmp_path / "source", user=USER).migrate(to=tmp_path / "a-file" / "target")
    assert (tmp_path / "source" / "users" / USER / "ltm.json").read_bytes() == before


def test_a_target_folder_may_start_with_a_tilde_as_a_state_folder_may(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--to=~/moved` (the shell leaves it as written) is the home folder's `moved`, as
    `--state-dir` would be, not a folder named `~` in the working folder; a URL of another
    kind is refused with what to give instead."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    build_user(file_maker(tmp_path / "source"))
    Library(tmp_path / "source", user=USER).migrate(to="~/moved")
    assert not (tmp_path / "~").exists()
    assert Library(tmp_path / "home" / "moved", user=USER).list()
    with pytest.raises(UsageError, match="give one or a folder"):
        Library(tmp_path / "source", user=USER).migrate(to="mysql://db/x")


def test_an_unreadable_source_is_refused_and_set_aside_data_is_named(
    pg_url: str, tmp_path: Path
) -> None:
    """A memory that does not validate stops the move (StateError, target untouched,
    source left as it is); files the store already set aside are not copied, and the
    result names them."""
    source = tmp_path / "source"
    build_user(file_maker(source))
    paths = StatePaths(source, USER)
    good = paths.ltm.read_bytes()
    data = json.loads(good)
    data["memories"][0]["confidence"] = 5
    paths.ltm.write_text(json.dumps(data))
    damaged = all_files(source)
    with pytest.raises(StateError, match=r"ltm\.json: memories\.0 \(mem_0001\)"):
        Library(source, user=USER).migrate(to=pg_url)
    assert all_files(source) == damaged
    assert all_rows(pg_url)["memories"] == []
    paths.ltm.write_bytes(good)
    (paths.home / "ltm.json.corrupt-20261101T000000").write_text("{")
    result = Library(source, user=USER).migrate(to=pg_url)
    assert result.left_behind == ("ltm.json.corrupt-20261101T000000",)


def test_postgresql_rows_set_aside_are_named_and_unreadable_rows_refused(
    pg_url: str, tmp_path: Path
) -> None:
    """On PostgreSQL a memory row that does not validate stops the move; once a command
    has moved it to invalid_memories (and a damaged session to `<name>.corrupt-…`), the
    move goes on without them and the result names both."""
    build_user(pg_maker(pg_url))
    conn = pgstore.connection(pg_url)
    conn.execute(
        "UPDATE memories SET data = jsonb_set(data, '{confidence}', '5') WHERE id = 'mem_0001'"
    )
    conn.execute(
        """UPDATE sessions SET data = '{"schema_version": 1, "messages": 7}' WHERE name = ''"""
    )
    with pytest.raises(StateError, match="could not be read"):
        Library(store=pg_url, user=USER).migrate(to=tmp_path / "files")
    assert not (tmp_path / "files").exists()
    Library(store=pg_url, user=USER).list()  # a plain command moves the memory aside
    commit(pgstore.PostgresStore(pg_url, USER), add("User likes jazz"))  # and the session
    result = Library(store=pg_url, user=USER).migrate(to=tmp_path / "files")
    assert result.memories == 4
    assert len(result.left_behind) == 2
    assert result.left_behind[0].startswith("session 'session.corrupt-")
    assert result.left_behind[1] == "1 row(s) of invalid_memories"


def test_a_damaged_history_line_is_named_and_the_rest_copied(pg_url: str, tmp_path: Path) -> None:
    """The file store skips a damaged history line when it reads; the move does too, and
    says so in `left_behind`."""
    source = tmp_path / "source"
    build_user(file_maker(source))
    paths = StatePaths(source, USER)
    lines = paths.history.read_bytes().splitlines(keepends=True)
    damaged = b"{not json}".ljust(len(lines[1]) - 1) + b"\n"
    paths.history.write_bytes(b"".join([lines[0], damaged, *lines[2:]]))
    result = Library(source, user=USER).migrate(to=pg_url)
    assert result.left_behind == ("ltm.history.jsonl line 2 (unreadable)",)
    assert result.history == len(lines) - 1


def test_unknown_fields_keep_their_values_but_not_their_key_order(
    pg_url: str, tmp_path: Path
) -> None:
    """PostgreSQL's JSONB orders an object's keys its own way: through it, unknown fields
    come back with equal values, but ltm.json may list them in another order."""
    source = tmp_path / "source"
    commit(FileStore(StatePaths(source, USER)), add("User likes tea", extra={"x_tag": 1, "a": 2}))
    Library(source, user=USER).migrate(to=pg_url)
    Library(store=pg_url, user=USER).migrate(to=tmp_path / "back")
    a, b = (
        FileStore(StatePaths(root, USER)).read_user(lock_timeout=5)
        for root in (source, tmp_path / "back")
    )
    assert fields(a) == fields(b)
    assert list(b.ltm.memories[0].model_extra or {}) == ["a", "x_tag"]


@pytest.mark.parametrize("kind", ["files", "postgresql"])
def test_a_copy_that_reads_back_differently_is_never_made_visible(
    kind: str, pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If what the target wrote reads back different from the source (here: the writer
    drops a history line), the move fails with StateError before the commit point and
    the target stays as it was."""
    source = tmp_path / "source"
    build_user(file_maker(source))

    def lossy(original: Callable[..., Any]) -> Callable[..., Any]:
        """The writer, given the state without its last history line."""

        def write(*args: Any) -> Any:
            *head, state = args
            return original(*head, replace(state, history=state.history[:-1]))

        return write

    if kind == "files":
        target: Store | str = str(tmp_path / "target")
        monkeypatch.setattr(store, "_user_state_files", lossy(store._user_state_files))
    else:
        target = pg_url
        monkeypatch.setattr(pgstore, "_insert_user", lossy(pgstore._insert_user))

    def seen() -> Any:
        return all_files(tmp_path / "target") if kind == "files" else all_rows(pg_url)

    before = seen()
    with pytest.raises(StateError, match=r"does not match the source \(history differ"):
        Library(source, user=USER).migrate(to=target)
    assert seen() == before


# --- All or nothing ---------------------------------------------------------------------------


@pytest.mark.parametrize("direction", ["files to postgresql", "postgresql to files"])
def test_a_failure_at_any_write_leaves_the_target_as_it_was(
    pg_url: str, tmp_path: Path, direction: str
) -> None:
    """Fail each write of the target in turn (each statement, by error or dropped
    connection, on PostgreSQL; each file operation, by ENOSPC, in the files): the target
    then holds exactly what it held before (another user's data included) and the error
    says nothing was written, or the whole verified copy."""
    if direction == "files to postgresql":
        source, target = FileStore(StatePaths(tmp_path / "source", USER)), pg_url
        build_user(file_maker(tmp_path / "source"))
        build_user(pg_maker(pg_url, "ana"))

        def seen() -> Any:
            return all_rows(pg_url)

        def fail(n: int) -> contextlib.AbstractContextManager[list[int]]:
            return failing_statement(n, pg_url, drop=n % 2 == 0)
    else:
        source, target = pgstore.PostgresStore(pg_url, USER), str(tmp_path / "target")
        build_user(pg_maker(pg_url))
        build_user(file_maker(tmp_path / "target", "ana"))

        def seen() -> Any:
            return all_files(tmp_path / "target")

        fail = failing_file_write

    def run() -> MigrateResult:
        return migrate(source, _target(target), lock_timeout=5)

    before = seen()
    outcomes = []
    n = 0
    while True:
        n += 1
        with fail(n):
            try:
                run()
                outcome = "saved"
            except SaveFailed as exc:
                outcome = "not saved" if "Nothing was" in str(exc) else str(exc)
            except StateError:
                outcome = "unknown"  # the connection was lost during COMMIT itself
        after = seen()
        assert outcome in ("saved", "not saved", "unknown"), outcome
        if outcome == "not saved":
            assert after == before, n
        if outcome == "saved" or after != before:
            break  # every fault before the commit point has been tried
        outcomes.append(outcome)
    assert outcomes.count("not saved") >= 3, outcomes
    copied = _target(target).read_user(lock_timeout=5)
    assert digest(copied) == digest(source.read_user(lock_timeout=5))


def _target(target: str) -> Store:
    if target.startswith("postgresql:"):
        return pgstore.PostgresStore(target, USER)
    return FileStore(StatePaths(Path(target), USER))


# --- Drawn states --------------------------------------------------------------------------

_json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**53), max_value=2**53),
    st.text(st.characters(exclude_characters="\x00", codec="utf-8"), max_size=8),
)
_json = st.recursive(
    _json_leaf,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text("abcxyz", min_size=1, max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)
_text = st.text(st.characters(exclude_characters="\x00", codec="utf-8"), min_size=1, max_size=30)


@st.composite
def user_states(draw: st.DrawFn) -> UserState:
    """A user with drawn memories (unknown fields included), history, counters, sessions
    and overflow."""
    count = draw(st.integers(min_value=0, max_value=5))
    memories = []
    for i in range(count):
        extra = draw(st.dictionaries(st.sampled_from(["x_a", "x_b", "zz"]), _json, max_size=2))
        m = memory(
            f"mem_{i + 1:04d}",
            draw(_text),
            confidence=draw(st.floats(min_value=0, max_value=1)),
            age_hours=draw(st.floats(min_value=0, max_value=1e5)),
        )
        memories.append(
            m.model_copy(
                update={**extra, "status": draw(st.sampled_from(["active", "forgotten", "draft"]))}
            )
        )
    next_seq = count + 1 + draw(st.integers(min_value=0, max_value=3))
    ltm = LtmFile(next_seq=next_seq, memories=memories)
    history = [
        HistoryEntry(memory_id=m.id, at=NOW, event="created", reason=draw(_text)) for m in memories
    ]

    def session(session_id: str) -> SessionFile:
        messages = [
            Message(role=r, content=draw(_text), timestamp=NOW, turn_id=f"t-{i}")
            for i, r in enumerate(
                draw(st.lists(st.sampled_from(["user", "assistant"]), max_size=3))
            )
        ]
        return SessionFile(
            session_id=session_id, created_at=NOW, session_summary=draw(_text), messages=messages
        )

    names = draw(st.lists(st.sampled_from(["", "work", "home-2"]), unique=True, max_size=3))
    return UserState(
        ltm=ltm,
        history=history,
        counters=draw(st.dictionaries(st.sampled_from(["created", "secret"]), st.integers(0, 99))),
        sessions={name: session(f"s-{name or 'current'}") for name in names},
        overflow={
            k: session(k) for k in draw(st.lists(st.sampled_from(["s-1", "s-2"]), unique=True))
        },
    )


def test_drawn_states_round_trip_files_postgresql_files(pg_url: str) -> None:
    """For drawn users: files -> PostgreSQL -> files gives the same fields and digest."""
    users = iter(range(10**6))

    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    @given(user_states())
    def check(state: UserState) -> None:
        if state.is_empty():
            return
        user = f"u{next(users)}"
        with tempfile.TemporaryDirectory() as folder:
            first = FileStore(StatePaths(Path(folder) / "a", user))
            first.write_user(state, lock_timeout=5)
            there = migrate(first, pgstore.PostgresStore(pg_url, user), lock_timeout=5)
            back = FileStore(StatePaths(Path(folder) / "b", user))
            again = migrate(pgstore.PostgresStore(pg_url, user), back, lock_timeout=5)
            assert there.digest == again.digest == digest(state)
            assert fields(back.read_user(lock_timeout=5)) == fields(first.read_user(lock_timeout=5))

    check()


def test_migrated_memories_are_found_through_the_postgresql_index(
    pg_url: str, tmp_path: Path
) -> None:
    """A duplicate of a migrated memory is merged into it, not stored again: the gate's
    focused read finds the migrated row through the index the migration wrote."""
    source = Library(tmp_path / "source", user=USER)
    assert source.add("User's dog is named Pixel.", type="relationship").verdict == "accepted"
    source.migrate(to=pg_url)

    there = Library(store=pg_url, user=USER)
    again = there.add("User's dog is named Pixel.", type="relationship")
    assert (again.verdict, again.memory_id) == ("merged", "mem_0001")
    assert [m.content for m in there.list()] == ["User's dog is named Pixel."]
