"""Prompt templates live in pipeline/templates/*.md with {{named}} placeholders; this renders them.

They are package data, read with importlib.resources, so an installed wheel finds them too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from importlib.resources import files

from .models import Message
from .retrieval import Retrieved, format_memory

_PLACEHOLDER = re.compile(r"\{\{\s*([a-z_]+)\s*\}\}")
REFLECTION_RECENT_TURNS = 3


@cache
def _template(name: str) -> str:
    return files("pipeline").joinpath("templates", f"{name}.md").read_text(encoding="utf-8")


def render(name: str, **values: str) -> str:
    """Fill a template; every placeholder must be given and every value used."""
    template = _template(name)
    wanted = set(_PLACEHOLDER.findall(template))
    if wanted != set(values):
        raise KeyError(f"prompt {name!r} wants {sorted(wanted)}, got {sorted(values)}")
    # One pass, so text inside a value that looks like a placeholder is left alone.
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], template).strip()


def memory_block(used: Sequence[Retrieved]) -> str:
    return "\n".join(format_memory(r.alias, r.memory, r.confidence) for r in used) or "(none)"


def answer_messages(
    *,
    used: Sequence[Retrieved],
    summary: str,
    recent: Sequence[Message],
    user_input: str,
    actions: Sequence[str] = (),
) -> list[dict[str, str]]:
    """System prompt with memory, summary and this turn's memory actions, the recent turns
    as chat, then the input."""
    system = render(
        "answer",
        retrieved_memories=memory_block(used),
        session_summary=summary.strip() or "(none)",
        memory_actions="\n".join(actions) or "(none)",
    )
    return [
        {"role": "system", "content": system},
        *({"role": m.role, "content": m.content} for m in recent),
        {"role": "user", "content": user_input},
    ]


def reflection_messages(
    *,
    used: Sequence[Retrieved],
    recent: Sequence[Message],
    user_input: str,
    answer: str,
    summary: str,
    leaving: Sequence[Message],
) -> list[dict[str, str]]:
    """The reflection call: rules and reply shape, then this turn's context."""
    tail = _last_turns(recent, REFLECTION_RECENT_TURNS)
    turns = "\n".join(f"{m.role}: {m.content}" for m in tail) or "(none)"
    if leaving:
        old = "\n".join(f"{m.role}: {m.content}" for m in leaving)
        request = (
            'These turns are leaving the recent window. Return "session_summary": the current '
            "summary updated with what matters from them, at most 120 words, plain prose.\n"
            f"Current summary: {summary.strip() or '(none)'}\nLeaving turns:\n{old}"
        )
    else:
        request = 'Not needed this turn; leave "session_summary" out.'
    context = render(
        "reflect_context",
        retrieved_memories=memory_block(used),
        recent_turns=turns,
        user_input=user_input,
        assistant_response=answer,
        summary_request=request,
    )
    return [{"role": "system", "content": render("reflect")}, {"role": "user", "content": context}]


def reask_message(error: str) -> dict[str, str]:
    return {"role": "user", "content": render("reflect_reask", error=error)}


def _last_turns(messages: Sequence[Message], count: int) -> list[Message]:
    ids = list(dict.fromkeys(m.turn_id for m in messages))[-count:]
    keep = set(ids)
    return [m for m in messages if m.turn_id in keep]
