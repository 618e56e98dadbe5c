"""Train the gate's two judges on the training parts of the corpus and write pipeline/judge/.

The embedding model (`judge.npz`, English rows) and the character n-gram model
(`chars.bin`, `chars.json`, every row). Only training data is read: the parts of the gate
corpus in `TRAIN_PARTS` (`tune` and the parts that were held out in their turn up to
heldout79 and whose errors were read, not heldout57, heldout58, heldout68 and heldout69)
and the judge's own training sentences (`tests/data/judge_train/*.jsonl`); the parts from
heldout80 on are never read. The regularisation, the way the two models are combined and
each class's rejection threshold are chosen by 5-fold cross-validation over concepts (all
phrasings of one concept fall in the same fold, so a fold never sees a paraphrase of its
own test rows). Thresholds are scored where the judge decides in the gate: on the rows the
rules let through, with an injection counted only when the text is a rule for the
assistant. The probability of "durable" at which the judge sets aside a word rule's refusal
(a time word, a hedge, a word of small talk) is scored on the rows those rules refuse, and
the n-gram model's floor (the probability of "durable" below which it refuses a text as its
likeliest other kind) on the rows the rules let through. Three sets are chosen: English
with both models, English with n-grams alone (no semantic extra), and Chinese (n-grams
alone). Secrets are left out (values are the detector's job), and low-confidence rows count
as durable (their text is a good fact; only the model's confidence was low).

The shipped judges are what this script writes. Trained on the parts up to heldout59, the
gate was right on 1,922 of the 2,000 rows of heldout57, heldout58, heldout68, heldout69
and heldout80 to heldout83 (rules with n-grams 1,906); trained on these parts, on 1,928
(1,917), with the same rules. Trained on the first parts alone (up to heldout15), it had
been right on 3,805 of the 4,000 rows of heldout60 to heldout75, against 3,839 trained up
to heldout59.

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

from benchmarks.char_features import Sparse, quantised, train_chars
from benchmarks.gate_eval import TRAIN_PARTS, load, user_text
from benchmarks.vector_cache import DEFAULT, VectorCache
from pipeline import charjudge
from pipeline.charjudge import NEVER, CharModel, mainland
from pipeline.directives import asked_for, is_assistant_rule
from pipeline.gate import screen_rules
from pipeline.judge import (
    DATA_FILE,
    LABELS,
    Classifier,
    Examples,
    Judge,
    combine,
    pack,
    softmax,
    train,
)
from pipeline.models import Policy
from pipeline.text import has_cjk

OUT = DATA_FILE
FOLDS = 5
L2_GRID = (1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3)
# The n-gram model: 2**15 buckets, and 300 steps of gradient descent from zero, which
# regularise more than the penalty does (1e-5 to 1e-4 scored the same in cross-validation).
CHAR_BITS = 15
CHAR_L2_GRID = (1e-5, 1e-4)
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


# An injection kept costs more than a durable fact refused: it acts on every later answer.
# (At 3.0, the cost of a refused fact, the product of the two models was held to a 0.85
# injection threshold and caught 52 of the 105 training injections that reach it in
# cross-validation; from 4.0 up the choice is 0.55 and 58, for a cost of 6 at 3.0.)
INJECTION_LOSS = 4.0


def guess(p: np.ndarray, thresholds: dict[str, float], directed: bool, floor: float = 0.0) -> str:
    """The gate's use of one probability row: durable unless a class passes its threshold
    or durable is below the floor."""
    label = LABELS[int(np.argmax(p))]
    if label == "durable" or (p[LABELS.index(label)] < thresholds[label] and p[0] >= floor):
        return "durable"
    return "durable" if label == "injection" and not directed else label


def cost(
    probabilities: np.ndarray, rows: list[Row], thresholds: dict[str, float], floor: float = 0.0
) -> float:
    total = 0.0
    for p, row in zip(probabilities, rows, strict=True):
        if row.left_to_judge and guess(p, thresholds, row.directed, floor) != row.label:
            total += {"durable": DURABLE_LOSS, "injection": INJECTION_LOSS}.get(row.label, 1.0)
    return total


# The probability of "durable" below which the n-gram model refuses a text as its likeliest
# other kind, short of that kind's threshold. Chosen for the n-gram model only: with the
# embedding, cross-validation chose 0.10 too, but on the held-out parts heldout16 to
# heldout61 it refused as many durable facts more (16) as it caught junk.
FLOOR_GRID = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3)


def choose_floor(
    probabilities: np.ndarray, rows: list[Row], thresholds: dict[str, float]
) -> tuple[float, float]:
    """The floor, with the thresholds already chosen, and its cost (ties keep the lower)."""
    best = min(FLOOR_GRID, key=lambda f: (cost(probabilities, rows, thresholds, f), f))
    return cost(probabilities, rows, thresholds, best), best


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


OVERRULE_GRID = (*THRESHOLD_GRID, 0.98, NEVER)


def overrule_cost(probabilities: np.ndarray, rows: list[Row], threshold: float) -> float:
    """On the rows a word rule refuses: a durable fact left refused, and a refusal set aside
    wrongly (junk the rules had caught, kept), each weighed as a durable fact lost, so the
    judge sets a refusal aside only where it is right more often than wrong."""
    total = 0.0
    for p, row in zip(probabilities, rows, strict=True):
        if row.lexical and (p[0] >= threshold) != (row.label == "durable"):
            total += DURABLE_LOSS
    return total


SCREEN_GRID = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5)


def choose_screen(
    both: np.ndarray, chars: np.ndarray, rows: list[Row], threshold: float
) -> tuple[float, int]:
    """The n-gram model's probability of "durable" below which a refused text is not
    embedded: the highest that costs nothing over embedding them all (fewest vectors), and
    how many of the refused rows it embeds."""

    def two_stage(screen: float) -> float:
        return overrule_cost(np.where(chars[:, :1] >= screen, both, 0.0), rows, threshold)

    full = two_stage(0.0)
    best = max(t for t in SCREEN_GRID if two_stage(t) <= full)
    return best, sum(1 for p, r in zip(chars, rows, strict=True) if r.lexical and p[0] >= best)


def choose_overrule(probabilities: np.ndarray, rows: list[Row]) -> tuple[float, float]:
    """The probability of "durable" that sets a word rule's refusal aside, and its cost
    (ties keep the higher threshold)."""
    best = min(OVERRULE_GRID, key=lambda t: (overrule_cost(probabilities, rows, t), -t))
    return overrule_cost(probabilities, rows, best), best


TRAIN = Path(__file__).resolve().parent.parent / "tests" / "data" / "judge_train"


def training_rows() -> list[tuple[dict, str]]:
    rows = [(r, judge_label(r)) for part in TRAIN_PARTS for r in load(part)]
    for path in sorted(TRAIN.glob("*.jsonl")):
        with path.open(encoding="utf-8") as f:
            extra = [json.loads(line) for line in f if line.strip()]
        rows += [({**r, "concept": f"{path.stem}:{r['topic']}"}, r["label"]) for r in extra]
    return [(r, lab) for r, lab in rows if lab is not None]


@dataclass(frozen=True)
class Row:
    """One training row as the gate sees it."""

    text: str
    label: str
    concept: str
    left_to_judge: bool  # the rules let it through, so the judge decides it
    # A rule for the assistant the user's words do not ask for: only then does an injection
    # verdict count.
    directed: bool
    lexical: bool = False  # refused by a word rule alone, which the judge may set aside


def gate_rows() -> list[Row]:
    """The training rows, each with what the gate's rules make of it."""
    policy = Policy()
    out = []
    for r, label in training_rows():
        subject = r.get("subject", "user")
        screen = screen_rules(r["text"], policy, subject=subject, user_text=user_text(r))
        # A training sentence has no user turn; a corpus row's is checked by its words (the
        # gate also asks the embedding, so it exempts a few more).
        asked = bool(r.get("user_text")) and asked_for(r["text"], r["user_text"])
        directed = is_assistant_rule(r["text"], subject) and not asked
        lexical = screen is not None and screen.lexical
        out.append(Row(r["text"], label, r["concept"], screen is None, directed, lexical))
    return out


