"""Decay (seed 003): computed on read from the stored base, never stored decayed."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.models import Memory
from pipeline.retrieval import retrieve_relevant
from tests.strategies import NOW

HORIZON = 720.0


def aged(decay: str, *, created_hours: float, reinforced_hours: float, base: float = 0.9) -> Memory:
    return Memory(
        id="mem_0001",
        type="habit",
        subject="user",
        content="User runs daily",
        confidence=base,
        decay=decay,
        created_at=NOW - timedelta(hours=created_hours),
        last_reinforced=NOW - timedelta(hours=reinforced_hours),
    )


def test_stable_never_decays() -> None:
    """A stable memory keeps its base confidence however old it is."""
    assert (
        aged("stable", created_hours=1e5, reinforced_hours=1e5).current_confidence(NOW, HORIZON)
        == 0.9
    )


def test_contextual_fades_from_creation_and_reinforceable_from_reinforcement() -> None:
    """Half the horizon halves the base; reinforcement only resets a reinforceable one."""
    contextual = aged("contextual", created_hours=360, reinforced_hours=0)
    reinforceable = aged("reinforceable", created_hours=10_000, reinforced_hours=360)
    assert contextual.current_confidence(NOW, HORIZON) == 0.45
    assert reinforceable.current_confidence(NOW, HORIZON) == 0.45
    assert (
        aged("contextual", created_hours=2000, reinforced_hours=0).current_confidence(NOW, HORIZON)
        == 0.0
    )


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["stable", "contextual", "reinforceable"]),
    st.floats(min_value=0, max_value=1),
    st.floats(min_value=0, max_value=5000),
    st.floats(min_value=0, max_value=5000),
)
def test_confidence_stays_in_range_and_never_grows_with_age(
    decay: str, base: float, hours: float, more: float
) -> None:
    """Current confidence is in [0, base], monotone in age, and reinforcement restores it."""
    younger = aged(decay, created_hours=hours, reinforced_hours=hours, base=base)
    older = aged(decay, created_hours=hours + more, reinforced_hours=hours + more, base=base)
    now_value = younger.current_confidence(NOW, HORIZON)
    assert 0.0 <= now_value <= base + 1e-9
    assert older.current_confidence(NOW, HORIZON) <= now_value + 1e-9
    if decay == "reinforceable":
        refreshed = aged(decay, created_hours=hours + more, reinforced_hours=0, base=base)
        assert refreshed.current_confidence(NOW, HORIZON) == base


def test_retrieval_skips_memories_that_decayed_below_the_minimum() -> None:
    """A habit not reinforced for most of the horizon is no longer retrieved."""
    fresh = aged("reinforceable", created_hours=0, reinforced_hours=0)
    stale = aged("reinforceable", created_hours=700, reinforced_hours=700).model_copy(
        update={"id": "mem_0002"}
    )
    found = retrieve_relevant(
        [fresh, stale],
        query="runs",
        min_confidence=0.65,
        token_budget=1500,
        max_items=40,
        now=NOW,
        horizon_hours=HORIZON,
    )
    assert [r.memory.id for r in found.used] == ["mem_0001"]
    assert found.used[0].confidence == 0.9


def test_forgotten_and_draft_memories_are_not_retrieved() -> None:
    """Only active memories reach the prompt."""
    memories = [
        aged("stable", created_hours=1, reinforced_hours=1).model_copy(
            update={"id": f"mem_000{i}", "status": status}
        )
        for i, status in enumerate(["active", "forgotten", "draft"])
    ]
    found = retrieve_relevant(
        memories, query="runs", min_confidence=0.65, token_budget=1500, max_items=40, now=NOW
    )
    assert [r.memory.id for r in found.used] == ["mem_0000"]
