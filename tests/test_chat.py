"""The interactive chat loop, driven through standard input like a person at a terminal."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.helpers import PROJECT, candidate, invoke, reflection, turn_env
from tests.llm_server import ScriptedLLM


def test_chat_turns_and_slash_commands(llm: ScriptedLLM, state_dir: Path) -> None:
    """Lines are turns; slash commands list, clear and reset; /quit leaves with exit 0."""
    llm.reply("Hi Sam!").reply(reflection(candidate("User's name is Sam", type="identity")))
    llm.reply("You're Sam.").reply(reflection())
    script = "Hi, I'm Sam\n/memories\n/trace on\nwho am I?\n/bogus\n/reset\n/reset\n/quit\nnever\n"
    result = invoke("chat", env=turn_env(llm, state_dir), stdin=script)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "assistant> Hi Sam!" in out
    assert "mem_0001  identity" in out
    assert "assistant> You're Sam." in out
    assert "retrieval: 1 of 1 memories" in result.stderr  # the trace, after /trace on
    assert "unknown command '/bogus'" in out
    assert "(session cleared: 2 turns)" in out
    assert "(long-term memory cleared: 1 memories)" in out
    assert "(the session is already empty)" in out
    assert len(llm.requests) == 4  # the line after /quit was never sent


def test_a_failed_turn_keeps_the_chat_alive(llm: ScriptedLLM, state_dir: Path) -> None:
    """An LLM error is reported and the next line still works; EOF leaves cleanly."""
    for _ in range(4):
        llm.error(503, "server_error")
    llm.reply("Back.").reply(reflection())
    result = invoke("chat", env=turn_env(llm, state_dir), stdin="one\ntwo\n")
    assert result.returncode == 0
    assert "server error" in result.stderr
    assert "assistant> Back." in result.stdout


def test_a_line_that_is_not_utf8_is_refused_and_the_chat_goes_on(
    llm: ScriptedLLM, state_dir: Path
) -> None:
    """A piped line with undecodable bytes is refused before retrieval and the model (it
    crashed the embedder, or failed in the HTTP call); the next line is answered."""
    llm.reply("Back.").reply(reflection())
    result = subprocess.run(
        [sys.executable, str(PROJECT / "memory_test.py"), "chat"],
        check=False,
        input=b"hello \xff there\nsecond line\n",
        capture_output=True,
        env={
            "PATH": os.environ.get("PATH", ""),
            "LC_ALL": "C",
            **turn_env(llm, state_dir),
        },
        timeout=60,
    )
    stderr = result.stderr.decode("utf-8", "replace")
    assert result.returncode == 0, stderr
    assert "not valid UTF-8 text; nothing was sent to the model" in stderr
    assert "Traceback" not in stderr
    assert b"assistant> Back." in result.stdout
    assert len(llm.requests) == 2  # the second line's answer and reflection only


def test_ctrl_c_leaves_cleanly_with_state_intact(llm: ScriptedLLM, state_dir: Path) -> None:
    """SIGINT while waiting for input ends the chat with exit 0; finished turns are saved."""
    llm.reply("Saved.").reply(reflection(candidate("User likes tea")))
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(PROJECT),
        **turn_env(llm, state_dir),
    }
    # A suite run in the background ignores SIGINT, and a child started so would ignore it
    # too; a handler of the suite's own is reset to the default in the child.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    chat = subprocess.Popen(
        [sys.executable, str(PROJECT / "memory_test.py"), "chat"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=PROJECT,
    )
    signal.signal(signal.SIGINT, previous)
    with chat as proc:
        assert proc.stdin is not None
        assert proc.stdout is not None
        proc.stdin.write("I like tea\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == "assistant> Saved.\n"
        deadline = time.monotonic() + 10
        while not (state_dir / "session.json").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 0
    assert (state_dir / "ltm.json").exists()
    assert "User likes tea" in (state_dir / "ltm.json").read_text()


def test_chat_needs_the_key(llm: ScriptedLLM, state_dir: Path) -> None:
    """Without MOONSHOT_API_KEY the chat does not start: exit 2 and what to set."""
    env = turn_env(llm, state_dir)
    del env["MOONSHOT_API_KEY"]
    result = invoke("chat", env=env, stdin="hello\n")
    assert result.returncode == 2
    assert "MOONSHOT_API_KEY" in result.stderr


def test_chat_in_a_project_labels_and_recalls_by_it(llm: ScriptedLLM, state_dir: Path) -> None:
    """`chat --project a` labels what it learns with a; `/memories` and turns of a chat in
    project b do not show it."""
    env = turn_env(llm, state_dir)
    llm.reply("Noted.").reply(reflection(candidate("User deploys on Fridays", type="habit")))
    result = invoke("chat", "--project", "a", env=env, stdin="we deploy on Fridays\n")
    assert result.returncode == 0, result.stderr
    stored = json.loads((state_dir / "ltm.json").read_text())["memories"]
    assert [m["project"] for m in stored] == ["a"]
    llm.reply("No idea.").reply(reflection())
    other = invoke("chat", "--project", "b", env=env, stdin="/memories\nwhen do I deploy?\n")
    assert other.returncode == 0, other.stderr
    assert "deploys on Fridays" not in other.stdout
    assert "deploys on Fridays" not in json.dumps(llm.requests[-2])
