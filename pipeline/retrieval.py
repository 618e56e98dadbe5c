"""Pick the long-term memories worth showing the model this turn.

Lexical: BM25 over each memory's stemmed terms (content, type, subject), the input
weighted fully and the last user turns at half weight. Semantic (optional extra): cosine
similarity of MiniLM vectors, plus lexical evidence by its strength (the share of the
query's idf mass a memory matches), plus small bonuses for a fact about the user when the
question is about the user and for a memory naming the relation a question asks about.
A memory's confidence weighs its score. When there is no signal at all (an empty query,
or no shared word and only noise-level cosines), a deterministic fallback orders the
memories, and `selection_mode` says which rule chose them. The result is cut to a token
budget.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from .models import LABELS, Memory, Scope
from .text import estimate_tokens, terms, tokens

if TYPE_CHECKING:
    import numpy as np

BM25_K1 = 1.2
BM25_B = 0.75
# Earlier user turns count for less than the input itself: they give a follow-up its
# topic ("and what about her?") without outweighing what is asked now.
HISTORY_WEIGHT = 0.5
# Semantic score: cosine + LEXICAL_WEIGHT * coverage ** COVERAGE_POWER, + SELF_BONUS for a
# fact about the user when the question is about the user, + RELATION_BONUS for a memory
# naming the relation a question asks about ("my spouse": husband, wife, partner). Chosen
# on LoCoMo and the tune half of the profiles (benchmarks/retrieval_eval.py); the
# held-out half was not used.
LEXICAL_WEIGHT = 0.6
COVERAGE_POWER = 1.5
COVERAGE_FLOOR_TERMS = 2.0
SELF_BONUS = 0.05
RELATION_BONUS = 0.1
# Seed 001's deterministic fallback, for when there is no usable signal: with no shared
# word and every cosine below this, the query is as far from every memory as unrelated
# text is (all-MiniLM-L6-v2 scores unrelated sentences around 0-0.1).
NO_SIGNAL_COSINE = 0.1
# Types that matter most when nothing matches: boundaries and identity first.
TYPE_PRIORITY = ("boundary", "identity", "preference", "relationship", "habit", "skill")
_MEMORY_ID = re.compile(r"\bmem_\d{4,}\b")
_FIRST_PERSON = frozenset({"i", "me", "my", "mine", "myself", "im", "ive", "id", "ill"})
# Words that make a first-person question about someone else ("my sister", "our son").
_OTHER_PEOPLE = frozenset(
    """
    mother mum mom mommy mummy father dad daddy parent parents sister brother sibling siblings
    son sons daughter daughters child children kid kids baby boy girl girls boys grandchild
    grandchildren grandson granddaughter grandmother grandfather grandma grandpa granny nan
    wife husband spouse partner girlfriend boyfriend fiance fiancee missus hubby ex
    friend friends colleague colleagues coworker boss manager neighbour neighbor roommate
    flatmate housemate uncle aunt cousin niece nephew family twins twin eldest youngest
    coach supervisor advisor teacher doctor apprentice landlord team he she his her him they
    """.split()
)


class Embeds(Protocol):
    """What retrieval, the judge and the vector cache need of an embedder."""

    @property
    def model_id(self) -> str: ...

    def embed(
        self, texts: list[str], *, progress: Callable[[int, int], None] | None = None
    ) -> np.ndarray: ...


@dataclass(frozen=True)
class Scored:
    """One memory's place in a ranking, with the parts of its score."""

    memory: Memory
    score: float
    lexical: float
    semantic: float | None
    matched: tuple[str, ...]
    about_user: bool = False  # got the bonus for a fact about the user
    about_relation: bool = False  # names the relation the question asks about


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
    confidence: float = 0.0  # as of this turn, after decay
    about_user: bool = False
    about_relation: bool = False

    @property
    def why(self) -> str:
        parts = []
        if self.semantic is not None:
            parts.append(f"cosine {self.semantic:.2f}")
        if self.matched:
            parts.append("matched " + ", ".join(self.matched))
        if self.about_user:
            parts.append("about you")
        if self.about_relation:
            parts.append("names the relation asked about")
        return "; ".join(parts) or "no shared words; included while the budget allows"


