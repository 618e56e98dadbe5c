"""Retrieval: BM25 by hand, selection modes and fallback, determinism, the token budget."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pipeline.retrieval import Retriever, bm25_scores, retrieve_relevant
from tests.strategies import memory

STORE = [
    memory("mem_0001", "User is allergic to peanuts"),
    memory("mem_0002", "User's sister Ana lives in Lisbon"),
    memory("mem_0003", "User prefers concise answers", confidence=0.7),
    memory("mem_0004", "User plays chess on Sundays"),
]


def ids(found) -> list[str]:
    return [r.memory.id for r in found]


def run(query: str, store=STORE, history=(), budget: int = 1500, max_items: int = 40):
    return retrieve_relevant(
        store,
        query=query,
        history=history,
        min_confidence=0.65,
        token_budget=budget,
        max_items=max_items,
    ).used


def test_most_relevant_memory_comes_first() -> None:
    """A query sharing words with a memory ranks it first and says which words matched."""
    found = run("Can I eat peanuts? I'm allergic to things")
    assert ids(found)[0] == "mem_0001"
    assert found[0].matched == ("allergic", "peanut")
    assert found[0].alias == "m1"


def test_everything_fits_so_everything_goes_in() -> None:
    """With a small store and the default budget every memory is shown."""
    assert sorted(ids(run("hello"))) == sorted(m.id for m in STORE)


def test_follow_up_finds_its_memory_through_recent_turns() -> None:
    """ "And where does she live?" finds Ana through the previous user turn."""
    found = run("and where does she live?", history=["Tell me about my sister Ana"])
    assert ids(found)[0] == "mem_0002"


def test_low_confidence_memories_are_not_retrieved() -> None:
    """A memory below the minimum confidence is never shown."""
    store = [*STORE, memory("mem_0009", "User likes peanuts", confidence=0.3)]
    assert "mem_0009" not in ids(run("peanuts", store))


def test_ties_are_broken_deterministically() -> None:
    """Equal scores order by confidence, then recency, then id: the same every time."""
    store = [
        memory("mem_0010", "User likes tea", age_hours=5),
        memory("mem_0011", "User likes tea.", age_hours=1),
        memory("mem_0012", "User likes tea!", confidence=0.95, age_hours=9),
    ]
    assert ids(run("tea", store)) == ["mem_0012", "mem_0011", "mem_0010"]
    assert ids(run("tea", list(reversed(store)))) == ["mem_0012", "mem_0011", "mem_0010"]


def test_budget_caps_the_context_however_large_the_store() -> None:
    """From 10 to 10,000 memories the memory context stays under the budget."""
    for size in (10, 1000, 10_000):
        store = [
            memory(f"mem_{i:05d}", f"User knows fact {i} about topic {i % 97}") for i in range(size)
        ]
        found = run("what about topic 5", store, budget=300)
        assert sum(r.tokens for r in found) <= 300
        if size >= 1000:
            assert len(found) < size
            assert all("5" in r.matched for r in found[:3])


def test_count_cap() -> None:
    """max_items limits how many memories are shown."""
    assert len(run("user", max_items=2)) == 2


def test_bm25_matches_a_hand_computed_value() -> None:
    """Two docs, one query term: the score is the textbook formula, worked out by hand."""
    docs = [("tea", "green", "tea"), ("coffee",)]
    scores, matched = bm25_scores({"tea": 1.0}, docs)
    # N=2, df=1: idf = ln(1 + (2-1+0.5)/(1+0.5)) = ln 2; avg len 2, doc len 3, tf 2.
    expected = math.log(2) * 2 * 2.2 / (2 + 1.2 * (1 - 0.75 + 0.75 * 3 / 2))
    assert scores[0] == pytest.approx(expected)
    assert scores[1] == 0.0
    assert matched == [("tea",), ()]


def test_query_weights_scale_the_score() -> None:
    """A history term (weight 0.5) counts half as much as the same term in the input."""
    docs = [("tea",), ("jazz",), ("chess",)]
    full, _ = bm25_scores({"tea": 1.0}, docs)
    half, _ = bm25_scores({"tea": 0.5}, docs)
    assert half[0] == pytest.approx(full[0] / 2)


def mode(query: str, store=STORE) -> str:
    return Retriever().index(store).rank(query).selection_mode


def test_selection_modes_without_embeddings() -> None:
    """Shared words: lexical. No shared words: type priority. A memory id: exact_id."""
    assert mode("peanuts") == "lexical"
    assert mode("quantum chromodynamics") == "priority"
    assert mode("what is mem_0004 about?") == "exact_id"


def test_exact_id_puts_that_memory_first() -> None:
    """Naming a memory id ranks that memory first; a longer id is not a prefix match."""
    ranking = Retriever().index(STORE).rank("show me mem_0003")
    assert ranking.scored[0].memory.id == "mem_0003"
    assert mode("show me mem_00031") == "priority"


def test_priority_fallback_is_deterministic_and_puts_boundaries_first() -> None:
    """With nothing to match, boundaries and identity come first, then by confidence."""
    store = [
        memory("mem_0001", "User plays chess", type="habit"),
        memory("mem_0002", "Never discuss the user's divorce", type="boundary", confidence=0.7),
        memory("mem_0003", "User is a nurse", type="identity"),
        memory("mem_0004", "User likes tea", type="preference", confidence=0.95),
    ]
    first = [s.memory.id for s in Retriever().index(store).rank("xyzzy").scored]
    again = [s.memory.id for s in Retriever().index(list(reversed(store))).rank("xyzzy").scored]
    assert first == again == ["mem_0002", "mem_0003", "mem_0004", "mem_0001"]


class FixedEmbedder:
    """Vectors chosen by hand: every text embeds to the same unit vector unless listed."""

    model_id = "fixed"

    def __init__(self, vectors: dict[str, list[float]]) -> None:
        self.vectors = vectors

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.array([self.vectors.get(t, [1.0, 0.0]) for t in texts], dtype=np.float32)


def test_a_question_about_me_prefers_the_users_own_fact() -> None:
    """Equal cosines: "what do I do?" puts the user's fact first and says so; "what does
    my sister do?" gives no such preference, so the id order decides."""
    store = [
        memory("mem_0001", "User's sister works as a nurse", type="relationship"),
        memory("mem_0002", "User is an engineer", type="identity"),
    ]
    store[0].subject = "other"
    index = Retriever(FixedEmbedder({})).index(store)
    mine = index.rank("what do I do all day?")
    assert mine.selection_mode == "semantic"
    assert [s.memory.id for s in mine.scored] == ["mem_0002", "mem_0001"]
    assert mine.scored[0].about_user
    hers = index.rank("what does my sister do all day?")
    assert not any(s.about_user for s in hers.scored)
    assert hers.scored[0].memory.id == "mem_0001"


