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


def test_traditional_chinese_reads_as_simplified_one_character_for_one() -> None:
    """Every character of the table maps to one character, so spans found in the simplified
    text are the text's own; Simplified and Japanese text are left as written."""
    from pipeline.text import _simplified_table, fold, simplified

    table = _simplified_table()
    assert len(table) > 4000
    traditional = "".join(map(chr, table))
    assert len(simplified(traditional)) == len(traditional)
    assert simplified("以後請你都用繁體字回答我") == "以后请你都用繁体字回答我"
    assert simplified("用户的密码") == "用户的密码"
    assert simplified("暗証番号は4471です") == "暗証番号は4471です"  # kana: Japanese
    assert fold("門禁碼") == fold("门禁码") == "门禁码"
    assert terms("銀行卡密碼") == terms("银行卡密码")
