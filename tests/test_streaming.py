"""Streamed answers: printed as they arrive, redacted as a whole answer is, and a stream that
breaks off is a failed turn that saves nothing."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.streaming import AnswerPrinter
from tests.helpers import PROJECT, candidate, reflection, run_cli, turn_env
from tests.llm_server import ScriptedLLM


def printed(pieces: list[str], answer: str | None = None) -> tuple[list[str], str]:
    """What an AnswerPrinter writes, write by write, for these pieces and this answer."""
    writes: list[str] = []
    printer = AnswerPrinter(writes.append)
    for piece in pieces:
        printer.delta(piece)
    printer.finish("".join(pieces).strip() if answer is None else answer)
    return writes, "".join(writes)


def test_sentences_are_written_as_soon_as_they_end() -> None:
    """A finished sentence is written before the next one is complete."""
    writes: list[str] = []
    printer = AnswerPrinter(writes.append)
    printer.delta("Tea is ")
    assert writes == []
    printer.delta("lovely. Coffee")
    assert "".join(writes) == "Tea is lovely. "
    printer.delta(" too.")
    printer.finish("Tea is lovely. Coffee too.")
    assert "".join(writes) == "Tea is lovely. Coffee too.\n"


def test_a_secret_split_across_pieces_is_masked() -> None:
    """The noun and the value arrive in different pieces; the value is still masked."""
    _, text = printed(["Your door ", "code is 44", "71, as you", " said. Bye."])
    assert "4471" not in text
    assert "Bye." in text


def test_chinese_sentences_end_without_a_space() -> None:
    """Full-width punctuation ends a sentence, so Chinese answers stream too."""
    writes: list[str] = []
    printer = AnswerPrinter(writes.append)
    printer.delta("你好。今天")
    assert "".join(writes) == "你好。"


def test_an_answer_that_was_not_streamed_is_written_whole() -> None:
    """finish() alone writes the complete answer (a model that does not stream)."""
    _, text = printed([], answer="Whole answer.")
    assert text == "Whole answer.\n"


def test_abort_ends_a_partial_line_once() -> None:
    """A broken-off answer gets its line ended, so an error starts on a line of its own."""
    writes: list[str] = []
    printer = AnswerPrinter(writes.append, prefix="assistant> ")
    printer.delta("Half a sentence. and then")
    printer.abort()
    printer.abort()
    assert "".join(writes) == "assistant> Half a sentence. and then\n"


@pytest.fixture
def env(llm: ScriptedLLM, state_dir: Path) -> dict[str, str]:
    return turn_env(llm, state_dir)


def test_stream_flag_streams_into_a_pipe_with_the_same_output(
    llm: ScriptedLLM, env: dict[str, str]
) -> None:
    """--stream asks the server for a stream and prints exactly the plain answer."""
    answer = "Green tea is a good choice. It has less caffeine than coffee."
    llm.reply(answer).reply(reflection(candidate("User likes green tea")))
    result = run_cli("-i", "I like green tea", "--stream", env=env)
    assert (result.returncode, result.stdout, result.stderr) == (0, answer + "\n", "")
    assert llm.requests[0]["stream"] is True
    assert "stream" not in llm.requests[1]  # the reflection is one JSON reply


def test_a_pipe_gets_one_complete_answer_by_default(llm: ScriptedLLM, env: dict[str, str]) -> None:
    """Piped, with neither flag, the answer is not streamed."""
    llm.reply("Hi.").reply(reflection())
    result = run_cli("-i", "hi", env=env)
    assert result.stdout == "Hi.\n"
    assert "stream" not in llm.requests[0]


def test_json_never_streams(llm: ScriptedLLM, env: dict[str, str]) -> None:
    """--json wins over --stream: one object, one complete answer."""
    llm.reply("Hi.").reply(reflection())
    result = run_cli("-i", "hi", "--stream", "--json", env=env)
    assert json.loads(result.stdout)["response"] == "Hi."
    assert "stream" not in llm.requests[0]


def test_a_stream_that_breaks_off_saves_nothing(
    llm: ScriptedLLM, env: dict[str, str], state_dir: Path
) -> None:
    """The text shown so far stays on screen, the turn fails with exit 1 and a message
    that says so, and neither the session nor the memory is written."""
    llm.reply("First answer.").reply(reflection(candidate("User likes tea")))
    assert run_cli("-i", "I like tea", env=env).returncode == 0
    saved = {p: p.read_bytes() for p in state_dir.rglob("*") if p.is_file()}
    llm.requests.clear()
    llm.cut_stream("This answer will never be finished by the server at all.", after=2)
    result = run_cli("-i", "hello again", "--stream", env=env)
    assert result.returncode == 1
    assert result.stdout == "This answer will never be finished \n"
    assert "broke off after" in result.stderr
    assert "nothing was saved" in result.stderr
    assert len(llm.requests) == 1  # not retried, no reflection
    assert {p: p.read_bytes() for p in state_dir.rglob("*") if p.is_file()} == saved


def test_a_terminal_gets_the_answer_streamed(llm: ScriptedLLM, env: dict[str, str]) -> None:
    """With standard output on a terminal (a pseudo-terminal here) the answer streams."""
    answer = "Streaming on a terminal works. Every sentence shows up as it arrives."
    llm.reply(answer).reply(reflection())
    leader, follower = pty.openpty()
    full_env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(PROJECT), **env}
    process = subprocess.Popen(
        [sys.executable, str(PROJECT / "memory_test.py"), "-i", "hi"],
        stdout=follower,
        stderr=subprocess.PIPE,
        env=full_env,
        cwd=PROJECT,
    )
    os.close(follower)
    output = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closes when the process exits
            break
        if not chunk:
            break
        output += chunk
    os.close(leader)
    _, errors = process.communicate(timeout=60)
    assert (process.returncode, errors) == (0, b"")
    assert output.decode().replace("\r\n", "\n") == answer + "\n"
    assert llm.requests[0]["stream"] is True
