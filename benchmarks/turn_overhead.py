"""Time a turn spends outside the LLM, by store size and retriever, and its peak memory.

Runs real turns (real openai client, real HTTP, real files) against a local scripted
server that answers instantly. Each measured turn runs in a fresh process, as a CLI turn
does; times are taken inside it, after the interpreter has started and the modules are
imported, and exclude the two LLM round trips. Peak memory is the worker's max RSS.

    python benchmarks/turn_overhead.py [--turns 5] [--sizes 0 1000 10000] [--no-judge]
                                       [--new-facts] [--llm-ms 0]

`--no-judge` adds a semantic row with the gate's learned judgement switched off (the rules
alone), so the judge's cost is read off one run. By default the reflection proposes the
same two candidates every turn (a passing state, refused, and a fact that is merged after
the first turn); `--new-facts` proposes a fact never seen before instead, which the judge
reads and the turn stores. `--llm-ms` makes the server take that long to answer each call,
as a real model does; what a turn does in the background while it waits (compiling the
gate's patterns) is then hidden, as it is with Kimi, instead of competing with the turn.
'turn-server' is the whole turn less the server's time (`--llm-ms` for each call): what
the user waits for beyond the model, client and background work included, which 'outside
LLM' (the turn less its two calls) cannot see.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline import store  # noqa: E402
from pipeline.models import LtmFile, Memory  # noqa: E402
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
            )
        )
    return LtmFile(next_seq=size + 1, memories=memories)


def new_facts() -> Callable[[dict], Step]:
    """A responder whose reflection proposes a fact never seen before on every turn, so the
    gate judges it and the turn stores (and embeds) it."""
    turns = itertools.count()

    def respond(request: dict) -> Step:
        if is_reflection(request):
            n = next(turns)
            return reply_step(
                reflection(
                    candidate(f"User keeps {n} jars of {TOPICS[n % len(TOPICS)]} tea"),
                    candidate("User is tired right now"),
                )
            )
        return reply_step("An instant answer.")

    return respond


def instant(request: dict) -> Step:
    if is_reflection(request):
        return reply_step(
            reflection(
                candidate("User likes green tea with jasmine"), candidate("User is tired right now")
            )
        )
    return reply_step("An instant answer.")


def worker(state: str, url: str, retriever: str, text: str, llm_ms: str) -> None:
    """One measured turn in this fresh process; prints its numbers as JSON."""
    started = time.perf_counter()
    from pipeline import turn
    from pipeline.config import load_settings
    from pipeline.llm import ChatModel
    from pipeline.turn import run_turn

    if retriever == "semantic-nojudge":
        retriever = "semantic"
        turn.build_judge = lambda *_args: None  # type: ignore[assignment]

    settings = load_settings(
        environ={
            "MOONSHOT_API_KEY": "sk-bench",
            "MEMTEST_BASE_URL": url,
            "MEMTEST_STATE_DIR": state,
            "MEMTEST_ENV_FILE": str(Path(state).parent / "empty.env"),
            "MEMTEST_MAX_PER_DAY": "10000",
            "MEMTEST_RETRIEVER": retriever,
        }
    )
    if retriever == "semantic":  # the extra's imports are start-up, not turn time
        import numpy  # noqa: F401
        import onnxruntime  # noqa: F401
        import tokenizers  # noqa: F401
    with ChatModel(settings) as model:  # imports openai: start-up, not turn time
        imports = time.perf_counter() - started
        t0 = time.perf_counter()
        report = run_turn(text, settings, model=model)
        total = time.perf_counter() - t0
    llm = (report.timings_ms["answer"] + report.timings_ms["reflect"]) / 1000
    calls = 2 + len(report.reflection_errors)  # the answer, the reflection, any re-ask
    print(
        json.dumps(
            {
                "imports": imports * 1000,
                "outside": (total - llm) * 1000,
                "beyond_server": total * 1000 - calls * float(llm_ms),
                **report.timings_ms,
                "context_tokens": sum(r.tokens for r in report.used),
                "used": len(report.used),
                "mode": report.selection_mode,
                "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            }
        )
    )


def run_worker(state: Path, url: str, retriever: str, text: str, llm_ms: int) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--worker", str(state), url, retriever, text, str(llm_ms)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def bench(size: int, retriever: str, turns: int, *, fresh: bool = False, llm_ms: int = 0) -> dict:
    scripted = new_facts() if fresh else instant

    def responder(request: dict) -> Step:
        return dataclasses.replace(scripted(request), delay=llm_ms / 1000)

    with tempfile.TemporaryDirectory() as tmp, ScriptedLLM(responder=responder) as server:
        state = Path(tmp) / "state"
        (Path(tmp) / "empty.env").write_text("")
        paths = store.StatePaths(state)
        ltm = synthetic_store(size, datetime.now(UTC))
        store.transact(
            paths,
            lambda _d: store.Change(result=None, ltm=ltm),
            now=datetime.now(UTC),
            lock_timeout=30,
        )
        file_kb = paths.ltm.stat().st_size / 1024 if paths.ltm.exists() else 0.0
        # The warm-up turn builds the vector cache, as the first semantic turn on an old
        # store would; measured turns then see the steady state.
        run_worker(state, server.url, retriever, "warm-up: what tea do I like?", llm_ms)
        rows = [
            run_worker(
                state,
                server.url,
                retriever,
                f"what tea should I buy for my chess evening {n}?",
                llm_ms,
            )
            for n in range(turns)
        ]
    result = {key: statistics.median(row[key] for row in rows) for key in rows[0] if key != "mode"}
    result["file_kb"] = file_kb
    result["mode"] = rows[-1]["mode"]
    return result


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(*sys.argv[2:7])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[0, 1000, 10_000])
    parser.add_argument("--no-judge", action="store_true", help="add semantic without the judge")
    parser.add_argument(
        "--new-facts",
        action="store_true",
        help="propose a new fact every turn (stored) instead of the same one (merged)",
    )
    parser.add_argument(
        "--llm-ms", type=int, default=0, help="milliseconds the server takes to answer each call"
    )
    args = parser.parse_args()
    from pipeline.embeddings import semantic_available

    retrievers = ["lexical", "semantic"] if semantic_available() else ["lexical"]
    if args.no_judge and semantic_available():
        retrievers.append("semantic-nojudge")
    print(
        f"median of {args.turns} turns, each in a fresh process (ms; the local server takes "
        f"{args.llm_ms} ms per call; 'outside LLM' and 'turn-server' exclude interpreter start "
        "and imports)"
    )
    print(
        f"{'memories':>8} {'retriever':>16} {'ltm KB':>7} {'load':>6} {'retrieve':>8} "
        f"{'gate':>6} {'commit':>7} {'outside LLM':>11} {'turn-server':>11} {'imports':>7} "
        f"{'peak MB':>7} "
        f"{'ctx tokens':>10} {'in prompt':>9}"
    )
    for size in args.sizes:
        for retriever in retrievers:
            r = bench(size, retriever, args.turns, fresh=args.new_facts, llm_ms=args.llm_ms)
            print(
                f"{size:>8} {retriever:>16} {r['file_kb']:>7.0f} {r['load']:>6.1f} "
                f"{r['retrieve']:>8.1f} {r['gate']:>6.1f} {r['commit']:>7.1f} "
                f"{r['outside']:>11.1f} {r['beyond_server']:>11.1f} {r['imports']:>7.0f} "
                f"{r['peak_mb']:>7.0f} "
                f"{r['context_tokens']:>10.0f} {r['used']:>9.0f}"
            )


if __name__ == "__main__":
    main()
