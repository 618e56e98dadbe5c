"""The MCP server, started as a real process and driven over stdio by the SDK's own client."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from tests.helpers import PROJECT, candidate, invoke, keyless_env, reflection, run_cli, turn_env
from tests.llm_server import ScriptedLLM

TOOLS = {"search", "recall", "add", "get", "list", "forget", "history", "stats"}


@pytest.fixture
def env(state_dir: Path) -> dict[str, str]:
    """No API key: the server must run without one."""
    return keyless_env(state_dir, PYTHONPATH=str(PROJECT))


@asynccontextmanager
async def served(env: dict[str, str], log: Path, *args: str) -> AsyncIterator[ClientSession]:
    """`python memory_test.py mcp ARGS` as a subprocess, with an initialised client."""
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(PROJECT / "memory_test.py"), "mcp", *args],
        env=env,
        cwd=str(PROJECT),
    )
    with log.open("a") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as streams,
            ClientSession(streams[0], streams[1]) as session,
        ):
            await session.initialize()
            yield session


def drive(
    env: dict[str, str], log: Path, script: Callable[[ClientSession], Awaitable[None]], *args: str
) -> None:
    async def main() -> None:
        async with served(env, log, *args) as session:
            await script(session)

    asyncio.run(main())


async def call(session: ClientSession, tool: str, **arguments: Any) -> Any:
    """A tool's structured result; a tool error fails the test with its message."""
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return result.structured_content


async def error_of(session: ClientSession, tool: str, **arguments: Any) -> str:
    result = await session.call_tool(tool, arguments)
    assert result.is_error
    return " ".join(getattr(c, "text", "") for c in result.content)


def test_tools_without_a_model_and_no_tool_takes_a_user(
    env: dict[str, str], tmp_path: Path
) -> None:
    """Without an API key `remember` is not offered; no tool has a user argument."""

    async def script(session: ClientSession) -> None:
        listed = (await session.list_tools()).tools
        assert {t.name for t in listed} == TOOLS
        for tool in listed:
            assert not {"user", "user_id"} & set(tool.input_schema.get("properties", {}))

    drive(env, tmp_path / "server.log", script, "--state-dir", env["MEMTEST_STATE_DIR"])


def test_add_search_get_forget_history_stats(env: dict[str, str], tmp_path: Path) -> None:
    """The memory's whole round through the tools, the gate's verdicts included."""

    async def script(session: ClientSession) -> None:
        added = await call(session, "add", content="User is allergic to peanuts", type="identity")
        assert (added["verdict"], added["reason"], added["memory_id"]) == (
            "accepted",
            "ok",
            "mem_0001",
        )
        secret = await call(
            session, "add", content="User's card number is 4111 1111 1111 1111", type="identity"
        )
        assert (secret["verdict"], secret["reason"]) == ("rejected", "secret")
        assert "4111" not in json.dumps(secret)
        again = await call(
            session, "add", content="The user is allergic to peanuts.", type="identity"
        )
        assert (again["verdict"], again["memory_id"]) == ("merged", "mem_0001")
        found = await call(session, "search", query="any peanuts in satay?")
        assert [r["id"] for r in found["results"]] == ["mem_0001"]
        got = await call(session, "get", id="mem_0001")
        assert (got["content"], got["hit_count"]) == ("User is allergic to peanuts", 2)
        forgotten = await call(session, "forget", id="mem_0001")
        assert (forgotten["status"], forgotten["changed"]) == ("forgotten", True)
        assert (await call(session, "search", query="peanuts"))["results"] == []
        events = [h["event"] for h in (await call(session, "history", id="mem_0001"))["history"]]
        assert events == ["created", "merged", "forgotten"]
        stats = await call(session, "stats")
        assert (stats["memories"], stats["by_status"]) == (1, {"forgotten": 1})
        assert "no memory 'mem_0009'" in await error_of(session, "get", id="mem_0009")

    drive(env, tmp_path / "server.log", script, "--state-dir", env["MEMTEST_STATE_DIR"])
    listed = invoke("memory", "list", "--all", "--json", env=env)
    assert json.loads(listed.stdout)["memories"][0]["status"] == "forgotten"


def test_another_users_memory_cannot_be_reached(env: dict[str, str], tmp_path: Path) -> None:
    """A server for alice finds nothing of bob's by search, list, get or stats."""
    for text in ("User plays the bassoon", "User lives in Tromsø"):
        result = invoke("memory", "add", text, "--type", "identity", "--user", "bob", env=env)
        assert result.returncode == 0, result.stderr

    async def script(session: ClientSession) -> None:
        await call(session, "add", content="User likes green tea", type="preference")
        found = await call(session, "search", query="bassoon Tromsø")
        assert [r["content"] for r in found["results"]] == ["User likes green tea"]
        listed = await call(session, "list", include_inactive=True)
        assert [m["content"] for m in listed["memories"]] == ["User likes green tea"]
        assert "no memory 'mem_0002'" in await error_of(session, "get", id="mem_0002")
        assert (await call(session, "stats"))["memories"] == 1

    drive(env, tmp_path / "server.log", script, "--user", "alice")
    bob = json.loads(invoke("memory", "list", "--user", "bob", "--json", env=env).stdout)
    assert len(bob["memories"]) == 2


