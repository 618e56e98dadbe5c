"""The memory, session and reset commands, run as real processes against real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline import store
from pipeline.credentials import redact
from pipeline.models import DECAY_POLICIES, MEMORY_TYPES, STATUSES, SUBJECTS, HistoryEntry, LtmFile
from tests.helpers import PROJECT, candidate, invoke, keyless_env, reflection, turn_env
from tests.llm_server import ScriptedLLM
from tests.strategies import NOW, memory


@pytest.fixture
def env(state_dir: Path) -> dict[str, str]:
    """No API key at all: these commands must not need one."""
    return keyless_env(state_dir)


def cli(
    env: dict[str, str], *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return invoke(*args, env=env, stdin=stdin)


def as_json(env: dict[str, str], *args: str) -> Any:
    result = cli(env, *args, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def history(state_dir: Path, memory_id: str, user: str = "default-user") -> list[str]:
    paths = store.StatePaths(state_dir, user)
    return [h.event for h in store.read_history(paths, store.load(paths, now=NOW).ltm, memory_id)]


def test_a_command_says_when_it_moved_an_unreadable_file_aside(
    env: dict[str, str], state_dir: Path
) -> None:
    """A command that finds ltm.json unreadable moves it aside, says so on stderr, and
    answers from an empty memory; stdout carries only its answer."""
    state_dir.mkdir(parents=True)
    (state_dir / "ltm.json").write_text("{not json")
    result = cli(env, "memory", "list")
    assert result.returncode == 0
    assert result.stdout == "No memories for default-user.\n"
    assert "memory-test: warning: ltm.json could not be read" in result.stderr
    ltm_files = [p.name for p in state_dir.iterdir() if p.name.startswith("ltm.json")]
    assert len(ltm_files) == 1
    assert ltm_files[0].startswith("ltm.json.corrupt-")


@pytest.mark.parametrize("command", [("list",), ("status",), ("search", "tea")])
def test_commands_never_import_openai(env: dict[str, str], command: tuple[str, ...]) -> None:
    """Managing memory starts fast: neither the openai nor the mcp package is imported, nor
    the gate's learned judgement."""
    result = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            str(PROJECT / "memory_test.py"),
            "memory",
            *command,
        ],
        capture_output=True,
        text=True,
        env={**env, "PYTHONPATH": str(PROJECT)},
        check=False,
    )
    assert result.returncode == 0
    assert " openai" not in result.stderr
    assert " mcp" not in result.stderr
    assert "pipeline.mcp_server" not in result.stderr
    assert "pipeline.judge" not in result.stderr
    assert "pipeline.charjudge" not in result.stderr
    assert "pipeline.commands" in result.stderr


def test_add_goes_through_the_gate(env: dict[str, str]) -> None:
    """A hand-written memory is stored; a secret is refused; a repeat reinforces."""
    added = as_json(env, "memory", "add", "User is allergic to peanuts", "--type", "identity")
    assert added["results"][0]["verdict"] == "accepted"
    secret = cli(env, "memory", "add", "My password is hunter22x", "--type", "preference")
    assert "rejected [secret]" in secret.stdout
    assert "hunter22x" not in secret.stdout
    assert "My password is [REDACTED]" in secret.stdout, secret.stdout
    again = cli(env, "memory", "add", "The user is allergic to peanuts.", "--type", "identity")
    assert "merged mem_0001 [duplicate]" in again.stdout
    listed = as_json(env, "memory", "list")["memories"]
    assert [(m["id"], m["hit_count"], m["source"], m["decay"]) for m in listed] == [
        ("mem_0001", 2, "human", "stable")
    ]


def test_add_refuses_text_that_is_not_utf8(env: dict[str, str], state_dir: Path) -> None:
    """Undecodable bytes in the text (a lone surrogate in argv) are a usage error with a
    message, not a traceback from the history write; nothing is stored."""
    result = cli(env, "memory", "add", "User likes \udcff tea", "--type", "habit")
    assert result.returncode == 2, result.stderr
    assert "not valid UTF-8" in result.stderr
    assert "Traceback" not in result.stderr
    assert as_json(env, "memory", "list", "--all")["memories"] == []


