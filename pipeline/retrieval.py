"""Pick the long-term memories worth showing the model this turn.

Lexical relevance (BM25 over content, type and subject) to the input and the last user
turns, weighted by confidence, cut to a token budget. Deterministic: equal scores are
ordered by confidence, then recency, then id.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from .models import Memory
from .text import estimate_tokens, terms

BM25_K1 = 1.2
BM25_B = 0.75
# Earlier user turns count for less than the input itself: they give a follow-up its
# topic ("and what about her?") without outweighing what is asked now.
HISTORY_WEIGHT = 0.5


@dataclass(frozen=True)
class Retrieved:
    memory: Memory
    alias: str
    score: float
    matched: tuple[str, ...]
    tokens: int

    @property
    def why(self) -> str:
        if self.matched:
            return "matched " + ", ".join(self.matched)
        return "no shared words; included by confidence while the budget allows"


def format_memory(alias: str, memory: Memory) -> str:
    """One memory as the model sees it, under its short id."""
    return (
        f"[{alias}] {memory.type} · {memory.subject} · confidence {memory.confidence:.2f}"
        f" — {memory.content}"
    )


def retrieve_relevant(
    memories: Sequence[Memory],
    *,
    query: str,
    history: Sequence[str] = (),
    min_confidence: float,
    token_budget: int,
    max_items: int,
) -> list[Retrieved]:
    """Memories best first, as many as fit `token_budget` and `max_items`."""
    pool = [m for m in memories if m.confidence >= min_confidence]
    if not pool:
        return []
    weights: Counter[str] = Counter()
    for term in terms(query):
        weights[term] = 1.0
    for text in history:
        for term in terms(text):
            weights[term] = max(weights[term], HISTORY_WEIGHT)

    docs = [(*terms(m.content), *terms(m.type), *terms(m.subject)) for m in pool]
    avg_len = sum(len(d) for d in docs) / len(docs) or 1.0
    df: Counter[str] = Counter()
    for doc in docs:
        df.update(set(doc) & weights.keys())
    n = len(docs)

    scored = []
    for memory, doc in zip(pool, docs, strict=True):
        tf = Counter(t for t in doc if t in weights)
        relevance = 0.0
        for term, freq in tf.items():
            idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
            norm = (
                freq * (BM25_K1 + 1) / (freq + BM25_K1 * (1 - BM25_B + BM25_B * len(doc) / avg_len))
            )
            relevance += weights[term] * idf * norm
        score = relevance * (0.5 + 0.5 * memory.confidence) + 0.01 * memory.confidence
        scored.append((score, memory, tuple(sorted(tf))))
    # Best first by score, then confidence, then recency, then id: stable sorts applied from
    # the least significant key up (cheaper than one tuple key with timestamps).
    scored.sort(key=lambda s: s[1].id)
    scored.sort(key=lambda s: s[1].last_reinforced, reverse=True)
    scored.sort(key=lambda s: (-s[0], -s[1].confidence))

    out: list[Retrieved] = []
    used = 0
    for score, memory, matched in scored[:max_items]:
        alias = f"m{len(out) + 1}"
        cost = estimate_tokens(format_memory(alias, memory)) + 1
        if used + cost > token_budget:
            break
        used += cost
        out.append(Retrieved(memory, alias, round(score, 4), matched, cost))
    return out
