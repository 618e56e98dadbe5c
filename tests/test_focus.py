"""A focused commit (PostgreSQL reads only the memories near what is written) decides
exactly as the gate does over every memory, and the index it reads stays in step."""

from __future__ import annotations

import itertools
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline import pgstore
from pipeline.batch import gate_many
from pipeline.gate import gate
from pipeline.models import (
    CandidateIn,
    GateResult,
    HistoryEntry,
    LtmFile,
    Memory,
    Policy,
    RevisionIn,
    Scope,
)
from pipeline.retrieval import gate_view
from pipeline.store import Change, Focus, Snapshot
from pipeline.turn import Proposal, Requests, commit_focus, forget_on_disk
from tests.strategies import NOW, candidates, contents, revisions

POLICY = Policy(max_per_turn=2, max_per_day=2)
SCOPES = [Scope(), Scope(project="garden")]
_users = itertools.count()


# Candidates the gate's early checks let through, so that duplicates and quotas decide.
likely = st.builds(
    CandidateIn,
    type=st.just("preference"),
    subject=st.just("user"),
    content=contents,
    confidence=st.floats(min_value=0.7, max_value=1),
    reason=st.just("stated by the user"),
    action=st.sampled_from(["create", "create", "reinforce"]),
    target_id=st.one_of(st.none(), st.sampled_from(["m1", "m2", "m9"])),
)


@st.composite
def stored(draw: st.DrawFn) -> list[Memory]:
    """Memories that may repeat one another (as revisions and other scopes allow), of
    every status and source, some created in the last day."""
    texts = draw(st.lists(contents, max_size=10))
    memories = []
    for i, text in enumerate(texts):
        at = NOW - timedelta(hours=draw(st.integers(min_value=0, max_value=60)))
        memories.append(
            Memory(
                id=f"mem_{i + 1:04d}",
                type="preference",
                subject="user",
                content=text,
                confidence=draw(st.floats(min_value=0.5, max_value=1)),
                created_at=at,
                last_reinforced=at,
                status=draw(st.sampled_from(["active", "active", "forgotten", "draft"])),
                source=draw(st.sampled_from(["reflection", "reflection", "human"])),
                project=draw(st.sampled_from([None, None, "garden", "work"])),
            )
        )
    return memories


def _store_of(url: str, memories: list[Memory]) -> pgstore.PostgresStore:
    """A new user in the database holding exactly `memories`."""
    s = pgstore.PostgresStore(url, f"user-{next(_users)}")
    ltm = LtmFile(next_seq=len(memories) + 1, memories=memories)
    s.transact(lambda _d: Change(result=None, ltm=ltm), now=NOW, lock_timeout=5)
    return s


def _gated(s: pgstore.PostgresStore, focus: Focus | None, decide: object) -> tuple[Any, bool]:
    """`decide` run under the lock on what the store gives the merge, with or without a
    focus; nothing is written."""

    def merge(disk: Snapshot) -> Change[tuple[Any, bool]]:
        return Change(result=(decide(disk.ltm.memories), disk.partial))  # type: ignore[operator]

    result, _ = s.transact(merge, now=NOW, lock_timeout=5, focus=focus)
    return result


@pytest.fixture(scope="module")
def shared_url(pg_server: object) -> str:
    """One database for every example (each uses a user of its own)."""
    return pg_server.new_database()  # type: ignore[attr-defined, no-any-return]


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    memories=stored(),
    turn=st.tuples(
        st.lists(st.one_of(candidates, likely), max_size=4),
        st.lists(revisions, max_size=3),
        st.one_of(st.none(), st.integers(min_value=0, max_value=9)),
        st.booleans(),
    ),
    scope=st.sampled_from(SCOPES),
)
def test_a_focused_turn_commit_decides_as_over_every_memory(
    shared_url: str,
    memories: list[Memory],
    turn: tuple[list[CandidateIn], list[RevisionIn], int | None, bool],
    scope: Scope,
) -> None:
    """Over stores that hold repeats, forgotten and out-of-scope memories and recent
    reflections, the commit's merge (the forget request, then the gate) given the memories
    a turn's focus reads decides exactly as given every memory."""
    proposed, revised, forget, explicit = turn
    s = _store_of(shared_url, memories)
    ids = [m.id for m in memories]
    aliases = {f"m{i + 1}": mid for i, mid in enumerate(ids[:3])}
    aliases["mem_0001"] = "mem_0001"
    target = memories[forget] if forget is not None and forget < len(memories) else None
    requests = Requests(explicit=explicit, forget=target)
    proposal = Proposal(candidates=proposed, revisions=revised, aliases=aliases)

    def decide(seen: list[Memory]) -> tuple[GateResult, list[HistoryEntry]]:
        # What the commit's merge decides: the forget request, then the gate.
        forgot = forget_on_disk(LtmFile(memories=list(seen)), requests, "t-1", NOW)
        result = gate(
            proposed,
            revised,
            gate_view(seen, scope),
            aliases=aliases,
            policy=POLICY,
            now=NOW,
            explicit_turn=explicit,
            forgotten=requests.forget_texts,
            user_text="remember this",
        )
        return result, forgot

    full, full_partial = _gated(s, None, decide)
    focused, partial = _gated(s, commit_focus(proposal, requests, NOW), decide)
    assert (full_partial, partial) == (False, True)
    assert focused == full


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(memories=stored(), text=contents, scope=st.sampled_from(SCOPES))
def test_a_focused_add_decides_as_over_every_memory(
    shared_url: str, memories: list[Memory], text: str, scope: Scope
) -> None:
    """`memory add`'s gate (one candidate, quotas lifted as `Memory.add` lifts them)
    given the memories near the new text decides as it does given every memory."""
    s = _store_of(shared_url, memories)
    candidate = CandidateIn(
        type="preference", subject="user", content=text, confidence=1.0, reason="by hand"
    )

    lifted = replace(POLICY, min_confidence=0.0, max_per_turn=1, max_per_day=10**9)

    def decide(seen: list[Memory]) -> GateResult:
        return gate_many([candidate], gate_view(seen, scope), policy=lifted, now=NOW)

    full, _ = _gated(s, None, decide)
    focused, _ = _gated(s, Focus(texts=(text,)), decide)
    assert focused == full


