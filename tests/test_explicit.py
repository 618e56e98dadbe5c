"""Explicit remember/forget requests, in English and Chinese (seed 004)."""

from __future__ import annotations

import pytest

from pipeline.explicit import ForgetRequest, asks_to_forget, asks_to_remember, matches_request


@pytest.mark.parametrize(
    "text",
    [
        "Remember that I am vegan",
        "please remember: my sister is Ana",
        "Don't forget that I hate mushrooms",
        "From now on, answer in French",
        "Always reply in English",
        "Keep in mind that I work nights",
        "记住我不吃辣",
        "以后都这样回答",
        "这条规则必须长期遵守",
    ],
)
def test_remember_signals(text: str) -> None:
    """Explicit requests to remember are recognised."""
    assert asks_to_remember(text)


@pytest.mark.parametrize(
    "text",
    [
        "I always drink tea",
        "I remember my first car",
        "what do you remember about me?",
        "我喜欢喝茶",
    ],
)
def test_statements_are_not_remember_requests(text: str) -> None:
    """Talking about remembering, or stating a habit, is not a request."""
    assert not asks_to_remember(text)


@pytest.mark.parametrize(
    ("text", "about"),
    [
        ("Forget that I live in Porto", "i live in porto"),
        ("Please forget about my sister.", "my sister"),
        ("can you forget my address?", "address"),
        ("Please don't remember my address", "my address"),
        ("delete the memory about chess", "chess"),
        ("忘记我住在波尔图", "我住在波尔图"),
    ],
)
def test_forget_requests_name_what_to_forget(text: str, about: str) -> None:
    """A forget request is recognised and says what it is about."""
    assert asks_to_forget(text) == ForgetRequest(about=about)


@pytest.mark.parametrize(
    "text",
    [
        "Don't forget that I hate mushrooms",
        "I always forget my keys",
        "never forget me",
        "I don't remember my first car",
    ],
)
def test_not_forget_requests(text: str) -> None:
    """ "Don't forget", and forgetting as a statement, are not requests to forget."""
    assert asks_to_forget(text) is None


def test_matching_needs_most_of_the_named_words() -> None:
    """The named words must mostly be in the memory (or the meaning close, with vectors)."""
    request = ForgetRequest(about="i live in porto")
    assert matches_request(request, "User lives in Porto", None)
    assert not matches_request(request, "User likes port wine", None)
    assert matches_request(request, "User's home city is in northern Portugal", 0.6)
    assert not matches_request(ForgetRequest(about=""), "User lives in Porto", None)
