"""The plain shapes every part shares: memory types, labels, the gate's Policy, a Scope,
and how confidence decays. No pydantic here, so a command that only reads memory can use
them without building the models (`models` imports them from here)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .models import Memory

SCHEMA_VERSION = 1

MEMORY_TYPES = ("preference", "relationship", "boundary", "identity", "habit", "skill")
SUBJECTS = ("user", "assistant", "other")
STATUSES = ("active", "forgotten", "draft")
DECAY_POLICIES = ("stable", "contextual", "reinforceable")
# Seed 003: who someone is and what they will not do stay true; habits, preferences and
# skills fade unless they come up again.
DEFAULT_DECAY = {
    "identity": "stable",
    "boundary": "stable",
    "relationship": "stable",
    "preference": "reinforceable",
    "habit": "reinforceable",
    "skill": "reinforceable",
}
LABELS = ("agent", "personality", "project")


def decayed(
    confidence: float,
    decay: str,
    *,
    created_at: datetime,
    last_reinforced: datetime,
    now: datetime,
    horizon_hours: float,
) -> float:
    """A memory's confidence as of `now`: the stored value is the base, decay is applied on
    read. stable never decays; contextual falls linearly to 0 over `horizon_hours` from
    creation; reinforceable does the same from its last reinforcement."""
    if decay == "contextual":
        start = created_at
    elif decay == "reinforceable":
        start = last_reinforced
    else:
        return confidence
    age_hours = max(0.0, (now - start).total_seconds() / 3600)
    return confidence * max(0.0, 1 - age_hours / horizon_hours)


@dataclass(frozen=True)
class Scope:
    """Where a turn or a query stands: a project, an agent, a personality (None: any).

    A memory is in scope when it is global, or when none of its labels contradicts the
    scope's: a label the memory does not have, or the scope does not set, never excludes.
    So memories with no project are seen from every project, and a scope with no project
    sees every project's memories.
    """

    project: str | None = None
    agent: str | None = None
    personality: str | None = None

    def admits(self, memory: Memory) -> bool:
        """Whether `memory` is visible from this scope."""
        if memory.is_global:
            return True
        for name in LABELS:
            wanted = getattr(self, name)
            if wanted is not None and getattr(memory, name) not in (None, wanted):
                return False
        return True

    def labels(self) -> dict[str, str]:
        """The labels a memory written from this scope carries."""
        return {name: value for name in LABELS if (value := getattr(self, name)) is not None}

    def __bool__(self) -> bool:
        return any(getattr(self, name) is not None for name in LABELS)


@dataclass(frozen=True)
class Policy:
    """The gate's rules; every number can be changed through configuration."""

    min_confidence: float = 0.65
    max_per_turn: int = 3
    max_per_day: int = 30
    max_revisions_per_turn: int = 3
    min_content_chars: int = 6
    max_content_chars: int = 400
    types: tuple[str, ...] = MEMORY_TYPES
    subjects: tuple[str, ...] = SUBJECTS
