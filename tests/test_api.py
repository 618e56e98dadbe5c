"""The library facade: typed values, typed errors, no printing, the key only when needed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.api import Memory, MemoryView, SearchHit, StatusChange
from pipeline.config import load_settings
from pipeline.errors import ConfigError, NotFound, UsageError
from pipeline.llm import ChatModel
from tests.helpers import PROJECT, candidate, echo_responder, reflection, turn_env
from tests.llm_server import ScriptedLLM


@pytest.fixture
def memory(tmp_path: Path) -> Memory:
    return Memory(tmp_path / "lib", user="sam")


def test_import_pipeline_does_not_load_the_library_until_asked() -> None:
    """`import pipeline` stays cheap: the facade (and what it imports) loads on first use."""
    code = (
        "import sys, pipeline; print('pipeline.api' in sys.modules); "
        "pipeline.Memory; print('pipeline.api' in sys.modules, 'openai' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=PROJECT
    ).stdout.split("\n")
    assert out[:2] == ["False", "True False"]


def test_constructor_reads_no_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Memory() ignores MEMTEST_* and the API key in the environment; its default folder
    is the installed command's XDG data folder. from_env reads them."""
    monkeypatch.setenv("MOONSHOT_API_KEY", "sk-from-env")
    monkeypatch.setenv("MEMTEST_USER_ID", "env-user")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    plain = Memory()
    assert plain.settings.api_key is None
    assert plain.user_id == "default-user"
    assert plain.settings.state_dir == tmp_path / "data" / "memory-test"
    configured = Memory.from_env()
    assert configured.settings.api_key == "sk-from-env"
    assert configured.user_id == "env-user"
    assert configured.settings.state_dir == Path(os.environ["MEMTEST_STATE_DIR"])


def test_ids_are_validated(tmp_path: Path) -> None:
    """A user or session id that could escape the state folder is a UsageError."""
    with pytest.raises(UsageError):
        Memory(tmp_path, user="../other")
    with pytest.raises(UsageError):
        Memory(tmp_path, session="a/b")


def test_add_returns_the_gate_verdict_and_never_prints(
    memory: Memory, capsys: pytest.CaptureFixture[str]
) -> None:
    """add goes through the gate: an accepted memory gets an id, a secret is refused with
    its reason, a repeat is merged; nothing is printed."""
    accepted = memory.add("User is vegan", type="identity")
    assert (accepted.verdict, accepted.memory_id) == ("accepted", "mem_0001")
    secret = memory.add("My password is hunter2", type="identity")
    assert (secret.verdict, secret.reason) == ("rejected", "secret")
    repeat = memory.add("User is vegan", type="identity")
    assert repeat.verdict == "merged"
    assert [v.content for v in memory.list()] == ["User is vegan"]
    assert capsys.readouterr() == ("", "")


def test_reading_returns_typed_values(memory: Memory) -> None:
    """get, list, search, history and stats return the dataclasses, not text."""
    memory.add("User keeps two beehives", type="habit")
    view = memory.get("mem_0001")
    assert isinstance(view, MemoryView)
    assert view.content == "User keeps two beehives"
    assert 0.9 < view.current_confidence <= 1.0
    hits = memory.search("beehives").hits
    assert isinstance(hits[0], SearchHit)
    assert hits[0].memory.id == "mem_0001"
    assert [h.event for h in memory.history("mem_0001")] == ["created"]
    stats = memory.stats()
    assert (stats.user_id, stats.memories, stats.by_status) == ("sam", 1, {"active": 1})


def test_changes_and_errors(memory: Memory) -> None:
    """forget/restore report whether anything changed; unknown ids raise NotFound; a
    change that does not apply raises UsageError; purge removes the memory."""
    memory.add("User plays the cello", type="skill")
    assert memory.forget("mem_0001") == StatusChange(
        "mem_0001", "forgotten", True, "User plays the cello"
    )
    assert memory.forget("mem_0001").changed is False
    assert memory.list() == []
    assert [v.id for v in memory.list(all=True)] == ["mem_0001"]
    with pytest.raises(UsageError):
        memory.reinforce("mem_0001")  # forgotten memories are not reinforced
    assert memory.restore("mem_0001").changed is True
    hits = memory.get("mem_0001").memory.hit_count
    assert memory.reinforce("mem_0001").memory.hit_count == hits + 1
    assert memory.approve("mem_0001").changed is False  # already active
    with pytest.raises(NotFound):
        memory.get("mem_0099")
    assert memory.forget("mem_0001", purge=True).status == "purged"
    with pytest.raises(NotFound):
        memory.forget("mem_0001", purge=True)


