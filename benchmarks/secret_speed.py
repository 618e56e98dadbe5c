"""CPU time of `find_secrets` per call: over every text of the gate corpus, and on one long
listing (`memory list` at 1,000 memories is one text, redacted once).

The cache is bypassed, so every call does the whole work; the word lists and validators are
loaded before timing (once per process in real use). Each measure is the median of
`--rounds` rounds.

    python benchmarks/secret_speed.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from turn_overhead import synthetic_store  # noqa: E402

from benchmarks.gate_eval import corpus_texts  # noqa: E402
from pipeline import credentials  # noqa: E402


def per_call_us(texts: list[str], rounds: int) -> float:
    """Median over rounds of the CPU microseconds per call, uncached."""
    find = credentials._find_secrets.__wrapped__
    for text in texts:
        find(text)  # word lists, validators and patterns loaded before timing
    times = []
    for _ in range(rounds):
        started = time.process_time()
        for text in texts:
            find(text)
        times.append((time.process_time() - started) * 1e6 / len(texts))
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    texts = corpus_texts()
    listing = "\n".join(
        f"{m.id}  {m.type:<12} {m.confidence:.2f}  {m.content}"
        for m in synthetic_store(1000, datetime.now(UTC)).memories
    )
    print(f"corpus: {len(texts)} texts, {per_call_us(texts, args.rounds):.1f} µs per call")
    ms = per_call_us([listing], args.rounds) / 1000
    print(f"listing: {len(listing)} characters, {ms:.2f} ms per call")


if __name__ == "__main__":
    main()
