"""A whole turn in-process: real openai client over HTTP, real files in tmp_path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pipeline import store
from pipeline.config import Settings
from pipeline.errors import LLMError
from pipeline.turn import run_turn
from tests.helpers import candidate, make_settings, reflection, seed_memories
from tests.llm_server import ScriptedLLM, Step, is_reflection, reply_step
from tests.strategies import NOW


def ltm_bytes(settings: Settings) -> bytes | None:
    path = settings.state_dir / "ltm.json"
    return path.read_bytes() if path.exists() else None


def session(settings: Settings) -> dict[str, Any]:
    return json.loads((settings.state_dir / "session.json").read_text())


def memories(settings: Settings) -> list[dict[str, Any]]:
    return json.loads((settings.state_dir / "ltm.json").read_text())["memories"]


def history(settings: Settings, memory_id: str) -> list[dict[str, Any]]:
    """The committed history lines of one memory, as written in ltm.history.jsonl."""
    paths = store.StatePaths(settings.state_dir)
    ltm = store.load(paths, now=NOW).ltm
    return [h.model_dump(mode="json") for h in store.read_history(paths, ltm, memory_id)]


def test_answer_is_delivered_before_reflection_runs(llm: ScriptedLLM, settings: Settings) -> None:
    """on_answer fires after the first request and before the reflection request."""
    llm.reply("Hello!").reply_json({"candidates": [], "revisions": []})
    seen: list[int] = []
    report = run_turn("hi", settings, on_answer=lambda _a: seen.append(len(llm.requests)))
    assert seen == [1]
    assert len(llm.requests) == 2
    assert not is_reflection(llm.requests[0])
    assert is_reflection(llm.requests[1])
    assert report.response == "Hello!"


def test_accepted_memory_is_written_with_its_turn(llm: ScriptedLLM, settings: Settings) -> None:
    """A good candidate is stored with id, timestamps, source turn and a 'created' history."""
    llm.reply("Noted.").reply(reflection(candidate("User is allergic to peanuts", type="identity")))
    report = run_turn("I'm allergic to peanuts", settings)
    [stored] = memories(settings)
    assert stored["id"] == "mem_0001" == report.result.candidates[0].memory_id
    assert stored["source_turn_id"] == report.turn_id
    assert [h["event"] for h in history(settings, "mem_0001")] == ["created"]
    assert [m["role"] for m in session(settings)["messages"]] == ["user", "assistant"]


def test_invalid_json_is_reasked_once_with_the_error(llm: ScriptedLLM, settings: Settings) -> None:
    """The re-ask really fires: a second reflection request carries the parse error."""
    llm.reply("Sure.").reply("this is not json").reply(
        reflection(candidate("User prefers metric units"))
    )
    report = run_turn("use metric please, always", settings)
    assert len(llm.requests) == 3
    reask = llm.requests[2]["messages"]
    assert reask[-2] == {"role": "assistant", "content": "this is not json"}
    assert "not valid JSON" in reask[-1]["content"]
    assert report.memory_step == "ok"
    assert [m["content"] for m in memories(settings)] == ["User prefers metric units"]


def test_schema_violation_is_reasked_with_pydantic_text(
    llm: ScriptedLLM, settings: Settings
) -> None:
    """An unknown key (extra="forbid") triggers the re-ask, quoting the validation error."""
    llm.reply("Sure.").reply_json({"candidates": [], "revisions": [], "mood": "happy"})
    llm.reply_json({"candidates": [], "revisions": []})
    run_turn("hello", settings)
    assert "mood: Extra inputs are not permitted" in llm.requests[2]["messages"][-1]["content"]


def test_invalid_twice_skips_memory_but_keeps_the_turn(
    llm: ScriptedLLM, settings: Settings
) -> None:
    """Still invalid after the re-ask: answer delivered, ltm untouched, trace says why."""
    seed_memories(settings, "User likes tea")
    before = ltm_bytes(settings)
    llm.reply("An answer.").reply("{oops").reply('["a list"]')
    report = run_turn("hello", settings)
    assert report.response == "An answer."
    assert report.memory_step == "skipped"
    assert "invalid twice" in report.memory_step_note
    assert len(report.reflection_errors) == 2
    assert ltm_bytes(settings) == before
    assert len(session(settings)["messages"]) == 2
    assert "invalid twice" in report.format_trace()


def test_reflection_failure_fails_open(llm: ScriptedLLM, settings: Settings) -> None:
    """A reflection call that errors out skips the memory step, not the turn."""
    llm.reply("An answer.")
    for _ in range(4):
        llm.error(500, "server_error")
    report = run_turn("hello", settings)
    assert report.memory_step == "skipped"
    assert "reflection call failed" in report.memory_step_note
    assert len(session(settings)["messages"]) == 2


def test_failed_answer_persists_nothing(llm: ScriptedLLM, settings: Settings) -> None:
    """If call #1 fails after retries, no file is created or changed."""
    for _ in range(4):
        llm.error(502, "server_error")
    with pytest.raises(LLMError):
        run_turn("hello", settings)
    assert not (settings.state_dir / "session.json").exists()
    assert not (settings.state_dir / "ltm.json").exists()


