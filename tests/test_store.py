"""The store: atomic writes, quarantine of unreadable files, schema guard, the lock."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from filelock import FileLock
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline import store
from pipeline.errors import LockTimeout, StateError
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