def test_search_refuses_a_limit_below_one(env: dict[str, str]) -> None:
    """`--limit 0` or a negative limit is a usage error, not silently read as 1."""
    cli(env, "memory", "add", "User plays chess", "--type", "habit")
    for limit in ("0", "-3"):
        result = cli(env, "memory", "search", "chess", "--limit", limit)
        assert result.returncode == 2, result.stdout
        assert "--limit" in result.stderr
    assert cli(env, "memory", "search", "chess", "--limit", "1").returncode == 0


def test_list_filters_and_says_when_empty(env: dict[str, str]) -> None:
    """`memory list` is informative when empty and filters by type."""
    assert "No memories for default-user." in cli(env, "memory", "list").stdout
    cli(env, "memory", "add", "User plays chess", "--type", "habit")
    cli(env, "memory", "add", "User is a nurse", "--type", "identity")
    assert [
        m["content"] for m in as_json(env, "memory", "list", "--type", "habit")["memories"]
    ] == ["User plays chess"]


def test_forget_restore_and_their_history(env: dict[str, str], state_dir: Path) -> None:
    """Forget is soft and idempotent; restore brings it back; both are in the history."""
    cli(env, "memory", "add", "User plays chess", "--type", "habit")
    forgot = cli(env, "memory", "forget", "mem_0001").stdout
    assert "Forgot mem_0001" in forgot
    assert "`memory forget mem_0001 --purge`" in forgot
    assert "already forgotten" in cli(env, "memory", "forget", "mem_0001").stdout
    assert as_json(env, "memory", "list")["memories"] == []
    assert as_json(env, "memory", "list", "--all")["memories"][0]["status"] == "forgotten"
    assert "Restored mem_0001" in cli(env, "memory", "restore", "mem_0001").stdout
    assert "already active" in cli(env, "memory", "restore", "mem_0001").stdout
    assert history(state_dir, "mem_0001") == ["created", "forgotten", "restored"]


def test_show_gives_the_memory_and_why_it_changed(env: dict[str, str]) -> None:
    """`memory show` prints the fields and every change with its time and reason."""
    cli(env, "memory", "add", "User plays chess", "--type", "habit")
    cli(env, "memory", "reinforce", "mem_0001")
    shown = as_json(env, "memory", "show", "mem_0001")
    assert shown["hit_count"] == 2
    assert [h["event"] for h in shown["history"]] == ["created", "reinforced"]
    text = cli(env, "memory", "show", "mem_0001").stdout
    assert "User plays chess" in text
    assert "reinforced" in text
    assert "hit_count 1 → 2" in text


def test_missing_ids_and_bad_arguments_fail_clearly(env: dict[str, str]) -> None:
    """Unknown ids exit 1 with a message; bad arguments exit 2."""
    for action in ("show", "forget", "restore", "reinforce", "approve"):
        result = cli(env, "memory", action, "mem_0404")
        assert result.returncode == 1, action
        assert "no memory 'mem_0404' for user default-user" in result.stderr
    assert json.loads(cli(env, "memory", "show", "mem_0404", "--json").stdout)["error"]
    assert cli(env, "memory", "add", "no type given").returncode == 2
    assert cli(env, "memory", "frobnicate").returncode == 2
    assert cli(env, "memory", "list", "--user", "../x").returncode == 2
    assert cli(env, "memory", "purge").returncode == 2


def test_approve_drafts_and_refuse_wrong_states(env: dict[str, str], state_dir: Path) -> None:
    """A draft becomes active on approval; reinforcing a forgotten memory is refused."""
    paths = store.StatePaths(state_dir)
    draft = memory("mem_0001", "User likes tea").model_copy(update={"status": "draft"})
    store.transact(
        paths,
        lambda _d: store.Change(result=None, ltm=LtmFile(next_seq=2, memories=[draft])),
        now=NOW,
        lock_timeout=5,
    )
    assert as_json(env, "memory", "list")["memories"] == []
    assert "Approved mem_0001" in cli(env, "memory", "approve", "mem_0001").stdout
    cli(env, "memory", "forget", "mem_0001")
    refused = cli(env, "memory", "reinforce", "mem_0001")
    assert refused.returncode == 2
    assert "forgotten" in refused.stderr