@dataclass(frozen=True)
class Retrieval:
    selection_mode: str
    used: list[Retrieved] = field(default_factory=list)


def format_memory(alias: str, memory: Memory, confidence: float | None = None) -> str:
    """One memory as the model sees it, under its short id, with its current confidence."""
    shown = memory.confidence if confidence is None else confidence
    return f"[{alias}] {memory.type} · {memory.subject} · confidence {shown:.2f} — {memory.content}"


# --- BM25 -------------------------------------------------------------------------------------


def bm25_scores(
    weights: dict[str, float], docs: Sequence[Sequence[str]]
) -> tuple[list[float], list[tuple[str, ...]]]:
    """BM25 (k1 1.2, b 0.75) of every doc for weighted query terms, and the terms matched.

    idf = ln(1 + (N - df + 0.5) / (df + 0.5)); a term's contribution is multiplied by its
    query weight.
    """
    return LexicalIndex(docs).score(weights)


@dataclass(frozen=True)
class PoolStats:
    """BM25's counts over every memory a query could rank, for an index given only some
    of them (those a store's index found able to rank first): how many there are, their
    total length in terms, and how many hold each query term."""

    n: int
    total_len: int
    df: Mapping[str, int]


class LexicalIndex:
    """Term lists per doc; each query is scored in one pass over them.

    A turn asks one query, so building postings for every doc would cost more than it
    saves (measured at 10,000 memories: postings take 90 ms to build, one pass 12 ms).
    With `stats`, the docs are part of a larger pool and scores are the pool's.
    """

    def __init__(self, docs: Sequence[Sequence[str]], stats: PoolStats | None = None) -> None:
        self.docs = docs
        self.stats = stats
        if stats is None:
            self.n = len(docs)
            self.avg_len = (sum(len(d) for d in docs) / self.n) if self.n else 0.0
        else:
            self.n = stats.n
            self.avg_len = (stats.total_len / stats.n) if stats.n else 0.0

    def score(self, weights: dict[str, float]) -> tuple[list[float], list[tuple[str, ...]]]:
        scores, matched, _ = self.score_with_coverage(weights)
        return scores, matched

    def score_with_coverage(
        self, weights: dict[str, float]
    ) -> tuple[list[float], list[tuple[str, ...]], list[float]]:
        """BM25 scores, matched terms, and each doc's coverage of the query: the share of
        the query's idf mass (weight x idf, summed over its terms) that the doc matches.

        A term no doc contains has the highest idf, so a query whose rare words are
        missing from the store gets a low coverage everywhere; so does a match on words
        many docs share.
        """
        wanted = weights.keys()
        hits: list[tuple[int, Counter[str]]] = []
        df: Counter[str] = Counter()
        for i, doc in enumerate(self.docs):
            found = [t for t in doc if t in wanted]
            if found:
                tf = Counter(found)
                hits.append((i, tf))
                df.update(tf.keys())
        if self.stats is not None:
            df = Counter({t: self.stats.df.get(t, 0) for t in wanted})
        scores = [0.0] * len(self.docs)
        matched: list[tuple[str, ...]] = [()] * len(self.docs)
        coverage = [0.0] * len(self.docs)
        avg = self.avg_len or 1.0
        idf = {t: math.log(1 + (self.n - df[t] + 0.5) / (df[t] + 0.5)) for t in wanted}
        # At least COVERAGE_FLOOR_TERMS terms' worth of the highest idf (a term no doc
        # has): a one-word query matched on a common word covers little of it.
        top_idf = math.log(1 + (self.n + 0.5) / 0.5)
        mass = max(sum(weights[t] * idf[t] for t in wanted), COVERAGE_FLOOR_TERMS * top_idf)
        for i, tf in hits:
            length = len(self.docs[i])
            total = 0.0
            share = 0.0
            for term, freq in tf.items():
                norm = (
                    freq * (BM25_K1 + 1) / (freq + BM25_K1 * (1 - BM25_B + BM25_B * length / avg))
                )
                total += weights[term] * idf[term] * norm
                share += weights[term] * idf[term]
            scores[i] = total
            matched[i] = tuple(sorted(tf))
            coverage[i] = share / mass
        return scores, matched, coverage


