"""The turn's command line: stdout, stderr, exit codes and the files it leaves. It runs
in-process (`invoke`); a real process where the output of the process itself is the point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import candidate, invoke, reflection, run_cli, turn_env
from tests.llm_server import ScriptedLLM


@pytest.fixture
def env(llm: ScriptedLLM, state_dir: Path) -> dict[str, str]:
    return turn_env(llm, state_dir)


def test_plain_turn_prints_only_the_answer(
    llm: ScriptedLLM, env: dict[str, str], state_dir: Path
) -> None:
    """stdout is the answer alone; nothing on stderr; both state files written."""
    llm.reply("Hello there.").reply(reflection(candidate("User likes tea")))
    result = run_cli("-i", "hi, I like tea", env=env)
    assert (result.returncode, result.stdout, result.stderr) == (0, "Hello there.\n", "")
    assert (state_dir / "session.json").exists()
    assert (
        json.loads((state_dir / "ltm.json").read_text())["memories"][0]["content"]
        == "User likes tea"
    )


def test_json_output_is_one_object(llm: ScriptedLLM, env: dict[str, str]) -> None:
    """--json prints a single JSON object with the answer and the decisions."""
    llm.reply("Hi.").reply(reflection(candidate("User is tired right now")))
    result = invoke("-i", "hi", "--json", env=env)
    payload = json.loads(result.stdout)
    assert payload["response"] == "Hi."
    assert payload["dry_run"] is False
    assert payload["decisions"][0]["verdict"] == "rejected"
    assert payload["decisions"][0]["reason"] == "ephemeral"
    assert payload["session_id"].startswith("s-")


def test_trace_explains_and_never_shows_the_key(llm: ScriptedLLM, env: dict[str, str]) -> None:
    """--show-trace names model and host, each decision and its reason, timings; no key."""
    llm.reply("Hi.").reply(
        reflection(candidate("User likes chess"), candidate("maybe the user likes go"))
    )
    result = invoke("-i", "hi", "--show-trace", env=env)
    assert result.stdout == "Hi.\n"
    trace = result.stderr
    host = env["MEMTEST_BASE_URL"].split("//")[1].split("/")[0]
    assert f"model kimi-k2.6 at {host}" in trace
    assert "candidate 1: ACCEPTED (ok) → mem_0001" in trace
    assert "candidate 2: REJECTED (speculative)" in trace
    assert "created mem_0001: User likes chess" in trace
    assert "time ms:" in trace
    assert "tokens (prompt+completion): answer 11+7" in trace
    assert env["MOONSHOT_API_KEY"] not in trace


def test_missing_key_fails_fast_with_exit_2(
    llm: ScriptedLLM, env: dict[str, str], state_dir: Path
) -> None:
    """No key: exit 2, a message saying what to set and where, no request, no files."""
    del env["MOONSHOT_API_KEY"]
    result = invoke("-i", "hi", env=env)
    assert result.returncode == 2
    assert "MOONSHOT_API_KEY is not set" in result.stderr
    assert ".env" in result.stderr
    assert llm.requests == []
    assert not state_dir.exists()


def test_key_from_env_file_and_environment_wins(
    llm: ScriptedLLM, env: dict[str, str], tmp_path: Path
) -> None:
    """--env-file supplies the key; a variable set in the environment beats the file."""
    del env["MOONSHOT_API_KEY"]
    env_file = tmp_path / "custom.env"
    env_file.write_text("MOONSHOT_API_KEY=sk-from-file\nMEMTEST_MODEL=from-file\n")
    env["MEMTEST_MODEL"] = "from-environment"
    llm.reply("ok").reply(reflection())
    result = invoke("-i", "hi", "--env-file", str(env_file), env=env)
    assert result.returncode == 0, result.stderr
    assert llm.requests[0]["_auth"] == "Bearer sk-from-file"
    assert llm.requests[0]["model"] == "from-environment"


@pytest.mark.parametrize(
    ("args", "extra", "message"),
    [
        (["-i", "   "], {}, "-i needs some text"),
        (["-i", "hi", "--env-file", "/nonexistent/.env"], {}, "no such file"),
        (["-i", "hi", "--env-file", "/dev/null"], {}, "--env-file /dev/null: not a regular file"),
        (
            ["-i", "hi"],
            {"MEMTEST_MAX_PER_TURN": "lots"},
            "MEMTEST_MAX_PER_TURN='lots' is not a number",
        ),
        (
            ["-i", "hi"],
            {"MEMTEST_MIN_CONFIDENCE": "1.5"},
            "MEMTEST_MIN_CONFIDENCE=1.5 is out of range",
        ),
        (["-i", "hi"], {"MEMTEST_BASE_URL": "api.moonshot.ai"}, "not an http(s) URL"),
        ([], {}, "required: -i"),
        (["--bogus"], {}, "No such option '--bogus'"),
        (["--user", "bob", "memory", "list"], {}, "--user: options go after the command"),
        (["memory", "--json", "list"], {}, "--json: options go after the command"),
        (["memory", "--state-dir=/tmp", "list"], {}, "--state-dir: options go after"),
        (["memory", "--bogus", "list"], {}, "No such option '--bogus'"),
    ],
)
def test_usage_errors_exit_2(
    env: dict[str, str], args: list[str], extra: dict[str, str], message: str
) -> None:
    """Bad arguments and settings: a clear message on stderr and exit code 2."""
    result = invoke(*args, env={**env, **extra})
    assert result.returncode == 2
    assert message in result.stderr


def test_failed_answer_exits_1_and_saves_nothing(
    llm: ScriptedLLM, env: dict[str, str], state_dir: Path
) -> None:
    """5xx until the attempts run out: exit 1, the error on stderr, no state written."""
    for _ in range(4):
        llm.error(503, "server_error", "overloaded")
    result = invoke("-i", "hi", env=env)
    assert result.returncode == 1
    assert "after 4 attempts" in result.stderr
    assert result.stdout == ""
    assert not (state_dir / "session.json").exists()


def test_bad_key_exits_2(llm: ScriptedLLM, env: dict[str, str]) -> None:
    """401 is a configuration problem: exit 2 with a pointer to MOONSHOT_API_KEY."""
    llm.error(401, "invalid_authentication_error", "Invalid Authentication")
    result = invoke("-i", "hi", env=env)
    assert result.returncode == 2
    assert "rejected the API key" in result.stderr


def test_json_mode_reports_errors_as_json(llm: ScriptedLLM, env: dict[str, str]) -> None:
    """With --json a failure still prints one JSON object, with an error member."""
    llm.error(429, "exceeded_current_quota_error", "no balance")
    result = invoke("-i", "hi", "--json", env=env)
    assert result.returncode == 1
    payload = json.loads(result.stdout)
    assert payload["error"]["type"] == "LLMError"
    assert "out of balance" in payload["error"]["message"]


def test_corrupt_state_is_moved_aside_and_the_turn_goes_on(
    llm: ScriptedLLM, env: dict[str, str], state_dir: Path
) -> None:
    """A broken ltm.json is renamed, a warning goes to stderr, the answer still comes."""
    state_dir.mkdir(parents=True)
    (state_dir / "ltm.json").write_text('{"memories": [{"id": ')
    llm.reply("Still here.").reply(reflection())
    result = invoke("-i", "hi", env=env)
    assert result.returncode == 0
    assert result.stdout == "Still here.\n"
    assert "warning: ltm.json could not be read" in result.stderr
    [aside] = state_dir.glob("ltm.json.corrupt-*")
    assert aside.read_text() == '{"memories": [{"id": '


def test_the_warning_names_the_file_a_broken_session_was_moved_to(
    llm: ScriptedLLM, env: dict[str, str], state_dir: Path
) -> None:
    """The side file's name (letters and digits, like a key) is shown as it is, on stderr
    and in --json's warnings, not redacted: the user has to find it."""
    state_dir.mkdir(parents=True)
    (state_dir / "session.json").write_text("garbage")
    llm.reply("Still here.").reply(reflection())
    result = invoke("-i", "hi", "--json", env=env)
    assert result.returncode == 0, result.stderr
    [aside] = state_dir.glob("session.json.corrupt-*")
    assert f"moved it to {aside.name} " in result.stderr, result.stderr
    assert any(aside.name in w for w in json.loads(result.stdout)["warnings"])


