"""Helpers for tests: environments, reflection replies, the command line in-process and as
a process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from pipeline import store
from pipeline.config import Settings, load_settings
from pipeline.models import LtmFile
from tests.llm_server import ScriptedLLM, Step, is_reflection, reply_step

PROJECT = Path(__file__).resolve().parent.parent


def turn_env(server: ScriptedLLM, state_dir: Path, **extra: str) -> dict[str, str]:
    """Environment for a turn against the scripted server: test key, no retry waits."""
    return {
        "MOONSHOT_API_KEY": "sk-test-not-a-real-key",
        "MEMTEST_BASE_URL": server.url,
        "MEMTEST_STATE_DIR": str(state_dir),
        "MEMTEST_RETRY_MAX_WAIT": "0",
        "MEMTEST_TIMEOUT": "5",
        "MEMTEST_RETRIEVER": "lexical",
        "MEMTEST_ENV_FILE": os.environ["MEMTEST_ENV_FILE"],
        **extra,
    }


def keyless_env(state_dir: Path, **extra: str) -> dict[str, str]:
    """Environment for commands that need no model: no API key, lexical retrieval."""
    return {
        "MEMTEST_STATE_DIR": str(state_dir),
        "MEMTEST_ENV_FILE": os.environ["MEMTEST_ENV_FILE"],
        "MEMTEST_RETRIEVER": "lexical",
        **extra,
    }


def make_settings(server: ScriptedLLM, state_dir: Path, **extra: str) -> Settings:
    return load_settings(environ=turn_env(server, state_dir, **extra))


def candidate(
    content: str,
    *,
    type: str = "preference",
    subject: str = "user",
    confidence: float = 0.9,
    action: str = "create",
    reason: str = "stated",
    **more: Any,
) -> dict[str, Any]:
    return {
        "type": type,
        "subject": subject,
        "content": content,
        "confidence": confidence,
        "reason": reason,
        "action": action,
        **more,
    }


def reflection(
    *candidates: dict[str, Any], revisions: list[dict[str, Any]] | None = None, **more: Any
) -> str:
    return json.dumps({"candidates": list(candidates), "revisions": revisions or [], **more})


def echo_responder(request: dict[str, Any]) -> Step:
    """Answers "echo: <input>"; reflects "remember: X" in the input as a candidate X."""
    user = request["messages"][-1]["content"]
    if not is_reflection(request):
        return reply_step(f"echo: {user}")
    text = user.split("USER INPUT:", 1)[1].split("ASSISTANT RESPONSE:", 1)[0].strip()
    facts = [part.strip() for part in text.split("remember:")[1:]]
    return reply_step(reflection(*(candidate(f) for f in facts)))


def run_cli(
    *args: str, env: dict[str, str], stdin: str | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """memory_test.py as a real subprocess, with only the environment given (plus PATH)."""
    full_env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(PROJECT), **env}
    return subprocess.run(
        [sys.executable, str(PROJECT / "memory_test.py"), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=full_env,
        timeout=timeout,
        cwd=PROJECT,
        check=False,
    )


def invoke(
    *args: str, env: dict[str, str], stdin: str | bytes | None = None
) -> subprocess.CompletedProcess[str]:
    """memory_test.py's `main(argv)` in this process, as `run_cli` runs it as a process:
    only the environment given (plus PATH), standard streams captured, the exit code
    returned. The environment and streams are put back afterwards, so nothing leaks; the
    state folder and .env of the conftest's autouse fixture hold unless `env` names others."""
    from click.testing import CliRunner

    from pipeline.cli import main

    saved = dict(os.environ)
    os.environ.clear()
    guarded = {k: saved[k] for k in ("MEMTEST_STATE_DIR", "MEMTEST_ENV_FILE") if k in saved}
    os.environ.update({"PATH": saved.get("PATH", ""), **guarded, **env})
    try:
        with CliRunner().isolation(input=stdin) as (out, err, _):
            code = main(list(args), project_dir=PROJECT)
            sys.stdout.flush()
            sys.stderr.flush()
            stdout = out.getvalue().decode("utf-8", "replace")
            stderr = err.getvalue().decode("utf-8", "replace")
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return subprocess.CompletedProcess(list(args), code, stdout, stderr)


def start_turn(text: str, env: dict[str, str]) -> subprocess.Popen[str]:
    """A turn of memory_test.py started as a real process, not waited for."""
    full_env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(PROJECT), **env}
    return subprocess.Popen(
        [sys.executable, str(PROJECT / "memory_test.py"), "-i", text],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=full_env,
        cwd=PROJECT,
    )


def seed_memories(settings: Settings, *contents: str) -> None:
    """Store active preference memories mem_0001, mem_0002... for the settings' user."""
    from tests.strategies import NOW, memory

    p = settings.paths
    ltm = LtmFile(
        next_seq=len(contents) + 1,
        memories=[memory(f"mem_{i + 1:04d}", c, age_hours=0) for i, c in enumerate(contents)],
    )
    store.transact(p, lambda _d: store.Change(result=None, ltm=ltm), now=NOW, lock_timeout=5)