def names_memory(query: str) -> bool:
    """Whether `query` names a memory by its id (`mem_0042`): those rank first."""
    return _MEMORY_ID.search(query) is not None


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

    def index(
        self,
        memories: Sequence[Memory],
        vectors: np.ndarray | None = None,
        confidences: Sequence[float] | None = None,
        stats: PoolStats | None = None,
    ) -> MemoryIndex:
        """An index over `memories`; `vectors` (one row each) skips embedding them,
        `confidences` (one each) replace the stored ones, e.g. after decay, and `stats`
        are those of the pool `memories` were taken from."""
        if self.embedder is not None and vectors is None:
            vectors = self.embedder.embed([m.content for m in memories])
        return MemoryIndex(list(memories), self.embedder, vectors, confidences, stats)


class MemoryIndex:
    def __init__(
        self,
        memories: list[Memory],
        embedder: Embeds | None,
        vectors: np.ndarray | None,
        confidences: Sequence[float] | None = None,
        stats: PoolStats | None = None,
    ) -> None:
        self.memories = memories
        self.embedder = embedder
        self.vectors = vectors
        self.confidences = list(confidences or [m.confidence for m in memories])
        labels: dict[tuple[str, str], tuple[str, ...]] = {}  # few distinct type/subject pairs
        docs = []
        for m in memories:
            label = labels.get((m.type, m.subject))
            if label is None:
                label = labels[m.type, m.subject] = (*terms(m.type), *terms(m.subject))
            docs.append(terms(m.content) + label)
        self.lexical = LexicalIndex(docs, stats)

    def rank(self, query: str, history: Sequence[str] = (), *, limit: int | None = None) -> Ranking:
        """Memories best first (the first `limit`, or all), and the rule that ordered them."""
        if not self.memories:
            return Ranking("empty", [])
        lexical, matched, coverage = self.lexical.score_with_coverage(query_weights(query, history))
        semantic = self._cosines(query, history)
        named = set(_MEMORY_ID.findall(query))
        mode = self._selection_mode(named, lexical, semantic)
        cosines = semantic.tolist() if semantic is not None else [0.0] * len(self.memories)
        best_lexical = max(lexical) or 1.0  # exact_id: names first, then by words
        about_user = semantic is not None and asks_about_user(query)
        users = [m.subject == "user" for m in self.memories] if about_user else None
        kin = relation_terms(query) if semantic is not None else frozenset()
        related = [bool(kin.intersection(doc)) for doc in self.lexical.docs] if kin else None
        if mode == "semantic" and semantic is not None:
            import numpy as np

            confidence = np.asarray(self.confidences, dtype=np.float32)
            mine = np.asarray(users) if users else np.zeros(len(self.memories), dtype=bool)
            relevance = semantic_relevance(semantic, np.asarray(coverage), mine)
            if related:
                relevance = relevance + RELATION_BONUS * np.asarray(related)
            scores = (relevance * (0.5 + 0.5 * confidence) + 0.01 * confidence).tolist()
        else:
            scores = []
            for i, memory in enumerate(self.memories):
                if mode == "exact_id":
                    words = float(memory.id in named) + lexical[i] / best_lexical
                else:
                    words = lexical[i]
                conf = self.confidences[i]
                scores.append(words * (0.5 + 0.5 * conf) + 0.01 * conf)
        order = _best_first(
            self.memories,
            scores,
            self.confidences,
            limit=limit,
            by_priority=mode.endswith("priority"),
        )
        scored = [
            Scored(
                self.memories[i],
                round(scores[i], 4),
                round(lexical[i], 4),
                None if semantic is None else round(cosines[i], 4),
                matched[i],
                mode == "semantic" and users is not None and users[i],
                mode == "semantic" and related is not None and related[i],
            )
            for i in order
        ]
        return Ranking(mode, scored)

    def _cosines(self, query: str, history: Sequence[str]) -> np.ndarray | None:
        if self.embedder is None or self.vectors is None or not len(self.vectors):
            return None
        if not tokens(query) and not any(tokens(h) for h in history):
            return None  # nothing to embed: no signal at all
        text = query if not history else f"{query} ({' '.join(history[-1:])})"
        cosines: np.ndarray = self.vectors @ self.embedder.embed([text])[0]
        return cosines

    def _selection_mode(
        self, named: set[str], lexical: list[float], semantic: np.ndarray | None
    ) -> str:
        """exact_id, then semantic, then lexical, then type priority: the first that decides.

        With embeddings, the fallback is for when there is no signal at all: an empty
        query, or no shared word and a best cosine at the level of unrelated text.
        """
        if named and any(m.id in named for m in self.memories):
            return "exact_id"
        if semantic is not None and (max(lexical) > 0 or float(semantic.max()) >= NO_SIGNAL_COSINE):
            return "semantic"
        prefix = "" if self.embedder is None else "fallback_"
        return prefix + ("lexical" if max(lexical) > 0 else "priority")


