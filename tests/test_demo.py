"""Seed 000's harness is part of the suite: all three demos must pass."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.helpers import PROJECT


def test_seed_demos_pass() -> None:
    """Short-term continuity, long-term recall in a new session, and user isolation."""
    result = subprocess.run(
        [sys.executable, str(PROJECT / "demo" / "seed_demos.py")],
        capture_output=True,
        text=True,
        env={"PATH": os.environ.get("PATH", "")},
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert [line.split()[0] for line in result.stdout.splitlines()] == ["PASS"] * 3
