"""WarmMemory: one embedder and one parsed store per process, re-read only on change."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pipeline import store
from pipeline.config import load_settings
from pipeline.retrieval import Retriever
from pipeline.warm import WarmMemory
from tests.helpers import seed_memories
from tests.strategies import NOW


class CountingEmbedder:
    """Deterministic vectors from the text's words; counts the texts it embedded."""

    model_id = "counting"

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.texts.extend(texts)
        rows = []
        for text in texts:
            v = np.zeros(8, np.float32)
            for word in text.lower().split():
                v[sum(map(ord, word)) % 8] += 1.0
            rows.append(v / (np.linalg.norm(v) or 1.0))
        return np.array(rows, dtype=np.float32)


def settings_for(state_dir: Path, tmp_path: Path):
    env_file = tmp_path / "warm.env"
    env_file.write_text("")
    return load_settings(
        environ={"MEMTEST_STATE_DIR": str(state_dir), "MEMTEST_ENV_FILE": str(env_file)}
    )


def test_store_is_parsed_again_only_when_the_file_changed(state_dir: Path, tmp_path: Path) -> None:
    """Two searches share one parsed snapshot; a write by someone else is seen at once."""
    settings = settings_for(state_dir, tmp_path)
    seed_memories(settings, "User plays the cello", "User lives in Leeds")
    warm = WarmMemory(settings, Retriever())
    first = warm.snapshot(NOW)
    assert warm.search("cello").used[0].memory.content == "User plays the cello"
    assert warm.snapshot(NOW) is first

    seed_memories(settings, "User plays the cello", "User lives in Leeds", "User keeps bees")
    assert warm.snapshot(NOW) is not first
    assert warm.search("bees").used[0].memory.content == "User keeps bees"


def test_vectors_are_embedded_once_and_saved(state_dir: Path, tmp_path: Path) -> None:
    """Each memory is embedded once across searches; new memories only are embedded
    later, and the cache file holds them for the next process."""
    settings = settings_for(state_dir, tmp_path)
    seed_memories(settings, "User plays the cello", "User lives in Leeds")
    embedder = CountingEmbedder()
    warm = WarmMemory(settings, Retriever(embedder))
    warm.search("cello please")
    warm.search("where do I live")
    memory_texts = [t for t in embedder.texts if t.startswith("User")]
    assert sorted(memory_texts) == ["User lives in Leeds", "User plays the cello"]

    seed_memories(settings, "User plays the cello", "User lives in Leeds", "User keeps bees")
    found = warm.search("bees")
    assert found.selection_mode == "semantic"
    assert [t for t in embedder.texts if t.startswith("User")][2:] == ["User keeps bees"]
    assert len(store.read_vectors(settings.paths, "counting")) == 3
