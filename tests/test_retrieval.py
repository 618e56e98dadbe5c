"""Retrieval: lexical relevance plus confidence, deterministic, inside a token budget."""

from __future__ import annotations

from pipeline.retrieval import retrieve_relevant
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
    )


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