def test_semantic_mode_whatever_the_cosine_and_fallback_only_without_signal() -> None:
    """A low best cosine still ranks by meaning; only an empty query, or no shared word
    with every cosine below the noise floor, falls back to the fixed order."""
    store = [
        memory("mem_0001", "Never discuss politics", type="boundary"),
        memory("mem_0002", "User likes short answers"),
    ]
    weak = FixedEmbedder(
        {
            "Never discuss politics": [0.0, 1.0],
            "User likes short answers": [0.2, 0.98],
            "format?": [1.0, 0.0],
            "xyzzy": [-1.0, 0.0],
        }
    )
    index = Retriever(weak).index(store)
    low = index.rank("format?")
    assert low.selection_mode == "semantic"
    assert low.scored[0].memory.id == "mem_0002"
    assert index.rank("xyzzy").selection_mode == "fallback_priority"
    assert index.rank("").selection_mode == "fallback_priority"
    assert index.rank("politics").selection_mode == "semantic"


def test_a_question_naming_a_relation_prefers_memories_about_that_relation() -> None:
    """Equal cosines: "my spouse" puts the husband's memory before a colleague's, and the
    trace says why; a question naming no relation leaves the id order."""
    store = [
        memory("mem_0001", "User's colleague Ana is a pilot", type="relationship"),
        memory("mem_0002", "User's husband Marco is a firefighter", type="relationship"),
    ]
    index = Retriever(FixedEmbedder({})).index(store)
    spouse = index.rank("what does my spouse do all day?")
    assert [s.memory.id for s in spouse.scored] == ["mem_0002", "mem_0001"]
    assert spouse.scored[0].about_relation
    assert not spouse.scored[1].about_relation
    plain = index.rank("who flies planes all day?")
    assert [s.memory.id for s in plain.scored] == ["mem_0001", "mem_0002"]