def test_labels_and_the_servers_default_project(env: dict[str, str], tmp_path: Path) -> None:
    """A server started for project b labels what it adds with b and does not see a's."""
    result = invoke(
        "memory",
        "create",
        "Project a deploys on Fridays",
        "--type",
        "habit",
        "--project",
        "a",
        env=env,
    )
    assert result.returncode == 0, result.stderr

    async def script(session: ClientSession) -> None:
        added = await call(session, "add", content="User reviews pull requests daily", type="habit")
        assert (await call(session, "get", id=added["memory_id"]))["project"] == "b"
        in_b = await call(session, "search", query="deploys Fridays")
        assert [r["id"] for r in in_b["results"]] == [added["memory_id"]]
        in_a = await call(session, "search", query="deploys Fridays", project="a")
        assert in_a["results"][0]["id"] == "mem_0001"

    drive(env, tmp_path / "server.log", script, "--project", "b")


def test_remember_is_offered_with_a_model_and_goes_through_the_gate(
    llm: ScriptedLLM, state_dir: Path, tmp_path: Path
) -> None:
    """With a key, `remember` reflects on an exchange: one model call, the gate decides."""
    env = {**turn_env(llm, state_dir), "PYTHONPATH": str(PROJECT)}
    llm.reply(reflection(candidate("User is vegetarian"), candidate("User is tired today")))

    async def script(session: ClientSession) -> None:
        assert "remember" in {t.name for t in (await session.list_tools()).tools}
        learned = await call(
            session,
            "remember",
            user_message="I'm vegetarian, and tired today",
            answer="Noted.",
        )
        verdicts = [(d["verdict"], d["reason"]) for d in learned["decisions"]]
        assert verdicts == [("accepted", "ok"), ("rejected", "ephemeral")]

    drive(env, tmp_path / "server.log", script)
    assert len(llm.requests) == 1


def test_help_explains_setup(env: dict[str, str]) -> None:
    """`mcp --help` gives the lines a coding agent's configuration needs."""
    result = invoke("mcp", "--help", env=env)
    assert result.returncode == 0
    assert "claude mcp add memory-test -- memory-test mcp" in result.stdout
    assert '"mcpServers"' in result.stdout


def test_without_the_extra_it_says_what_to_install(env: dict[str, str], tmp_path: Path) -> None:
    """With no importable mcp package, `mcp` exits 2 naming the extra, before serving."""
    shadow = tmp_path / "no_mcp" / "mcp"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('No module named mcp')\n")
    result = run_cli("mcp", env={**env, "PYTHONPATH": f"{shadow.parent}:{PROJECT}"})
    assert result.returncode == 2
    assert "pip install 'memory-test[mcp]'" in result.stderr
    assert result.stdout == ""


def test_a_bad_user_is_refused_before_serving(env: dict[str, str]) -> None:
    """`mcp --user ../x` exits 2 with the id rule; nothing is served or created."""
    result = invoke("mcp", "--user", "../x", env=env)
    assert result.returncode == 2
    assert "--user '../x' is not a valid id" in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("retriever", ["lexical", "semantic"])
def test_the_warm_server_sees_what_another_process_writes(
    env: dict[str, str], tmp_path: Path, retriever: str
) -> None:
    """The server keeps its memory and vectors between calls, and still finds a memory
    that `memory add` wrote while it was running, and no longer shows one forgotten
    meanwhile."""
    env = {**env, "MEMTEST_RETRIEVER": retriever}

    async def script(session: ClientSession) -> None:
        await call(session, "add", content="User likes green tea", type="preference")
        assert [r["id"] for r in (await call(session, "search", query="tea"))["results"]] == [
            "mem_0001"
        ]
        added = invoke("memory", "add", "User grows tea in the garden", "--type", "habit", env=env)
        assert added.returncode == 0, added.stderr
        assert invoke("memory", "forget", "mem_0001", env=env).returncode == 0
        found = await call(session, "search", query="tea")
        assert [r["id"] for r in found["results"]] == ["mem_0002"]
        recalled = await call(session, "recall", message="do I grow tea?")
        assert [m["id"] for m in recalled["memories"]] == ["mem_0002"]
        assert "User grows tea in the garden" in recalled["context"]

    drive(env, tmp_path / "server.log", script)


def test_ctrl_c_stops_the_server_without_a_traceback(env: dict[str, str]) -> None:
    """SIGINT (Ctrl-C in a terminal) ends the server with exit 130 and one line, and
    nothing on stdout, which belongs to the protocol."""
    # A suite run in the background ignores SIGINT, and a child started so would ignore it
    # too; a handler of the suite's own is reset to the default in the child.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    started = subprocess.Popen(
        [sys.executable, str(PROJECT / "memory_test.py"), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={"PATH": os.environ.get("PATH", ""), **env},
        cwd=PROJECT,
    )
    signal.signal(signal.SIGINT, previous)
    with started as server:
        time.sleep(2)  # most likely serving by now; earlier, the same line and exit code
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=30)
    assert server.returncode == 130
    assert out == b""
    assert err.decode() == "memory-test: mcp server interrupted\n"
