"""A focused commit (PostgreSQL reads only the memories near what is written) decides
exactly as the gate does over every memory, and the index it reads stays in step."""

from __future__ import annotations

import itertools
from dataclasses import replace
from datetime import timedelta
from functools import partial
from pathlib import Path
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
from pipeline.retrieval import PoolStats, gate_view, in_scope, query_weights, retrieve_relevant
from pipeline.store import Change, Focus, Recall, Snapshot
from pipeline.turn import Proposal, Requests, commit_focus, forget_on_disk, run_turn
from tests.helpers import echo_responder, make_settings
from tests.llm_server import ScriptedLLM
from tests.strategies import NOW, candidates, contents, memory, revisions

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
        [memory("mem_0001", "User likes green tea", age_hours=0)],
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


@pytest.mark.parametrize("version", [1, 2])
def test_an_older_database_is_indexed_when_opened(pg_url: str, version: int) -> None:
    """Memories written by an older schema get their columns and their terms, with what a
    recall ranks by, when a newer program opens the database: focused reads and recalls
    find them."""
    import psycopg

    tea = memory("mem_0001", "User likes green tea", age_hours=0)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE schema_version (version integer NOT NULL)")
        conn.execute(pgstore._SCHEMA)  # type: ignore[arg-type]
        conn.execute("INSERT INTO users (user_id, next_seq) VALUES ('old', 2)")
        conn.execute(
            "INSERT INTO memories (user_id, id, pos, data) VALUES ('old', 'mem_0001', 0, %s)",
            (tea.model_dump_json(),),
        )
        if version == 2:  # as version 2 wrote it: columns and terms without the pool's
            pgstore._index_existing(conn)
            conn.execute(
                "INSERT INTO memory_terms (user_id, term, memory_id, content_tf, label_tf) "
                "SELECT 'old', term, 'mem_0001', 1, 0 FROM unnest(%s::text[]) AS term",
                (["user", "likes", "green", "tea"],),
            )
        conn.execute("INSERT INTO schema_version VALUES (%s)", (version,))
    s = pgstore.PostgresStore(pg_url, "old")
    found = _gated(s, Focus(texts=("user likes green tea",)), lambda ms: [m.id for m in ms])[0]
    assert found == ["mem_0001"]
    request = Recall(
        weights=lambda _session: query_weights("green tea", []),
        scope=Scope(),
        min_confidence=0.5,
        horizon_hours=720.0,
        limit=3,
    )
    recalled = s.recall(request, now=NOW)
    assert recalled is not None
    assert [m.id for m in recalled.snapshot.ltm.memories] == ["mem_0001"]
    assert recalled.stats.df == {"green": 1, "tea": 1}
    conn = pgstore.connection(pg_url)
    assert conn.execute("SELECT version FROM schema_version").fetchone() == (3,)
    indexes = conn.execute("SELECT indexname FROM pg_indexes WHERE schemaname = 'public'")
    assert {"memories_for_recall", "memory_terms_for_recall"} <= {name for (name,) in indexes}


# --- Retrieval through the index --------------------------------------------------------------

_QUERY_WORDS = st.sampled_from(
    ["tea", "green", "jazz", "chess", "cats", "French", "sister", "likes", "user", "habit",
     "preference", "peanuts", "hiking", "what", "do", "I", "2", "北京"]
)  # fmt: skip


