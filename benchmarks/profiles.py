"""The project's own retrieval data set: hand-written user profiles plus distractors.

`data/profiles.json` holds 26 users, each with about ten memories in the product's style
("User keeps two beehives at the bottom of the garden"), near-miss memories that share a
word or topic with a question without answering it, and paraphrased questions (most share
no content word with their fact), temporal and multi-hop ones among them. Each question
names the memories that answer it. `data/profile_fillers.json` holds templates for
distractor memories; `build` pads every user to a store size with them, drawn with a
fixed seed, skipping user templates of any topic the user's questions list (so a
distractor never answers a question). The first 200 distractors of a user are the same in
every store size, so the larger store contains the smaller one.

Users u01-u13 are the tune split, u14-u26 held out.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pipeline.models import Memory

DATA = Path(__file__).resolve().parent / "data"
EPOCH = datetime(2025, 1, 1, tzinfo=UTC)
_SLOT = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class Question:
    user: str
    split: str
    text: str
    kind: str
    evidence: frozenset[str]


@dataclass(frozen=True)
class Profile:
    user: str
    split: str
    memories: list[Memory]
    questions: list[Question]


def _memory(mid: str, type_: str, subject: str, content: str) -> Memory:
    return Memory(
        id=mid,
        type=type_,
        subject=subject,
        content=content,
        confidence=0.9,
        created_at=EPOCH,
        last_reinforced=EPOCH,
    )


def _fill(template: str, slots: dict[str, list[str]], rng: random.Random) -> str | None:
    chosen: list[str] = []

    def pick(match: re.Match[str]) -> str:
        value = rng.choice(slots[match.group(1)])
        chosen.append(value)
        return value

    text = _SLOT.sub(pick, template)
    return None if len(set(chosen)) < len(chosen) else text  # "autumn to autumn"


def distractors(user: str, excluded: set[str], count: int) -> list[tuple[str, str, str]]:
    """`count` distinct (type, subject, content) distractors for `user`, seeded by the id."""
    fillers = json.loads((DATA / "profile_fillers.json").read_text(encoding="utf-8"))
    slots = fillers["slots"]
    own = [t for t in fillers["user"] if t["topic"] not in excluded]
    others = fillers["other"]
    rng = random.Random(f"profiles:{user}")
    seen: set[str] = set()
    out: list[tuple[str, str, str]] = []
    while len(out) < count:
        about_user = rng.random() < 0.5
        template = rng.choice(own if about_user else others)
        text = _fill(template["text"], slots, rng)
        if text is None or text in seen:
            continue
        seen.add(text)
        out.append((template["type"], "user" if about_user else "other", text))
    return out


def build(store_size: int) -> list[Profile]:
    """Every user's memories padded with distractors to `store_size`, and the questions."""
    raw = json.loads((DATA / "profiles.json").read_text(encoding="utf-8"))
    profiles = []
    for user in raw["users"]:
        uid, split = user["id"], user["split"]
        memories = [_memory(f"{uid}:{m[0]}", m[1], m[2], m[3]) for m in user["memories"]]
        excluded = {t for q in user["questions"] for t in q["topics"]}
        extra = distractors(uid, excluded, max(0, store_size - len(memories)))
        memories += [
            _memory(f"{uid}:d{i:04d}", type_, subject, text)
            for i, (type_, subject, text) in enumerate(extra)
        ]
        questions = [
            Question(uid, split, q["q"], q["kind"], frozenset(f"{uid}:{e}" for e in q["evidence"]))
            for q in user["questions"]
        ]
        # A fixed shuffle: ties (e.g. no shared word at all) must not favour the answers,
        # which the file lists first.
        random.Random(f"order:{uid}").shuffle(memories)
        profiles.append(Profile(uid, split, memories, questions))
    return profiles


def describe(profiles: list[Profile]) -> dict[str, Any]:
    """Counts for the report: users, memories per user, questions by split and kind, and
    how many questions share no content term with any of their evidence memories."""
    from pipeline.text import terms

    questions = [q for p in profiles for q in p.questions]
    content = {m.id: set(terms(m.content)) for p in profiles for m in p.memories}
    disjoint = sum(
        1 for q in questions if not any(set(terms(q.text)) & content[e] for e in q.evidence)
    )
    kinds: dict[str, int] = {}
    for q in questions:
        kinds[q.kind] = kinds.get(q.kind, 0) + 1
    return {
        "users": len(profiles),
        "memories_per_user": len(profiles[0].memories) if profiles else 0,
        "questions": len(questions),
        "tune": sum(q.split == "tune" for q in questions),
        "held_out": sum(q.split == "held_out" for q in questions),
        "no_shared_term": disjoint,
        "kinds": dict(sorted(kinds.items())),
    }
