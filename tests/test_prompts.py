"""Rendered prompts are snapshotted: a change to a template shows up as a diff here.

Run with UPDATE_SNAPSHOTS=1 to rewrite the files after an intended change.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pipeline.models import Message
from pipeline.prompts import answer_messages, reflection_messages, render
from pipeline.retrieval import retrieve_relevant
from tests.strategies import NOW, memory

SNAPSHOTS = Path(__file__).parent / "snapshots"

MEMORIES = [
    memory("mem_0001", "User is allergic to peanuts", confidence=0.95, type="identity"),
    memory("mem_0002", "User prefers concise answers", confidence=0.8),
]
RECENT = [
    Message(role="user", content="What should I cook tonight?", timestamp=NOW, turn_id="t-1"),
    Message(role="assistant", content="How about a stir-fry?", timestamp=NOW, turn_id="t-1"),
]


def check(name: str, messages: list[dict[str, str]]) -> None:
    text = json.dumps(messages, ensure_ascii=False, indent=1) + "\n"
    path = SNAPSHOTS / f"{name}.json"
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text


def used():
    return retrieve_relevant(
        MEMORIES,
        query="is satay sauce ok? it has peanuts",
        history=[],
        min_confidence=0.65,
        token_budget=1500,
        max_items=40,
    ).used


def test_answer_prompt_snapshot() -> None:
    """System prompt with memories and summary, recent turns as chat, then the input."""
    check(
        "answer",
        answer_messages(
            used=used(),
            summary="They planned a dinner party.",
            recent=RECENT,
            user_input="is satay sauce ok? it has peanuts",
        ),
    )


def test_reflection_prompt_snapshot() -> None:
    """Rules and reply shape, then memories under short ids, turns, input, answer."""
    check(
        "reflection",
        reflection_messages(
            used=used(),
            recent=RECENT,
            user_input="is satay sauce ok? it has peanuts",
            answer="No: you are allergic to peanuts.",
            summary="",
            leaving=[],
        ),
    )


def test_reflection_prompt_asks_for_summary_when_turns_leave() -> None:
    """When turns leave the window, the prompt quotes them and asks for session_summary."""
    check(
        "reflection_with_summary",
        reflection_messages(
            used=[],
            recent=RECENT,
            user_input="thanks",
            answer="You're welcome.",
            summary="Earlier: introductions.",
            leaving=RECENT,
        ),
    )


def test_render_requires_exactly_the_placeholders() -> None:
    """A missing or unexpected value is an error, not a silently broken prompt."""
    with pytest.raises(KeyError):
        render("reflect_reask")
    with pytest.raises(KeyError):
        render("reflect_reask", error="x", extra="y")


def test_placeholder_text_inside_values_is_not_expanded() -> None:
    """User text that looks like a placeholder stays literal."""
    assert "{{error}}" in render("reflect_reask", error="{{error}}")
