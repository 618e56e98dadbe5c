"""Train the gate's judge on the tune part of the corpus and write pipeline/judge/judge.npz.

Only training data is read: the tune part of the gate corpus
(`tests/data/gate_corpus/tune.jsonl`) and the judge's own training sentences
(`tests/data/judge_train/*.jsonl`); the held-out and final parts are never read. The
regularisation and each class's rejection threshold are chosen by 5-fold cross-validation
over concepts (all phrasings of one concept fall in the same fold, so a fold never sees a
paraphrase of its own test rows). The thresholds are scored where the judge decides in
the gate: on the rows the rules let through, with an injection counted only when the text
is a rule for the assistant.
Secrets are left out (values are the detector's job), and low-confidence rows count as
durable (their text is a good fact; only the model's confidence was low).

    python benchmarks/train_judge.py
"""

from __future__ import annotations

import hashlib
import io
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.gate_eval import load, user_text
from pipeline.directives import is_assistant_rule
from pipeline.embeddings import Embedder
from pipeline.gate import screen_rules
from pipeline.judge import DATA_FILE, LABELS, Classifier, Examples, pack, softmax, train
from pipeline.models import Policy
from pipeline.text import has_cjk

OUT = DATA_FILE
FOLDS = 5
L2_GRID = (1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3)
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


# An injection kept is as costly as a durable fact refused.
INJECTION_LOSS = 3.0


def guess(p: np.ndarray, thresholds: dict[str, float], directed: bool) -> str:
    """The gate's use of one probability row: durable unless a class passes its threshold."""
    label = LABELS[int(np.argmax(p))]
    if label == "durable" or p[LABELS.index(label)] < thresholds[label]:
        return "durable"
    return "durable" if label == "injection" and not directed else label


def cost(probabilities: np.ndarray, rows: list[Row], thresholds: dict[str, float]) -> float:
    total = 0.0
    for p, row in zip(probabilities, rows, strict=True):
        if row.left_to_judge and guess(p, thresholds, row.directed) != row.label:
            total += {"durable": DURABLE_LOSS, "injection": INJECTION_LOSS}.get(row.label, 1.0)
    return total


def choose_thresholds(probabilities: np.ndarray, rows: list[Row]) -> tuple[float, dict]:
    """One threshold for all classes from the grid, then each class's own, by coordinate
    descent (ties keep the value closer to the shared one)."""
    shared = min(
        THRESHOLD_GRID,
        key=lambda t: cost(probabilities, rows, {label: t for label in LABELS[1:]}),
    )
    thresholds = {label: shared for label in LABELS[1:]}
    for _ in range(3):
        for label in LABELS[1:]:
            thresholds[label] = min(
                THRESHOLD_GRID,
                key=lambda t, label=label: (
                    cost(probabilities, rows, {**thresholds, label: t}),
                    abs(t - shared),
                ),
            )
    return cost(probabilities, rows, thresholds), thresholds


TRAIN = Path(__file__).resolve().parent.parent / "tests" / "data" / "judge_train"


def training_rows() -> list[tuple[dict, str]]:
    rows = [(r, judge_label(r)) for r in load("tune")]
    for path in sorted(TRAIN.glob("*.jsonl")):
        with path.open(encoding="utf-8") as f:
            extra = [json.loads(line) for line in f if line.strip()]
        rows += [({**r, "concept": f"{path.stem}:{r['topic']}"}, r["label"]) for r in extra]
    # The judge reads English only (see Judge.reads); Chinese is left to the rules.
    return [(r, lab) for r, lab in rows if lab is not None and not has_cjk(r["text"])]


@dataclass(frozen=True)
class Row:
    """One training row as the gate sees it."""

    text: str
    label: str
    concept: str
    left_to_judge: bool  # the rules let it through, so the judge decides it
    directed: bool  # a rule for the assistant: only then does an injection verdict count


def gate_rows() -> list[Row]:
    """The training rows, each with what the gate's rules make of it."""
    policy = Policy()
    out = []
    for r, label in training_rows():
        subject = r.get("subject", "user")
        left = screen_rules(r["text"], policy, subject=subject, user_text=user_text(r)) is None
        directed = is_assistant_rule(r["text"], subject)
        out.append(Row(r["text"], label, r["concept"], left, directed))
    return out


def out_of_fold(
    vectors: np.ndarray, rows: list[Row], l2: float
) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """Each row's probabilities from the model trained without its fold, and the models."""
    folds = np.array([fold_of(r.concept) for r in rows])
    probabilities = np.zeros((len(rows), len(LABELS)))
    models = []
    for k in range(FOLDS):
        kept = folds != k
        w, b = train(vectors[kept], [r.label for r, m in zip(rows, kept, strict=True) if m], l2=l2)
        probabilities[folds == k] = softmax(vectors[folds == k] @ w + b)
        models.append((w, b))
    return probabilities, models


def shipped_meta() -> dict:
    """The settings the shipped judge was trained with (regularisation, thresholds)."""
    raw = np.load(io.BytesIO(DATA_FILE.read_bytes()))
    return json.loads(raw["meta"].tobytes())  # type: ignore[no-any-return]


def main() -> None:
    rows = gate_rows()
    texts = [r.text for r in rows]
    truth = [r.label for r in rows]
    vectors = Embedder().embed(texts)

    best: tuple[float, float, dict] | None = None
    for l2 in L2_GRID:
        probabilities, _ = out_of_fold(vectors, rows, l2)
        c, thresholds = choose_thresholds(probabilities, rows)
        print(f"l2 {l2:g}: cross-validated cost {c:.0f} with thresholds {thresholds}")
        if best is None or c < best[0]:
            best = (c, l2, thresholds)
    assert best is not None
    cost_, l2, thresholds = best
    left = sum(r.left_to_judge for r in rows)
    print(
        f"chosen: l2 {l2:g}, {thresholds} (cost {cost_:.0f}; {left} of {len(rows)} rows reach it)"
    )
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
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(pack(Classifier(w, b, thresholds), examples, meta))
    print(f"wrote {OUT} ({OUT.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main()
