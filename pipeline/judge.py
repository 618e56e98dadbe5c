"""The gate's learned judgement: what kind of statement a candidate is, by its meaning.

Lists of time words cannot see that "User has a headache" will not be true tomorrow. Two
small linear classifiers (multinomial logistic regression) tell durable facts from
passing states, guesses, talk about the conversation and planted instructions:

- one over the MiniLM sentence embedding (`semantic` extra), which reads English only;
  it ships as `judge/judge.npz`: the weights, and the vectors of the training examples
  of every rejecting class, so that a refusal names the nearest labelled example;
- one over hashed character n-grams (`charjudge.py`), which reads any language and needs
  no extra.

English text with the extra installed is judged by the product of the two models'
probabilities, normalised (cross-validation chose it over either alone, and over their
mean); Chinese text, and every text without the extra, by the n-gram model alone. Both
were trained on the tune part of the labelled corpus in `tests/data/gate_corpus/` and
the sentences in `tests/data/judge_train/` (`benchmarks/train_judge.py`), which also
chose each class's rejection thresholds. Deterministic: the same text gives the same verdict.

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

from .charjudge import NEVER, CharModel, load_chars
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
    features: tuple[str, ...] = ()  # the n-grams that weighed most for the label

    @property
    def detail(self) -> str:
        parts = [f"judged {self.label} (p={self.probability:.2f})"]
        if self.nearest:
            parts.append(
                f"nearest example {self.nearest!r} ({self.label}, cos {self.similarity:.2f})"
            )
        if self.features:
            parts.append(f"n-grams {', '.join(repr(g) for g in self.features)}")
        return "; ".join(parts)


@dataclass(frozen=True)
class Classifier:
    """Weights, bias and the probability each rejecting class needs to refuse a text."""

    weights: np.ndarray
    bias: np.ndarray
    thresholds: dict[str, float]
    overrule: float = NEVER  # how sure of "durable" to keep a text a word rule refused


@dataclass(frozen=True)
class Examples:
    """The labelled training examples of one class: unit vectors and their texts."""

    vectors: np.ndarray
    texts: list[str]


class Judge:
    """The trained classifiers, with the embedder when the semantic extra is installed;
    verdicts are cached per text."""

    def __init__(
        self,
        embedder: Embeds | None,
        classifier: Classifier | None = None,
        examples: dict[str, Examples] | None = None,
        chars: CharModel | None = None,
    ) -> None:
        self.embedder = embedder
        # An Embeds itself (with an embedder): the vector cache reuses its vectors.
        self.model_id = embedder.model_id if embedder is not None else ""
        self._classifier = classifier
        self._examples = examples
        self._chars = chars
        self._vectors: dict[str, np.ndarray] = {}
        self._verdicts: dict[str, JudgeVerdict] = {}
        # A text a word rule refused is screened by the n-gram model when the turn's batch
        # is prepared and again when it is decided, then judged: scored once.
        self._char_probabilities: dict[str, list[float]] = {}

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

    @property
    def chars(self) -> CharModel:
        if self._chars is None:
            self._chars = load_chars()
        return self._chars

    def prepare(self, texts: Sequence[str]) -> None:
        """Embed the `texts` the embedding model reads in one batch, so judging them later
        costs no model call."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors and self.embeds(t)]
        if missing:
            assert self.embedder is not None  # embeds() says so
            for text, vector in zip(missing, self.embedder.embed(missing), strict=True):
                self._vectors[text] = vector

    def embed(self, texts: list[str], progress: Any = None) -> np.ndarray:
        """Vectors for `texts`, reusing the ones already computed for judging (a turn embeds
        a handful, so `progress` is accepted and not shown)."""
        import numpy as np

        if self.embedder is None:
            raise ValueError("this judge has no embedder")
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            for text, vector in zip(missing, self.embedder.embed(missing), strict=True):
                self._vectors[text] = vector
        return np.stack([self._vectors[t] for t in texts])

    def embeds(self, text: str) -> bool:
        """Whether the embedding model judges `text`: it is installed, and the text is not
        Chinese (MiniLM was trained on English, and its vectors for Chinese text place
        unrelated sentences close together)."""
        return self.embedder is not None and not has_cjk(text)

    def similarity(self, a: str, b: str) -> float:
        """Cosine similarity of two texts' embeddings."""
        self.embed([a, b])
        return float(self._vectors[a] @ self._vectors[b])

    def judge(self, text: str) -> JudgeVerdict:
        """What `text` is: durable unless another kind passes its class's threshold."""
        if text in self._verdicts:
            return self._verdicts[text]
        if not self.embeds(text):
            judged = self.chars.judge(text)
            verdict = JudgeVerdict(judged.label, judged.probability, features=judged.features)
        else:
            verdict = self._judge_both(text)
        self._verdicts[text] = verdict
        return verdict

    def may_overrule(self, text: str) -> bool:
        """Whether `text`, refused by a word rule, is worth a full verdict: the n-gram model
        alone reads it as durable often enough (no vector is needed to tell)."""
        if not self.embeds(text):
            return True  # the n-gram verdict is the whole verdict, and it is cheap
        # Read from the n-gram model's data, so that a text it settles loads nothing more.
        return self._chars_of(text)[0] >= self.chars.overrule_screen

    def _chars_of(self, text: str) -> list[float]:
        """The n-gram model's probabilities for `text`, computed once per judge."""
        if text not in self._char_probabilities:
            self._char_probabilities[text] = self.chars.probabilities(text)
        return self._char_probabilities[text]

    def overrules(self, text: str) -> JudgeVerdict | None:
        """The verdict that keeps `text` over a word rule's refusal (a time word, a hedge, a
        word of small talk), or None: "durable", held to a probability chosen by
        cross-validation on the rows those rules refuse."""
        if not self.may_overrule(text):
            return None
        verdict = self.judge(text)
        needed = self.classifier.overrule if self.embeds(text) else self.chars.overrule_at(text)
        return verdict if verdict.label == "durable" and verdict.probability >= needed else None

    def _judge_both(self, text: str) -> JudgeVerdict:
        """Both models at once: their probabilities multiplied and normalised (a sum of
        log-probabilities), held to the thresholds chosen for that product."""
        import numpy as np

        self.prepare([text])
        vector = self._vectors[text]
        model = self.classifier
        probabilities = combine(
            softmax(vector @ model.weights + model.bias),
            np.array(self._chars_of(text), dtype=np.float32),
        )
        best = int(np.argmax(probabilities))
        label = LABELS[best]
        if label != "durable" and probabilities[best] < model.thresholds[label]:
            label = "durable"
        probability = float(probabilities[LABELS.index(label)])
        if label == "durable":
            return JudgeVerdict(label, probability)  # a pass needs no example to explain it
        examples = self.examples[label]
        sims = examples.vectors @ vector
        near = int(np.argmax(sims))
        features = self.chars.weighed_most(text, label)
        return JudgeVerdict(label, probability, examples.texts[near], float(sims[near]), features)


