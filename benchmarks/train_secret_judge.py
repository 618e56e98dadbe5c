"""Train the secret finder's learned backstop and write pipeline/judge/secrets.{bin,json}.

A logistic regression over the n-gram judge's hashed character n-grams, secrets against
every other kind of row. It is trained, and its threshold chosen, only on rows that hold
a value it may speak about (`secretjudge.value_spans`), which is where it is asked: over
all rows it learns that a number is a secret (most rows with one are): on the data of its
first version, its cross-validated balanced error was 0.141 (English) and 0.286 (Chinese)
against 0.086 and 0.155 this way.

Only training data is read: the parts of the gate corpus in `gate_eval.TRAIN_PARTS` (`tune`
and the parts held out in their turn up to heldout79 whose errors were read, not heldout57,
heldout58, heldout68 and heldout69), the judge's own sentences (`tests/data/judge_train/`)
and sentences written for this model (`tests/data/secret_train/`: secrets with no noun
before their value, beside facts that hold harmless numbers in the same words); the parts
from heldout80 on are never read. The threshold, one for English and one for Chinese, is
chosen by 5-fold cross-validation over concepts (all phrasings of one concept fall in one
fold), by the balanced error: the share of secrets the model misses plus the share of
durable facts it refuses (a refused passing state or planted instruction costs nothing: the
gate refuses it anyway). Each kind weighs the same whatever its number of rows: the
training data holds five secrets for every two facts with a number, the reverse of what a
reflecting model proposes, and the finder reads most secrets before the model does.

    python benchmarks/train_secret_judge.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.char_features import Sparse, quantised
from benchmarks.gate_eval import TRAIN_PARTS, load
from benchmarks.train_judge import FOLDS, TRAIN, fold_of
from pipeline.charjudge import pack
from pipeline.credentials import find_secret
from pipeline.secretjudge import META_FILE, WEIGHTS_FILE, value_spans
from pipeline.text import has_cjk

BITS = 15
L2 = 1e-5
STEPS = 300
RATE = 4.0
SECRET_TRAIN = TRAIN.parent / "secret_train"
THRESHOLD_GRID = tuple(round(0.30 + 0.05 * i, 2) for i in range(14))


def training_rows() -> list[tuple[str, bool, str, str]]:
    """(text, is a secret, concept, label) for every training row."""
    rows = [
        (r["text"], r["label"] == "secret", f"{part}:{r['concept']}", r["label"])
        for part in TRAIN_PARTS
        for r in load(part)
    ]
    for path in sorted(TRAIN.glob("*.jsonl")):
        with path.open(encoding="utf-8") as f:
            extra = [json.loads(line) for line in f if line.strip()]
        rows += [(r["text"], False, f"{path.stem}:{r['topic']}", r["label"]) for r in extra]
    for path in sorted(SECRET_TRAIN.glob("*.jsonl")):
        with path.open(encoding="utf-8") as f:
            own = [json.loads(line) for line in f if line.strip()]
        rows += [
            (r["text"], r["label"] == "secret", f"{path.stem}:{r['topic']}", r["label"])
            for r in own
        ]
    return rows


def train(x: Sparse, y: np.ndarray) -> tuple[np.ndarray, float]:
    """Class-balanced logistic regression, full-batch gradient descent with Nesterov
    momentum from zero: deterministic."""
    weight = np.where(y, x.n / (2 * max(int(y.sum()), 1)), x.n / (2 * max(int((~y).sum()), 1)))
    w = np.zeros((x.dims, 1))
    b = np.zeros(1)
    vw, vb = np.zeros_like(w), np.zeros_like(b)
    momentum = 0.9
    for _ in range(STEPS):
        lw, lb = w + momentum * vw, b + momentum * vb
        p = 1 / (1 + np.exp(-x.scores(lw, lb)[:, 0]))
        grad = ((p - y) * weight / x.n)[:, None]
        gw = x.gradient(grad) + L2 * lw
        vw = momentum * vw - RATE * gw
        vb = momentum * vb - RATE * grad.sum(axis=0)
        w, b = w + vw, b + vb
    return quantised(w)[:, 0], float(b[0])


def probabilities(x: Sparse, w: np.ndarray, b: float) -> np.ndarray:
    return 1 / (1 + np.exp(-x.scores(w[:, None], np.array([b]))[:, 0]))  # type: ignore[no-any-return]


def cost(p: np.ndarray, secret: np.ndarray, durable: np.ndarray, t: float) -> float:
    """The balanced error at threshold `t`."""
    refused = p >= t
    missed = (secret & ~refused).sum() / max(int(secret.sum()), 1)
    return float(missed + (durable & refused).sum() / max(int(durable.sum()), 1))


def main() -> None:
    rows = [r for r in training_rows() if value_spans(r[0])]
    texts = [r[0] for r in rows]
    secret = np.array([r[1] for r in rows])
    durable = np.array([r[3] in ("durable", "low_confidence") for r in rows])
    valued = np.array([bool(value_spans(t)) for t in texts])
    chinese = np.array([has_cjk(t) for t in texts])
    x = Sparse(texts, BITS)
    folds = np.array([fold_of(r[2]) for r in rows])
    p = np.zeros(len(rows))
    for k in range(FOLDS):
        w, b = train(x.take(folds != k), secret[folds != k])
        p[folds == k] = probabilities(x.take(folds == k), w, b)
    rules = np.array([find_secret(t) is not None for t in texts])
    print(
        f"{len(rows)} rows, {int(secret.sum())} secrets; {int(valued.sum())} hold a value the "
        f"model may speak about ({int((valued & secret).sum())} secrets)"
    )
    thresholds = {}
    for name, part in (("English", ~chinese), ("Chinese", chinese)):
        seen = valued & part
        s, d = secret & seen, durable & seen
        print(f"{name}: {int(s.sum())} secrets, {int(d.sum())} durable facts with a value")
        for t in THRESHOLD_GRID:
            refused = (p >= t) & seen
            print(
                f"  t={t:.2f}: balanced error {cost(p[seen], s[seen], d[seen], t):.3f}  "
                f"secrets caught {int((refused & secret).sum()):4d}/{int(s.sum())}  "
                f"durable refused {int((refused & durable).sum()):3d}  "
                f"(of them the finder passes {int((refused & durable & ~rules).sum())})"
            )
        best = min(THRESHOLD_GRID, key=lambda t: (cost(p[seen], s[seen], d[seen], t), -t))
        thresholds[name] = best
        print(f"  chosen {best}")
    w, b = train(x, secret)
    data, meta = pack(
        w,
        {
            "bits": BITS,
            "bias": b,
            "threshold": thresholds["English"],
            "threshold_cjk": thresholds["Chinese"],
        },
    )
    WEIGHTS_FILE.write_bytes(data)
    META_FILE.write_text(meta + "\n", encoding="utf-8")
    print(f"wrote {WEIGHTS_FILE} ({len(data) // 1024} KB) and {META_FILE}")


if __name__ == "__main__":
    main()