def semantic_relevance(
    cosine: np.ndarray, coverage: np.ndarray, about_user: np.ndarray
) -> np.ndarray:
    """The semantic score: the cosine, plus lexical evidence by its strength, plus a small
    bonus for a fact about the user when the question is about the user.

    `coverage` is the share of the query's idf mass the memory matches (see
    `LexicalIndex.score_with_coverage`). Raised to COVERAGE_POWER, a match on one common
    word adds almost nothing, so it cannot overturn a clearly better cosine, while a
    match on most of the query's rare words (names, numbers) adds up to LEXICAL_WEIGHT.
    """
    import numpy as np

    boost = LEXICAL_WEIGHT * coverage**COVERAGE_POWER
    relevance: np.ndarray = np.maximum(cosine, 0.0) + boost + SELF_BONUS * about_user
    return relevance


# Words for the same relation: a question about "my spouse" prefers memories about the
# user's husband, wife or partner over facts about anyone else.
_RELATIONS = (
    "spouse husband wife partner missus hubby",
    "sibling siblings sister sisters brother brothers",
    "mother mum mom mummy mommy",
    "father dad daddy",
    "child children kid kids son sons daughter daughters boy girl girls baby",
    "grandchild grandchildren grandson granddaughter",
    "grandparent grandmother grandfather grandma grandpa granny nan",
    "girlfriend boyfriend partner fiance fiancee",
    "parent parents mother mum mom father dad",
)
_RELATION_TERMS = [frozenset(terms(group)) for group in _RELATIONS]


def relation_terms(query: str) -> frozenset[str]:
    """Stemmed words of every relation the query names ("my spouse" -> husband, wife...)."""
    named = set(terms(query))
    found: set[str] = set()
    for group in _RELATION_TERMS:
        if named & group:
            found |= group
    return frozenset(found)


def asks_about_user(query: str) -> bool:
    """A question in the first person that names no other person ("what do I do for work?",
    not "what does my sister do?")."""
    words = set(tokens(query))
    return bool(words & _FIRST_PERSON) and not words & _OTHER_PEOPLE


