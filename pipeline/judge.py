"""The gate's learned judgement: what kind of statement a candidate is, by its meaning.

Lists of time words cannot see that "User has a headache" will not be true tomorrow. A
small linear classifier (multinomial logistic regression) over the MiniLM sentence
embedding tells durable facts from passing states, guesses, talk about the conversation
and planted instructions. It was trained on the tune part of the labelled corpus in
`tests/data/gate_corpus/` (`benchmarks/train_judge.py`) and ships as `judge/judge.npz`:
the weights, a rejection threshold per class, and the vectors of the training examples
of every rejecting class, so that a refusal names the nearest labelled example. It needs
the `semantic` extra; without it the gate's lexical rules are the floor. Deterministic:
the same text gives the same verdict.

A turn pays for the judge only when a candidate reaches it (the rules refuse most junk
first): the weights are read then, once per process, and the examples only when a
verdict refuses and must name one.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .text import has_cjk

if TYPE_CHECKING:
    import numpy as np

    from .retrieval import Embeds

LABELS = ("durable", "ephemeral", "speculative", "small_talk", "injection")
DATA_FILE = Path(__file__).parent / "judge" / "judge.npz"


@dataclass(frozen=True)
class JudgeVerdict:
    """The judged kind of a text, how sure, and (for a refusal) the nearest labelled example."""

    label: str
    probability: float
    nearest: str = ""
    similarity: float = 0.0

    @property
    def detail(self) -> str:
        judged = f"judged {self.label} (p={self.probability:.2f})"
        if not self.nearest:
            return judged
        return (
            f"{judged}; nearest example {self.nearest!r} ({self.label}, cos {self.similarity:.2f})"
        )


@dataclass(frozen=True)
class Classifier:
    """Weights, bias and the probability each rejecting class needs to refuse a text."""

    weights: np.ndarray
    bias: np.ndarray
    thresholds: dict[str, float]


@dataclass(frozen=True)
class Examples:
    """The labelled training examples of one class: unit vectors and their texts."""

    vectors: np.ndarray
    texts: list[str]


class Judge:
    """The trained classifier with its embedder; verdicts are cached per text."""

    def __init__(
        self,
        embedder: Embeds,
        classifier: Classifier | None = None,
        examples: dict[str, Examples] | None = None,
    ) -> None:
        self.embedder = embedder
        self.model_id = embedder.model_id  # an Embeds itself: the vector cache reuses its vectors
        self._classifier = classifier
        self._examples = examples
        self._vectors: dict[str, np.ndarray] = {}
        self._verdicts: dict[str, JudgeVerdict] = {}

    @property
    def classifier(self) -> Classifier:
        if self._classifier is None:
            self._classifier = load_classifier()
        return self._classifier

    @property
    def examples(self) -> dict[str, Examples]:
        if self._examples is None:
            self._examples = load_examples()
        return self._examples

    def prepare(self, texts: Sequence[str]) -> None:
        """Embed `texts` in one batch, so judging them later costs no model call."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            for text, vector in zip(missing, self.embedder.embed(missing), strict=True):
                self._vectors[text] = vector

    def embed(self, texts: list[str], progress: Any = None) -> np.ndarray:
        """Vectors for `texts`, reusing the ones already computed for judging (a turn embeds
        a handful, so `progress` is accepted and not shown)."""
        import numpy as np

        self.prepare(texts)
        return np.stack([self._vectors[t] for t in texts])

    def reads(self, text: str) -> bool:
        """Whether the model can judge `text`: MiniLM was trained on English, and its
        vectors for Chinese text place unrelated sentences close together."""
        return not has_cjk(text)

    def similarity(self, a: str, b: str) -> float:
        """Cosine similarity of two texts' embeddings."""
        self.prepare([a, b])
        return float(self._vectors[a] @ self._vectors[b])

    def judge(self, text: str) -> JudgeVerdict:
        """What `text` is: durable unless another kind passes its class's threshold."""
        if text in self._verdicts:
            return self._verdicts[text]
        import numpy as np

        self.prepare([text])
        vector = self._vectors[text]
        model = self.classifier
        probabilities = softmax(vector @ model.weights + model.bias)
        best = int(np.argmax(probabilities))
        label = LABELS[best]
        if label != "durable" and probabilities[best] < model.thresholds[label]:
            label = "durable"
        probability = float(probabilities[LABELS.index(label)])
        if label == "durable":
            verdict = JudgeVerdict(label, probability)  # a pass needs no example to explain it
        else:
            examples = self.examples[label]
            sims = examples.vectors @ vector
            near = int(np.argmax(sims))
            verdict = JudgeVerdict(label, probability, examples.texts[near], float(sims[near]))
        self._verdicts[text] = verdict
        return verdict


def _read() -> Any:
    import numpy as np

    # Stored uncompressed: each array is read when first used, without inflating the rest.
    return np.load(io.BytesIO(DATA_FILE.read_bytes()))


@cache
def load_classifier() -> Classifier:
    """The shipped weights and thresholds, read once per process (chat and library callers
    build a judge every turn)."""
    npz = _read()
    meta = json.loads(npz["meta"].tobytes())
    return Classifier(npz["weights"], npz["bias"], dict(meta["thresholds"]))


@cache
def load_examples() -> dict[str, Examples]:
    """The shipped examples of each rejecting class, read once per process, when a verdict
    first needs one."""
    import numpy as np

    npz = _read()
    texts = json.loads(npz["example_texts"].tobytes())
    labels = json.loads(npz["example_labels"].tobytes())
    vectors = npz["example_vectors"].astype(np.float32)
    out: dict[str, Examples] = {}
    for label in LABELS[1:]:
        index = [i for i, lab in enumerate(labels) if lab == label]
        out[label] = Examples(vectors[index], [texts[i] for i in index])
    return out


def pack(classifier: Classifier, examples: dict[str, Examples], meta: dict[str, Any]) -> bytes:
    """The data file's bytes: what `load_classifier` and `load_examples` read back."""
    import numpy as np

    def utf8(value: Any) -> np.ndarray:
        return np.frombuffer(json.dumps(value, ensure_ascii=False).encode(), dtype=np.uint8)

    labels = [label for label in LABELS[1:] for _ in examples[label].texts]
    buffer = io.BytesIO()
    np.savez(
        buffer,
        weights=classifier.weights.astype(np.float32),
        bias=classifier.bias.astype(np.float32),
        example_vectors=np.concatenate([examples[lab].vectors for lab in LABELS[1:]]).astype(
            np.float16
        ),
        example_texts=utf8([t for lab in LABELS[1:] for t in examples[lab].texts]),
        example_labels=utf8(labels),
        meta=utf8({**meta, "thresholds": classifier.thresholds}),
    )
    return buffer.getvalue()


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
