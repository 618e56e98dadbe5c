"""Start-up of a command that only reads memory, against a bare `import pydantic, filelock`.

`memory list` at 1,000 memories runs in a fresh process, as a user runs it; so does the
baseline, a Python that imports only the two libraries every memory command needs. The two
are interleaved run by run so that load on the machine touches both alike, and the ratio of
their medians is the number to watch (issue target: at most 1.5x). A third process shows the
floor under any command that validates state with the project's pydantic models: the same
imports, the models, and ltm.json validated, with nothing printed (`memory list` reads a
file in the form the program writes without them; see pipeline/quicklist.py).

    python benchmarks/startup.py [--runs 15] [--size 1000]
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from turn_overhead import synthetic_store  # noqa: E402

CPU_SECONDS: dict[str, list[float]] = {}


def timed(argv: list[str], env: dict[str, str]) -> float:
    """Wall-clock seconds of one process from spawn to exit; fails loudly if it fails. Its
    CPU seconds (user and system) go to CPU_SECONDS, which load on the machine moves less."""
    started = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, env=env, cwd=ROOT, capture_output=True, check=False)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{argv} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    CPU_SECONDS.setdefault(" ".join(argv), []).append(cpu)
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--size", type=int, default=1000)
    args = parser.parse_args()

    # As an installed package has it (pip compiles on install): without current bytecode,
    # a module edited since its .pyc was written is compiled again by every process.
    compileall.compile_dir(ROOT / "pipeline", quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state"
        state.mkdir()
        ltm = synthetic_store(args.size, datetime.now(UTC))
        (state / "ltm.json").write_text(ltm.model_dump_json(indent=2), encoding="utf-8")
        empty = Path(tmp) / "empty.env"
        empty.write_text("", encoding="utf-8")
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("MEMTEST_", "MOONSHOT_"))
        }
        env.update(
            MEMTEST_STATE_DIR=str(state),
            MEMTEST_ENV_FILE=str(empty),
        )
        bare = [sys.executable, "-c", "import pydantic, filelock"]
        # The least any command can do that validates the state with the project's models.
        floor = [
            sys.executable,
            "-c",
            "import pathlib, pydantic, filelock; from pipeline.models import LtmFile; "
            f"LtmFile.model_validate_json(pathlib.Path({str(state / 'ltm.json')!r}).read_bytes())",
        ]
        listing = [sys.executable, "memory_test.py", "memory", "list"]
        for argv in (bare, floor, listing):
            timed(argv, env)
        baseline: list[float] = []
        validated: list[float] = []
        command: list[float] = []
        for _ in range(args.runs):
            baseline.append(timed(bare, env))
            validated.append(timed(floor, env))
            command.append(timed(listing, env))

    base = statistics.median(baseline)
    print(f"runs {args.runs}, {args.size} memories, load average {os.getloadavg()[0]:.2f}")
    for name, times, argv in (
        ("bare `import pydantic, filelock`", baseline, bare),
        ("+ models, ltm.json validated", validated, floor),
        ("`memory list`", command, listing),
    ):
        middle = statistics.median(times)
        cpu = statistics.median(CPU_SECONDS[" ".join(argv)])
        print(
            f"{name:34} median {middle * 1000:6.1f} ms  {middle / base:.2f}x  "
            f"CPU {cpu * 1000:6.1f} ms"
        )


if __name__ == "__main__":
    main()
