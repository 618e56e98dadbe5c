"""Data shapes: what is on disk, what the model may reply, and what the gate decides.

Pydantic validates what crosses a boundary (state files, the model's JSON); the gate's
own outputs are plain frozen dataclasses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

# The plain shapes live in `kinds` (no pydantic), so commands that only read can use them
# without building the models; they are imported from here as before.
from .kinds import (
    DECAY_POLICIES,
    DEFAULT_DECAY,
    LABELS,
    MEMORY_TYPES,
    SCHEMA_VERSION,
    STATUSES,
    SUBJECTS,
    Policy,
    Scope,
    decayed,
)

__all__ = [
    "DECAY_POLICIES",
    "DEFAULT_DECAY",
    "LABELS",
    "MEMORY_TYPES",
    "SCHEMA_VERSION",
    "STATUSES",
    "SUBJECTS",
    "Policy",
    "Scope",
    "decayed",
]

Verdict = Literal["accepted", "merged", "rejected"]
REASON_CODES = (
    "ok",
    "low_confidence",
    "ephemeral",
    "speculative",
    "small_talk",
    "duplicate",
    "quota_turn",
    "quota_day",
    "secret",
    "injection",
    "invalid",
    "unknown_target",
)


def as_utc(value: datetime) -> datetime:
    """Timestamps on disk are UTC; a naive one (hand-edited file) is read as UTC."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _unset(value: object) -> bool:
    return value is None or value is False


class _StateModel(BaseModel):
    # Unknown keys are kept and written back, so a hand-added or newer field is never lost.
    model_config = ConfigDict(extra="allow")


class HistoryEntry(_StateModel):
    """One change to one memory: a line of ltm.history.jsonl."""

    memory_id: str
    at: datetime
    event: str
    turn_id: str | None = None
    reason: str = ""
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None

    _utc = field_validator("at")(as_utc)


class Memory(_StateModel):
    id: str
    type: str
    subject: str
    content: str
    confidence: float = Field(ge=0.0, le=1.0)
    reason: str = ""
    created_at: datetime
    last_reinforced: datetime
    hit_count: int = 1
    source_turn_id: str | None = None
    status: str = "active"
    source: str = "reflection"
    decay: str = "stable"
    # Seed 003's metadata. Unset fields are left out of the file, so a memory without
    # them is written back exactly as it was read; `global` is a keyword in Python.
    agent: str | None = Field(default=None, exclude_if=_unset)
    personality: str | None = Field(default=None, exclude_if=_unset)
    project: str | None = Field(default=None, exclude_if=_unset)
    is_global: bool = Field(default=False, alias="global", exclude_if=_unset)

    model_config = ConfigDict(
        extra="allow", validate_by_name=True, validate_by_alias=True, serialize_by_alias=True
    )

    def current_confidence(self, now: datetime, horizon_hours: float) -> float:
        """The confidence as of `now`: the stored value is the base, decay is applied on read.

        stable never decays; contextual falls linearly to 0 over `horizon_hours` from
        creation; reinforceable does the same from its last reinforcement.
        """
        return decayed(
            self.confidence,
            self.decay,
            created_at=self.created_at,
            last_reinforced=self.last_reinforced,
            now=now,
            horizon_hours=horizon_hours,
        )

    _utc = field_validator("created_at", "last_reinforced")(as_utc)

    @field_validator("agent", "personality", "project")
    @classmethod
    def _blank_is_unset(cls, value: str | None) -> str | None:
        # Seed 003 writes "" for "not set"; here that is None, and None is not written.
        return value or None

    def labels(self) -> dict[str, Any]:
        """The metadata as seed 003 shows it: every field, unset ones as null / false."""
        return {
            "agent": self.agent,
            "personality": self.personality,
            "project": self.project,
            "global": self.is_global,
        }


class LtmFile(_StateModel):
    # Strict: "1", 1.0 or true are not a version; the store says so and moves the file aside.
    schema_version: int = Field(default=SCHEMA_VERSION, strict=True)
    next_seq: int = 1
    # How much of ltm.history.jsonl belongs to this state: history lines are appended
    # before this file is replaced, so bytes past this mark are from a commit that died.
    history_bytes: int = 0
    memories: list[Memory] = Field(default_factory=list)


class Message(_StateModel):
    role: Literal["user", "assistant"]
    content: str
    timestamp: datetime
    turn_id: str

    _utc = field_validator("timestamp")(as_utc)


class SessionFile(_StateModel):
    schema_version: int = Field(default=SCHEMA_VERSION, strict=True)
    session_id: str
    created_at: datetime
    session_summary: str = ""
    messages: list[Message] = Field(default_factory=list)

    _utc = field_validator("created_at")(as_utc)


# --- The reflection reply: the model's JSON, so unknown keys are an error. ---------------


class _ModelReply(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CandidateIn(_ModelReply):
    type: str
    subject: str
    content: str
    confidence: float
    reason: str = ""
    action: str = "create"
    target_id: str | None = None
    decay: str | None = None
    explicit: bool = False


class RevisionIn(_ModelReply):
    target_id: str
    action: str
    new_confidence: float | None = None
    reason: str = ""
    new_content: str | None = None


class ReflectionReply(_ModelReply):
    candidates: list[CandidateIn] = Field(default_factory=list)
    revisions: list[RevisionIn] = Field(default_factory=list)
    session_summary: str | None = None


# --- What the gate decides. ---------------------------------------------------------------


@dataclass(frozen=True)
class Decision:
    """The gate's verdict on one candidate or revision, with a reason code and a readable why."""

    kind: Literal["candidate", "revision"]
    index: int
    verdict: Verdict
    reason: str
    detail: str = ""
    memory_id: str | None = None
    explicit: bool = False  # accepted because the user asked for it explicitly


@dataclass(frozen=True)
class GateResult:
    candidates: list[Decision] = field(default_factory=list)
    revisions: list[Decision] = field(default_factory=list)
    # Values the secret model read as secrets where the finder saw none: whoever shows or
    # keeps the turn hides them (`credentials.hide`), as the finder's findings are hidden.
    hidden: tuple[str, ...] = ()
