"""The gate's learned judgement: what kind of statement a candidate is, by its meaning.

Lists of time words cannot see that "User has a headache" will not be true tomorrow. A
small linear classifier (multinomial logistic regression) over the MiniLM sentence
embedding tells durable facts from passing states, guesses, talk about the conversation
and planted instructions. It was trained on the tune part of the labelled corpus in
`tests/data/gate_corpus/` (`benchmarks/train_judge.py`) and ships as `judge/judge.npz`:
the weights, the rejection threshold, and the training examples' vectors so that every
verdict names the nearest labelled example. It needs the `semantic` extra; without it
the gate's lexical rules are the floor. Deterministic: the same text gives the same
verdict.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from .retrieval import Embeds

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
LABELS = ("durable", "ephemeral", "speculative", "small_talk", "injection")
DATA_FILE = "judge.npz"


@dataclass(frozen=True)
class JudgeVerdict:
    """The judged kind of a text, how sure, and the labelled example nearest to it."""

    label: str
    probability: float
    nearest: str
    similarity: float

    @property
    def detail(self) -> str:
        return (
            f"judged {self.label} (p={self.probability:.2f}); nearest example "
            f"{self.nearest!r} ({self.label}, cos {self.similarity:.2f})"
        )


class Judge:
    """The trained classifier with its embedder; verdicts are cached per text."""

    def __init__(self, embedder: Embeds, data: dict[str, Any] | None = None) -> None:
        import numpy as np

        data = data if data is not None else load_data()
        self.embedder = embedder
        self.weights = np.asarray(data["weights"], dtype=np.float32)
        self.bias = np.asarray(data["bias"], dtype=np.float32)
        self.threshold = float(data["threshold"])
        self.examples = np.asarray(data["example_vectors"], dtype=np.float32)
        self.example_texts: list[str] = list(data["example_texts"])
        self.example_labels: list[str] = list(data["example_labels"])
        self._vectors: dict[str, np.ndarray] = {}
        self._verdicts: dict[str, JudgeVerdict] = {}

    def prepare(self, texts: Sequence[str]) -> None:
        """Embed `texts` in one batch, so judging them later costs no model call."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            for text, vector in zip(missing, self.embedder.embed(missing), strict=True):
                self._vectors[text] = vector

    @property
    def model_id(self) -> str:
        return self.embedder.model_id

    def embed(self, texts: list[str], progress: Any = None) -> np.ndarray:
        """Vectors for `texts`, reusing the ones already computed for judging (a turn embeds
        a handful, so `progress` is accepted and not shown)."""
        import numpy as np

        self.prepare(texts)
        return np.stack([self._vectors[t] for t in texts])

    def reads(self, text: str) -> bool:
        """Whether the model can judge `text`: MiniLM was trained on English, and its
        vectors for Chinese text place unrelated sentences close together."""
        return _CJK.search(text) is None

    def similarity(self, a: str, b: str) -> float:
        """Cosine similarity of two texts' embeddings."""
        self.prepare([a, b])
        return float(self._vectors[a] @ self._vectors[b])

    def judge(self, text: str) -> JudgeVerdict:
        """What `text` is: durable unless another kind is more likely than the threshold."""
        if text in self._verdicts:
            return self._verdicts[text]
        import numpy as np

        self.prepare([text])
        vector = self._vectors[text]
        probabilities = softmax(vector @ self.weights + self.bias)
        best = int(np.argmax(probabilities))
        label = LABELS[best]
        if label != "durable" and probabilities[best] < self.threshold:
            label = "durable"
        index = [i for i, lab in enumerate(self.example_labels) if lab == label]
        sims = self.examples[index] @ vector
        near = int(np.argmax(sims))
        verdict = JudgeVerdict(
            label=label,
            probability=float(probabilities[LABELS.index(label)]),
            nearest=self.example_texts[index[near]],
            similarity=float(sims[near]),
        )
        self._verdicts[text] = verdict
        return verdict


@cache
def load_data() -> dict[str, Any]:
    """The shipped classifier: weights, bias, threshold and labelled example vectors. Read
    once per process: chat and library callers build a judge every turn."""
    import io

    import numpy as np

    raw = files("pipeline").joinpath("judge", DATA_FILE).read_bytes()
    with np.load(io.BytesIO(raw)) as npz:
        meta = json.loads(str(npz["meta"]))
        return {
            "weights": npz["weights"],
            "bias": npz["bias"],
            "threshold": meta["threshold"],
            "example_vectors": npz["example_vectors"],
            "example_texts": meta["example_texts"],
            "example_labels": meta["example_labels"],
        }


def softmax(logits: np.ndarray) -> np.ndarray:
    import numpy as np

    shifted = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return shifted / shifted.sum(axis=-1, keepdims=True)  # type: ignore[no-any-return]


def train(
    vectors: np.ndarray,
    labels: Sequence[str],
    *,
    l2: float = 1e-3,
    steps: int = 3000,
    rate: float = 2.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Class-balanced multinomial logistic regression by full-batch gradient descent:
    deterministic (no random start, no shuffling), and seconds for a few hundred rows."""
    import numpy as np

    y = np.array([LABELS.index(label) for label in labels])
    n, dims = vectors.shape
    onehot = np.eye(len(LABELS), dtype=np.float64)[y]
    counts = onehot.sum(axis=0)
    sample_weight = (n / (len(LABELS) * np.maximum(counts, 1)))[y][:, None]
    w = np.zeros((dims, len(LABELS)))
    b = np.zeros(len(LABELS))
    x = vectors.astype(np.float64)
    for _ in range(steps):
        grad = (softmax(x @ w + b) - onehot) * sample_weight / n
        w -= rate * (x.T @ grad + l2 * w)
        b -= rate * grad.sum(axis=0)
    return w.astype(np.float32), b.astype(np.float32)