def test_empty_answer_is_a_failed_turn(llm: ScriptedLLM, settings: Settings) -> None:
    """A blank reply is not an answer: the turn fails and nothing is saved."""
    llm.reply("   ")
    with pytest.raises(LLMError, match="empty answer"):
        run_turn("hello", settings)
    assert not (settings.state_dir / "session.json").exists()


def test_dry_run_leaves_ltm_byte_for_byte(llm: ScriptedLLM, settings: Settings) -> None:
    """Decisions are made and shown, ltm.json is untouched, the session records the turn."""
    seed_memories(settings, "User likes tea")
    before = ltm_bytes(settings)
    llm.reply("ok").reply(
        reflection(candidate("User plays the cello"), candidate("User likes tea!"))
    )
    report = run_turn("I play the cello", settings, dry_run=True)
    assert [(d.verdict, d.reason) for d in report.result.candidates] == [
        ("accepted", "ok"),
        ("merged", "duplicate"),
    ]
    assert report.writes == []
    assert ltm_bytes(settings) == before
    assert len(session(settings)["messages"]) == 2


def test_new_session_archives_the_old_one(llm: ScriptedLLM, settings: Settings) -> None:
    """--new-session keeps the old session in sessions/ and starts clean; ltm is untouched."""
    llm.reply("one").reply(reflection(candidate("User likes tea")))
    first = run_turn("first", settings)
    before = ltm_bytes(settings)
    llm.reply("two").reply(reflection())
    second = run_turn("second", settings, start_new_session=True)
    assert second.session_id != first.session_id
    archived = json.loads(
        (settings.state_dir / "sessions" / f"{first.session_id}.json").read_text()
    )
    assert [m["content"] for m in archived["messages"]] == ["first", "one"]
    assert [m["content"] for m in session(settings)["messages"]] == ["second", "two"]
    assert ltm_bytes(settings) == before
    # The new session's prompt does not carry the old turns.
    assert [m["content"] for m in llm.requests[2]["messages"][1:]] == ["second"]


def test_old_turns_fold_into_the_summary(llm: ScriptedLLM, state_dir: Path) -> None:
    """With a window of 2 turns, the third turn asks for a summary and folds the first."""
    settings = make_settings(llm, state_dir, MEMTEST_SESSION_TURNS="2")
    for n in range(2):
        llm.reply(f"a{n}").reply(reflection())
        run_turn(f"q{n}", settings)
    llm.reply("a2").reply(reflection(session_summary="User asked q0; assistant said a0."))
    report = run_turn("q2", settings)
    reflect_prompt = llm.requests[5]["messages"][1]["content"]
    assert "Leaving turns:\nuser: q0\nassistant: a0" in reflect_prompt
    saved = session(settings)
    assert saved["session_summary"] == "User asked q0; assistant said a0."
    assert [m["content"] for m in saved["messages"]] == ["q1", "a1", "q2", "a2"]
    assert "1 older turn(s) folded" in report.session_notes[0]
    llm.reply("a3").reply(reflection())
    run_turn("q3", settings)
    assert "User asked q0; assistant said a0." in llm.requests[6]["messages"][0]["content"]


