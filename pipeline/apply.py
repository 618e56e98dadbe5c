"""Apply the gate's decisions to the long-term store, recording every change in history."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from .models import (
    DEFAULT_DECAY,
    CandidateIn,
    GateResult,
    HistoryEntry,
    LtmFile,
    Memory,
    RevisionIn,
)


@dataclass
class Applied:
    """The decisions with created ids filled in, what was written, and its history lines."""

    result: GateResult
    writes: list[dict[str, Any]] = field(default_factory=list)
    history: list[HistoryEntry] = field(default_factory=list)


def apply_decisions(
    ltm: LtmFile,
    candidates: Sequence[CandidateIn],
    revisions: Sequence[RevisionIn],
    result: GateResult,
    *,
    turn_id: str | None,
    now: datetime,
    source: str = "reflection",
    drafts: bool = False,
    labels: Mapping[str, str] | None = None,
) -> Applied:
    """Update `ltm` from the decisions; every change gets a history line.

    `ltm` and its list change in place, but a changed memory is replaced by an updated
    copy, so Memory objects held elsewhere (e.g. what the turn retrieved) keep the values
    they had. With `drafts` (review mode), new memories not asked for explicitly are
    stored as drafts, which are not retrieved until approved. `labels` (seed 003's
    project, agent, personality) are set on every memory created.
    """
    by_id = {m.id: m for m in ltm.memories}
    position = {m.id: i for i, m in enumerate(ltm.memories)}

    def editable(memory_id: str) -> Memory:
        memory = by_id[memory_id]
        if memory_id in copied:
            return memory
        fresh = memory.model_copy(deep=True)
        by_id[memory_id] = ltm.memories[position[memory_id]] = fresh
        copied.add(memory_id)
        return fresh

    copied: set[str] = set()
    history: list[HistoryEntry] = []
    writes: list[dict[str, Any]] = []
    decided = []
    for decision, candidate in zip(result.candidates, candidates, strict=True):
        if decision.verdict == "accepted":
            origin = "explicit" if decision.explicit else source
            status = "draft" if drafts and not decision.explicit else "active"
            memory = _create(
                ltm,
                candidate,
                turn_id=turn_id,
                now=now,
                source=origin,
                status=status,
                labels=labels or {},
            )
            by_id[memory.id] = memory
            copied.add(memory.id)
            history.append(
                HistoryEntry(
                    memory_id=memory.id,
                    at=now,
                    event="created",
                    turn_id=turn_id,
                    reason=candidate.reason,
                    after={"content": memory.content, "confidence": memory.confidence},
                )
            )
            writes.append({"event": "created", "memory_id": memory.id, "content": memory.content})
            decision = replace(decision, memory_id=memory.id)
        elif decision.verdict == "merged" and decision.memory_id is not None:
            memory = editable(decision.memory_id)
            before = memory.confidence
            memory.hit_count += 1
            memory.last_reinforced = now
            memory.confidence = max(memory.confidence, candidate.confidence)
            event = "reinforced" if candidate.action == "reinforce" else "merged"
            history.append(
                HistoryEntry(
                    memory_id=memory.id,
                    at=now,
                    event=event,
                    turn_id=turn_id,
                    reason=candidate.reason,
                    before={"confidence": before},
                    after={"confidence": memory.confidence, "hit_count": memory.hit_count},
                )
            )
            writes.append({"event": event, "memory_id": memory.id, "content": memory.content})
        decided.append(decision)

    for decision, revision in zip(result.revisions, revisions, strict=True):
        if decision.verdict != "accepted" or decision.memory_id is None:
            continue
        memory = editable(decision.memory_id)
        previous = {"content": memory.content, "confidence": memory.confidence}
        if revision.action == "revise" and revision.new_content is not None:
            memory.content = revision.new_content.strip()
            event = "revised"
        else:
            event = "confidence_changed"
        if revision.new_confidence is not None:
            memory.confidence = revision.new_confidence
        after = {"content": memory.content, "confidence": memory.confidence}
        history.append(
            HistoryEntry(
                memory_id=memory.id,
                at=now,
                event=event,
                turn_id=turn_id,
                reason=revision.reason,
                before=previous,
                after=after,
            )
        )
        writes.append({"event": event, "memory_id": memory.id, "before": previous, "after": after})

    return Applied(
        GateResult(candidates=decided, revisions=list(result.revisions)), writes, history
    )


def _create(
    ltm: LtmFile,
    candidate: CandidateIn,
    *,
    turn_id: str | None,
    now: datetime,
    source: str,
    status: str,
    labels: Mapping[str, str],
) -> Memory:
    # Ids come from a counter kept in the file, so they are short, readable and never reused,
    # even after a memory is removed.
    memory_id = f"mem_{ltm.next_seq:04d}"
    ltm.next_seq += 1
    content = candidate.content.strip()
    memory = Memory(
        id=memory_id,
        type=candidate.type,
        subject=candidate.subject,
        content=content,
        confidence=candidate.confidence,
        reason=candidate.reason,
        created_at=now,
        last_reinforced=now,
        hit_count=1,
        source_turn_id=turn_id,
        decay=candidate.decay or DEFAULT_DECAY.get(candidate.type, "stable"),
        source=source,
        status=status,
        agent=labels.get("agent"),
        personality=labels.get("personality"),
        project=labels.get("project"),
    )
    ltm.memories.append(memory)
    return memory