def test_purge_removes_the_text_from_every_file(
    env: dict[str, str], state_dir: Path, llm: ScriptedLLM
) -> None:
    """After --purge the text is in no file of the state folder; a tombstone remains."""
    turn = turn_env(llm, state_dir)
    llm.reply("Noted: User is allergic to peanuts").reply(
        reflection(candidate("User is allergic to peanuts", type="identity"))
    )
    assert invoke("-i", "User is allergic to peanuts", env=turn).returncode == 0
    cli(env, "memory", "add", "User plays chess", "--type", "habit")
    assert "Purged mem_0001" in cli(env, "memory", "forget", "mem_0001", "--purge").stdout
    for path in state_dir.rglob("*"):
        if path.is_file():
            assert b"allergic to peanuts" not in path.read_bytes(), path
    assert history(state_dir, "mem_0001") == ["purged"]
    assert [m["id"] for m in as_json(env, "memory", "list")["memories"]] == ["mem_0002"]
    assert cli(env, "memory", "show", "mem_0001").returncode == 1


def test_export_then_import_into_another_user(env: dict[str, str]) -> None:
    """Export writes JSON lines; import runs them through the gate for another user."""
    cli(env, "memory", "add", "User plays chess", "--type", "habit")
    cli(env, "memory", "add", "User is a nurse", "--type", "identity")
    exported = cli(env, "memory", "export").stdout
    assert len(exported.splitlines()) == 2
    first = cli(env, "memory", "import", "-", "--user", "bob", stdin=exported)
    assert "2 new, 0 reinforced, 0 refused." in first.stdout
    second = cli(env, "memory", "import", "-", "--user", "bob", stdin=exported)
    assert "0 new, 2 reinforced, 0 refused." in second.stdout
    bad = cli(env, "memory", "import", "-", stdin='{"content": "no type"}\n')
    assert bad.returncode == 2
    assert "line 1" in bad.stderr


def test_clear_commands_are_idempotent_and_per_user(env: dict[str, str], state_dir: Path) -> None:
    """Clearing says so when there is nothing; one user's clear leaves another's memory."""
    assert "already empty" in cli(env, "memory", "clear").stdout
    assert "already empty" in cli(env, "session", "clear").stdout
    cli(env, "memory", "add", "User plays chess", "--type", "habit")
    cli(env, "memory", "add", "User plays go", "--type", "habit", "--user", "bob")
    assert "Cleared 1 memories of default-user" in cli(env, "memory", "clear").stdout
    assert not (state_dir / "ltm.history.jsonl").exists()
    assert [m["content"] for m in as_json(env, "memory", "list", "--user", "bob")["memories"]] == [
        "User plays go"
    ]
    reset = cli(env, "reset", "--user", "bob")
    assert "Cleared 1 memories of bob" in reset.stdout
    assert "already empty" in cli(env, "reset", "--user", "bob").stdout


def test_session_clear_empties_the_transcript(
    env: dict[str, str], state_dir: Path, llm: ScriptedLLM
) -> None:
    """`session clear` removes the current session's turns; memory is untouched."""
    turn = turn_env(llm, state_dir)
    llm.reply("ok").reply(reflection(candidate("User likes tea")))
    invoke("-i", "I like tea", env=turn)
    assert "Cleared the session (1 turns)." in cli(env, "session", "clear").stdout
    assert not (state_dir / "session.json").exists()
    assert len(as_json(env, "memory", "list")["memories"]) == 1


def test_stats_count_memories_and_gate_decisions(
    env: dict[str, str], state_dir: Path, llm: ScriptedLLM
) -> None:
    """Counters (seed 004) accumulate across turns: attempts, accepted, rejections by reason."""
    turn = turn_env(llm, state_dir)
    llm.reply("ok").reply(reflection(candidate("User likes tea"), candidate("User is tired today")))
    invoke("-i", "I like tea but I'm tired today", env=turn)
    llm.reply("ok").reply(reflection(candidate("User likes tea.")))
    invoke("-i", "tea again", env=turn)
    stats = as_json(env, "memory", "stats")
    assert stats["counters"] == {
        "accepted": 1,
        "attempts": 3,
        "deduped": 1,
        "rejected_ephemeral": 1,
    }
    assert stats["by_status"] == {"active": 1}


def test_search_ranks_by_relevance(env: dict[str, str]) -> None:
    """`memory search` uses the turn's retriever and explains each hit."""
    cli(env, "memory", "add", "User is allergic to peanuts", "--type", "identity")
    cli(env, "memory", "add", "User plays chess", "--type", "habit")
    found = as_json(env, "memory", "search", "peanut allergy")
    assert found["results"][0]["content"] == "User is allergic to peanuts"
    assert "matched" in found["results"][0]["why"]


