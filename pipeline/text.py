"""Text normalisation shared by retrieval and the gate: folding, tokens, stems, token estimates."""

from __future__ import annotations

import re
import unicodedata
from functools import cache, lru_cache
from pathlib import Path

# Words that carry no topic; negations are deliberately absent ("not allergic" must not
# collapse into "allergic").
STOPWORDS = frozenset(
    """
    a an the and or but if then than so of to in on at by for with from into onto about as
    is are was were be been being am do does did has have had having i me my mine we our ours
    you your yours he him his she her hers it its they them their theirs this that these those
    there here what which who whom whose when where why how all any both each few more most
    other some such only own same too very can will just should would could shall also
    user users assistant
    """.split()
)
NEGATIONS = frozenset({"not", "no", "never", "none", "nor", "cannot", "without", "dont", "doesnt"})

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# Han, kana and hangul: scripts written without spaces, which MiniLM does not read.
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def has_cjk(text: str) -> bool:
    """Whether `text` holds any CJK character (Han, kana or hangul)."""
    return not text.isascii() and _CJK.search(text) is not None


def is_cjk(ch: str) -> bool:
    """Whether the single character `ch` is CJK."""
    return _CJK.match(ch) is not None


def count_cjk(text: str) -> int:
    """How many CJK characters `text` holds."""
    return 0 if text.isascii() else len(_CJK.findall(text))


def fold(text: str) -> str:
    """Unicode-compatible, case-folded, accent-stripped text, Chinese in its Simplified
    characters ("Crème" -> "creme", "密碼" -> "密码")."""
    if text.isascii():
        return text.lower()  # the common case, and the same result, without the slow path
    composed = unicodedata.normalize("NFKC", text).casefold()
    decomposed = unicodedata.normalize("NFKD", simplified(composed))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


_TRADITIONAL = Path(__file__).parent / "hanzi" / "traditional.txt"
_KANA = re.compile(r"[\u3040-\u30ff]")


@cache
def _simplified_table() -> dict[int, int]:
    """Traditional Chinese character -> its Simplified form (OpenCC's table, one character
    for one); read the first time a text holds Chinese."""
    pairs = _TRADITIONAL.read_text("utf-8").split()
    return {ord(pair[0]): ord(pair[1]) for pair in pairs}


def simplified(text: str) -> str:
    """`text` with each Traditional Chinese character in its Simplified form: one character
    for one, so every span of the result is the same span of `text`. Users in Taiwan and
    Hong Kong write "密碼", "門禁碼", "以後請用繁體回答"; the rules, the word lists and the
    judges read Simplified. Japanese (any text with kana) is left as written: its kanji are
    not Traditional Chinese ("暗証番号")."""
    if not has_cjk(text) or _KANA.search(text) is not None:
        return text
    return text.translate(_simplified_table())


# Characters that take no place on the screen: zero-width spaces and joiners, the soft
# hyphen, the word joiner, direction marks and embeddings, the byte-order mark, variation
# selectors and the keycap's enclosing mark. Put inside a word ("ig\u200bnore all safety
# rules", "4\u200b4\u200b7\u200b1") they hide it from every reader that matches words,
# and the screen shows the word whole.
_INVISIBLE = re.compile(
    r"[\u00ad\u180e\u200b-\u200f\u202a-\u202c\u2060-\u2064\u2066-\u2069\ufeff\ufe00-\ufe0f\u20e3]"
)
# Unicode tag characters (U+E0020 to U+E007E) spell ASCII that no screen shows: a tag
# sequence is legitimate only inside a subdivision flag (black flag, lower-case tags,
# cancel tag: "Scotland"). Overrides of writing direction (U+202D, U+202E) show text in
# another order than it is read.
_FLAG_TAGS = re.compile("\U0001f3f4[\U000e0030-\U000e0039\U000e0061-\U000e007a]+\U000e007f")
_HIDING = re.compile("[\U000e0000-\U000e007f\u202d\u202e]")
TAG_ASCII = {code: code - 0xE0000 for code in range(0xE0020, 0xE007F)}


def visible(text: str) -> str:
    """`text` as the screen shows it, without the characters that take no place on it."""
    if text.isascii():
        return text
    return _INVISIBLE.sub("", text)