def combine(embedded: np.ndarray, chars: np.ndarray) -> np.ndarray:
    """The two models' probabilities (rows of one or many texts) multiplied, normalised."""
    import numpy as np

    return softmax(np.log(np.maximum(embedded, 1e-12)) + np.log(np.maximum(chars, 1e-12)))


@cache
def _read() -> Any:
    import numpy as np

    # Stored uncompressed: each array is read when first used, without inflating the rest;
    # the file is read once per process, for the weights and then, if a verdict needs
    # them, the examples.
    return np.load(io.BytesIO(DATA_FILE.read_bytes()))


@cache
def load_classifier() -> Classifier:
    """The shipped weights and thresholds, read once per process (chat and library callers
    build a judge every turn)."""
    npz = _read()
    meta = json.loads(npz["meta"].tobytes())
    return Classifier(
        npz["weights"],
        npz["bias"],
        dict(meta["thresholds"]),
        float(meta.get("overrule", NEVER)),
    )


@cache
def load_examples() -> dict[str, Examples]:
    """The shipped examples of each rejecting class, read once per process, when a verdict
    first needs one."""
    import numpy as np

    npz = _read()
    texts = json.loads(npz["example_texts"].tobytes())
    labels = json.loads(npz["example_labels"].tobytes())
    vectors = npz["example_vectors"].astype(np.float32)
    by_label: dict[str, list[int]] = {label: [] for label in LABELS[1:]}
    for i, lab in enumerate(labels):
        by_label[lab].append(i)
    return {
        label: Examples(vectors[index], [texts[i] for i in index])
        for label, index in by_label.items()
    }


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
        meta=utf8(
            {
                **meta,
                "thresholds": classifier.thresholds,
                "overrule": classifier.overrule,
            }
        ),
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