@st.composite
def ranked_stores(draw: st.DrawFn) -> list[Memory]:
    """Memories with every field retrieval reads: status, decay and its age, confidence,
    type, subject, labels; many share words, so BM25 and its ties matter."""
    texts = draw(st.lists(contents, min_size=1, max_size=14))
    memories = []
    for i, text in enumerate(texts):
        created = NOW - timedelta(hours=draw(st.integers(min_value=0, max_value=2000)))
        reinforced = created + timedelta(hours=draw(st.integers(min_value=0, max_value=30)))
        memories.append(
            Memory(
                id=f"mem_{i + 1:04d}",
                type=draw(st.sampled_from(["preference", "habit", "boundary", "identity"])),
                subject=draw(st.sampled_from(["user", "other"])),
                content=text,
                confidence=draw(st.sampled_from([0.5, 0.7, 0.8, 0.9, 1.0])),
                created_at=created,
                last_reinforced=min(reinforced, NOW),
                status=draw(st.sampled_from(["active", "active", "active", "forgotten", "draft"])),
                decay=draw(st.sampled_from(["stable", "contextual", "reinforceable"])),
                project=draw(st.sampled_from([None, None, "garden", "work"])),
                is_global=draw(st.booleans()),
            )
        )
    return memories


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    memories=ranked_stores(),
    asked=st.tuples(
        st.lists(_QUERY_WORDS, max_size=4).map(" ".join),
        st.lists(st.lists(_QUERY_WORDS, max_size=3).map(" ".join), max_size=3),
    ),
    shown_at_most=st.integers(min_value=1, max_value=6),
    rules=st.tuples(st.sampled_from([0.0, 0.6, 0.65, 0.75]), st.sampled_from(SCOPES)),
)
def test_retrieval_through_the_index_ranks_as_over_every_memory(
    shared_url: str,
    memories: list[Memory],
    asked: tuple[str, list[str]],
    shown_at_most: int,
    rules: tuple[float, Scope],
) -> None:
    """For varied stores, queries (with earlier turns), limits, confidence floors and
    scopes, retrieval given the memories the store's index recalls, with the pool's
    counts, shows the same memories in the same order with the same scores and matched
    words, chosen by the same rule, as retrieval given every memory."""
    query, history = asked[0], asked[1][-2:]
    (floor, scope), limit = rules, shown_at_most
    _same_ranking(shared_url, memories, query, history, limit=limit, floor=floor, scope=scope)


@st.composite
def changed_stores(draw: st.DrawFn) -> tuple[list[Memory], list[Memory]]:
    """A store, then the same memories with what decides their place changed and their
    text kept: status, confidence, reinforcement, decay, labels."""
    before = draw(ranked_stores())
    after = [
        m.model_copy(
            update={
                "status": draw(st.sampled_from(["active", "forgotten", "draft"])),
                "confidence": draw(st.sampled_from([0.5, 0.7, 0.9, 1.0])),
                "last_reinforced": NOW - timedelta(hours=draw(st.integers(0, 2000))),
                "decay": draw(st.sampled_from(["stable", "contextual", "reinforceable"])),
                "project": draw(st.sampled_from([None, "garden", "work"])),
                "is_global": draw(st.booleans()),
                "hit_count": m.hit_count + 1,
            }
        )
        if draw(st.booleans())
        else m
        for m in before
    ]
    return before, after


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    stores=changed_stores(),
    query=st.lists(_QUERY_WORDS, min_size=1, max_size=4).map(" ".join),
    rules=st.tuples(st.sampled_from([0.0, 0.65]), st.sampled_from(SCOPES)),
)
def test_retrieval_follows_changes_that_keep_the_text(
    shared_url: str,
    stores: tuple[list[Memory], list[Memory]],
    query: str,
    rules: tuple[float, Scope],
) -> None:
    """A commit that changes a memory's status, confidence, reinforcement, decay or labels
    but not its text rewrites what its term rows carry: the ranking through the index is
    still the ranking over every memory."""
    before, after = stores
    (floor, scope) = rules
    _same_ranking(shared_url, before, query, [], limit=4, floor=floor, scope=scope, then=after)


def _same_ranking(
    url: str,
    memories: list[Memory],
    query: str,
    history: list[str],
    *,
    limit: int,
    floor: float,
    scope: Scope,
    then: list[Memory] | None = None,
) -> None:
    """Retrieval over what `recall` reads equals retrieval over every memory (after the
    memories are replaced by `then`, if given)."""
    s = _store_of(url, memories)
    if then is not None:
        ltm = LtmFile(next_seq=len(then) + 1, memories=then)
        s.transact(lambda _d: Change(result=None, ltm=ltm), now=NOW, lock_timeout=5)
        memories = then
    request = Recall(
        weights=lambda _session: query_weights(query, history),
        scope=scope,
        min_confidence=floor,
        horizon_hours=720.0,
        limit=limit,
    )
    recalled = s.recall(request, now=NOW)
    assert recalled is not None
    assert recalled.snapshot.partial
    assert recalled.total == len(memories)

    def shown(seen: list[Memory], stats: PoolStats | None) -> tuple[str, list[Any]]:
        result = retrieve_relevant(
            in_scope(seen, scope),
            query=query,
            history=history,
            min_confidence=floor,
            token_budget=10_000,
            max_items=limit,
            now=NOW,
            horizon_hours=720.0,
            stats=stats,
        )
        return result.selection_mode, [
            (r.memory.id, r.alias, r.score, r.matched, r.confidence) for r in result.used
        ]

    full = shown(s.load(now=NOW).ltm.memories, None)
    assert shown(recalled.snapshot.ltm.memories, recalled.stats) == full