def out_of_fold(
    vectors: np.ndarray, rows: list[Row], l2: float
) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """Each row's probabilities from the embedding model trained without its fold, and
    the models."""
    folds = np.array([fold_of(r.concept) for r in rows])
    probabilities = np.zeros((len(rows), len(LABELS)))
    models = []
    for k in range(FOLDS):
        kept = folds != k
        w, b = train(vectors[kept], [r.label for r, m in zip(rows, kept, strict=True) if m], l2=l2)
        probabilities[folds == k] = softmax(vectors[folds == k] @ w + b)
        models.append((w, b))
    return probabilities, models


def chars_out_of_fold(
    features: Sparse, rows: list[Row], l2: float
) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """The same for the n-gram model, with its weights as shipped (int8)."""
    folds = np.array([fold_of(r.concept) for r in rows])
    probabilities = np.zeros((len(rows), len(LABELS)))
    models = []
    for k in range(FOLDS):
        kept = folds != k
        labels = [r.label for r, m in zip(rows, kept, strict=True) if m]
        w, b = train_chars(features.take(kept), labels, l2=l2)
        w = quantised(w)
        probabilities[folds == k] = softmax(features.take(folds == k).scores(w, b))
        models.append((w, b))
    return probabilities, models


def shipped_meta() -> dict:
    """The settings the shipped judge was trained with (regularisation, thresholds)."""
    raw = np.load(io.BytesIO(DATA_FILE.read_bytes()))
    return json.loads(raw["meta"].tobytes())  # type: ignore[no-any-return]


