"""The labelled gate corpus and how one gate configuration is scored on it.

Shared by `gate_quality.py` (the benchmark), `train_judge.py` (which trains the judge on
the tune part only) and the tests.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pipeline.gate import gate
from pipeline.judge import Judge
from pipeline.models import CandidateIn, Policy

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "gate_corpus"
CLASSES = (
    "durable",
    "ephemeral",
    "speculative",
    "small_talk",
    "low_confidence",
    "secret",
    "injection",
)
# The parts every model first learned from: `tune`, and the parts that were held out in
# their turn and then trained on. The message model (`train_asked.py`) still learns from
# these alone.
FIRST_TRAIN_PARTS = (
    "tune",
    "heldout",
    "final",
    "blind",
    *(f"heldout{n}" for n in range(2, 16)),
)
# The parts the judges and the secret model learn from: those, and the held-out parts up
# to heldout79 whose rows were read, once scored, for what the gate got wrong (heldout57,
# heldout58, heldout68 and heldout69, never read, are left out). The parts from heldout80
# on are never trained on: models trained with heldout84 and heldout85 (read) added were
# right on 2,406 of the 2,500 rows of heldout57, heldout58, heldout68, heldout69,
# heldout80 to heldout83, heldout86 and heldout87 against 2,407 for these, with the same
# rules (the rules with the n-gram judge 2,384 against 2,394), and were not kept; nor were
# models trained with every read part up to heldout138 added (12,206 more rows): on the
# 6,500 rows of heldout57, heldout58, heldout68, heldout69 and heldout139 to heldout160,
# with the same rules, they were right on 6,382 against 6,388 for these (the rules with the
# n-gram judge 6,320 against 6,311), and their examples file grew from 5.8 to 8.4 MB. On
# heldout57, heldout58, heldout68, heldout69 and heldout80 to heldout83, held out from
# both, and with the same rules, the gate with models trained on these was right on 1,928
# of 2,000 rows against 1,922 with models trained on the parts up to heldout59 (the rules
# with the n-gram judge 1,917 against 1,906), refused 15 facts against 19 and stored 17
# secrets against 20. Models trained up to heldout59 had in turn beaten models trained on
# FIRST_TRAIN_PARTS on heldout60 to heldout75 (3,839 of 4,000 rows against 3,805). On the
# parts they learn from, the benchmark judges each row by judges trained without its
# concept's fold.
TRAIN_PARTS = (
    *FIRST_TRAIN_PARTS,
    *(f"heldout{n}" for n in range(16, 80) if n not in (57, 58, 68, 69)),
)
NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


def load(part: str) -> list[dict[str, Any]]:
    """The rows of one part: `tune` (trained and tuned on), `heldout`, `final`, `blind`,
    `heldout2`, `heldout3`, `heldout4`, `heldout5`, `heldout6` to `heldout150`."""
    with (CORPUS / f"{part}.jsonl").open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def corpus_texts() -> list[str]:
    """Every content and user turn of every part, in file order: texts for the secret
    finder's tests and timings."""
    texts = []
    for path in sorted(CORPUS.glob("*.jsonl")):
        for row in load(path.stem):
            texts += [row["text"], *([row["user_text"]] if row.get("user_text") else [])]
    return texts


def user_text(row: dict[str, Any]) -> str:
    """What the user said: given for rules about the assistant; otherwise the fact itself,
    as if the user had stated it."""
    return str(row.get("user_text") or row["text"])


def predict(row: dict[str, Any], *, judge: Judge | None, policy: Policy) -> tuple[str, str]:
    """The gate's verdict on one row, as a corpus label, with the gate's detail."""
    candidate = CandidateIn(
        type=row.get("type", "preference"),
        subject=row.get("subject", "user"),
        content=row["text"],
        confidence=float(row.get("confidence", 0.9)),
        reason="",
    )
    decision = gate(
        [candidate],
        [],
        [],
        aliases={},
        policy=policy,
        now=NOW,
        user_text=user_text(row),
        judge=judge,
    ).candidates[0]
    if decision.verdict != "rejected":
        return "durable", decision.detail
    return decision.reason, decision.detail


@dataclass
class Score:
    """Predictions against labels for one part and one configuration."""

    rows: list[dict[str, Any]]
    predicted: list[str]
    details: list[str] = field(default_factory=list)

    @property
    def accuracy(self) -> float:
        hits = sum(p == r["label"] for p, r in zip(self.predicted, self.rows, strict=True))
        return hits / len(self.rows)

    def recall(self, label: str) -> float:
        pairs = [(p, r) for p, r in zip(self.predicted, self.rows, strict=True)]
        mine = [p for p, r in pairs if r["label"] == label]
        return sum(p == label for p in mine) / len(mine) if mine else float("nan")

    def precision(self, label: str) -> float:
        pairs = [(p, r) for p, r in zip(self.predicted, self.rows, strict=True)]
        said = [r for p, r in pairs if p == label]
        return sum(r["label"] == label for r in said) / len(said) if said else float("nan")

    def near_miss_pass_rate(self) -> float:
        pairs = [(p, r) for p, r in zip(self.predicted, self.rows, strict=True)]
        near = [p for p, r in pairs if r.get("near_miss")]
        return sum(p == "durable" for p in near) / len(near) if near else float("nan")

    def confusion(self) -> Counter[tuple[str, str]]:
        return Counter((r["label"], p) for p, r in zip(self.predicted, self.rows, strict=True))

    def errors(self) -> list[tuple[dict[str, Any], str, str]]:
        return [
            (r, p, d)
            for p, r, d in zip(self.predicted, self.rows, self.details, strict=True)
            if p != r["label"]
        ]


def predict_judge_alone(row: dict[str, Any], *, judge: Judge) -> tuple[str, str]:
    """The judge's verdict on one row with no rule before it (it finds no secrets and sees
    no confidence: those rows it calls durable)."""
    verdict = judge.judge(row["text"].strip())
    return verdict.label, verdict.detail


def score_judge_alone(rows: list[dict[str, Any]], *, judge: Judge) -> Score:
    """The learned judge by itself, for comparison with the gate and with the rules."""
    judge.prepare([r["text"].strip() for r in rows])
    out = [predict_judge_alone(r, judge=judge) for r in rows]
    return Score(rows, [p for p, _ in out], [d for _, d in out])


def score(rows: list[dict[str, Any]], *, judge: Judge | None, policy: Policy) -> Score:
    if judge is not None:
        judge.prepare([r["text"].strip() for r in rows])
    out = [predict(r, judge=judge, policy=policy) for r in rows]
    return Score(rows, [p for p, _ in out], [d for _, d in out])
