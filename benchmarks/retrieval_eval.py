"""Retrieval quality on LoCoMo and on the project's own profiles, product against baselines.

For every data set this prints R@1, R@5, R@10 and MRR (over the top 10) for
  bm25      BM25 alone (the product's index, no confidence, no fallback)
  cosine    MiniLM cosine alone (the same vectors the product uses)
  rrf       reciprocal-rank fusion of the two (k = 60)
  lexical   the product's default retriever
  semantic  the product's semantic retriever
and how often each selection mode fired for the two product retrievers.

Data sets: LoCoMo turns and observations (categories 1-4, as in benchmarks/locomo.py), and
the hand-written profiles (benchmarks/profiles.py) padded to 200 and 2,100 memories per
user, each reported for the tune users, the held-out users and both.

Vectors of every memory and question are cached outside the repository (default
~/.cache/memory-test-bench), so a second run embeds nothing.

    python benchmarks/retrieval_eval.py --locomo ../shared/data/locomo10.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import locomo, profiles  # noqa: E402
from benchmarks.vector_cache import DEFAULT, VectorCache  # noqa: E402
from pipeline.models import Memory  # noqa: E402
from pipeline.retrieval import MemoryIndex, Retriever, query_weights  # noqa: E402

RRF_K = 60
TOP = 10
RANKERS = ("bm25", "cosine", "rrf", "lexical", "semantic")


@dataclass
class Case:
    """One store and the questions asked of it; `hits(id)` names what a memory cites."""

    memories: list[Memory]
    questions: list[tuple[str, frozenset[str], str]]  # text, evidence, group
    cites: Callable[[str], set[str]]


@dataclass
class Tally:
    ranks: dict[str, list[int | None]] = field(default_factory=dict)
    modes: dict[str, Counter[str]] = field(default_factory=dict)

    def add(self, ranker: str, rank: int | None) -> None:
        self.ranks.setdefault(ranker, []).append(rank)

    def row(self, ranker: str) -> tuple[int, float, float, float, float]:
        ranks = self.ranks.get(ranker, [])
        n = len(ranks) or 1
        hit = [r for r in ranks if r is not None]
        return (
            len(ranks),
            sum(r < 1 for r in hit) / n,
            sum(r < 5 for r in hit) / n,
            sum(r < 10 for r in hit) / n,
            sum(1 / (r + 1) for r in hit) / n,
        )


def first_hit(order: Sequence[int], case: Case, evidence: frozenset[str]) -> int | None:
    for rank, i in enumerate(order[:TOP]):
        if case.cites(case.memories[i].id) & evidence:
            return rank
    return None


def top(scores: np.ndarray) -> list[int]:
    """Indices of the TOP best scores, best first; ties by position (stores are shuffled)."""
    k = min(TOP, len(scores))
    part = np.argpartition(-scores, k - 1)[:k]
    return sorted(part.tolist(), key=lambda i: (-scores[i], i))


def baselines(index: MemoryIndex, query: str, qvec: np.ndarray) -> dict[str, list[int]]:
    lexical, _ = index.lexical.score(query_weights(query))
    bm25 = np.array(lexical)
    assert index.vectors is not None
    cosine = index.vectors @ qvec
    rrf = np.zeros(len(bm25))
    for scores, only_matches in ((bm25, True), (cosine, False)):
        order = np.argsort(-scores, kind="stable")
        if only_matches:
            order = order[scores[order] > 0]
        rrf[order] += 1 / (RRF_K + 1 + np.arange(len(order)))
    return {"bm25": top(bm25), "cosine": top(cosine), "rrf": top(rrf)}


def run_case(case: Case, cache: VectorCache, tallies: dict[str, Tally]) -> None:
    texts = [m.content for m in case.memories]
    vectors = cache.embed(texts)
    qvecs = cache.embed([q for q, _, _ in case.questions])
    lexical = Retriever().index(case.memories)
    semantic = Retriever(cache).index(case.memories, vectors)  # type: ignore[arg-type]
    position = {m.id: i for i, m in enumerate(case.memories)}
    for (query, evidence, group), qvec in zip(case.questions, qvecs, strict=True):
        tally = tallies.setdefault(group, Tally())
        for name, order in baselines(semantic, query, qvec).items():
            tally.add(name, first_hit(order, case, evidence))
        for name, index in (("lexical", lexical), ("semantic", semantic)):
            ranking = index.rank(query, limit=TOP)
            order = [position[s.memory.id] for s in ranking.scored]
            tally.add(name, first_hit(order, case, evidence))
            tally.modes.setdefault(name, Counter())[ranking.selection_mode] += 1


def locomo_cases(path: Path, setting: str) -> list[Case]:
    samples = json.loads(path.read_text(encoding="utf-8"))
    cases = []
    for sample in samples:
        memories = (
            locomo.turn_memories(sample)
            if setting == "turns"
            else locomo.observation_memories(sample)
        )
        questions = [(q.text, frozenset(q.evidence), "all") for q in locomo.questions(sample)]
        cases.append(Case(memories, questions, lambda mid: set(mid.split("#")[0].split("|"))))
    return cases


def profile_cases(store_size: int) -> list[Case]:
    return [
        Case(p.memories, [(q.text, q.evidence, q.split) for q in p.questions], lambda m: {m})
        for p in profiles.build(store_size)
    ]


def report(name: str, tallies: dict[str, Tally], seconds: float) -> dict[str, Any]:
    groups = sorted(tallies)
    if len(groups) > 1:
        merged = Tally()
        for t in tallies.values():
            for ranker, ranks in t.ranks.items():
                merged.ranks.setdefault(ranker, []).extend(ranks)
            for ranker, modes in t.modes.items():
                merged.modes.setdefault(ranker, Counter()).update(modes)
        tallies = {**tallies, "all": merged}
        groups = [*groups, "all"]
    out: dict[str, Any] = {}
    print(f"\n{name}  ({seconds:.1f} s)")
    print(f"{'questions':<18} {'ranker':<9} {'n':>5} {'R@1':>6} {'R@5':>6} {'R@10':>6} {'MRR':>6}")
    for group in groups:
        for ranker in RANKERS:
            n, r1, r5, r10, mrr = tallies[group].row(ranker)
            out[f"{group}/{ranker}"] = (r1, r5, r10, mrr)
            print(f"{group:<18} {ranker:<9} {n:>5} {r1:>6.3f} {r5:>6.3f} {r10:>6.3f} {mrr:>6.3f}")
    for ranker in ("lexical", "semantic"):
        modes = tallies[groups[-1]].modes.get(ranker, Counter())
        total = sum(modes.values()) or 1
        shown = ", ".join(f"{m} {c / total:.0%}" for m, c in modes.most_common())
        print(f"selection modes ({ranker}): {shown}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, help="path to locomo10.json (not shipped)")
    parser.add_argument(
        "--cache",
        type=Path,
        default=DEFAULT,
        help="file of cached vectors (outside the repository)",
    )
    parser.add_argument(
        "--sets",
        default="turns,observations,profiles-200,profiles-2100",
        help="comma-separated: turns, observations, profiles-N",
    )
    args = parser.parse_args()
    cache = VectorCache(args.cache)
    results = {}
    try:
        for name in args.sets.split(","):
            started = time.perf_counter()
            if name in ("turns", "observations"):
                if args.locomo is None:
                    print(f"\n{name}: skipped (pass --locomo PATH)")
                    continue
                cases = locomo_cases(args.locomo, name)
                label = f"LoCoMo {name}"
            else:
                size = int(name.split("-")[1])
                cases = profile_cases(size)
                about = profiles.describe(profiles.build(size))
                label = (
                    f"profiles, {size} memories per user: {about['users']} users, "
                    f"{about['questions']} questions ({about['tune']} tune, "
                    f"{about['held_out']} held out; {about['no_shared_term']} share no "
                    "content term with their answer)"
                )
            tallies: dict[str, Tally] = {}
            for case in cases:
                run_case(case, cache, tallies)
            results[name] = report(label, tallies, time.perf_counter() - started)
    finally:
        cache.save()


if __name__ == "__main__":
    main()
