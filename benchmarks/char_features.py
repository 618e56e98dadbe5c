"""Training of the gate's character n-gram model (pipeline/charjudge.py), with numpy.

Full-batch gradient descent with Nesterov momentum on sparse hashed features:
deterministic (no random start, no shuffling), seconds for a few thousand rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pipeline.charjudge import LABELS, features


class Sparse:
    """Rows of hashed n-gram features in coordinate form."""

    def __init__(self, texts: Sequence[str], bits: int) -> None:
        rows, cols, vals = [], [], []
        for i, text in enumerate(texts):
            for b, x in features(text, bits).items():
                rows.append(i)
                cols.append(b)
                vals.append(x)
        self.n = len(texts)
        self.dims = 1 << bits
        self.rows = np.array(rows, dtype=np.int64)
        self.cols = np.array(cols, dtype=np.int64)
        self.vals = np.array(vals, dtype=np.float64)

    def take(self, keep: np.ndarray) -> Sparse:
        """The rows where `keep` is true, renumbered."""
        out = Sparse([], 0)
        index = np.cumsum(keep) - 1
        mask = keep[self.rows]
        out.n, out.dims = int(keep.sum()), self.dims
        out.rows, out.cols, out.vals = index[self.rows[mask]], self.cols[mask], self.vals[mask]
        return out

    def scores(self, w: np.ndarray, b: np.ndarray) -> np.ndarray:
        """X @ w + b."""
        out = np.stack(
            [
                np.bincount(self.rows, weights=self.vals * w[self.cols, c], minlength=self.n)
                for c in range(w.shape[1])
            ],
            axis=1,
        )
        return out + b  # type: ignore[no-any-return]

    def gradient(self, grad: np.ndarray) -> np.ndarray:
        """X.T @ grad."""
        return np.stack(
            [
                np.bincount(self.cols, weights=self.vals * grad[self.rows, c], minlength=self.dims)
                for c in range(grad.shape[1])
            ],
            axis=1,
        )


def softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)  # type: ignore[no-any-return]


def train_chars(
    x: Sparse, labels: Sequence[str], *, l2: float, steps: int = 300, rate: float = 4.0
) -> tuple[np.ndarray, np.ndarray]:
    """Class-balanced multinomial logistic regression on sparse features."""
    y = np.array([LABELS.index(label) for label in labels])
    k = len(LABELS)
    onehot = np.eye(k)[y]
    counts = onehot.sum(axis=0)
    weight = (x.n / (k * np.maximum(counts, 1)))[y][:, None]
    w = np.zeros((x.dims, k))
    b = np.zeros(k)
    vw, vb = np.zeros_like(w), np.zeros_like(b)
    momentum = 0.9
    for _ in range(steps):
        lw, lb = w + momentum * vw, b + momentum * vb
        grad = (softmax(x.scores(lw, lb)) - onehot) * weight / x.n
        gw = x.gradient(grad) + l2 * lw
        vw = momentum * vw - rate * gw
        vb = momentum * vb - rate * grad.sum(axis=0)
        w, b = w + vw, b + vb
    return w, b


def quantised(w: np.ndarray) -> np.ndarray:
    """`w` as the shipped int8 weights give it back."""
    scale = float(np.abs(w).max()) / 127 or 1.0
    return np.clip(np.round(w / scale), -127, 127) * scale  # type: ignore[no-any-return]
