"""The store: atomic writes, quarantine of unreadable files, schema guard, the lock."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from filelock import FileLock
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline import store
from pipeline.errors import LockTimeout, StateError, UnsafeFile
from pipeline.models import HistoryEntry, LtmFile
from tests.strategies import NOW, memory


def paths(tmp_path: Path) -> store.StatePaths:
    p = store.StatePaths(tmp_path / "state")
    store.ensure_folder(p)
    return p


def write_ltm(p: store.StatePaths, ltm: LtmFile) -> None:
    store.transact(p, lambda _disk: store.Change(result=None, ltm=ltm), now=NOW, lock_timeout=5)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=60), max_size=5))
def test_save_then_load_round_trips(
    tmp_path_factory: pytest.TempPathFactory, contents: list[str]
) -> None:
    """Whatever text a memory holds (quotes, newlines, CJK, emoji) comes back unchanged."""
    p = paths(tmp_path_factory.mktemp("rt"))
    ltm = LtmFile(memories=[memory(f"mem_{i:04d}", c) for i, c in enumerate(contents)])
    write_ltm(p, ltm)
    assert store.load(p, now=NOW).ltm == ltm


def test_files_are_private(tmp_path: Path) -> None:
    """The state folder and its files are readable by their owner only."""
    p = paths(tmp_path)
    write_ltm(p, LtmFile(memories=[memory("mem_0001", "User likes tea")]))
    assert stat.S_IMODE(p.root.stat().st_mode) == 0o700
    assert stat.S_IMODE(p.ltm.stat().st_mode) == 0o600


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"memories": "oops"}', "\udcff"])
def test_unreadable_file_is_moved_aside_not_overwritten(tmp_path: Path, content: str) -> None:
    """Bad JSON or a bad shape: the file is renamed .corrupt-<time>, kept byte for byte."""
    p = paths(tmp_path)
    raw = content.encode("utf-8", "surrogateescape")
    p.ltm.write_bytes(raw)
    snapshot = store.load(p, now=NOW)
    assert snapshot.ltm.memories == []
    assert not p.ltm.exists()
    aside = list(p.root.glob("ltm.json.corrupt-*"))
    assert len(aside) == 1
    assert aside[0].read_bytes() == raw
    assert "moved it to ltm.json.corrupt-" in snapshot.warnings[0]


def test_dry_run_leaves_an_unreadable_ltm_in_place(tmp_path: Path) -> None:
    """In a dry run even an unreadable ltm.json is not touched."""
    p = paths(tmp_path)
    p.ltm.write_text("{oops")
    snapshot = store.load(p, now=NOW, quarantine_ltm=False)
    assert p.ltm.read_text() == "{oops"
    assert "left in place" in snapshot.warnings[0]


def test_newer_schema_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    """A schema_version from the future stops the program with a message; files stay."""
    p = paths(tmp_path)
    p.ltm.write_text(json.dumps({"schema_version": 99, "memories": []}))
    with pytest.raises(StateError, match="schema_version 99"):
        store.load(p, now=NOW)
    with pytest.raises(StateError):
        write_ltm(p, LtmFile())
    assert json.loads(p.ltm.read_text())["schema_version"] == 99


def test_unknown_fields_survive_a_rewrite(tmp_path: Path) -> None:
    """Fields this version does not know (hand-added, or from tools) are written back."""
    p = paths(tmp_path)
    data = {
        "schema_version": 1,
        "next_seq": 2,
        "owner_note": "keep me",
        "memories": [
            {
                **memory("mem_0001", "User likes tea").model_dump(mode="json"),
                "tags": ["drinks"],
            }
        ],
    }
    p.ltm.write_text(json.dumps(data))

    def touch(disk: store.Snapshot) -> store.Change[None]:
        disk.ltm.memories[0].hit_count += 1
        return store.Change(result=None, ltm=disk.ltm)

    store.transact(p, touch, now=NOW, lock_timeout=5)
    written = json.loads(p.ltm.read_text())
    assert written["owner_note"] == "keep me"
    assert written["memories"][0]["tags"] == ["drinks"]
    assert written["memories"][0]["hit_count"] == 2


def test_stale_temp_files_are_cleaned_under_the_lock(tmp_path: Path) -> None:
    """A temp file left by a killed writer is removed by the next writer."""
    p = paths(tmp_path)
    stale = p.root / ".ltm.json.abc123.tmp"
    stale.write_text("half a fi")
    write_ltm(p, LtmFile())
    assert not stale.exists()
    assert list(p.root.glob(".*.tmp")) == []


def test_lock_timeout_is_a_clear_error(tmp_path: Path) -> None:
    """While another process holds the lock, a writer gives up with a message saying so."""
    p = paths(tmp_path)
    with FileLock(p.lock), pytest.raises(LockTimeout, match="locked by another process"):
        store.transact(p, lambda _d: store.Change(result=None), now=NOW, lock_timeout=0.2)


def test_archive_keeps_old_sessions_without_overwriting(tmp_path: Path) -> None:
    """Archiving a session with an id already archived writes a second file."""
    from pipeline.session import new_session

    p = paths(tmp_path)
    old = new_session(NOW)
    for _ in range(2):
        store.transact(
            p, lambda _d: store.Change(result=None, archive_session=old), now=NOW, lock_timeout=5
        )
    assert len(list(p.archive.glob("*.json"))) == 2


def entry(memory_id: str, event: str = "created") -> HistoryEntry:
    return HistoryEntry(memory_id=memory_id, at=NOW, event=event, turn_id="t-1")


def commit_with_history(p: store.StatePaths, *entries: HistoryEntry) -> None:
    def add(disk: store.Snapshot) -> store.Change[None]:
        return store.Change(result=None, ltm=disk.ltm, history=list(entries))

    store.transact(p, add, now=NOW, lock_timeout=5)


def test_history_is_appended_and_read_back(tmp_path: Path) -> None:
    """Each commit appends its lines; reading filters by memory."""
    p = paths(tmp_path)
    commit_with_history(p, entry("mem_0001"), entry("mem_0002"))
    commit_with_history(p, entry("mem_0001", "merged"))
    ltm = store.load(p, now=NOW).ltm
    assert [h.event for h in store.read_history(p, ltm, "mem_0001")] == ["created", "merged"]
    assert len(store.read_history(p, ltm)) == 3
    assert ltm.history_bytes == p.history.stat().st_size


def test_history_past_the_commit_point_is_ignored_then_cut(tmp_path: Path) -> None:
    """Lines from a commit that died before replacing ltm.json never count, and the next
    commit removes them."""
    p = paths(tmp_path)
    commit_with_history(p, entry("mem_0001"))
    with p.history.open("ab") as handle:  # a commit that died after appending
        handle.write(entry("mem_0009", "created").model_dump_json().encode() + b"\n{broken")
    ltm = store.load(p, now=NOW).ltm
    assert [h.memory_id for h in store.read_history(p, ltm)] == ["mem_0001"]
    commit_with_history(p, entry("mem_0002"))
    ltm = store.load(p, now=NOW).ltm
    assert [h.memory_id for h in store.read_history(p, ltm)] == ["mem_0001", "mem_0002"]
    assert b"mem_0009" not in p.history.read_bytes()


def test_unreadable_store_takes_its_history_aside(tmp_path: Path) -> None:
    """When ltm.json is moved aside, its history goes with it, not into the new store."""
    p = paths(tmp_path)
    commit_with_history(p, entry("mem_0001"))
    p.ltm.write_text("{broken")
    store.load(p, now=NOW)
    assert not p.history.exists()
    assert len(list(p.root.glob("ltm.json.corrupt-*.history.jsonl"))) == 1


def test_history_without_a_store_is_kept_aside(tmp_path: Path) -> None:
    """ltm.json deleted by hand: its history is moved aside, never truncated."""
    p = paths(tmp_path)
    commit_with_history(p, entry("mem_0001"))
    p.ltm.unlink()
    commit_with_history(p, entry("mem_0001"))
    [orphan] = p.root.glob("ltm.history.jsonl.orphaned*")
    assert b"mem_0001" in orphan.read_bytes()
    assert len(store.read_history(p, store.load(p, now=NOW).ltm)) == 1


# --- Hostile files: bounded reads, regular files only, unreadable means moved aside ------


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


@pytest.mark.parametrize("name", ["ltm.json", "session.json"])
def test_a_fifo_is_refused_at_once(tmp_path: Path, name: str) -> None:
    """A FIFO in place of a state file is refused without waiting for a writer."""
    p = paths(tmp_path)
    os.mkfifo(p.root / name)
    with pytest.raises(UnsafeFile, match="FIFO"):
        store.load(p, now=NOW)
    assert stat.S_ISFIFO(os.lstat(p.root / name).st_mode)  # left as it was


def test_a_link_to_dev_zero_is_refused_without_reading(tmp_path: Path) -> None:
    """ltm.json -> /dev/zero is a device, not a file: refused, nothing read."""
    p = paths(tmp_path)
    p.ltm.symlink_to("/dev/zero")
    with pytest.raises(UnsafeFile, match="character device"):
        store.load(p, now=NOW)
    with pytest.raises(UnsafeFile):
        write_ltm(p, LtmFile())


def test_a_folder_in_place_of_the_session_is_refused(tmp_path: Path) -> None:
    """A folder where session.json should be is refused with a message."""
    p = paths(tmp_path)
    p.session.mkdir()
    with pytest.raises(UnsafeFile, match="is a folder"):
        store.load(p, now=NOW)


def test_a_file_over_the_size_cap_is_refused_and_kept(tmp_path: Path) -> None:
    """Over MEMTEST_MAX_STATE_MB the file is neither read nor moved: it may be genuine."""
    p = store.StatePaths(tmp_path / "state", max_bytes=1000)
    store.ensure_folder(p)
    big = json.dumps({"memories": [], "note": "x" * 2000})
    p.ltm.write_text(big)
    with pytest.raises(UnsafeFile, match="MEMTEST_MAX_STATE_MB"):
        store.load(p, now=NOW)
    assert p.ltm.read_text() == big


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("ltm.json", '{"memories": ' + deep(100_000) + "}"),
        ("ltm.json", '{"schema_version": 1, "x": ' + deep(5_000) + "}"),
        (
            "session.json",
            '{"session_id": "s", "created_at": "2026-01-01T00:00:00Z", '
            '"messages": ' + deep(100_000) + "}",
        ),
        ("ltm.json", '{"memories": [], "bad": "\xff\xfe"}'),
    ],
)
def test_deep_nesting_and_invalid_bytes_are_moved_aside(
    tmp_path: Path, name: str, text: str
) -> None:
    """However a file is unreadable (nesting, bytes), it is moved aside byte for byte and
    the next read starts empty instead of failing again."""
    p = paths(tmp_path)
    raw = text.encode("latin-1")
    (p.root / name).write_bytes(raw)
    snapshot = store.load(p, now=NOW)
    [aside] = p.root.glob(f"{name}.corrupt-*")
    assert aside.read_bytes() == raw
    assert any("moved it to" in w for w in snapshot.warnings)
    assert store.load(p, now=NOW).warnings == []


@pytest.mark.parametrize("bad", [float("nan"), "high", -1, None])
def test_one_invalid_memory_is_moved_to_a_side_file_and_the_rest_stay(
    tmp_path: Path, bad: object
) -> None:
    """A memory with an invalid confidence goes to ltm.json.invalid-*.jsonl with its reason;
    the other memories stay in use and ltm.json keeps them."""
    p = paths(tmp_path)
    good = [
        memory(f"mem_000{i}", f"User likes tea number {i}").model_dump(mode="json") for i in (1, 3)
    ]
    broken = {**memory("mem_0002", "User likes coffee").model_dump(mode="json"), "confidence": bad}
    p.ltm.write_text(json.dumps({"next_seq": 4, "memories": [good[0], broken, good[1]]}))
    snapshot = store.load(p, now=NOW)
    assert [m.id for m in snapshot.ltm.memories] == ["mem_0001", "mem_0003"]
    assert "moved them to ltm.json.invalid-" in snapshot.warnings[0]
    [side] = p.root.glob("ltm.json.invalid-*.jsonl")
    [line] = side.read_text().splitlines()
    assert "memories.1 (mem_0002): confidence" in json.loads(line)["reason"]
    assert json.loads(line)["memory"]["content"] == "User likes coffee"
    on_disk = json.loads(p.ltm.read_text())
    assert [m["id"] for m in on_disk["memories"]] == ["mem_0001", "mem_0003"]
    assert on_disk["next_seq"] == 4  # mem_0002 is never issued again


def test_a_dry_run_leaves_an_invalid_memory_in_place(tmp_path: Path) -> None:
    """In a dry run the bad memory is skipped but ltm.json is not touched."""
    p = paths(tmp_path)
    broken = {**memory("mem_0001", "User likes tea").model_dump(mode="json"), "hit_count": "x"}
    text = json.dumps({"memories": [broken]})
    p.ltm.write_text(text)
    snapshot = store.load(p, now=NOW, quarantine_ltm=False)
    assert snapshot.ltm.memories == []
    assert p.ltm.read_text() == text
    assert "left in place" in snapshot.warnings[0]


@pytest.mark.parametrize(
    "version", ['"99"', "99.0", "-5", "0", "true", '"1"', "1.0", "null", "[1]"]
)
@pytest.mark.parametrize("name", ["ltm.json", "session.json"])
def test_a_schema_version_that_is_not_a_known_integer_is_moved_aside(
    tmp_path: Path, version: str, name: str
) -> None:
    """Whatever its JSON type, a schema_version that is not an integer from 1 to the known
    version makes the file unreadable: moved aside, never written back."""
    p = paths(tmp_path)
    text = (
        f'{{"schema_version": {version}, "session_id": "s", '
        f'"created_at": "2026-01-01T00:00:00Z", "memories": []}}'
    )
    (p.root / name).write_text(text)
    snapshot = store.load(p, now=NOW)
    assert any("schema_version" in w for w in snapshot.warnings)
    [aside] = p.root.glob(f"{name}.corrupt-*")
    assert aside.read_text() == text


@pytest.mark.parametrize("version", [2, 99, 10**30])
def test_a_newer_integer_schema_is_refused_for_either_file(tmp_path: Path, version: int) -> None:
    """A newer integer version stops the program and leaves the file alone."""
    p = paths(tmp_path)
    text = json.dumps(
        {"schema_version": version, "session_id": "s", "created_at": "2026-01-01T00:00:00Z"}
    )
    p.session.write_text(text)
    with pytest.raises(StateError, match=f"schema_version {version}"):
        store.load(p, now=NOW)
    assert p.session.read_text() == text


def test_turns_that_leave_the_session_are_archived_and_purge_reaches_them(
    tmp_path: Path,
) -> None:
    """Overflow turns land in sessions/overflow/<id>.json in the same commit as the session,
    accumulate there, and a purge removes a memory's text from them too."""
    from pipeline.models import Message
    from pipeline.session import new_session

    p = paths(tmp_path)
    session = new_session(NOW, "s-1")

    def message(n: int) -> Message:
        return Message(
            role="user", content=f"User likes tea, turn {n}", timestamp=NOW, turn_id=f"t-{n}"
        )

    for n in (1, 2):
        store.transact(
            p,
            lambda _d, n=n: store.Change(result=None, session=session, overflow=[message(n)]),
            now=NOW,
            lock_timeout=5,
        )
    archived = json.loads((p.overflow / "s-1.json").read_text())
    assert [m["turn_id"] for m in archived["messages"]] == ["t-1", "t-2"]
    write_ltm(p, LtmFile(next_seq=2, memories=[memory("mem_0001", "User likes tea")]))
    target, _ = store.purge_memory(p, "mem_0001", now=NOW, lock_timeout=5)
    assert target is not None
    assert "User likes tea" not in (p.overflow / "s-1.json").read_text()
