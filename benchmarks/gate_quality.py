"""How well the gate judges: confusion tables and precision/recall per class.

Runs the real gate over the labelled corpus in tests/data/gate_corpus/: `tune` (the judge
is trained and the rules tuned on it), `heldout` (written before any tuning, never tuned
on) and, when present, `final` (a last check, also never tuned on). For each part it
compares the gate with its own parts: the lexical rules alone (the floor without the
semantic extra) and the full gate (rules plus the learned judge).

    python benchmarks/gate_quality.py [--parts tune,heldout,final] [--errors]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.gate_eval import CLASSES, CORPUS, Score, load, score
from pipeline.embeddings import Embedder, semantic_available
from pipeline.judge import Judge
from pipeline.models import Policy

SHORT = {
    "durable": "durable",
    "ephemeral": "ephem",
    "speculative": "specul",
    "small_talk": "small",
    "low_confidence": "lowconf",
    "secret": "secret",
    "injection": "inject",
    "invalid": "invalid",
}


def confusion_table(s: Score) -> str:
    matrix = s.confusion()
    predicted = [c for c in CLASSES] + sorted({p for _, p in matrix} - set(CLASSES))
    head = "truth \\ gate".ljust(14) + "".join(SHORT.get(p, p)[:7].rjust(8) for p in predicted)
    lines = [head]
    for truth in CLASSES:
        cells = "".join(str(matrix.get((truth, p), 0) or ".").rjust(8) for p in predicted)
        lines.append(SHORT[truth].ljust(14) + cells)
    return "\n".join(lines)


def per_class(s: Score) -> str:
    lines = ["class            n  precision  recall"]
    for label in CLASSES:
        n = sum(r["label"] == label for r in s.rows)
        lines.append(f"{label:<14} {n:>4}  {s.precision(label):>9.3f}  {s.recall(label):>6.3f}")
    return "\n".join(lines)


def summary(name: str, s: Score) -> str:
    return (
        f"{name:<22} {s.accuracy:>8.3f} {s.recall('secret'):>8.3f} "
        f"{s.recall('injection'):>8.3f} {s.near_miss_pass_rate():>9.3f} "
        f"{s.recall('durable'):>8.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="tune,heldout,final")
    parser.add_argument("--errors", action="store_true", help="list every wrong verdict")
    args = parser.parse_args()
    policy = Policy()
    judge = Judge(Embedder()) if semantic_available() else None
    for part in args.parts.split(","):
        if not (CORPUS / f"{part}.jsonl").exists():
            continue
        rows = load(part)
        started = time.perf_counter()
        full = score(rows, judge=judge, policy=policy) if judge else None
        per_row_ms = (time.perf_counter() - started) * 1000 / len(rows)
        rules = score(rows, judge=None, policy=policy)
        print(f"\n## {part}: {len(rows)} candidates")
        print(
            f"{'configuration':<22} {'accuracy':>8} {'secret R':>8} {'inject R':>8} "
            f"{'near-miss':>9} {'durable R':>8}"
        )
        print(summary("rules only (floor)", rules))
        if full:
            print(summary("rules + judge (gate)", full))
            print(f"time per candidate, judge included: {per_row_ms:.1f} ms")
        shown = full or rules
        print()
        print(confusion_table(shown))
        print()
        print(per_class(shown))
        if args.errors:
            print()
            for row, got, detail in shown.errors():
                print(f"  {row['id']} {row['label']}->{got}: {row['text'][:90]!r} · {detail}")


if __name__ == "__main__":
    main()