def test_newer_schema_is_refused_before_any_call(
    llm: ScriptedLLM, env: dict[str, str], state_dir: Path
) -> None:
    """schema_version from the future: exit 1, a message, no LLM call, files untouched."""
    state_dir.mkdir(parents=True)
    newer = json.dumps({"schema_version": 7, "memories": []})
    (state_dir / "ltm.json").write_text(newer)
    result = invoke("-i", "hi", env=env)
    assert result.returncode == 1
    assert "schema_version 7" in result.stderr
    assert llm.requests == []
    assert (state_dir / "ltm.json").read_text() == newer
    assert not (state_dir / "session.json").exists()


def test_input_from_stdin_and_dry_run(
    llm: ScriptedLLM, env: dict[str, str], state_dir: Path
) -> None:
    """`-i -` reads standard input; --dry-run-memory writes no ltm.json."""
    llm.reply("ok").reply(reflection(candidate("User likes tea")))
    result = invoke("-i", "-", "--dry-run-memory", "--show-trace", env=env, stdin="I like tea\n")
    assert result.returncode == 0, result.stderr
    assert llm.requests[0]["messages"][-1]["content"] == "I like tea"
    assert "DRY RUN" in result.stderr
    assert "written to ltm.json: nothing (dry run)" in result.stderr
    assert not (state_dir / "ltm.json").exists()