def visible_positions(text: str) -> tuple[str, list[int]] | None:
    """`visible(text)` and, for each of its characters, where it stands in `text` (the list
    ends with `len(text)`); None if every character of `text` shows."""
    if text.isascii() or not _INVISIBLE.search(text):
        return None
    kept = [i for i, ch in enumerate(text) if not _INVISIBLE.match(ch)]
    return "".join(text[i] for i in kept), [*kept, len(text)]


def hides_text(text: str) -> bool:
    """Whether `text` holds characters that hide what they say (tag characters outside a
    flag, overrides of writing direction)."""
    if text.isascii():
        return False
    return _HIDING.search(_FLAG_TAGS.sub("", text)) is not None


def _split_cjk(word: str) -> list[str]:
    """Latin runs stay whole; runs of CJK characters become overlapping bigrams."""
    out: list[str] = []
    run: list[str] = []
    latin: list[str] = []

    def flush_run() -> None:
        if len(run) == 1:
            out.append(run[0])
        out.extend(run[i] + run[i + 1] for i in range(len(run) - 1))
        run.clear()

    for ch in word:
        if _CJK.match(ch):
            if latin:
                out.append("".join(latin))
                latin.clear()
            run.append(ch)
        else:
            if run:
                flush_run()
            latin.append(ch)
    if run:
        flush_run()
    if latin:
        out.append("".join(latin))
    return out


def tokens(text: str) -> list[str]:
    """Folded word tokens in order; CJK text becomes character bigrams; "don't" -> "dont"."""
    words = _WORD.findall(fold(text).replace("'", "").replace("\u2019", ""))
    if text.isascii():
        return words  # no CJK to split: skip the per-word check
    out: list[str] = []
    for word in words:
        if _CJK.search(word):
            out.extend(_split_cjk(word))
        else:
            out.append(word)
    return out


@lru_cache(maxsize=65536)
def stem(token: str) -> str:
    """A light suffix stemmer: "likes", "liked", "liking" and "like" all become "lik"."""
    if len(token) <= 3 or not token.isascii() or not token.isalpha():
        return token
    base = token
    for suffix, keep in (
        ("ies", "y"),
        ("sses", "ss"),
        ("ing", ""),
        ("edly", ""),
        ("ed", ""),
        ("ly", ""),
        ("s", ""),
    ):
        if token.endswith(suffix) and len(token) - len(suffix) >= 3:
            if suffix == "s" and token.endswith(("ss", "us", "is")):
                break
            base = token[: len(token) - len(suffix)] + keep
            if suffix in ("ing", "ed") and len(base) > 3 and base[-1] == base[-2] != "s":
                base = base[:-1]  # "running" -> "run", "planned" -> "plan"
            break
    if base.endswith("es") and base[-3:-2] in ("s", "x", "z", "h") and len(base) > 4:
        base = base[:-2]  # "boxes" -> "box", "wishes" -> "wish"
    elif base.endswith("e") and len(base) > 3:
        base = base[:-1]  # "like" and "liked" meet at "lik"
    return base


def terms(text: str) -> tuple[str, ...]:
    """Stemmed content terms: tokens without stop words (negations kept)."""
    return _terms(text)


# Retrieval and the gate both read every stored memory each turn: cache per text. Stems
# are looked up in a plain dict in the loop below, the hot path of a cold 10,000-memory
# turn (a function call per token costs more than the stemming it saves).
_STEMS: dict[str, str] = {}


@lru_cache(maxsize=100_000)
def _terms(text: str) -> tuple[str, ...]:
    if len(_STEMS) > 200_000:
        _STEMS.clear()
    stems = _STEMS
    return tuple(
        [
            stems[t] if t in stems else stems.setdefault(t, stem(t))
            for t in tokens(text)
            if t not in STOPWORDS
        ]
    )


def dedupe_key(text: str) -> str:
    """Text reduced to what two phrasings of the same fact share ("The user likes tea." ==
    "user likes tea")."""
    return " ".join(terms(text))


def estimate_tokens(text: str) -> int:
    """A cheap, tokenizer-free estimate: ~4 characters a token, one token per CJK character."""
    cjk = count_cjk(text)
    return cjk + (len(text) - cjk + 3) // 4
