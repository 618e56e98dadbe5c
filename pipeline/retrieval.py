"""Pick the long-term memories worth showing the model this turn.

Lexical: BM25 over each memory's stemmed terms (content, type, subject), the input
weighted fully and the last user turns at half weight. Semantic (optional extra): cosine
similarity of MiniLM vectors, blended with the lexical score so exact names and numbers
still count. A memory's confidence weighs its score. When the semantic scores cannot
decide, or nothing matches at all, a deterministic fallback orders the memories, and
`selection_mode` says which rule chose them. The result is cut to a token budget.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from .models import Memory
from .text import estimate_tokens, terms

if TYPE_CHECKING:
    import numpy as np

BM25_K1 = 1.2
BM25_B = 0.75
# Earlier user turns count for less than the input itself: they give a follow-up its
# topic ("and what about her?") without outweighing what is asked now.
HISTORY_WEIGHT = 0.5
# Semantic blend: cosine + LEXICAL_BOOST * (BM25 / best BM25 of the query).
LEXICAL_BOOST = 0.3
# The semantic confidence gate (seed 001). Below this best cosine the embeddings found
# nothing; with the top two closer than the margin they cannot call it. Either way the
# ranking falls back to lexical order. Measured on LoCoMo (benchmarks/locomo.py): the
# gate almost never fires there and costs at most 0.2 points of Recall@5.
MIN_SEMANTIC_SCORE = 0.3
AMBIGUOUS_MARGIN = 0.002
# Types that matter most when nothing matches: boundaries and identity first.
TYPE_PRIORITY = ("boundary", "identity", "preference", "relationship", "habit", "skill")
_MEMORY_ID = re.compile(r"\bmem_\d{4,}\b")


class Embeds(Protocol):
    model_id: str

    def embed(self, texts: list[str]) -> np.ndarray: ...


@dataclass(frozen=True)
class Scored:
    """One memory's place in a ranking, with the parts of its score."""

    memory: Memory
    score: float
    lexical: float
    semantic: float | None
    matched: tuple[str, ...]


@dataclass(frozen=True)
class Ranking:
    selection_mode: str
    scored: list[Scored]


@dataclass(frozen=True)
class Retrieved:
    """A memory chosen for this turn's prompt, under its short id."""

    memory: Memory
    alias: str
    score: float
    matched: tuple[str, ...]
    tokens: int
    semantic: float | None = None

    @property
    def why(self) -> str:
        parts = []
        if self.semantic is not None:
            parts.append(f"cosine {self.semantic:.2f}")
        if self.matched:
            parts.append("matched " + ", ".join(self.matched))
        return "; ".join(parts) or "no shared words; included while the budget allows"


@dataclass(frozen=True)
class Retrieval:
    selection_mode: str
    used: list[Retrieved] = field(default_factory=list)


def format_memory(alias: str, memory: Memory) -> str:
    """One memory as the model sees it, under its short id."""
    return (
        f"[{alias}] {memory.type} · {memory.subject} · confidence {memory.confidence:.2f}"
        f" — {memory.content}"
    )


# --- BM25 -------------------------------------------------------------------------------------


def bm25_scores(
    weights: dict[str, float], docs: Sequence[Sequence[str]]
) -> tuple[list[float], list[tuple[str, ...]]]:
    """BM25 (k1 1.2, b 0.75) of every doc for weighted query terms, and the terms matched.

    idf = ln(1 + (N - df + 0.5) / (df + 0.5)); a term's contribution is multiplied by its
    query weight.
    """
    return LexicalIndex(docs).score(weights)


class LexicalIndex:
    """Postings built once per set of docs, so each query touches only its own terms."""

    def __init__(self, docs: Sequence[Sequence[str]]) -> None:
        self.n = len(docs)
        self.lengths = [len(d) for d in docs]
        self.avg_len = (sum(self.lengths) / self.n) if self.n else 0.0
        self.postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for i, doc in enumerate(docs):
            for term, tf in Counter(doc).items():
                self.postings[term].append((i, tf))

    def score(self, weights: dict[str, float]) -> tuple[list[float], list[tuple[str, ...]]]:
        scores = [0.0] * self.n
        matched: list[list[str]] = [[] for _ in range(self.n)]
        avg = self.avg_len or 1.0
        for term in sorted(weights):
            posting = self.postings.get(term)
            if not posting:
                continue
            df = len(posting)
            idf = math.log(1 + (self.n - df + 0.5) / (df + 0.5))
            for i, tf in posting:
                norm = (
                    tf
                    * (BM25_K1 + 1)
                    / (tf + BM25_K1 * (1 - BM25_B + BM25_B * self.lengths[i] / avg))
                )
                scores[i] += weights[term] * idf * norm
                matched[i].append(term)
        return scores, [tuple(m) for m in matched]


def query_weights(query: str, history: Sequence[str] = ()) -> dict[str, float]:
    weights: dict[str, float] = {}
    for text in history:
        for term in terms(text):
            weights[term] = HISTORY_WEIGHT
    for term in terms(query):
        weights[term] = 1.0
    return weights


# --- Rankers ------------------------------------------------------------------------------