def test_a_secret_in_the_summary_is_redacted_as_in_the_turns(
    llm: ScriptedLLM, state_dir: Path
) -> None:
    """The turns in session.json are redacted; the summary the model writes of them (which
    may repeat a password the user typed) is redacted the same way before it is saved."""
    settings = make_settings(llm, state_dir, MEMTEST_SESSION_TURNS="1")
    llm.reply("Noted.").reply(reflection())
    run_turn("my wifi password is hunter22x", settings)
    summary = "User shared the wifi password hunter22x and likes tea."
    llm.reply("ok").reply(reflection(session_summary=summary))
    run_turn("I like tea", settings)
    saved = session(settings)
    assert saved["session_summary"] == "User shared the wifi password [REDACTED] and likes tea."
    assert b"hunter22x" not in (settings.state_dir / "session.json").read_bytes()


def test_hallucinated_ids_are_rejected_not_crashed(llm: ScriptedLLM, settings: Settings) -> None:
    """Revisions and reinforcements of ids never shown are `unknown_target`; ltm unchanged."""
    seed_memories(settings, "User likes tea")
    before = ltm_bytes(settings)
    llm.reply("ok").reply(
        reflection(
            candidate("User likes jazz", action="reinforce", target_id="m42"),
            revisions=[
                {
                    "target_id": "mem_0001",
                    "action": "revise",
                    "new_confidence": 0.1,
                    "new_content": "User hates tea",
                    "reason": "?",
                },
                {
                    "target_id": "m7",
                    "action": "decrease_confidence",
                    "new_confidence": 0.1,
                    "reason": "?",
                },
            ],
        )
    )
    report = run_turn("hello", settings)
    assert [d.reason for d in report.result.candidates] == ["unknown_target"]
    assert [d.reason for d in report.result.revisions] == ["unknown_target", "unknown_target"]
    assert ltm_bytes(settings) == before


def test_revision_keeps_the_old_text_in_history(llm: ScriptedLLM, settings: Settings) -> None:
    """A revise through a shown alias changes the memory and records before/after."""
    seed_memories(settings, "User lives in Porto")
    llm.reply("ok").reply(
        reflection(
            revisions=[
                {
                    "target_id": "m1",
                    "action": "revise",
                    "new_content": "User lives in Lisbon",
                    "new_confidence": 0.9,
                    "reason": "user said they moved",
                }
            ]
        )
    )
    report = run_turn("I moved to Lisbon last year", settings)
    [stored] = memories(settings)
    assert stored["content"] == "User lives in Lisbon"
    # The report still shows the memory as it was retrieved, before the revision.
    assert report.to_json()["memories_used"][0]["content"] == "User lives in Porto"
    [revised] = history(settings, "mem_0001")
    assert revised["event"] == "revised"
    assert revised["before"]["content"] == "User lives in Porto"
    assert revised["after"]["content"] == "User lives in Lisbon"


def test_seed_shape_reply_is_accepted(llm: ScriptedLLM, settings: Settings) -> None:
    """A reply in exactly the seed's shape (no optional keys) validates."""
    seed_reply = {
        "candidates": [
            {
                "type": "preference",
                "subject": "user",
                "content": "User prefers concise answers with constructive friction.",
                "confidence": 0.8,
                "reason": "Repeated explicit feedback",
                "action": "create",
            }
        ],
        "revisions": [],
    }
    llm.reply("ok").reply_json(seed_reply)
    report = run_turn("keep it short, and push back when I'm wrong", settings)
    assert report.memory_step == "ok"
    assert report.result.candidates[0].verdict == "accepted"


