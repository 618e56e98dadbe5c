"""Semantic retrieval speed: a large import, cold searches, and warm in-process searches.

1. `memory import` of N memories (distractors from benchmarks/profiles.py) into an empty
   state folder, with the semantic retriever: the gate, the write and the embedding of
   every new memory, in a fresh process.
2. `memory search` twice, each in a fresh process: the first finds every vector cached
   by the import; the second is the same, as a user would run it again.
3. WarmMemory.search in this process at 1,000 and N memories (median of repeated
   searches after one warm-up), as chat or a server would run it.

    python benchmarks/semantic_speed.py [--memories 10000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.profiles import distractors  # noqa: E402
from pipeline.config import load_settings  # noqa: E402
from pipeline.embeddings import semantic_available  # noqa: E402
from pipeline.warm import WarmMemory  # noqa: E402

QUERIES = [
    "what instrument do I play?",
    "where did my colleague go on holiday?",
    "which films do I enjoy?",
    "who has a parrot?",
    "what did I buy last year?",
]


def run(env: dict[str, str], *args: str) -> tuple[float, str]:
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, str(ROOT / "memory_test.py"), *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(f"{' '.join(args[:2])} failed: {result.stderr.strip()}")
    return seconds, result.stdout.strip().splitlines()[-1]


def import_and_search(count: int, folder: Path) -> dict[str, str]:
    rows = distractors("speed", set(), count)
    dump = folder / "memories.jsonl"
    dump.write_text(
        "\n".join(json.dumps({"type": t, "subject": s, "content": c}) for t, s, c in rows)
    )
    (folder / "empty.env").write_text("")
    env = {
        **os.environ,
        "MEMTEST_STATE_DIR": str(folder / f"state-{count}"),
        "MEMTEST_ENV_FILE": str(folder / "empty.env"),
        "MEMTEST_RETRIEVER": "semantic",
    }
    seconds, summary = run(env, "memory", "import", str(dump))
    print(f"memory import of {count:,} memories: {seconds:.1f} s ({summary})")
    first, _ = run(env, "memory", "search", QUERIES[0])
    second, _ = run(env, "memory", "search", QUERIES[1])
    print(f"memory search, first: {first:.2f} s; second: {second:.2f} s")
    print(f"import + first search: {seconds + first:.1f} s")
    return env


def warm_searches(env: dict[str, str], repeats: int = 20) -> float:
    settings = load_settings(environ=env)
    warm = WarmMemory(settings)
    warm.search(QUERIES[0])  # builds the embedder, parses the store, reads the vectors
    times = []
    for i in range(repeats):
        started = time.perf_counter()
        warm.search(QUERIES[i % len(QUERIES)], limit=10)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    args = parser.parse_args()
    if not semantic_available():
        sys.exit("needs the semantic extra: pip install -e '.[semantic]'")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        small = import_and_search(1_000, folder)
        large = import_and_search(args.memories, folder)
        for label, env in (("1,000", small), (f"{args.memories:,}", large)):
            print(f"warm in-process search at {label} memories: {warm_searches(env):.0f} ms median")


if __name__ == "__main__":
    main()