class Retriever:
    """Lexical always; semantic too when an embedder is given."""

    def __init__(self, embedder: Embeds | None = None) -> None:
        self.embedder = embedder

    @classmethod
    def create(cls, *, semantic: bool) -> Retriever:
        if not semantic:
            return cls()
        from .embeddings import Embedder

        return cls(Embedder())

    def describe(self) -> str:
        if self.embedder is None:
            return "lexical (BM25)"
        return f"semantic ({self.embedder.model_id}) blended with BM25"

    def index(self, memories: Sequence[Memory], vectors: np.ndarray | None = None) -> MemoryIndex:
        """An index over `memories`; `vectors` (one row each) skips embedding them."""
        if self.embedder is not None and vectors is None:
            vectors = self.embedder.embed([m.content for m in memories])
        return MemoryIndex(list(memories), self.embedder, vectors)


class MemoryIndex:
    def __init__(
        self, memories: list[Memory], embedder: Embeds | None, vectors: np.ndarray | None
    ) -> None:
        self.memories = memories
        self.embedder = embedder
        self.vectors = vectors
        self.lexical = LexicalIndex(
            [(*terms(m.content), *terms(m.type), *terms(m.subject)) for m in memories]
        )

    def rank(self, query: str, history: Sequence[str] = ()) -> Ranking:
        """All memories, best first, and the rule that ordered them."""
        if not self.memories:
            return Ranking("empty", [])
        lexical, matched = self.lexical.score(query_weights(query, history))
        semantic = self._cosines(query, history)
        mode = self._selection_mode(query, lexical, semantic)
        best_lexical = max(lexical) or 1.0
        scored = []
        for i, memory in enumerate(self.memories):
            cosine = float(semantic[i]) if semantic is not None else None
            blended = max(cosine or 0.0, 0.0) + LEXICAL_BOOST * lexical[i] / best_lexical
            if mode == "semantic":
                relevance = blended
            elif mode == "exact_id":
                relevance = float(memory.id in query) + lexical[i] / best_lexical
            else:  # lexical order; the blend only breaks ties
                relevance = lexical[i] + 1e-3 * blended
            score = relevance * (0.5 + 0.5 * memory.confidence) + 0.01 * memory.confidence
            scored.append(
                Scored(
                    memory,
                    round(score, 4),
                    round(lexical[i], 4),
                    None if cosine is None else round(cosine, 4),
                    matched[i],
                )
            )
        return Ranking(mode, _ordered(scored, by_priority=mode.endswith("priority")))

    def _cosines(self, query: str, history: Sequence[str]) -> np.ndarray | None:
        if self.embedder is None or self.vectors is None or not len(self.vectors):
            return None
        text = query if not history else f"{query} ({' '.join(history[-1:])})"
        return self.vectors @ self.embedder.embed([text])[0]

    def _selection_mode(self, query: str, lexical: list[float], semantic: np.ndarray | None) -> str:
        """exact_id, then semantic, then lexical, then type priority: the first that decides.

        With embeddings, lexical and priority are fallbacks and are named so.
        """
        if _MEMORY_ID.search(query) and any(m.id in query for m in self.memories):
            return "exact_id"
        if semantic is not None:
            top = sorted(semantic.tolist())[-2:]
            margin = top[-1] - top[0] if len(top) == 2 else 1.0
            if top[-1] >= MIN_SEMANTIC_SCORE and margin >= AMBIGUOUS_MARGIN:
                return "semantic"
        prefix = "" if semantic is None else "fallback_"
        return prefix + ("lexical" if max(lexical) > 0 else "priority")


def _ordered(scored: list[Scored], *, by_priority: bool) -> list[Scored]:
    """Best first; ties by confidence, recency, then id. Priority mode orders by type first.

    Stable sorts from the least significant key up, cheaper than one tuple key.
    """
    scored.sort(key=lambda s: s.memory.id)
    scored.sort(key=lambda s: s.memory.last_reinforced, reverse=True)
    scored.sort(key=lambda s: s.memory.confidence, reverse=True)
    if by_priority:
        rank = {t: i for i, t in enumerate(TYPE_PRIORITY)}
        scored.sort(key=lambda s: rank.get(s.memory.type, len(rank)))
    else:
        scored.sort(key=lambda s: s.score, reverse=True)
    return scored


def retrieve_relevant(
    memories: Sequence[Memory],
    *,
    query: str,
    history: Sequence[str] = (),
    min_confidence: float,
    token_budget: int,
    max_items: int,
    retriever: Retriever | None = None,
    vectors: np.ndarray | None = None,
) -> Retrieval:
    """Memories best first, as many as fit `token_budget` and `max_items`.

    `vectors`, when given, holds one row per memory of `memories` (the semantic cache).
    """
    retriever = retriever or Retriever()
    keep = [i for i, m in enumerate(memories) if m.confidence >= min_confidence]
    pool = [memories[i] for i in keep]
    if not pool:
        return Retrieval("empty")
    pool_vectors = vectors[keep] if vectors is not None else None
    ranking = retriever.index(pool, pool_vectors).rank(query, history)
    used: list[Retrieved] = []
    spent = 0
    for s in ranking.scored[:max_items]:
        alias = f"m{len(used) + 1}"
        cost = estimate_tokens(format_memory(alias, s.memory)) + 1
        if spent + cost > token_budget:
            break
        spent += cost
        used.append(Retrieved(s.memory, alias, s.score, s.matched, cost, s.semantic))
    return Retrieval(ranking.selection_mode, used)