def test_retrieved_memories_reach_both_prompts_under_short_ids(
    llm: ScriptedLLM, settings: Settings
) -> None:
    """The answer prompt holds the memory; the reflection prompt shows it as m1."""
    seed_memories(settings, "User is allergic to peanuts")
    llm.reply("Avoid peanuts.").reply(
        reflection(candidate("User is allergic to peanuts", action="reinforce", target_id="m1"))
    )
    report = run_turn("what snacks should I avoid? peanuts?", settings)
    assert (
        "[m1] preference · user · confidence 0.90 — User is allergic to peanuts"
        in llm.requests[0]["messages"][0]["content"]
    )
    assert "[m1]" in llm.requests[1]["messages"][1]["content"]
    assert [(d.verdict, d.reason, d.memory_id) for d in report.result.candidates] == [
        ("merged", "ok", "mem_0001")
    ]
    [stored] = memories(settings)
    assert stored["hit_count"] == 2
    assert [h["event"] for h in history(settings, "mem_0001")] == ["reinforced"]


def test_secrets_typed_by_the_user_are_redacted_in_the_session(
    llm: ScriptedLLM, settings: Settings
) -> None:
    """A password in the input never reaches session.json or ltm.json in clear."""
    llm.reply("Don't share passwords.").reply(reflection(candidate("User's password is hunter22x")))
    report = run_turn("my password is hunter22x, remember it", settings)
    assert report.result.candidates[0].reason == "secret"
    text = (settings.state_dir / "session.json").read_text()
    assert "hunter22x" not in text
    assert "[REDACTED]" in text
    assert not (settings.state_dir / "ltm.json").exists()
    assert "hunter22x" not in json.dumps(report.to_json())
    assert "hunter22x" not in report.format_trace()


def test_commit_rechecks_against_what_is_on_disk_now(llm: ScriptedLLM, settings: Settings) -> None:
    """A memory written by another process during our LLM calls is merged into, not copied."""

    def responder(request: dict[str, Any]) -> Step:
        if not is_reflection(request):
            return reply_step("ok")
        seed_memories(settings, "User likes green tea")  # another process, mid-turn
        return reply_step(reflection(candidate("User likes green tea.")))

    llm.responder = responder
    report = run_turn("I like green tea", settings)
    assert [(d.verdict, d.memory_id) for d in report.result.candidates] == [("merged", "mem_0001")]
    assert len(memories(settings)) == 1


def test_report_json_has_the_documented_fields(llm: ScriptedLLM, settings: Settings) -> None:
    """--json carries response, session, dry_run, memories_used, decisions, usage, timings."""
    llm.reply("ok").reply(reflection(candidate("User likes tea")))
    payload = run_turn("tea?", settings).to_json()
    for key in (
        "response",
        "session_id",
        "dry_run",
        "memories_used",
        "decisions",
        "revisions",
        "usage",
        "timings_ms",
    ):
        assert key in payload
    assert payload["decisions"][0]["verdict"] == "accepted"
    assert payload["decisions"][0]["memory_id"] == "mem_0001"
    assert payload["usage"]["answer"]["prompt_tokens"] == 11


def test_a_failed_warm_up_leaves_the_turn_to_the_gate(
    llm: ScriptedLLM, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gate's background warm-up raising is neither an error nor a traceback: the turn
    goes on, and the gate does its own reading when it decides."""
    import threading

    from pipeline import turn

    ran = threading.Event()

    def broken() -> None:
        ran.set()
        raise OSError("judge file unreadable")

    monkeypatch.setattr(turn, "prepare_gate", broken)
    llm.reply("Noted.").reply(reflection(candidate("User is allergic to peanuts", type="identity")))
    report = run_turn("I'm allergic to peanuts", settings)
    assert ran.wait(5)
    assert [d.verdict for d in report.result.candidates] == ["accepted"]
    assert [m["content"] for m in memories(settings)] == ["User is allergic to peanuts"]
