"""Users and sessions: safe ids, separate files, no memory crossing from one user to another."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.config import load_settings
from pipeline.errors import UsageError
from tests.helpers import candidate, invoke, reflection, turn_env
from tests.llm_server import ScriptedLLM


@pytest.mark.parametrize(
    "bad",
    [
        "../escape",
        "a/b",
        "..",
        "a..b",
        "",
        ".hidden",
        "x" * 65,
        "with space",
        "c:\\\\evil",
        "ünïcode",
    ],
)
def test_unsafe_ids_are_usage_errors(bad: str) -> None:
    """Anything that could leave the state folder, or is not a plain name, is refused."""
    with pytest.raises(UsageError, match=r"--user .* is not a valid id"):
        load_settings(user=bad, environ={})
    with pytest.raises(UsageError, match=r"--session .* is not a valid id"):
        load_settings(session=bad, environ={})
    if bad.strip():  # an empty variable means "not set"
        with pytest.raises(UsageError, match=r"MEMTEST_USER_ID .* is not a valid id"):
            load_settings(environ={"MEMTEST_USER_ID": bad})


def test_ids_are_validated_on_the_command_line(llm: ScriptedLLM, state_dir: Path) -> None:
    """--user ../x exits 2 before any work; nothing is created outside the state folder."""
    result = invoke("-i", "hi", "--user", "../outside", env=turn_env(llm, state_dir))
    assert result.returncode == 2
    assert "--user '../outside' is not a valid id" in result.stderr
    assert llm.requests == []
    assert not (state_dir.parent / "outside").exists()


def test_default_user_keeps_the_top_level_files(llm: ScriptedLLM, state_dir: Path) -> None:
    """The default user's files stay where they always were; others get users/<id>/."""
    env = turn_env(llm, state_dir)
    llm.reply("ok").reply(reflection(candidate("User likes tea")))
    assert invoke("-i", "I like tea", env=env).returncode == 0
    llm.reply("ok").reply(reflection(candidate("User likes jazz")))
    assert invoke("-i", "I like jazz", "--user", "alice", env=env).returncode == 0
    assert (state_dir / "ltm.json").exists()
    assert (state_dir / "session.json").exists()
    alice = json.loads((state_dir / "users" / "alice" / "ltm.json").read_text())
    assert [m["content"] for m in alice["memories"]] == ["User likes jazz"]


def test_one_users_memories_never_reach_another_users_prompt(
    llm: ScriptedLLM, state_dir: Path
) -> None:
    """Alice's memory is in Alice's next prompt and in no part of Bob's."""
    env = turn_env(llm, state_dir)
    llm.reply("ok").reply(reflection(candidate("User is allergic to peanuts")))
    invoke("-i", "I'm allergic to peanuts", "--user", "alice", env=env)
    llm.reply("ok").reply(reflection())
    invoke("-i", "any peanuts in satay?", "--user", "bob", env=env)
    llm.reply("ok").reply(reflection())
    invoke("-i", "any peanuts in satay?", "--user", "alice", env=env)
    bob_requests = json.dumps(llm.requests[2:4])
    assert "allergic" not in bob_requests
    assert "allergic to peanuts" in llm.requests[4]["messages"][0]["content"]


def test_named_sessions_keep_their_own_turns(llm: ScriptedLLM, state_dir: Path) -> None:
    """--session work has its own messages; the current session is left as it was."""
    env = turn_env(llm, state_dir)
    llm.reply("a1").reply(reflection())
    invoke("-i", "in the default session", env=env)
    llm.reply("a2").reply(reflection())
    result = invoke("-i", "at work", "--session", "work", "--json", env=env)
    assert json.loads(result.stdout)["session_id"] == "work"
    work = json.loads((state_dir / "sessions" / "work.json").read_text())
    assert [m["content"] for m in work["messages"]] == ["at work", "a2"]
    default = json.loads((state_dir / "session.json").read_text())
    assert [m["content"] for m in default["messages"]] == ["in the default session", "a1"]
    # The work session's prompt did not carry the default session's turns.
    assert [m["content"] for m in llm.requests[2]["messages"][1:]] == ["at work"]
