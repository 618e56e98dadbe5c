"""Short-term memory: the recent turns of one session and the summary of older ones.

The model never writes the session: the program appends each turn, and folds turns that
leave the window into `session_summary` only when the reflection call supplied a summary
written for exactly those turns.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime

from .models import Message, SessionFile


def new_session(now: datetime, session_id: str | None = None) -> SessionFile:
    """A fresh, empty session: named, or with a new generated id."""
    return SessionFile(
        session_id=session_id or f"s-{now:%Y%m%d}-{uuid.uuid4().hex[:8]}", created_at=now
    )


def new_turn_id() -> str:
    return f"t-{uuid.uuid4().hex[:12]}"


def turn_ids(session: SessionFile) -> list[str]:
    """The session's turn ids, oldest first."""
    seen: dict[str, None] = {}
    for message in session.messages:
        seen.setdefault(message.turn_id, None)
    return list(seen)


def leaving_turns(session: SessionFile, max_turns: int) -> list[str]:
    """Turn ids that fall out of the window once one more turn is added."""
    ids = turn_ids(session)
    overflow = len(ids) + 1 - max_turns
    return ids[:overflow] if overflow > 0 else []


@dataclass(frozen=True)
class Fold:
    """A summary the reflection wrote for `turn_ids`, starting from `base_summary`."""

    turn_ids: tuple[str, ...]
    base_summary: str
    summary: str


@dataclass(frozen=True)
class Recorded:
    session: SessionFile
    folded: int
    # Turns past the hard cap that no summary covers: they leave the session but are
    # archived (sessions/overflow/), never dropped.
    archived: list[Message] = field(default_factory=list)

    @property
    def archived_turns(self) -> int:
        return len({m.turn_id for m in self.archived})


def record_turn(
    session: SessionFile,
    *,
    turn_id: str,
    user_input: str,
    answer: str,
    started: datetime,
    answered: datetime,
    fold: Fold | None,
    max_turns: int,
) -> Recorded:
    """Append one turn to `session` (as it is on disk now) and fold what the summary covers.

    The fold is applied only if the summary on disk is still the one it was written from
    and its turns are still there; otherwise they stay in `messages` for a later fold.
    Should summaries keep failing, a hard cap of twice the window bounds the session: the
    oldest turns beyond it leave it and are returned in `archived` for the store to keep.
    """
    messages = [
        *session.messages,
        Message(role="user", content=user_input, timestamp=started, turn_id=turn_id),
        Message(role="assistant", content=answer, timestamp=answered, turn_id=turn_id),
    ]
    summary = session.session_summary
    folded = 0
    if fold and fold.turn_ids and session.session_summary == fold.base_summary:
        present = {m.turn_id for m in messages}
        if set(fold.turn_ids) <= present:
            messages = [m for m in messages if m.turn_id not in fold.turn_ids]
            summary = fold.summary.strip()
            folded = len(fold.turn_ids)

    ids = list(dict.fromkeys(m.turn_id for m in messages))
    overflow = max(0, len(ids) - 2 * max_turns)
    archived: list[Message] = []
    if overflow:
        gone = set(ids[:overflow])
        archived = [m for m in messages if m.turn_id in gone]
        messages = [m for m in messages if m.turn_id not in gone]
    updated = session.model_copy(update={"messages": messages, "session_summary": summary})
    return Recorded(session=updated, folded=folded, archived=archived)