def test_the_daily_quota_counts_recent_memories_far_from_the_candidates(pg_url: str) -> None:
    """Two memories learned today about other things still use up a quota of two: the
    focused commit rejects a new fact for the quota, as the gate over every memory does."""
    recent = NOW - timedelta(hours=3)
    s = _store_of(
        pg_url,
        [
            Memory(
                id=f"mem_{i:04d}",
                type="preference",
                subject="user",
                content=content,
                confidence=0.9,
                created_at=recent,
                last_reinforced=recent,
            )
            for i, content in enumerate(["User speaks French", "User plays chess"], start=1)
        ],
    )
    new = CandidateIn(
        type="preference", subject="user", content="User likes jazz", confidence=0.9, reason="r"
    )
    proposal, requests = Proposal(candidates=[new]), Requests()

    def decide(seen: list[Memory]) -> str:
        result = gate([new], [], seen, aliases={}, policy=POLICY, now=NOW)
        return result.candidates[0].reason

    assert _gated(s, None, decide)[0] == "quota_day"
    assert _gated(s, commit_focus(proposal, requests, NOW), decide)[0] == "quota_day"


def test_the_focus_reads_only_what_it_names(pg_url: str) -> None:
    """A focused read holds the memories near a text, those named, and recent reflections,
    in their stored order, and not the others."""
    old = NOW - timedelta(days=3)
    memories = [
        Memory(
            id=f"mem_{i:04d}",
            type="preference",
            subject="user",
            content=content,
            confidence=0.9,
            created_at=at,
            last_reinforced=at,
            source=source,
        )
        for i, (content, at, source) in enumerate(
            [
                ("User likes green tea", old, "reflection"),
                ("User plays chess on Sundays", old, "reflection"),
                ("User speaks French", NOW - timedelta(hours=2), "reflection"),
                ("User owns a red bike", NOW - timedelta(hours=2), "human"),
                ("User likes green tea a lot", old, "human"),
            ],
            start=1,
        )
    ]
    s = _store_of(pg_url, memories)
    focus = Focus(
        texts=("The user likes green tea!",),
        ids=frozenset({"mem_0002"}),
        created_since=NOW - timedelta(days=1),
    )
    seen = _gated(s, focus, lambda ms: [m.id for m in ms])[0]
    assert seen == ["mem_0001", "mem_0002", "mem_0003", "mem_0005"]


def test_the_term_index_follows_every_write(pg_url: str) -> None:
    """Revising, purging and clearing keep the term index in step with the memories: a
    revised text is found by its new words only, a purged one not at all."""
    s = _store_of(
        pg_url,
        [
            Memory(
                id="mem_0001",
                type="preference",
                subject="user",
                content="User likes green tea",
                confidence=0.9,
                created_at=NOW,
                last_reinforced=NOW,
            )
        ],
    )

    def near(text: str) -> list[str]:
        return _gated(s, Focus(texts=(text,)), lambda ms: [m.id for m in ms])[0]

    def revise(disk: Snapshot) -> Change[None]:
        disk.ltm.memories[0] = disk.ltm.memories[0].model_copy(
            update={"content": "User plays chess"}
        )
        return Change(result=None, ltm=disk.ltm)

    assert near("User likes green tea") == ["mem_0001"]
    s.transact(revise, now=NOW, lock_timeout=5)
    assert near("User likes green tea") == []
    assert near("User plays chess") == ["mem_0001"]
    s.purge_memory("mem_0001", now=NOW, lock_timeout=5)
    assert near("User plays chess") == []
    conn = pgstore.connection(pg_url)
    assert conn.execute("SELECT count(*) FROM memory_terms").fetchone() == (0,)


def test_a_version_1_database_is_indexed_when_opened(pg_url: str) -> None:
    """Memories written by the first schema get their terms and columns when a newer
    program opens the database, so focused reads find them."""
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE schema_version (version integer NOT NULL)")
        conn.execute(pgstore._SCHEMA)  # type: ignore[arg-type]
        conn.execute("INSERT INTO schema_version VALUES (1)")
        conn.execute("INSERT INTO users (user_id, next_seq) VALUES ('old', 2)")
        memory = Memory(
            id="mem_0001",
            type="preference",
            subject="user",
            content="User likes green tea",
            confidence=0.9,
            created_at=NOW,
            last_reinforced=NOW,
        )
        conn.execute(
            "INSERT INTO memories (user_id, id, pos, data) VALUES ('old', 'mem_0001', 0, %s)",
            (memory.model_dump_json(),),
        )
    s = pgstore.PostgresStore(pg_url, "old")
    found = _gated(s, Focus(texts=("user likes green tea",)), lambda ms: [m.id for m in ms])[0]
    assert found == ["mem_0001"]
    version = pgstore.connection(pg_url).execute("SELECT version FROM schema_version").fetchone()
    assert version == (pgstore.PG_SCHEMA_VERSION,)