def test_no_command_shows_one_users_memory_to_another(env: dict[str, str]) -> None:
    """list, search, show, export and stats of one user never include another's memory."""
    cli(env, "memory", "add", "User is allergic to peanuts", "--type", "identity")
    bob = [*("--user", "bob")]
    outputs = [
        cli(env, "memory", "list", "--all", *bob).stdout,
        cli(env, "memory", "search", "peanuts allergy", *bob).stdout,
        cli(env, "memory", "export", "--all", *bob).stdout,
        cli(env, "memory", "stats", "--json", *bob).stdout,
        cli(env, "memory", "show", "mem_0001", *bob).stderr,
    ]
    assert not any("peanut" in out for out in outputs)
    assert json.loads(outputs[3])["memories"] == 0


# --- Export → import round trip --------------------------------------------------------------

_FACTS = [
    "User collects vintage stamps",
    "User speaks Portuguese at home",
    "User's sister lives in Lisbon",
    "User is allergic to shellfish",
    "User prefers concise answers",
    "User plays the cello",
    "User runs marathons every spring",
    "User owns 3 bicycles",
]
_TIMES = st.datetimes(
    min_value=datetime(2020, 1, 1), max_value=datetime(2030, 1, 1), timezones=st.just(UTC)
)
_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


@st.composite
def stored_memories(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Distinct facts with every field drawn: timestamps, counts, source, status, decay,
    confidence, and fields this version does not know."""
    facts = draw(st.lists(st.sampled_from(_FACTS), min_size=1, max_size=5, unique=True))
    rows = []
    for i, fact in enumerate(facts, 1):
        row = {
            "id": f"mem_{draw(st.integers(1, 9999)) * 10 + i:05d}",
            "type": draw(st.sampled_from(MEMORY_TYPES)),
            "subject": draw(st.sampled_from(SUBJECTS)),
            "content": fact,
            "confidence": draw(st.floats(0, 1)),
            # Text the secret finder would hide is redacted on export by design, so the
            # round trip is drawn over text that holds no secret ("00A/CVC" reads as one).
            "reason": draw(st.text(max_size=20).filter(lambda t: redact(t) == t)),
            "created_at": draw(_TIMES),
            "last_reinforced": draw(_TIMES),
            "hit_count": draw(st.integers(1, 10**6)),
            "source_turn_id": draw(
                st.none() | st.text(min_size=1, max_size=14).filter(lambda t: redact(t) == t)
            ),
            "status": draw(st.sampled_from(STATUSES)),
            "source": draw(st.sampled_from(["reflection", "explicit", "human", "import"])),
            "decay": draw(st.sampled_from(DECAY_POLICIES)),
        }
        extra = draw(
            st.dictionaries(
                st.from_regex(r"x_[a-z]{1,6}", fullmatch=True), _JSON_VALUES, max_size=2
            )
        )
        rows.append({**row, **extra})
    return rows


@st.composite
def histories(draw: st.DrawFn, rows: list[dict[str, Any]]) -> list[HistoryEntry]:
    """A few history lines for some of the memories, in a drawn order."""
    entries = []
    for row in rows:
        for _ in range(draw(st.integers(0, 3))):
            entries.append(
                HistoryEntry(
                    memory_id=row["id"],
                    at=draw(_TIMES),
                    event=draw(st.sampled_from(["created", "reinforced", "revised", "forgotten"])),
                    turn_id=draw(st.none() | st.text(min_size=1, max_size=8)),
                    reason=draw(st.text(max_size=12)),
                    before=draw(st.none() | st.dictionaries(st.text(max_size=5), _JSON_VALUES)),
                    after=draw(st.none() | st.dictionaries(st.text(max_size=5), _JSON_VALUES)),
                )
            )
    return draw(st.permutations(entries))


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_export_then_import_round_trips_every_field(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    """`memory export --all` then `memory import` into an empty store gives back every
    memory with every field: id, timestamps, source, source turn, hit count, status, decay,
    confidence, reason and unknown fields; and each memory's history, line for line, with
    one more line that records the import."""
    rows = data.draw(stored_memories())
    history = data.draw(histories(rows))
    import argparse

    from pipeline import commands
    from pipeline.api import Memory as Library
    from pipeline.config import load_settings
    from pipeline.models import Memory

    tmp = tmp_path_factory.mktemp("rt")
    environ = {"MEMTEST_ENV_FILE": os.environ["MEMTEST_ENV_FILE"], "MEMTEST_RETRIEVER": "lexical"}
    source = load_settings(state_dir=str(tmp / "a"), environ=environ)
    target = load_settings(state_dir=str(tmp / "b"), environ=environ)
    memories = [Memory.model_validate(r) for r in rows]
    ltm = LtmFile(next_seq=10**6, memories=memories)
    store.transact(
        source.paths,
        lambda _d: store.Change(result=None, ltm=ltm, history=history),
        now=NOW,
        lock_timeout=5,
    )
    _, text = commands.export_memories(
        Library(settings=source), argparse.Namespace(all=True, json=False)
    )
    (tmp / "export.jsonl").write_text(text + "\n")
    commands.import_memories(
        Library(settings=target), argparse.Namespace(file=str(tmp / "export.jsonl"))
    )
    imported = store.load(target.paths, now=NOW).ltm
    assert [m.model_dump(mode="json") for m in imported.memories] == [
        m.model_dump(mode="json") for m in memories
    ]
    assert imported.next_seq > max(int(m.id[4:]) for m in memories)  # ids are never reused
    for m in memories:
        exported = [h.model_dump(mode="json") for h in history if h.memory_id == m.id]
        kept = store.read_history(target.paths, imported, m.id)
        assert [h.model_dump(mode="json") for h in kept[:-1]] == exported
        assert (kept[-1].memory_id, kept[-1].event) == (m.id, "created")  # the import itself


def test_import_into_a_store_that_issued_the_id_gives_a_new_one(env: dict[str, str]) -> None:
    """An exported id this store already issued is not reused; the fields still come along."""
    cli(env, "memory", "add", "User plays chess", "--type", "habit")  # mem_0001
    row = {**memory("mem_0001", "User speaks Welsh").model_dump(mode="json"), "hit_count": 7}
    result = cli(env, "memory", "import", "-", stdin=json.dumps(row) + "\n")
    assert "accepted mem_0002" in result.stdout
    shown = as_json(env, "memory", "show", "mem_0002")
    assert (shown["hit_count"], shown["created_at"]) == (7, row["created_at"])


def test_a_large_import_decides_like_the_gate(env: dict[str, str]) -> None:
    """The batched import gate finds duplicates of stored memories and of earlier lines,
    and still refuses secrets, however many lines there are."""
    cli(env, "memory", "add", "User is allergic to peanuts", "--type", "boundary")
    lines = [{"type": "skill", "content": f"User can count to {i}"} for i in range(300)]
    lines += [
        {"type": "boundary", "content": "user is allergic to peanuts."},
        {"type": "skill", "content": "User can count to 7"},
        {"type": "skill", "content": "User is not allergic to peanuts"},
        {"type": "identity", "content": "User password is hunter2hunter2"},
    ]
    result = cli(env, "memory", "import", "-", stdin="".join(json.dumps(r) + "\n" for r in lines))
    assert "301 new, 1 reinforced, 2 refused." in result.stdout
    assert "repeats another candidate" in result.stdout
    assert "[secret]" in result.stdout


def test_migrate_moves_a_user_to_postgresql_and_refuses_a_second_time(
    env: dict[str, str], pg_url: str
) -> None:
    added = cli(env, "memory", "add", "User's dog is named Pixel.", "--type", "relationship")
    assert added.returncode == 0, added.stderr
    moved = as_json(env, "memory", "migrate", "--to", pg_url)
    assert (moved["memories"], moved["history"], moved["next_seq"]) == (1, 1, 2)

    there = as_json(env, "memory", "list", "--store", pg_url)
    assert [m["content"] for m in there["memories"]] == ["User's dog is named Pixel."]
    again = cli(env, "memory", "migrate", "--to", pg_url)
    assert again.returncode == 2
    assert "already holds data" in again.stderr
    assert "Nothing was written" in again.stderr
    # The source is only read.
    assert [m["content"] for m in as_json(env, "memory", "list")["memories"]] == [
        "User's dog is named Pixel."
    ]