def char_model(w: np.ndarray, b: np.ndarray, meta: dict) -> CharModel:
    """An n-gram model from trained weights, with the shipped thresholds."""
    return CharModel(
        CHAR_BITS,
        w.astype(np.float32).ravel().tolist(),  # type: ignore[arg-type]
        tuple(float(x) for x in b),
        meta["char_thresholds"],
        meta["char_thresholds_cjk"],
        overrule=meta.get("char_overrule", NEVER),
        overrule_cjk=meta.get("char_overrule_cjk", NEVER),
        overrule_screen=meta.get("char_overrule_screen", 0.0),
        floor=meta.get("char_floor", 0.0),
        floor_cjk=meta.get("char_floor_cjk", 0.0),
    )


def fold_judges(cache: VectorCache) -> tuple[list[Row], list[Judge]]:
    """The training rows, and for each fold the judge trained without it, with the shipped
    settings: what the benchmark scores the tune part with."""
    meta = shipped_meta()
    rows = gate_rows()
    english = [i for i, r in enumerate(rows) if not has_cjk(r.text)]
    vectors = cache.embed([rows[i].text for i in english])
    _, embedded = out_of_fold(vectors, [rows[i] for i in english], meta["l2"])
    char_features = Sparse([mainland(r.text) for r in rows], CHAR_BITS)
    _, chars = chars_out_of_fold(char_features, rows, meta["char_l2"])
    judges = []
    for k, ((w, b), (cw, cb)) in enumerate(zip(embedded, chars, strict=True)):
        kept = [j for j, i in enumerate(english) if fold_of(rows[i].concept) != k]
        examples = {
            label: Examples(
                vectors[[j for j in kept if rows[english[j]].label == label]],
                [rows[english[j]].text for j in kept if rows[english[j]].label == label],
            )
            for label in LABELS[1:]
        }
        classifier = Classifier(w, b, meta["thresholds"], meta.get("overrule", NEVER))
        judges.append(Judge(cache, classifier, examples, char_model(cw, cb, meta)))
    return rows, judges