def test_memories_sharing_no_word_fill_the_list_by_confidence(pg_url: str) -> None:
    """With fewer matching memories than places, the rest are the most confident of the
    others (not the first by type priority): the index reads those too."""

    def stored(i: int, content: str, type: str, confidence: float) -> Memory:
        at = NOW - timedelta(hours=i)
        return Memory(
            id=f"mem_{i:04d}",
            type=type,
            subject="user",
            content=content,
            confidence=confidence,
            created_at=at,
            last_reinforced=at,
        )

    memories = [
        stored(1, "User plays chess", "habit", 0.7),
        stored(2, "User never eats after eight", "boundary", 0.7),
        stored(3, "User is a nurse", "identity", 0.75),
        stored(4, "User swims every morning", "habit", 1.0),
        stored(5, "User grows basil", "habit", 0.95),
    ]
    _same_ranking(pg_url, memories, "chess", [], limit=3, floor=0.65, scope=Scope())


def _no_full_load(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("a lexical turn on PostgreSQL loaded every memory")


def test_a_turn_on_postgresql_shows_and_decides_as_on_the_files(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same memories in the JSON files and in PostgreSQL, the same turns (a new fact,
    a repeat of a stored one, a question): the PostgreSQL turns, which read through the
    index and never load every memory, show the same memories with the same scores,
    decide the same, and report the same memory count."""
    memories = [
        Memory(
            id=f"mem_{i:04d}",
            type=type,
            subject="user",
            content=content,
            confidence=confidence,
            created_at=NOW - timedelta(days=i),
            last_reinforced=NOW - timedelta(days=i),
            decay=decay,
        )
        for i, (content, type, confidence, decay) in enumerate(
            [
                ("User likes green tea", "preference", 0.9, "stable"),
                ("User plays chess on Sundays", "habit", 0.8, "reinforceable"),
                ("User's sister lives in Porto", "relationship", 0.95, "stable"),
                ("User never drinks coffee after noon", "boundary", 0.7, "stable"),
                ("User is learning French", "skill", 0.85, "contextual"),
            ],
            start=1,
        )
    ]
    turns = [
        "which tea for chess night?",
        "remember: User grows basil on the balcony",
        "remember: User likes green tea",
        "tell me about my sister and tea",
    ]
    seen: dict[str, list[Any]] = {}
    with ScriptedLLM(responder=echo_responder) as server:
        for name, extra in (("files", {}), ("postgresql", {"MEMTEST_STORE": pg_url})):
            settings_ = make_settings(server, tmp_path / name, **extra)
            settings_.store.transact(
                lambda _d: Change(result=None, ltm=LtmFile(next_seq=6, memories=memories)),
                now=NOW,
                lock_timeout=5,
            )
            if extra:
                monkeypatch.setattr(pgstore.PostgresStore, "load", _no_full_load)
            ticks = iter(NOW + timedelta(hours=1, seconds=n) for n in range(100))
            reports = [run_turn(text, settings_, clock=partial(next, ticks)) for text in turns]
            seen[name] = [
                (
                    r.memory_count,
                    r.selection_mode,
                    [(u.memory.id, u.score, u.matched) for u in r.used],
                    r.result,
                    r.writes,
                )
                for r in reports
            ]
    assert seen["postgresql"] == seen["files"]
    assert seen["files"][1][4][0]["event"] == "created"
    assert seen["files"][2][4][0]["event"] == "merged"
