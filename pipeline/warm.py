"""Retrieval kept warm across requests in one process: chat, a library, a server.

A command-line call builds the embedder (model hash, ONNX session, tokenizer), parses
ltm.json and reads the vector cache, then exits. A process that answers many requests
does each of these once: `WarmMemory` keeps the embedder, and reads the memories or the
vector cache again only when the store's version of them changed (for the file store: the
file's size, modification time or inode; writers replace files atomically, so a new file is
a new inode).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from .models import Memory
from .retrieval import Retrieval, Retriever, retrieve_relevant

if TYPE_CHECKING:
    import numpy as np

    from .config import Settings
    from .store import Snapshot


class WarmMemory:
    """One user's long-term memory and retriever, reused for as long as the process lives."""

    def __init__(self, settings: Settings, retriever: Retriever | None = None) -> None:
        self.settings = settings
        self.store = settings.store
        self.retriever = retriever or Retriever.create(semantic=settings.semantic_retrieval())
        self._ltm_key: Hashable = None
        self._snapshot: Snapshot | None = None
        self._vector_key: Hashable = None
        self._vectors: dict[str, np.ndarray] | None = None
        self._matrix: tuple[tuple[Hashable, Hashable], np.ndarray] | None = None

    def snapshot(self, now: datetime | None = None) -> Snapshot:
        """The parsed state, read again only when ltm.json changed on disk."""
        key = self.store.version()
        if self._snapshot is None or key != self._ltm_key:
            self._snapshot = self.store.load(now=now or datetime.now(UTC), quarantine_ltm=False)
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

        key = self.store.vectors_version()
        if self._vectors is None or key != self._vector_key:
            self._vectors = self.store.read_vectors(embedder.model_id)
            self._vector_key = key
        cache = self._vectors
        keys = [content_key(m.content) for m in memories]
        missing = sorted(
            {k: m.content for k, m in zip(keys, memories, strict=True) if k not in cache}.items()
        )
        if missing:
            rows = embedder.embed([text for _, text in missing])
            cache.update({k: row for (k, _), row in zip(missing, rows, strict=True)})
            self.store.write_vectors(
                cache, embedder.model_id, lock_timeout=self.settings.lock_timeout
            )
            self._vector_key = self.store.vectors_version()
        if not keys:
            return np.zeros((0, DIMENSIONS), np.float32), 0, 0
        return np.stack([cache[k] for k in keys]), len(keys) - len(missing), len(missing)

    def memories_and_vectors(
        self, now: datetime | None = None
    ) -> tuple[list[Memory], np.ndarray | None]:
        """Every stored memory and its vector row (None without embeddings), both kept
        until the store's memories or vector cache change."""
        memories = self.snapshot(now).ltm.memories
        state = (self._ltm_key, self.store.vectors_version())
        if self._matrix is not None and self._matrix[0] == state:
            return memories, self._matrix[1]
        vectors, _, _ = self.vectors_for(memories)
        if vectors is not None:
            self._matrix = ((self._ltm_key, self._vector_key), vectors)
        return memories, vectors

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
        memories, vectors = self.memories_and_vectors(now)
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
