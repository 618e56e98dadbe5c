"""Explicit requests (seed 004): the user asks to remember something, or to forget it.

Detection is the program's, not the model's: a candidate the model marks `explicit` is
treated so only when the user's own words carry a remember signal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .text import fold, terms

_REMEMBER = re.compile(
    r"\bremember\s*(?:that\b|this\b|:|,)|^\s*(?:please )?remember\b"
    r"|\b(?:don'?t|do not) forget (?:that|this)\b|\bkeep in mind\b|\bmake a note\b"
    r"|\bnote that\b|\bfrom now on\b|^\s*(?:please )?always\b|\bplease always\b"
    r"|\byou should always\b"
    r"|记住|记得|别忘了|以后都这样|以后都要|必须长期遵守|从现在开始",
    re.MULTILINE,
)
# Imperatives only: "forget that ..." at the start of a sentence or after "please" / "can
# you"; "I always forget my keys" is not a request.
_ASKING = r"(?:^|[.!?;,]\s*|\bplease |\b(?:can|could|would) you (?:please )?|\bi want you to )"
_FORGET = re.compile(
    _ASKING + r"forget (?:that |about |what |my |the )?(?P<en>.*)"
    r"|" + _ASKING + r"(?:don'?t|do not|stop) remember(?:ing)? (?:that |about )?(?P<en2>.*)"
    r"|\b(?:delete|remove|erase) (?:the |that |this )?memory (?:that |about |of )?(?P<en3>.*)"
    r"|(?:忘记|忘掉|不要记住|别记住|删除记忆)(?P<zh>.*)",
    re.MULTILINE,
)


@dataclass(frozen=True)
class ForgetRequest:
    """The user asked to forget; `about` is what they named (may be empty)."""

    about: str


def asks_to_remember(text: str) -> bool:
    """True when the user explicitly asks for something to be remembered."""
    return bool(_REMEMBER.search(fold(text).replace("\u2019", "'")))


def asks_to_forget(text: str) -> ForgetRequest | None:
    """The forget request in `text`, if there is one."""
    match = _FORGET.search(fold(text).replace("\u2019", "'"))
    if not match:
        return None
    about = next((g for g in match.groups() if g), "")
    return ForgetRequest(about=about.strip(" .!?。！？"))


def matches_request(request: ForgetRequest, content: str, cosine: float | None) -> bool:
    """Whether a memory is what the user asked to forget: most of the named words are in
    it, or (with embeddings) it means much the same."""
    wanted = set(terms(request.about))
    if cosine is not None and cosine >= 0.5:
        return True
    if not wanted:
        return False
    return len(wanted & set(terms(content))) / len(wanted) >= 0.5
