"""Tokens, stems and token estimates that retrieval and the gate rely on."""

from __future__ import annotations

from pipeline.text import dedupe_key, estimate_tokens, stem, terms, tokens


def test_accents_fold_and_case_folds() -> None:
    """ "Crème BRÛLÉE" and "creme brulee" are the same tokens."""
    assert tokens("Crème BRÛLÉE") == tokens("creme brulee") == ["creme", "brulee"]


def test_cjk_text_becomes_character_bigrams() -> None:
    """Chinese has no spaces: bigrams make "北京烤鸭" findable by "烤鸭"."""
    assert tokens("我爱北京烤鸭") == ["我爱", "爱北", "北京", "京烤", "烤鸭"]
    assert "烤鸭" in tokens("烤鸭")
    assert tokens("用Rust写代码") == ["用", "rust", "写代", "代码"]


def test_punctuation_splits_and_apostrophes_join() -> None:
    """Punctuation separates words; "don't" stays one token so negation survives."""
    assert tokens("tea, coffee; (jazz)!") == ["tea", "coffee", "jazz"]
    assert tokens("I don't eat meat") == ["i", "dont", "eat", "meat"]


def test_numbers_are_tokens() -> None:
    """Numbers are kept: "2 cats" and "3 cats" must differ."""
    assert tokens("has 2 cats and 3.5 dogs") == ["has", "2", "cats", "and", "3", "5", "dogs"]


def test_stemming_meets_inflections() -> None:
    """like/likes/liked/liking share a stem; short words and numbers are left alone."""
    assert len({stem(w) for w in ["like", "likes", "liked", "liking"]}) == 1
    assert stem("answers") == stem("answer")
    assert stem("running") == stem("run")
    assert stem("glasses") == "glass"
    assert stem("tea") == "tea"
    assert stem("2024") == "2024"


def test_terms_drop_stopwords_but_keep_negations() -> None:
    """Stop words go; "not" stays."""
    assert terms("The user is not a fan of the rain") == ("not", "fan", "rain")


def test_dedupe_key_ignores_wording_noise() -> None:
    """Articles, case and punctuation do not change the key."""
    assert dedupe_key("The user likes tea!") == dedupe_key("user LIKES tea")


def test_token_estimate_counts_cjk_characters() -> None:
    """CJK characters count one token each; other text about four characters a token."""
    assert estimate_tokens("北京烤鸭") == 4
    assert estimate_tokens("a" * 40) == 10
