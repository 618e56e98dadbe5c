"""Retrieval kept warm across requests in one process: chat, a library, a server.

A command-line call builds the embedder (model hash, ONNX session, tokenizer), parses
ltm.json and reads the vector cache, then exits. A process that answers many requests
does each of these once: `WarmMemory` keeps the embedder, and parses ltm.json or reads the
vector cache again only when that file changed (its size, modification time or inode;
writers replace files atomically, so a new file is a new inode).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from . import store
from .models import Memory
from .retrieval import Retrieval, Retriever, retrieve_relevant

if TYPE_CHECKING:
    import numpy as np

    from .config import Settings

_FileKey = tuple[int, int, int] | None


def _file_key(path: os.PathLike[str] | str) -> _FileKey:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


class WarmMemory:
    """One user's long-term memory and retriever, reused for as long as the process lives."""

    def __init__(self, settings: Settings, retriever: Retriever | None = None) -> None:
        self.settings = settings
        self.paths = settings.paths
        self.retriever = retriever or Retriever.create(semantic=settings.semantic_retrieval())
        self._ltm_key: _FileKey = None
        self._snapshot: store.Snapshot | None = None
        self._vector_key: _FileKey = None
        self._vectors: dict[str, np.ndarray] | None = None
        self._matrix: tuple[tuple[_FileKey, _FileKey], np.ndarray] | None = None

    def snapshot(self, now: datetime | None = None) -> store.Snapshot:
        """The parsed state, read again only when ltm.json changed on disk."""
        key = _file_key(self.paths.ltm)
        if self._snapshot is None or key != self._ltm_key:
            self._snapshot = store.load(
                self.paths, now=now or datetime.now(UTC), quarantine_ltm=False
            )
            self._ltm_key = key
        return self._snapshot

    def vectors_for(self, memories: Sequence[Memory]) -> tuple[np.ndarray | None, int, int]:
        """Rows for `memories` (None without embeddings), from the cache held in memory;
        what is missing is embedded and saved. Returns the rows, how many were cached and
        how many embedded now."""
        embedder = self.retriever.embedder
        if embedder is None:
            return None, 0, 0
        import numpy as np

        from .embeddings import DIMENSIONS, content_key

        key = _file_key(self.paths.vectors)
        if self._vectors is None or key != self._vector_key:
            self._vectors = store.read_vectors(self.paths, embedder.model_id)
            self._vector_key = key
        cache = self._vectors
        keys = [content_key(m.content) for m in memories]
        missing = sorted(
            {k: m.content for k, m in zip(keys, memories, strict=True) if k not in cache}.items()
        )
        if missing:
            rows = embedder.embed([text for _, text in missing])
            cache.update({k: row for (k, _), row in zip(missing, rows, strict=True)})
            store.write_vectors(
                self.paths, cache, embedder.model_id, lock_timeout=self.settings.lock_timeout
            )
            self._vector_key = _file_key(self.paths.vectors)
        if not keys:
            return np.zeros((0, DIMENSIONS), np.float32), 0, 0
        return np.stack([cache[k] for k in keys]), len(keys) - len(missing), len(missing)

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        history: Sequence[str] = (),
        min_confidence: float = 0.0,
        now: datetime | None = None,
    ) -> Retrieval:
        """The best `limit` active memories for `query`, as `memory search` finds them."""
        now = now or datetime.now(UTC)
        memories = self.snapshot(now).ltm.memories
        state = (self._ltm_key, _file_key(self.paths.vectors))
        if self._matrix is not None and self._matrix[0] == state:
            vectors: np.ndarray | None = self._matrix[1]
        else:
            vectors, _, _ = self.vectors_for(memories)
            if vectors is not None:
                self._matrix = ((self._ltm_key, self._vector_key), vectors)
        return retrieve_relevant(
            memories,
            query=query,
            history=history,
            min_confidence=min_confidence,
            token_budget=10**9,
            max_items=max(1, limit),
            retriever=self.retriever,
            vectors=vectors,
            now=now,
            horizon_hours=self.settings.decay_horizon_hours,
        )
