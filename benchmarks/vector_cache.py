"""Embeddings of benchmark texts, cached in one .npz file outside the repository."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

from pipeline.embeddings import Embedder, content_key

DEFAULT = (
    Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    / "memory-test-bench"
    / f"vectors-{Embedder.model_id}.npz"
)


class VectorCache:
    """Embeddings by content key, kept in one .npz file; the model is built on first miss."""

    model_id = Embedder.model_id

    def __init__(self, path: Path) -> None:
        self.path = path
        self.vectors: dict[str, np.ndarray] = {}
        self._embedder: Embedder | None = None
        self.embedded = 0
        if path.exists():
            with np.load(path, allow_pickle=False) as data:
                self.vectors = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))

    def embed(self, texts: list[str]) -> np.ndarray:
        keys = [content_key(t) for t in texts]
        missing = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in self.vectors})
        if missing:
            if self._embedder is None:
                self._embedder = Embedder()
            plain = {k: t for k, t in zip(keys, texts, strict=True)}
            chunk = 2048
            for start in range(0, len(missing), chunk):
                part = missing[start : start + chunk]
                rows = self._embedder.embed([plain[k] for k in part])
                self.vectors.update(zip(part, rows, strict=True))
                self.embedded += len(part)
                if len(missing) > chunk:
                    print(f"  embedded {self.embedded} texts", file=sys.stderr, flush=True)
        if not keys:
            return np.zeros((0, 384), np.float32)
        return np.stack([self.vectors[k] for k in keys]).astype(np.float32)

    def save(self) -> None:
        if not self.embedded:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = sorted(self.vectors)
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(tmp, keys=np.array(keys), vectors=np.stack([self.vectors[k] for k in keys]))
        os.replace(tmp, self.path)
