"""Time a turn spends outside the LLM, at 0, 1,000 and 10,000 memories.

Runs real turns (real openai client, real HTTP, real files) against a local scripted server
that answers instantly, and prints per-stage times, the time outside the two LLM calls,
and the tokens of long-term memory context the answer prompt carried.

    python benchmarks/turn_overhead.py [--turns 5] [--sizes 0 1000 10000]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline import gate, store, text  # noqa: E402
from pipeline.config import load_settings  # noqa: E402
from pipeline.llm import ChatModel  # noqa: E402
from pipeline.models import HistoryEntry, LtmFile, Memory  # noqa: E402
from pipeline.turn import run_turn  # noqa: E402
from tests.helpers import candidate, reflection  # noqa: E402
from tests.llm_server import ScriptedLLM, Step, is_reflection, reply_step  # noqa: E402

TOPICS = [
    "tea",
    "jazz",
    "chess",
    "Rust",
    "hiking",
    "Lisbon",
    "cello",
    "sushi",
    "Go",
    "yoga",
    "cats",
    "poetry",
    "cycling",
    "Berlin",
    "Python",
    "gardening",
    "running",
    "opera",
]
VERBS = ["likes", "plays", "studies", "avoids", "collects", "teaches", "writes about"]


def synthetic_store(size: int, now: datetime) -> LtmFile:
    memories = []
    for i in range(size):
        at = now - timedelta(days=40, minutes=i)
        content = (
            f"User's contact {i} {VERBS[i % len(VERBS)]} {TOPICS[i % len(TOPICS)]} "
            f"and {TOPICS[(i * 7) % len(TOPICS)]} on day {i % 31}"
        )
        memories.append(
            Memory(
                id=f"mem_{i + 1:05d}",
                type="relationship",
                subject="other",
                content=content,
                confidence=0.7 + (i % 30) / 100,
                reason="benchmark",
                created_at=at,
                last_reinforced=at,
                source_turn_id=f"t-{i}",
                history=[
                    HistoryEntry(
                        at=at,
                        event="created",
                        turn_id=f"t-{i}",
                        after={"content": content, "confidence": 0.8},
                    )
                ],
            )
        )
    return LtmFile(next_seq=size + 1, memories=memories)


def instant(request: dict) -> Step:
    if is_reflection(request):
        return reply_step(
            reflection(
                candidate("User likes green tea with jasmine"), candidate("User is tired right now")
            )
        )
    return reply_step("An instant answer.")


def cold_caches() -> None:
    """Each CLI turn is a new process: start every measured turn with empty caches."""
    text._terms.cache_clear()
    text.stem.cache_clear()
    gate._fingerprint.cache_clear()


def bench_size(size: int, turns: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp, ScriptedLLM(responder=instant) as server:
        state = Path(tmp) / "state"
        (Path(tmp) / "none.env").write_text("")
        settings = load_settings(
            environ={
                "MOONSHOT_API_KEY": "sk-bench",
                "MEMTEST_BASE_URL": server.url,
                "MEMTEST_STATE_DIR": str(state),
                "MEMTEST_ENV_FILE": str(Path(tmp) / "none.env"),
                "MEMTEST_MAX_PER_DAY": "10000",
            }
        )
        paths = store.StatePaths(state)
        ltm = synthetic_store(size, datetime.now(UTC))
        store.transact(
            paths,
            lambda _d: store.Change(result=None, ltm=ltm),
            now=datetime.now(UTC),
            lock_timeout=30,
        )
        file_kb = paths.ltm.stat().st_size / 1024 if paths.ltm.exists() else 0.0
        model = ChatModel(settings)
        run_turn("warm-up: what tea do I like?", settings, model=model)
        rows = []
        for n in range(turns):
            cold_caches()
            started = time.perf_counter()
            report = run_turn(
                f"what tea should I buy for my chess evening {n}?", settings, model=model
            )
            total = (time.perf_counter() - started) * 1000
            llm = report.timings_ms["answer"] + report.timings_ms["reflect"]
            rows.append(
                {
                    **report.timings_ms,
                    "total": total,
                    "outside": total - llm,
                    "context_tokens": sum(r.tokens for r in report.used),
                    "used": len(report.used),
                }
            )
    result = {key: statistics.median(row[key] for row in rows) for key in rows[0]}
    result["file_kb"] = file_kb
    return result


def cli_start_ms() -> tuple[float, float]:
    """Median wall time of `--help` (no openai import) and of importing openai, in ms."""

    def run(args: list[str]) -> float:
        started = time.perf_counter()
        subprocess.run([sys.executable, *args], check=True, capture_output=True, cwd=ROOT)
        return (time.perf_counter() - started) * 1000

    helps = [run(["memory_test.py", "--help"]) for _ in range(5)]
    imports = [run(["-c", "import openai"]) for _ in range(5)]
    return statistics.median(helps), statistics.median(imports)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[0, 1000, 10_000])
    args = parser.parse_args()

    print(
        f"turn overhead, median of {args.turns} turns per size, caches cold as in a new process"
        " (ms; LLM = instant local server)"
    )
    header = (
        f"{'memories':>9} {'ltm KB':>8} {'load':>7} {'retrieve':>8} {'gate':>6} "
        f"{'commit':>7} {'LLM http':>8} {'outside LLM':>11} {'ctx tokens':>10} "
        f"{'in prompt':>9}"
    )
    print(header)
    for size in args.sizes:
        r = bench_size(size, args.turns)
        print(
            f"{size:>9} {r['file_kb']:>8.0f} {r['load']:>7.1f} {r['retrieve']:>8.1f} "
            f"{r['gate']:>6.1f} {r['commit']:>7.1f} {r['answer'] + r['reflect']:>8.1f} "
            f"{r['outside']:>11.1f} {r['context_tokens']:>10.0f} {r['used']:>9.0f}"
        )
    help_ms, openai_ms = cli_start_ms()
    print(
        f"process start: `memory_test.py --help` {help_ms:.0f} ms; `import openai` alone "
        f"{openai_ms:.0f} ms (paid only by turns)"
    )


if __name__ == "__main__":
    main()
