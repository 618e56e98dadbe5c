"""Train the gate's judge on the tune part of the corpus and write pipeline/judge/judge.npz.

Only training data is read: the tune part of the gate corpus
(`tests/data/gate_corpus/tune.jsonl`) and the judge's own training sentences
(`tests/data/judge_train/*.jsonl`); the held-out and final parts are never read. The
regularisation and the rejection threshold are chosen by 5-fold cross-validation over
concepts (all phrasings of one concept fall in the same fold, so a fold never sees a
paraphrase of its own test rows).
Secrets are left out (values are the detector's job), and low-confidence rows count as
durable (their text is a good fact; only the model's confidence was low).

    python benchmarks/train_judge.py
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.gate_eval import load
from pipeline.embeddings import Embedder
from pipeline.judge import DATA_FILE, LABELS, Classifier, Examples, pack, softmax, train
from pipeline.text import has_cjk

OUT = DATA_FILE
FOLDS = 5
L2_GRID = (1e-4, 3e-4, 1e-3, 3e-3)
THRESHOLD_GRID = tuple(round(0.30 + 0.05 * i, 2) for i in range(14))
# A durable fact refused costs more than a passing state kept: the first loses what the
# user told us, the second is junk that decays.
DURABLE_LOSS = 3.0


def judge_label(row: dict) -> str | None:
    if row["label"] == "secret":
        return None
    if row["label"] == "low_confidence":
        return "durable"
    return row["label"]


def fold_of(concept: str) -> int:
    return int(hashlib.sha256(concept.encode()).hexdigest(), 16) % FOLDS


def cost(probabilities: np.ndarray, truth: list[str], threshold: float) -> float:
    total = 0.0
    for p, label in zip(probabilities, truth, strict=True):
        best = int(np.argmax(p))
        guess = LABELS[best] if LABELS[best] == "durable" or p[best] >= threshold else "durable"
        if guess != label:
            total += DURABLE_LOSS if label == "durable" else 1.0
    return total


TRAIN = Path(__file__).resolve().parent.parent / "tests" / "data" / "judge_train"


def training_rows() -> list[tuple[dict, str]]:
    rows = [(r, judge_label(r)) for r in load("tune")]
    for path in sorted(TRAIN.glob("*.jsonl")):
        with path.open(encoding="utf-8") as f:
            extra = [json.loads(line) for line in f if line.strip()]
        rows += [({**r, "concept": f"{path.stem}:{r['topic']}"}, r["label"]) for r in extra]
    # The judge reads English only (see Judge.reads); Chinese is left to the rules.
    return [(r, lab) for r, lab in rows if lab is not None and not has_cjk(r["text"])]


def main() -> None:
    rows = training_rows()
    texts = [r["text"] for r, _ in rows]
    truth = [lab for _, lab in rows]
    folds = np.array([fold_of(r["concept"]) for r, _ in rows])
    vectors = Embedder().embed(texts)

    best: tuple[float, float, float] | None = None
    for l2 in L2_GRID:
        out_of_fold = np.zeros((len(rows), len(LABELS)))
        for k in range(FOLDS):
            train_rows, test_rows = folds != k, folds == k
            kept = [t for t, m in zip(truth, train_rows, strict=True) if m]
            w, b = train(vectors[train_rows], kept, l2=l2)
            out_of_fold[test_rows] = softmax(vectors[test_rows] @ w + b)
        for threshold in THRESHOLD_GRID:
            c = cost(out_of_fold, truth, threshold)
            print(f"l2 {l2:g} threshold {threshold:.2f}: cross-validated cost {c:.0f}")
            if best is None or c < best[0]:
                best = (c, l2, threshold)
    assert best is not None
    cost_, l2, threshold = best
    print(f"chosen: l2 {l2:g}, threshold {threshold:.2f} (cost {cost_:.0f} over {len(rows)} rows)")
    w, b = train(vectors, truth, l2=l2)
    meta = {
        "l2": l2,
        "trained_on": ["tests/data/gate_corpus/tune.jsonl", "tests/data/judge_train/*.jsonl"],
    }
    # Only the rejecting classes' examples ship: a pass needs no example to explain it.
    examples = {
        label: Examples(
            vectors[[i for i, t in enumerate(truth) if t == label]],
            [text for text, t in zip(texts, truth, strict=True) if t == label],
        )
        for label in LABELS[1:]
    }
    thresholds = {label: threshold for label in LABELS[1:]}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(pack(Classifier(w, b, thresholds), examples, meta))
    print(f"wrote {OUT} ({OUT.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main()
