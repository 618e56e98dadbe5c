"""Real processes: concurrent turns lose nothing; a kill at any instant corrupts nothing."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline import store
from tests.helpers import PROJECT, echo_responder, start_turn, turn_env
from tests.llm_server import ScriptedLLM
from tests.strategies import NOW

NAMES = ["Rex", "Luna", "Milo", "Nala", "Otto", "Pip"]


@pytest.fixture
def echo_llm():
    with ScriptedLLM(responder=echo_responder) as server:
        yield server


def test_concurrent_turns_keep_every_turn_and_memory(
    echo_llm: ScriptedLLM, state_dir: Path
) -> None:
    """Six processes at once: six turns in the session, six distinct memories on disk."""
    env = turn_env(echo_llm, state_dir)
    procs = [start_turn(f"hi remember: User has a dog named {name}", env) for name in NAMES]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * len(NAMES), [o[1] for o in outputs]

    session = json.loads((state_dir / "session.json").read_text())
    assert len(session["messages"]) == 2 * len(NAMES)
    assert len({m["turn_id"] for m in session["messages"]}) == len(NAMES)
    memories = json.loads((state_dir / "ltm.json").read_text())["memories"]
    assert sorted(m["content"].rsplit(" ", 1)[1] for m in memories) == sorted(NAMES)
    assert len({m["id"] for m in memories}) == len(NAMES)


def test_concurrent_duplicates_become_one_memory(echo_llm: ScriptedLLM, state_dir: Path) -> None:
    """The same fact from five processes at once is stored once and reinforced four times."""
    env = turn_env(echo_llm, state_dir)
    procs = [start_turn("remember: User speaks Portuguese", env) for _ in range(5)]
    for p in procs:
        p.communicate(timeout=120)
    memories = json.loads((state_dir / "ltm.json").read_text())["memories"]
    assert len(memories) == 1
    assert memories[0]["hit_count"] == 5


WRITER = """
import sys
from datetime import UTC, datetime
from pathlib import Path
from pipeline import store
from pipeline.models import HistoryEntry, LtmFile, Memory, SessionFile
now = datetime.now(UTC)
paths = store.StatePaths(Path(sys.argv[1]))

def next_generation(disk):
    n = disk.ltm.next_seq + 1  # generations keep counting across killed writers
    ltm = LtmFile(next_seq=n, history_bytes=disk.ltm.history_bytes, memories=[
        Memory(id=f"mem_{i:05d}", type="habit", subject="user",
               content=f"generation {n} fact {i} " + "x" * 200, confidence=0.8,
               created_at=now, last_reinforced=now) for i in range(1500)])
    entry = HistoryEntry(memory_id="mem_00000", at=now, event="revised",
                         after={"generation": n})
    return store.Change(result=n, ltm=ltm, session=SessionFile(session_id=f"gen-{n}",
                        created_at=now), history=[entry])

while True:
    n, _ = store.transact(paths, next_generation, now=now, lock_timeout=5)
    print(n, flush=True)
"""


def kill_when_writing(proc: subprocess.Popen[str], folder: Path, timeout: float = 10) -> bool:
    """SIGKILL `proc` the moment a temp file shows up in `folder`; True if one was seen."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(name.endswith(".tmp") for name in os.listdir(folder)):
            proc.send_signal(signal.SIGKILL)
            return True
    proc.send_signal(signal.SIGKILL)
    return False


def test_kill_at_any_instant_leaves_parseable_files(state_dir: Path) -> None:
    """SIGKILL a writer again and again, at random instants and in the middle of a write:
    both files always parse and hold the same whole generation (a commit killed after its
    commit point is finished by the next reader), and the temp files are cleaned up."""
    rng = random.Random(7)
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(PROJECT)}
    mid_write = 0
    for round_ in range(16):
        with subprocess.Popen(
            [sys.executable, "-c", WRITER, str(state_dir)],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        ) as proc:
            assert proc.stdout is not None
            proc.stdout.readline()  # at least one full write has happened
            if round_ % 2:
                mid_write += kill_when_writing(proc, state_dir)
            else:
                time.sleep(rng.uniform(0.0, 0.4))
                proc.send_signal(signal.SIGKILL)

        snapshot = store.load(store.StatePaths(state_dir), now=NOW)
        assert all(w.startswith("finished saving a change") for w in snapshot.warnings)
        generation = snapshot.ltm.next_seq
        assert all(m.content.startswith(f"generation {generation} ") for m in snapshot.ltm.memories)
        # The committed history has one line per committed generation, the last one last.
        history = store.read_history(store.StatePaths(state_dir), snapshot.ltm)
        assert [h.after["generation"] for h in history] == list(range(2, generation + 1))
        assert len(snapshot.ltm.memories) == 1500
        assert snapshot.session is not None
        assert snapshot.session.session_id == f"gen-{generation}"  # both files, one commit
        assert list(state_dir.glob("*.corrupt-*")) == []
    assert mid_write >= 4  # the interesting case really happened
    store.transact(
        store.StatePaths(state_dir), lambda _d: store.Change(result=None), now=NOW, lock_timeout=5
    )
    assert list(state_dir.glob(".*.tmp")) == []


def test_killed_during_reflection_saves_nothing(state_dir: Path) -> None:
    """The answer was printed, then the process was killed: no half-turn is on disk."""
    with ScriptedLLM() as server:
        server.reply("The answer.").reply('{"candidates": []}', delay=10)
        with start_turn("hello", turn_env(server, state_dir)) as proc:
            assert proc.stdout is not None
            assert proc.stdout.readline() == "The answer.\n"
            deadline = time.monotonic() + 10
            while len(server.requests) < 2 and time.monotonic() < deadline:
                time.sleep(0.02)
            proc.send_signal(signal.SIGKILL)
    assert not (state_dir / "session.json").exists()
    assert not (state_dir / "ltm.json").exists()