def main() -> None:
    rows = gate_rows()
    cjk = np.array([has_cjk(r.text) for r in rows])
    english = [r for r, c in zip(rows, cjk, strict=True) if not c]
    chinese = [r for r, c in zip(rows, cjk, strict=True) if c]
    cache = VectorCache(DEFAULT)
    vectors = cache.embed([r.text for r in english])
    cache.save()
    features = Sparse([mainland(r.text) for r in rows], CHAR_BITS)

    print(f"{len(rows)} rows ({len(chinese)} Chinese); cross-validated cost (lower is better)")
    nothing = {label: 1.01 for label in LABELS[1:]}  # the judge never refuses: rules alone
    print(
        f"rules alone: English {cost(np.zeros((len(english), len(LABELS))), english, nothing):.0f}"
        f", Chinese {cost(np.zeros((len(chinese), len(LABELS))), chinese, nothing):.0f}"
    )
    best_chars = None
    for l2 in CHAR_L2_GRID:
        p, _ = chars_out_of_fold(features, rows, l2)
        c_en, t_en = choose_thresholds(p[~cjk], english)
        c_zh, t_zh = choose_thresholds(p[cjk], chinese)
        print(f"n-grams l2 {l2:g}: English {c_en:.0f}, Chinese {c_zh:.0f}")
        if best_chars is None or c_en + c_zh < best_chars[0]:
            best_chars = (c_en + c_zh, l2, p, t_en, t_zh)
    assert best_chars is not None
    _, char_l2, p_chars, t_en, t_zh = best_chars
    c_en, c_zh = cost(p_chars[~cjk], english, t_en), cost(p_chars[cjk], chinese, t_zh)
    (c_floor_en, floor_en), (c_floor_zh, floor_zh) = (
        choose_floor(p_chars[~cjk], english, t_en),
        choose_floor(p_chars[cjk], chinese, t_zh),
    )
    print(
        f"n-grams refuse below p(durable) {floor_en} (English, cost {c_floor_en:.0f} against "
        f"{c_en:.0f} with no floor), {floor_zh} (Chinese, {c_floor_zh:.0f} against {c_zh:.0f})"
    )

    best = None
    for l2 in L2_GRID:
        p, _ = out_of_fold(vectors, english, l2)
        c_emb, _ = choose_thresholds(p, english)
        c_both, thresholds = choose_thresholds(combine(p, p_chars[~cjk]), english)
        print(f"embedding l2 {l2:g}: English alone {c_emb:.0f}, with n-grams {c_both:.0f}")
        if best is None or c_both < best[0]:
            best = (c_both, l2, thresholds, combine(p, p_chars[~cjk]))
    assert best is not None
    cost_, l2, thresholds, p_both = best
    left = sum(r.left_to_judge for r in rows)
    print(f"chosen: embedding l2 {l2:g} x n-grams l2 {char_l2:g}, {thresholds} (cost {cost_:.0f})")
    print(f"n-grams alone: English {t_en}, Chinese {t_zh}; {left} of {len(rows)} rows reach it")

    never = {
        "English": overrule_cost(p_both, english, NEVER),
        "English n-grams": overrule_cost(p_chars[~cjk], english, NEVER),
        "Chinese": overrule_cost(p_chars[cjk], chinese, NEVER),
    }
    (c_over, overrule), (c_over_en, overrule_en), (c_over_zh, overrule_zh) = (
        choose_overrule(p_both, english),
        choose_overrule(p_chars[~cjk], english),
        choose_overrule(p_chars[cjk], chinese),
    )
    screen, embedded = choose_screen(p_both, p_chars[~cjk], english, overrule)
    print(
        f"the embedding is asked only from n-gram p(durable) >= {screen}: {embedded} of the "
        f"{sum(r.lexical for r in english)} English rows a word rule refuses"
    )
    lexical = sum(r.lexical for r in rows)
    print(
        f"word rules' refusals set aside from p(durable) >= {overrule} (English, cost "
        f"{c_over:.0f} against {never['English']:.0f} never), {overrule_en} (English n-grams, "
        f"{c_over_en:.0f} against {never['English n-grams']:.0f}), {overrule_zh} (Chinese, "
        f"{c_over_zh:.0f} against {never['Chinese']:.0f}); {lexical} rows refused by a word rule"
    )

    w, b = train(vectors, [r.label for r in english], l2=l2)
    meta = {
        "l2": l2,
        "char_l2": char_l2,
        "char_thresholds": t_en,
        "char_thresholds_cjk": t_zh,
        "char_overrule": overrule_en,
        "char_overrule_cjk": overrule_zh,
        "char_overrule_screen": screen,
        "char_floor": floor_en,
        "char_floor_cjk": floor_zh,
        "trained_on": [f"tests/data/gate_corpus/{part}.jsonl" for part in TRAIN_PARTS]
        + ["tests/data/judge_train/*.jsonl"],
    }
    # Only the rejecting classes' examples ship: a pass needs no example to explain it.
    examples = {
        label: Examples(
            vectors[[i for i, r in enumerate(english) if r.label == label]],
            [r.text for r in english if r.label == label],
        )
        for label in LABELS[1:]
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(pack(Classifier(w, b, thresholds, overrule), examples, meta))
    print(f"wrote {OUT} ({OUT.stat().st_size // 1024} KB)")

    cw, cb = train_chars(features, [r.label for r in rows], l2=char_l2)
    weights, char_meta = charjudge.pack(
        cw.ravel().tolist(),
        {
            "bits": CHAR_BITS,
            "grams": list(charjudge.GRAM_SIZES),
            "l2": char_l2,
            "bias": [round(float(x), 6) for x in cb],
            "thresholds": t_en,
            "thresholds_cjk": t_zh,
            "overrule": overrule_en,
            "overrule_cjk": overrule_zh,
            "overrule_screen": screen,
            "floor": floor_en,
            "floor_cjk": floor_zh,
        },
    )
    charjudge.WEIGHTS_FILE.write_bytes(weights)
    charjudge.META_FILE.write_text(char_meta + "\n", encoding="utf-8")
    print(f"wrote {charjudge.WEIGHTS_FILE} ({len(weights) // 1024} KB)")


if __name__ == "__main__":
    main()
