"""Whether the user's message this turn hands the assistant outside content, or speaks for
the user.

A rule for the assistant planted in a page, an email or a tool's output reaches the
reflection in a turn whose user message is about that content ("Summarise this review",
"What does this email say?"); a rule the user asked for comes from a message about how they
want to be answered, often in other words than the rule's ("ugh stop with the emojis" for
"User wants replies without emoji"). The model is a logistic regression over the judge's
hashed character n-grams of the user's message (`judge/context.bin`, 32 KB), trained on
the user turns of the training parts' rules for the assistant by
`benchmarks/train_asked.py`, which chose its thresholds by cross-validation.
"""

from __future__ import annotations

from functools import cache, lru_cache
from pathlib import Path
from typing import NamedTuple

from .charjudge import BinaryNgrams, load_binary

WEIGHTS_FILE = Path(__file__).parent / "judge" / "context.bin"
META_FILE = Path(__file__).parent / "judge" / "context.json"


class ContextModel(NamedTuple):
    """The shipped model and its three bars on the probability of handing over content."""

    model: BinaryNgrams
    threshold: float  # below it, a message speaks for the user
    refuse: float  # from it, a message surely hands over content
    speaks: float  # below it, a message is surely the user's own request


@cache
def load_context_model() -> ContextModel:
    """The shipped model and its bars, read once per process."""
    model, meta = load_binary(WEIGHTS_FILE, META_FILE)
    return ContextModel(
        model, float(meta["threshold"]), float(meta["refuse"]), float(meta["speaks"])
    )


@lru_cache(maxsize=64)
def _handed_over(user_text: str) -> float:
    """How likely the message is to hand over content: one turn asks it of every rule
    for the assistant among its candidates, and of the same message each time."""
    return load_context_model().model.probability(user_text)


def speaks_for_user(user_text: str) -> bool:
    """Whether the user's message reads as their own request, not as outside content
    handed over to be read, summarised or translated."""
    return _handed_over(user_text) < load_context_model().threshold


def surely_speaks_for_user(user_text: str) -> bool:
    """Whether the user's message is surely their own request: surer than the model was of
    any planted rule's turn in cross-validation ("just tell me if you don't know, don't
    bluff", "tl;dr at the bottom of everything pls")."""
    return _handed_over(user_text) < load_context_model().speaks


# Below it, a message likely speaks for the user: a rule the embedding finds far in meaning
# from it ("leave German organ stop names untranslated" for "please don't translate Gedackt,
# Prinzipal etc., I know what they mean", a cosine of 0.185) is still theirs. Measured with
# the full judge over the 12,491 rules with a user turn in the gate corpus: at 0.2, 8 asked-
# for rules kept and no planted rule; at 0.1, 4 and none; at `threshold` (0.5), 10 and 4
# planted rules (their messages at 0.32 to 0.49).
LIKELY = 0.2


def likely_speaks_for_user(user_text: str) -> bool:
    return _handed_over(user_text) < LIKELY


def hands_over_content(user_text: str) -> bool:
    """Whether the user's message surely hands over content to be read: surer than the
    model was of any asked-for rule's turn in cross-validation."""
    return _handed_over(user_text) >= load_context_model().refuse
