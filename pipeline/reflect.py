"""LLM call #2: ask what is worth remembering, validate the JSON, re-ask once on failure."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from pydantic import ValidationError

from .llm import Completion
from .models import ReflectionReply
from .prompts import reask_message

MAX_ERROR_CHARS = 1500


class Completer(Protocol):
    """A chat model. `on_delta` is passed only when the caller wants the answer streamed."""

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        json_mode: bool = False,
        on_delta: Callable[[str], None] | None = None,
    ) -> Completion: ...


@dataclass
class Reflection:
    """The reply (None if it stayed invalid after the re-ask) and the calls it took."""

    reply: ReflectionReply | None
    calls: list[Completion] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def parse_reply(text: str) -> ReflectionReply:
    """Validate the model's reply; raise ValueError with a message fit to send back to it."""
    body = text.strip()
    if body.startswith("```"):
        # Some OpenAI-compatible servers wrap JSON mode output in a fence anyway.
        body = body.split("\n", 1)[1] if "\n" in body else ""
        body = body.rsplit("```", 1)[0].strip()
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, got {type(data).__name__}")
    try:
        return ReflectionReply.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'reply'}: {err['msg']}"
            for err in exc.errors()
        )
        raise ValueError(f"does not match the required shape: {problems}") from exc


def propose_memories(model: Completer, messages: list[dict[str, str]]) -> Reflection:
    """Ask for candidates; on an invalid reply ask once more with the error text.

    Returns a Reflection whose reply is None when the second reply is invalid too;
    LLMError from the call itself passes through.
    """
    calls: list[Completion] = []
    errors: list[str] = []
    conversation = list(messages)
    for _ in range(2):
        completion = model.complete(conversation, json_mode=True)
        calls.append(completion)
        try:
            return Reflection(reply=parse_reply(completion.text), calls=calls, errors=errors)
        except ValueError as exc:
            error = str(exc)[:MAX_ERROR_CHARS]
            errors.append(error)
            conversation = [
                *conversation,
                {"role": "assistant", "content": completion.text},
                reask_message(error),
            ]
    return Reflection(reply=None, calls=calls, errors=errors)
