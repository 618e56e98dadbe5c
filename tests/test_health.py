"""`memory status`'s health check: it reads, reports and changes nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pipeline.health import check_health
from pipeline.models import LtmFile
from pipeline.store import FileStore, StatePaths
from tests.strategies import NOW, memory


def files(state_dir: Path, user: str = "default-user") -> FileStore:
    return FileStore(StatePaths(state_dir, user))


def write_ltm(state_dir: Path, *contents: str) -> None:
    state_dir.mkdir(parents=True, exist_ok=True)
    ltm = LtmFile(
        next_seq=len(contents) + 1,
        memories=[memory(f"mem_{i + 1:04d}", c) for i, c in enumerate(contents)],
    )
    (state_dir / "ltm.json").write_text(ltm.model_dump_json())


def test_a_folder_that_does_not_exist_yet_is_healthy_and_stays_absent(state_dir: Path) -> None:
    """Nothing stored is not a fault, and checking creates no folder."""
    health = check_health(files(state_dir), now=NOW)
    assert (health.status, health.readable, health.memories, health.lock) == (
        "healthy",
        True,
        0,
        "free",
    )
    assert health.schema_version is None
    assert not state_dir.exists()


def test_counts_version_and_side_files(state_dir: Path) -> None:
    """A readable store reports its version and counts, and lists files moved aside."""
    write_ltm(state_dir, "User plays chess", "User likes tea")
    (state_dir / "ltm.json.corrupt-20261101T000000").write_text("{")
    health = check_health(files(state_dir), now=NOW)
    assert health.status == "healthy"
    assert health.schema_version == 1
    assert health.memories == 2
    assert health.by_status == {"active": 2}
    assert health.quarantined == ["ltm.json.corrupt-20261101T000000"]
    assert not health.pending_commit


def test_an_unreadable_store_is_unhealthy_and_left_in_place(state_dir: Path) -> None:
    """Broken JSON is reported as the problem; the file is not moved or changed."""
    state_dir.mkdir(parents=True)
    (state_dir / "ltm.json").write_bytes(b'{"memories": [')
    health = check_health(files(state_dir), now=NOW)
    assert (health.status, health.readable) == ("unhealthy", False)
    assert "ltm.json could not be read" in health.problems[0]
    assert "moves it aside" in health.problems[0]
    assert (state_dir / "ltm.json").read_bytes() == b'{"memories": ['
    assert list(state_dir.glob("*.corrupt-*")) == []


def test_a_newer_schema_is_unhealthy_with_the_reason(state_dir: Path) -> None:
    """A store from a newer version cannot be read: status says so and why."""
    state_dir.mkdir(parents=True)
    (state_dir / "ltm.json").write_text(json.dumps({"schema_version": 99, "memories": []}))
    health = check_health(files(state_dir), now=NOW)
    assert health.status == "unhealthy"
    assert "schema_version 99" in health.problems[0]


def test_a_lock_held_by_another_process_is_busy(state_dir: Path) -> None:
    """The lock is tried once, never waited for: held elsewhere, it reads "busy"."""
    write_ltm(state_dir, "User plays chess")
    with subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from filelock import FileLock; "
            "lock = FileLock(sys.argv[1]); lock.acquire(); print('held', flush=True); "
            "time.sleep(60)",
            str(state_dir / ".state.lock"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    ) as holder:
        try:
            assert holder.stdout is not None
            assert holder.stdout.readline().strip() == "held"
            assert check_health(files(state_dir), now=NOW).lock == "busy"
        finally:
            holder.kill()
    assert check_health(files(state_dir), now=NOW).lock == "free"


def test_unreadable_counters_are_moved_aside_where_status_lists_them(state_dir: Path) -> None:
    """A commit that finds the counters file unreadable keeps it under a dated side name,
    which `memory status` lists, and starts counting again."""
    from pipeline.store import Change

    write_ltm(state_dir, "User plays chess")
    (state_dir / "ltm.counters.json").write_text("{not json")
    store = files(state_dir)
    store.transact(
        lambda disk: Change(result=None, ltm=disk.ltm, counters={"attempts": 1}),
        now=NOW,
        lock_timeout=5,
    )
    aside = [p.name for p in state_dir.glob("ltm.counters.json.corrupt-*")]
    assert aside == [f"ltm.counters.json.corrupt-{NOW:%Y%m%dT%H%M%S}"]
    assert (state_dir / aside[0]).read_text() == "{not json"
    assert store.read_counters() == {"attempts": 1}
    assert check_health(store, now=NOW).quarantined == aside