def test_recall_applies_the_turns_floor_and_search_does_not(tmp_path: Path) -> None:
    """recall shows what a turn would (confidence floor, budget); search ranks everything."""
    from pipeline.config import Settings

    settings = Settings(api_key=None, base_url="http://x", model="m", state_dir=tmp_path)
    low = Memory(settings=settings)
    low.import_lines(
        __import__("io").BytesIO(
            json.dumps(
                {"type": "habit", "content": "User sometimes knits scarves", "confidence": 0.3}
            ).encode()
        ),
        name="rows",
    )
    assert [h.memory.content for h in low.search("knits scarves").hits] == [
        "User sometimes knits scarves"
    ]
    assert low.recall("knits scarves") == []


def test_turn_with_a_model_object_needs_no_api_key(llm: ScriptedLLM, tmp_path: Path) -> None:
    """A Memory without a key runs a turn with a model passed in (here the real client
    against the scripted server); without a model it asks for the key."""
    llm.responder = echo_responder
    keyed = load_settings(environ=turn_env(llm, tmp_path / "unused"))
    memory = Memory(tmp_path / "lib")
    assert memory.settings.api_key is None
    with ChatModel(keyed) as model:
        result = memory.turn("remember: User keeps bees", model=model)
    assert result.answer == "echo: remember: User keeps bees"
    assert result.memory_step == "ok"
    assert [m.content for m in memory.list()] == ["User keeps bees"]
    with pytest.raises(ConfigError, match="MOONSHOT_API_KEY"):
        memory.turn("hello")


def test_remember_reflects_on_an_exchange_without_answering(
    llm: ScriptedLLM, tmp_path: Path
) -> None:
    """remember makes one call, the reflection, and commits what the gate accepts; the
    exchange is recorded in the session as given."""
    llm.reply(reflection(candidate("User's sister Clara lives in Glasgow", type="relationship")))
    memory = Memory.from_env(state_dir=tmp_path / "lib", env_file=None)
    keyed = load_settings(environ=turn_env(llm, tmp_path / "lib"))
    with ChatModel(keyed) as model:
        result = memory.remember("My sister Clara moved to Glasgow.", "Nice!", model=model)
    assert len(llm.requests) == 1
    assert llm.requests[0]["response_format"] == {"type": "json_object"}
    assert result.answer == "Nice!"
    assert [m.content for m in memory.list()] == ["User's sister Clara lives in Glasgow"]
    session = json.loads((tmp_path / "lib" / "session.json").read_text())
    assert [m["content"] for m in session["messages"]] == [
        "My sister Clara moved to Glasgow.",
        "Nice!",
    ]


def test_clear_reports_what_it_removed(memory: Memory) -> None:
    """clear removes memories by default, the session only when asked, and says how many."""
    memory.add("User is vegan", type="identity")
    cleared = memory.clear()
    assert (cleared.memories, cleared.turns) == (1, None)
    assert memory.clear(memory=True, session=True).memories == 0


def test_add_refuses_unknown_kinds_through_the_gate(memory: Memory) -> None:
    """A type, subject or decay the store does not know is refused by the gate, with why."""
    for kwargs in (
        {"type": "bogus"},
        {"type": "preference", "subject": "martian"},
        {"type": "preference", "decay": "sometimes"},
    ):
        verdict = memory.add("User likes tea", **kwargs)
        assert (verdict.verdict, verdict.reason) == ("rejected", "invalid")
    assert memory.list() == []


def test_add_refuses_text_no_file_can_hold(memory: Memory) -> None:
    """A lone surrogate (undecodable argv bytes, or a JSON escape sent by an MCP client) is
    a UsageError from the library itself, and nothing is written."""
    with pytest.raises(UsageError, match="not valid UTF-8"):
        memory.add("User likes \ud800 tea", type="habit")
    assert memory.list(all=True) == []


def test_empty_or_oversized_text_is_refused_before_the_model(
    llm: ScriptedLLM, tmp_path: Path
) -> None:
    """turn and remember refuse empty text and text over MEMTEST_MAX_INPUT_KB with a
    UsageError, and the model is never called."""
    settings = load_settings(environ=turn_env(llm, tmp_path / "lib", MEMTEST_MAX_INPUT_KB="1"))
    memory = Memory(settings=settings)
    with ChatModel(settings) as model:
        with pytest.raises(UsageError, match="empty"):
            memory.turn("   ", model=model)
        with pytest.raises(UsageError, match="over the limit"):
            memory.turn("x" * 1025, model=model)
        with pytest.raises(UsageError, match="answer is empty"):
            memory.remember("hello", "", model=model)
    assert llm.requests == []
