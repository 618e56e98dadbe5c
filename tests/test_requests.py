"""Explicit remember and forget requests inside a turn (seed 004)."""

from __future__ import annotations

import json
from pathlib import Path

from pipeline import store
from pipeline.config import Settings
from pipeline.turn import run_turn
from tests.helpers import candidate, make_settings, reflection, seed_memories
from tests.llm_server import ScriptedLLM
from tests.strategies import NOW


def stored(settings: Settings) -> dict[str, dict]:
    data = json.loads((settings.state_dir / "ltm.json").read_text())
    return {m["id"]: m for m in data["memories"]}


def test_explicit_request_skips_confidence_floor_and_quota(
    llm: ScriptedLLM, state_dir: Path
) -> None:
    """ "Remember that…": a low-confidence explicit candidate is stored even with no quota
    left, as source explicit; a secret in the same turn is still refused."""
    settings = make_settings(llm, state_dir, MEMTEST_MAX_PER_TURN="0")
    llm.reply("Noted.").reply(
        reflection(
            candidate("User prefers window seats", confidence=0.5, explicit=True),
            candidate("User's PIN is 482913", confidence=0.9, explicit=True),
        )
    )
    report = run_turn("Remember that I prefer window seats. My PIN is 482913", settings)
    assert [(d.verdict, d.reason) for d in report.result.candidates] == [
        ("accepted", "ok"),
        ("rejected", "secret"),
    ]
    [only] = stored(settings).values()
    assert (only["content"], only["source"]) == ("User prefers window seats", "explicit")


def test_explicit_flag_is_ignored_without_the_users_words(
    llm: ScriptedLLM, settings: Settings
) -> None:
    """The model cannot make something explicit: without a remember signal in the input,
    the usual funnel applies."""
    llm.reply("ok").reply(
        reflection(candidate("User prefers window seats", confidence=0.5, explicit=True))
    )
    report = run_turn("I usually pick window seats", settings)
    assert report.result.candidates[0].reason == "low_confidence"


def test_forget_request_forgets_and_the_answer_is_told(
    llm: ScriptedLLM, settings: Settings
) -> None:
    """ "Forget that I live in Porto": the memory leaves this very prompt, the answer prompt
    says it was forgotten, the store marks it, and the reflection cannot re-learn it."""
    seed_memories(settings, "User lives in Porto", "User plays chess")
    llm.reply("Done, I've forgotten that.").reply(reflection(candidate("User lives in Porto")))
    report = run_turn("Forget that I live in Porto", settings)
    system = llm.requests[0]["messages"][0]["content"]
    assert "[m1]" in system
    assert 'memory was forgotten and will not be used again: "User lives in Porto"' in system
    assert "lives in Porto" not in system.split("MEMORY ACTIONS")[0]
    memories = stored(settings)
    assert memories["mem_0001"]["status"] == "forgotten"
    assert memories["mem_0002"]["status"] == "active"
    assert report.result.candidates[0].reason == "duplicate"
    assert "asked to forget" in report.result.candidates[0].detail
    paths = store.StatePaths(settings.state_dir)
    events = [h.event for h in store.read_history(paths, store.load(paths, now=NOW).ltm)]
    assert events == ["forgotten"]
    assert report.to_json()["forget"].startswith("forgotten at the user's request: mem_0001")


def test_forget_with_no_match_changes_nothing(llm: ScriptedLLM, settings: Settings) -> None:
    """Nothing matches: nothing is forgotten and the answer prompt says so."""
    seed_memories(settings, "User plays chess")
    before = (settings.state_dir / "ltm.json").read_bytes()
    llm.reply("I don't have that stored.").reply(reflection())
    run_turn("Please forget my passport number", settings)
    assert "no stored memory matches it" in llm.requests[0]["messages"][0]["content"]
    assert (settings.state_dir / "ltm.json").read_bytes() == before


def test_forget_in_chinese(llm: ScriptedLLM, settings: Settings) -> None:
    """忘记…: Chinese requests are matched on character bigrams."""
    seed_memories(settings, "用户住在波尔图", "用户喜欢下棋")
    llm.reply("好的，已经忘记了。").reply(reflection())
    run_turn("忘记我住在波尔图", settings)
    memories = stored(settings)
    assert memories["mem_0001"]["status"] == "forgotten"
    assert memories["mem_0002"]["status"] == "active"


def test_dry_run_forget_only_reports(llm: ScriptedLLM, settings: Settings) -> None:
    """With --dry-run-memory the forget is shown, and ltm.json is not touched."""
    seed_memories(settings, "User lives in Porto")
    before = (settings.state_dir / "ltm.json").read_bytes()
    llm.reply("ok").reply(reflection())
    report = run_turn("forget that I live in Porto", settings, dry_run=True)
    assert report.forget_note.startswith("forgotten at the user's request")
    assert (settings.state_dir / "ltm.json").read_bytes() == before


def test_review_mode_keeps_new_memories_as_drafts(llm: ScriptedLLM, state_dir: Path) -> None:
    """In review mode a new memory is a draft: stored, not retrieved until approved."""
    settings = make_settings(llm, state_dir, MEMTEST_WRITE_MODE="review")
    llm.reply("ok").reply(reflection(candidate("User plays the cello")))
    run_turn("I play the cello", settings)
    assert stored(settings)["mem_0001"]["status"] == "draft"
    llm.reply("ok").reply(reflection())
    assert run_turn("cello practice tips?", settings).used == []
    from tests.helpers import invoke, turn_env

    approve = invoke("memory", "approve", "mem_0001", env=turn_env(llm, state_dir))
    assert approve.returncode == 0
    llm.reply("ok").reply(reflection())
    assert [r.memory.id for r in run_turn("cello practice tips?", settings).used] == ["mem_0001"]


def test_shadow_mode_counts_but_stores_nothing(llm: ScriptedLLM, state_dir: Path) -> None:
    """Shadow mode: decisions are made, shown and counted; ltm.json is never written."""
    settings = make_settings(llm, state_dir, MEMTEST_WRITE_MODE="shadow")
    llm.reply("ok").reply(
        reflection(candidate("User plays the cello"), candidate("User is tired today"))
    )
    report = run_turn("I play the cello and I'm tired today", settings)
    assert [d.verdict for d in report.result.candidates] == ["accepted", "rejected"]
    assert not (state_dir / "ltm.json").exists()
    assert store.read_counters(settings.paths) == {
        "accepted": 1,
        "attempts": 2,
        "rejected_ephemeral": 1,
    }
    assert "SHADOW MODE" in report.format_trace()
