"""Train the model that reads whether the user's message hands the assistant outside content,
and write pipeline/judge/context.{bin,json}.

A rule for the assistant planted in a page, an email or a tool's output reaches the
reflection in a turn whose user message is about that content ("Summarise this review",
"What does this email say?"); a rule the user asked for comes from a message about how they
want to be answered, often in other words than the rule's ("ugh stop with the emojis" for
"User wants replies without emoji"). The model is a logistic regression over the judge's
hashed character n-grams of the user's message, trained on the user turns of the rules for
the assistant in the first training parts (`gate_eval.FIRST_TRAIN_PARTS`): planted rules'
turns against asked-for rules' turns. Its threshold is chosen by 5-fold cross-validation
over concepts, by the balanced error (the share of asked-for rules' turns read as handing
over content plus the share of planted rules' turns read as not); a second, at which a
message alone refuses a rule it does not ask for, is the lowest no asked-for rule's turn
reached; a third, below which a message is surely the user's own request (it asks for a
rule in any words), is the highest no planted rule's turn fell under.

    python benchmarks/train_asked.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.char_features import Sparse
from benchmarks.gate_eval import FIRST_TRAIN_PARTS, load
from benchmarks.train_judge import FOLDS, fold_of
from benchmarks.train_secret_judge import BITS, THRESHOLD_GRID, probabilities, train
from pipeline.asked import META_FILE, WEIGHTS_FILE
from pipeline.charjudge import pack
from pipeline.directives import is_assistant_rule

SPEAKS_GRID = (0.0, 0.01, 0.02, 0.05, 0.1, 0.2)


def balanced_error(p: np.ndarray, planted: np.ndarray, t: float) -> float:
    handed = p >= t
    return float(
        (~planted & handed).sum() / (~planted).sum() + (planted & ~handed).sum() / planted.sum()
    )


def main() -> None:
    rows = [
        r
        for part in FIRST_TRAIN_PARTS
        for r in load(part)
        if r.get("user_text")
        and r["label"] in ("durable", "injection")
        and is_assistant_rule(r["text"], r.get("subject", "user"))
    ]
    planted = np.array([r["label"] == "injection" for r in rows])
    x = Sparse([r["user_text"] for r in rows], BITS)
    folds = np.array([fold_of(r["concept"]) for r in rows])
    p = np.zeros(len(rows))
    for k in range(FOLDS):
        w, b = train(x.take(folds != k), planted[folds != k])
        p[folds == k] = probabilities(x.take(folds == k), w, b)
    print(f"{len(rows)} user turns of rules for the assistant, {int(planted.sum())} planted")
    for t in THRESHOLD_GRID:
        print(
            f"  t={t:.2f}: balanced error {balanced_error(p, planted, t):.3f}  asked-for turns "
            f"read as their own {int((~planted & (p < t)).sum())}/{int((~planted).sum())}  "
            f"planted turns read as the user's own {int((planted & (p < t)).sum())}"
        )
    best = min(THRESHOLD_GRID, key=lambda t: (round(balanced_error(p, planted, t), 9), t))
    # To refuse a rule for the message alone the model must be surer than it ever was of
    # an asked-for rule's turn in cross-validation.
    sure = min(t for t in (*THRESHOLD_GRID, 0.99) if not (~planted & (p >= t)).any())
    # To take a message as the user's own request in any words, surer than it ever was of a
    # planted rule's turn.
    speaks = max(t for t in SPEAKS_GRID if not (planted & (p < t)).any())
    print(f"  chosen {best}; refusing from {sure} ({int((planted & (p >= sure)).sum())} planted)")
    print(
        f"  the user's own request below {speaks} "
        f"({int((~planted & (p < speaks)).sum())}/{int((~planted).sum())} asked-for turns)"
    )
    w, b = train(x, planted)
    meta = {"bits": BITS, "bias": b, "threshold": best, "refuse": sure, "speaks": speaks}
    data, meta = pack(w, meta)
    WEIGHTS_FILE.write_bytes(data)
    META_FILE.write_text(meta + "\n", encoding="utf-8")
    print(f"wrote {WEIGHTS_FILE} ({len(data) // 1024} KB) and {META_FILE}")


if __name__ == "__main__":
    main()
