"""The MCP server's latency, as an agent sees it: start-up, then warm tool calls.

1. `memory import` of N memories (distractors from benchmarks/profiles.py) into an empty
   state folder.
2. `memory-test mcp` started over stdio by the SDK's client: time to a finished
   `initialize`, and to the first `search` (which builds the embedder and reads the
   vectors).
3. Medians of repeated `search`, `recall`, `get` and `add` calls on the warm server
   (each `add` a new memory, through the gate, committed and embedded).

    python benchmarks/mcp_latency.py [--memories 1000] [--retriever semantic|lexical]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

from benchmarks.profiles import distractors  # noqa: E402
from benchmarks.semantic_speed import QUERIES  # noqa: E402


def prepare(folder: Path, count: int, retriever: str) -> dict[str, str]:
    """A state folder holding `count` imported memories, and the server's environment."""
    rows = distractors("mcp", set(), count)
    dump = folder / "memories.jsonl"
    dump.write_text(
        "\n".join(json.dumps({"type": t, "subject": s, "content": c}) for t, s, c in rows)
    )
    (folder / "empty.env").write_text("")
    env = {
        "MEMTEST_STATE_DIR": str(folder / "state"),
        "MEMTEST_ENV_FILE": str(folder / "empty.env"),
        "MEMTEST_RETRIEVER": retriever,
        "PYTHONPATH": str(ROOT),
    }
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, str(ROOT / "memory_test.py"), "memory", "import", str(dump)],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        sys.exit(f"memory import failed: {result.stderr.strip()}")
    summary = result.stdout.strip().splitlines()[-1]
    print(f"memory import of {count:,}: {time.perf_counter() - started:.1f} s ({summary})")
    return env


async def median_ms(repeats: int, call: Callable[[int], Awaitable[Any]]) -> float:
    times = []
    for i in range(repeats):
        started = time.perf_counter()
        result = await call(i)
        times.append((time.perf_counter() - started) * 1000)
        if getattr(result, "is_error", False):
            sys.exit(f"a tool call failed: {result.content}")
    return statistics.median(times)


async def measure(env: dict[str, str], repeats: int) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=[str(ROOT / "memory_test.py"), "mcp"], env=env
    )
    started = time.perf_counter()
    with open(os.devnull, "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as streams,
            ClientSession(streams[0], streams[1]) as session,
        ):
            await session.initialize()
            print(f"start-up to initialized: {time.perf_counter() - started:.2f} s")
            first = time.perf_counter()
            await session.call_tool("search", {"query": QUERIES[0]})
            print(f"first search (embedder, vectors): {time.perf_counter() - first:.2f} s")

            def search(i: int) -> Awaitable[Any]:
                return session.call_tool("search", {"query": QUERIES[i % len(QUERIES)]})

            def recall(i: int) -> Awaitable[Any]:
                return session.call_tool("recall", {"message": QUERIES[i % len(QUERIES)]})

            def get(i: int) -> Awaitable[Any]:
                return session.call_tool("get", {"id": f"mem_{i + 1:04d}"})

            def add(i: int) -> Awaitable[Any]:
                text = f"User keeps benchmark notebook number {i} on the top shelf"
                return session.call_tool("add", {"content": text, "type": "habit"})

            for name, call in (("search", search), ("recall", recall), ("get", get)):
                print(f"{name}: {await median_ms(repeats, call):.0f} ms median of {repeats}")
            print(f"add: {await median_ms(max(3, repeats // 2), add):.0f} ms median")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=1_000)
    parser.add_argument("--retriever", choices=("semantic", "lexical"), default="semantic")
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = prepare(Path(tmp), args.memories, args.retriever)
        asyncio.run(measure(env, args.repeats))


if __name__ == "__main__":
    main()
