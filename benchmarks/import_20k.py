"""Time `memory import` of 20,000 exported memories into an empty store (the real CLI, in
a fresh process), and check that they all arrived. Target: under 10 s.

    python benchmarks/import_20k.py [--count N]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent


def rows(count: int) -> str:
    lines = []
    for i in range(count):
        at = f"2026-0{1 + i % 9}-1{i % 10}T08:00:00Z"
        lines.append(
            json.dumps(
                {
                    "id": f"mem_{i + 1:05d}",
                    "type": "preference",
                    "subject": "user",
                    "content": f"User has visited city number {i}",
                    "confidence": 0.8,
                    "reason": "exported",
                    "created_at": at,
                    "last_reinforced": at,
                    "hit_count": 1 + i % 5,
                    "source_turn_id": f"t-{i:012x}",
                    "status": "active",
                    "source": "reflection",
                    "decay": "stable",
                }
            )
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=20_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "memories.jsonl"
        source.write_text(rows(args.count))
        empty_env = Path(tmp) / "empty.env"
        empty_env.write_text("")
        env = {
            "PATH": os.environ.get("PATH", ""),
            "PYTHONPATH": str(PROJECT),
            "MEMTEST_STATE_DIR": str(Path(tmp) / "state"),
            "MEMTEST_ENV_FILE": str(empty_env),
            "MEMTEST_RETRIEVER": "lexical",
        }
        command = [sys.executable, str(PROJECT / "memory_test.py"), "memory", "import"]
        started = time.perf_counter()
        cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
        result = subprocess.run(
            [*command, str(source), "--json"], capture_output=True, text=True, env=env, check=False
        )
        seconds = time.perf_counter() - started
        cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
        # CPU time moves less than wall time when other processes share the machine.
        cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (
            cpu_after.ru_stime - cpu_before.ru_stime
        )
        if result.returncode != 0:
            sys.exit(f"import failed ({result.returncode}): {result.stderr.strip()}")
        verdicts = [r["verdict"] for r in json.loads(result.stdout)["results"]]
        stored = json.loads((Path(tmp) / "state" / "ltm.json").read_text())["memories"]
        print(
            f"imported {args.count:,} lines in {seconds:.2f} s (whole process; CPU {cpu:.2f} s, "
            f"load average {os.getloadavg()[0]:.2f}): "
            f"{verdicts.count('accepted'):,} accepted, {len(stored):,} stored, "
            f"ltm.json {(Path(tmp) / 'state' / 'ltm.json').stat().st_size / 1e6:.1f} MB"
        )


if __name__ == "__main__":
    main()