def _best_first(
    memories: Sequence[Memory],
    scores: list[float],
    confidences: list[float],
    *,
    limit: int | None,
    by_priority: bool,
) -> list[int]:
    """Indices best first: by score (or type priority), then confidence, recency, id.

    Only the top `limit` (and whatever ties with the last of them) get the full,
    deterministic tie-break, so a large store costs one fast sort by score.
    """
    if by_priority:
        rank = {t: i for i, t in enumerate(TYPE_PRIORITY)}
        primary = [float(-rank.get(m.type, len(rank))) for m in memories]
    else:
        primary = scores
    order = sorted(range(len(memories)), key=primary.__getitem__, reverse=True)
    if limit is not None and limit < len(order):
        cut = primary[order[limit - 1]] if limit > 0 else float("inf")
        order = [i for i in order if primary[i] >= cut]
    # Stable sorts from the least significant key up, cheaper than one tuple key.
    order.sort(key=lambda i: memories[i].id)
    order.sort(key=lambda i: memories[i].last_reinforced, reverse=True)
    order.sort(key=confidences.__getitem__, reverse=True)
    order.sort(key=primary.__getitem__, reverse=True)
    return order[:limit] if limit is not None else order


# --- Scope (seed 003's project, agent and personality) -------------------------------------


def in_scope(memories: Sequence[Memory], scope: Scope) -> list[Memory]:
    """The memories visible from `scope` (see `Scope.admits`), in their stored order."""
    if not scope:
        return list(memories)
    return [m for m in memories if scope.admits(m)]


def gate_view(
    memories: Sequence[Memory], scope: Scope, *, everywhere: bool = False
) -> list[Memory]:
    """The memories as the gate should see them when writing from `scope`.

    A memory out of scope is shown to the gate as forgotten: it then counts towards the
    daily quota like any other, but is never matched as a duplicate nor reinforced, so the
    same fact learned in two projects becomes one memory in each, not a reinforcement of
    a memory the other project cannot see. A global memory (`everywhere`) is compared only
    with memories seen everywhere: global ones and those with no labels.
    """
    seen: Callable[[Memory], bool]
    if everywhere:
        seen = _seen_everywhere
    elif scope:
        seen = scope.admits
    else:
        return list(memories)
    return [
        m if seen(m) or m.status == "forgotten" else m.model_copy(update={"status": "forgotten"})
        for m in memories
    ]


def _seen_everywhere(memory: Memory) -> bool:
    return memory.is_global or not any(getattr(memory, name) for name in LABELS)


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
    now: datetime | None = None,
    horizon_hours: float = 720.0,
    stats: PoolStats | None = None,
) -> Retrieval:
    """Active memories best first, as many as fit `token_budget` and `max_items`.

    With `now`, confidence is the decayed one as of then (seed 003); memories whose
    confidence has fallen below `min_confidence` are not retrieved. `vectors`, when given,
    holds one row per memory of `memories` (the semantic cache). `stats`, when given, are
    BM25's counts over the whole pool `memories` were taken from (a store's index): the
    scores, and so the ranking, are then those of the whole pool.
    """
    retriever = retriever or Retriever()
    keep, confidences = [], []
    for i, m in enumerate(memories):
        if m.status != "active":
            continue
        confidence = m.current_confidence(now, horizon_hours) if now else m.confidence
        if confidence >= min_confidence:
            keep.append(i)
            confidences.append(confidence)
    pool = [memories[i] for i in keep]
    if not pool:
        return Retrieval("empty")
    pool_vectors = vectors
    if vectors is not None and len(keep) < len(memories):
        pool_vectors = vectors[keep]
    index = retriever.index(pool, pool_vectors, confidences, stats)
    ranking = index.rank(query, history, limit=max_items)
    current = dict(zip((m.id for m in pool), confidences, strict=True))
    used: list[Retrieved] = []
    spent = 0
    for s in ranking.scored[:max_items]:
        alias = f"m{len(used) + 1}"
        confidence = current[s.memory.id]
        cost = estimate_tokens(format_memory(alias, s.memory, confidence)) + 1
        if spent + cost > token_budget:
            break
        spent += cost
        used.append(
            Retrieved(
                s.memory,
                alias,
                s.score,
                s.matched,
                cost,
                s.semantic,
                confidence,
                s.about_user,
                s.about_relation,
            )
        )
    return Retrieval(ranking.selection_mode, used)
