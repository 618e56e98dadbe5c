"""The two stores side by side: a turn's time outside the LLM, and `memory add`.

For the JSON files and for PostgreSQL (a real server, started here with initdb + pg_ctl
on a Unix socket, as the tests do), at 1,000 and 10,000 memories for one user, and for
PostgreSQL also with 100 users x 1,000 memories in the same database. Every measured
operation runs in a fresh process, as the CLI does; times are taken inside it, after
the imports. `connect` is opening the database connection (and checking its schema), a
cost each process pays once; it is inside the turn's `load` and outside `memory add`.
`store part` is the store's share of `memory add`: lock, read the memories near the new
text (PostgreSQL; the JSON store reads them all), append one, commit.

    python benchmarks/store_bench.py [--runs 5] [--sizes 1000 10000] [--users 100]
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
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from turn_overhead import instant, synthetic_store  # noqa: E402

from pipeline import store  # noqa: E402
from pipeline.models import HistoryEntry, Memory  # noqa: E402
from tests.llm_server import ScriptedLLM  # noqa: E402


def environment(state: str, url: str, store_url: str, user: str) -> dict[str, str]:
    env = {
        "MOONSHOT_API_KEY": "sk-bench",
        "MEMTEST_BASE_URL": url,
        "MEMTEST_STATE_DIR": state,
        "MEMTEST_ENV_FILE": str(Path(state).parent / "empty.env"),
        "MEMTEST_MAX_PER_DAY": "10000",
        "MEMTEST_RETRIEVER": "lexical",
        "MEMTEST_USER_ID": user,
    }
    if store_url:
        env["MEMTEST_STORE"] = store_url
    return env


def worker(argv: list[str]) -> None:
    """One measured operation in this fresh process; prints its numbers as JSON."""
    op, state, url, store_url, user, text = argv

    from pipeline.config import load_settings

    settings = load_settings(environ=environment(state, url, store_url, user))
    if op == "add":
        from pipeline.api import Memory

        t0 = time.perf_counter()
        settings.store.ensure_usable()
        connect = time.perf_counter() - t0
        t0 = time.perf_counter()
        verdict = Memory(settings=settings).add(text, type="habit")
        add = time.perf_counter() - t0
        assert verdict.verdict == "accepted", verdict
        t0 = time.perf_counter()
        focus = store.Focus(texts=("User keeps a plant called",))  # as `memory add` reads
        settings.store.transact(one_more, now=datetime.now(UTC), lock_timeout=30, focus=focus)
        commit = time.perf_counter() - t0
        print(json.dumps({"connect": connect * 1000, "add": add * 1000, "store": commit * 1000}))
        return
    from pipeline.llm import ChatModel
    from pipeline.turn import run_turn

    with ChatModel(settings) as model:
        t0 = time.perf_counter()
        report = run_turn(text, settings, model=model)
        total = time.perf_counter() - t0
    llm = (report.timings_ms["answer"] + report.timings_ms["reflect"]) / 1000
    print(json.dumps({"outside": (total - llm) * 1000, **report.timings_ms}))


def one_more(disk: store.Snapshot) -> store.Change[None]:
    """The store's share of `memory add`: re-read under the lock, append one memory, commit
    (no gate)."""
    now = datetime.now(UTC)
    mid = f"mem_{disk.ltm.next_seq:05d}"
    disk.ltm.next_seq += 1
    disk.ltm.memories.append(
        Memory(
            id=mid,
            type="habit",
            subject="user",
            content=f"User keeps a plant called {mid}",
            confidence=1.0,
            created_at=now,
            last_reinforced=now,
        )
    )
    entry = HistoryEntry(memory_id=mid, at=now, event="created")
    return store.Change(result=None, ltm=disk.ltm, history=[entry])


def run_worker(op: str, state: Path, server: ScriptedLLM, store_url: str, user: str) -> Any:
    """Run one operation in a fresh process; `op` is "turn <text>" or "add <text>"."""
    kind, text = op.split(" ", 1)
    out = subprocess.run(
        [sys.executable, __file__, "--worker", kind, str(state), server.url, store_url, user, text],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def seed(target: store.Store, size: int) -> None:
    ltm = synthetic_store(size, datetime.now(UTC))
    target.transact(
        lambda _d: store.Change(result=None, ltm=ltm), now=datetime.now(UTC), lock_timeout=60
    )


def measure(
    tmp: Path, server: ScriptedLLM, store_url: str, user: str, runs: int
) -> dict[str, float]:
    """Median of `runs` turns and `runs` adds against what is seeded."""
    state = tmp / "state"
    run_worker("turn warm-up: what tea do I like?", state, server, store_url, user)
    turns = [
        run_worker(f"turn what tea for chess night {n}?", state, server, store_url, user)
        for n in range(runs)
    ]
    adds = [
        run_worker(f"add User waters the fern on Sundays {n}x", state, server, store_url, user)
        for n in range(runs)
    ]
    return {
        "outside": statistics.median(t["outside"] for t in turns),
        "load": statistics.median(t["load"] for t in turns),
        "commit": statistics.median(t["commit"] for t in turns),
        "add": statistics.median(a["add"] for a in adds),
        "connect": statistics.median(a["connect"] for a in adds),
        "store": statistics.median(a["store"] for a in adds),
    }


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2:8])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000])
    parser.add_argument("--users", type=int, default=100)
    args = parser.parse_args()

    from pipeline.pgstore import PostgresStore, connection
    from tests.pgserver import PgServer, find_bin_dir

    bin_dir = find_bin_dir()
    if bin_dir is None:
        sys.exit("PostgreSQL binaries (initdb, pg_ctl) not found")
    pg = PgServer.start(bin_dir)
    print(
        f"median of {args.runs} runs, each in a fresh process (ms; lexical retrieval; LLM = "
        "instant local server; imports and interpreter start excluded); load average "
        + " ".join(f"{x:.1f}" for x in os.getloadavg())
    )
    print(
        f"{'store':>10} {'users':>5} {'memories':>8} {'turn outside LLM':>16} {'load':>6} "
        f"{'commit':>6} {'memory add':>10} {'store part':>10} {'connect':>7}"
    )
    try:
        cases: list[tuple[str, int, int]] = [
            (kind, size, 1) for size in args.sizes for kind in ("json", "postgresql")
        ]
        if args.users > 1:
            cases.append(("postgresql", 1000, args.users))
        for kind, size, users in cases:
            with tempfile.TemporaryDirectory() as folder, ScriptedLLM(responder=instant) as llm:
                tmp = Path(folder)
                (tmp / "empty.env").write_text("")
                store_url = pg.new_database() if kind == "postgresql" else ""
                started = time.perf_counter()
                for u in range(users):
                    user = f"user-{u:03d}"
                    target: store.Store = (
                        PostgresStore(store_url, user)
                        if store_url
                        else store.FileStore(store.StatePaths(tmp / "state", user))
                    )
                    seed(target, size)
                if store_url:
                    connection(store_url).execute("VACUUM ANALYZE")
                seeded = time.perf_counter() - started
                r = measure(tmp, llm, store_url, f"user-{users // 2:03d}", args.runs)
            print(
                f"{kind:>10} {users:>5} {size:>8} {r['outside']:>16.1f} {r['load']:>6.1f} "
                f"{r['commit']:>6.1f} {r['add']:>10.1f} {r['store']:>10.1f} "
                f"{r['connect'] if store_url else 0:>7.1f}   (seeded in {seeded:.1f} s)",
                flush=True,
            )
    finally:
        pg.stop()
        print("load average at the end " + " ".join(f"{x:.1f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