def test_state_dir_flag_beats_the_environment(
    llm: ScriptedLLM, env: dict[str, str], tmp_path: Path, state_dir: Path
) -> None:
    """--state-dir moves the state folder."""
    llm.reply("ok").reply(reflection())
    other = tmp_path / "elsewhere"
    result = invoke("-i", "hi", "--state-dir", str(other), env=env)
    assert result.returncode == 0
    assert (other / "session.json").exists()
    assert not state_dir.exists()


def test_help_lists_flags_and_variables() -> None:
    """--help documents every flag, the exit codes and the configuration variables."""
    result = invoke("--help", env={})
    assert result.returncode == 0
    for text in (
        "--new-session",
        "--dry-run-memory",
        "--show-trace",
        "--json",
        "--state-dir",
        "--env-file",
        "exit codes",
        "MEMTEST_MODEL",
        "MOONSHOT_API_KEY",
    ):
        assert text in result.stdout


def test_state_dir_that_is_a_file_is_a_usage_error(env: dict[str, str], tmp_path: Path) -> None:
    """--state-dir naming a file: exit 2 and a message, no traceback."""
    not_a_folder = tmp_path / "file.txt"
    not_a_folder.write_text("x")
    result = invoke("-i", "hi", "--state-dir", str(not_a_folder), env=env)
    assert result.returncode == 2
    assert "is a file, not a folder" in result.stderr


def test_os_errors_are_reported_without_a_traceback(env: dict[str, str], state_dir: Path) -> None:
    """A state file that cannot be read at all (here: a folder) gives a message and exit 1."""
    (state_dir / "ltm.json").mkdir(parents=True)
    result = invoke("-i", "hi", env=env)
    assert result.returncode == 1
    assert "ltm.json is a folder, not a regular file" in result.stderr
    assert "nothing was changed" in result.stderr
    assert "Traceback" not in result.stderr


def test_in_process_runs_leave_nothing_behind(
    llm: ScriptedLLM, env: dict[str, str], state_dir: Path
) -> None:
    """`invoke` puts the environment and the standard streams back, after a turn that
    worked and one that failed, so one in-process test cannot leak into the next."""
    import os
    import sys

    environ, streams = dict(os.environ), (sys.stdin, sys.stdout, sys.stderr)
    llm.reply("ok").reply(reflection())
    assert invoke("-i", "hi", "--user", "alice", env=env).returncode == 0
    assert invoke("-i", "hi", env={**env, "MEMTEST_MAX_PER_TURN": "lots"}).returncode == 2
    assert dict(os.environ) == environ
    assert (sys.stdin, sys.stdout, sys.stderr) == streams
    assert (state_dir / "users" / "alice").is_dir()
