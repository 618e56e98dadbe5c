"""The judgement any text gets: a linear model over hashed character n-grams.

MiniLM reads English only, and only with the `semantic` extra. This model reads what it
cannot: Chinese text, and every text when the extra is not installed. Its features are
the text's character n-grams (one to four characters, after folding case and writing
every digit as 0), each hashed to one of 2**bits buckets and weighted so that the
text's vector has unit length; a multinomial logistic regression over them tells
durable facts from passing states, guesses, talk about the conversation and planted
instructions. It is trained with the embedding judge (`benchmarks/train_judge.py`) and
ships as `judge/chars.bin` (int8 weights, one scale) with `judge/chars.json`.

Pure Python at run time (the standard library's `array` and `zlib`): no numpy, so it
judges without the extra, and it costs well under a millisecond a text. Deterministic:
crc32 hashing, no randomness. A refusal names the n-grams that weighed most for it.
"""

from __future__ import annotations

import json
import math
import re
import zlib
from array import array
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from .text import fold, has_cjk, simplified

LABELS = ("durable", "ephemeral", "speculative", "small_talk", "injection")
WEIGHTS_FILE = Path(__file__).parent / "judge" / "chars.bin"
META_FILE = Path(__file__).parent / "judge" / "chars.json"
GRAM_SIZES = (1, 2, 3, 4)
NEVER = 1.01  # a threshold no probability reaches

_DIGIT = re.compile(r"\d")
_SPACE = re.compile(r"\s+")


def grams(text: str) -> list[str]:
    """The character n-grams of `text`, folded, with digits as 0 and words padded by
    spaces (so " tired" and "ache " mark where a word starts and ends)."""
    folded = _SPACE.sub(" ", _DIGIT.sub("0", fold(text))).strip()
    padded = f" {folded} "
    out = []
    for n in GRAM_SIZES:
        for i in range(len(padded) - n + 1):
            gram = padded[i : i + n]
            if gram.strip():
                out.append(gram)
    return out


# Taiwan's words where the mainland's differ, read by the judge as the mainland's (its
# training data is mostly mainland Chinese): "使用者" is "用户", as "密碼" is "密码" once
# folded. The secret and message models read the text as it is.
_REGIONAL = {"使用者": "用户", "网路": "网络", "讯息": "消息", "简讯": "短信", "影片": "视频"}
# And Cantonese's written words, whose characters Mandarin does not use that way (唔 for
# 不, 咗 for 了, 喺 for 在; "应该系" is Cantonese's "应该是" once simplified, 係 being 系):
# "焗炉啱啱坏咗" is "焗炉刚刚坏了". Words Mandarin shares ("或者", "话") are read as written.
_REGIONAL |= {
    "唔该": "谢谢", "多谢": "谢谢", "唔": "不", "咗": "了", "嘢": "东西", "啲": "些", "喺": "在",
    "冇": "没有", "佢哋": "他们", "佢": "他", "嘅": "的", "啱啱": "刚刚", "嚟": "来",
    "而家": "现在", "应该系": "应该是", "系咪": "是不是", "系唔系": "是不是",
}  # fmt: skip
_REGIONAL_WORDS = re.compile("|".join(sorted(_REGIONAL, key=len, reverse=True)))


def mainland(text: str) -> str:
    """`text` in Simplified characters with Taiwan's words for the user, the network,
    messages and videos, and Cantonese's written words, as the mainland's (the n-grams
    fold it once, after)."""
    if text.isascii():
        return text
    return _REGIONAL_WORDS.sub(lambda m: _REGIONAL[m.group()], simplified(text))


def bucket(gram: str, bits: int) -> int:
    """The bucket of one n-gram: crc32, stable across processes (unlike `hash`)."""
    return zlib.crc32(gram.encode("utf-8")) & ((1 << bits) - 1)


def features(text: str, bits: int) -> dict[int, float]:
    """The unit-length vector of `text`: square roots of the n-gram counts per bucket."""
    counts: dict[int, float] = {}
    for gram in grams(text):
        b = bucket(gram, bits)
        counts[b] = counts.get(b, 0.0) + 1.0
    norm = math.sqrt(sum(counts.values()))  # sum of (sqrt count)^2
    return {b: math.sqrt(c) / norm for b, c in counts.items()} if norm else {}


@dataclass(frozen=True)
class CharVerdict:
    """The judged kind of a text, how sure, and (for a refusal) the n-grams behind it."""

    label: str
    probability: float
    features: tuple[str, ...] = ()

    @property
    def detail(self) -> str:
        return explained(f"judged {self.label}", self.probability, self.features)


def explained(judged: str, probability: float, features: tuple[str, ...]) -> str:
    """A verdict of an n-gram model as the trace shows it, with the n-grams behind it."""
    text = f"{judged} (p={probability:.2f}, character n-grams)"
    if not features:
        return text
    return f"{text}; weighed most: {', '.join(repr(g) for g in features)}"


@dataclass(frozen=True)
class CharModel:
    """Hashed n-gram weights (bucket-major, one row of len(LABELS) per bucket), bias and
    the probability each rejecting class needs to refuse a text: Chinese text has its
    own thresholds, chosen on Chinese rows (the model is surer of English)."""

    bits: int
    weights: array[int] | array[float]
    bias: tuple[float, ...]
    thresholds: dict[str, float]
    thresholds_cjk: dict[str, float]
    scale: float = 1.0  # the shipped weights are int8: each one times this
    # How sure of "durable" the model must be to keep a text a word rule refused (above 1:
    # never), for English and for Chinese.
    overrule: float = NEVER
    overrule_cjk: float = NEVER
    # With the embedding as well: how sure of "durable" this model must be before the
    # embedding is asked (most texts a word rule refuses are settled without a vector).
    overrule_screen: float = 0.0
    # Below this probability of "durable" a text is refused as the likeliest other kind
    # even when that kind is short of its threshold (a quip to the assistant read as 0.07
    # durable and 0.45 small talk), for English and for Chinese (0: never).
    floor: float = 0.0
    floor_cjk: float = 0.0

    def probabilities(self, text: str) -> list[float]:
        """The probability of each label for `text` (softmax of the linear scores)."""
        vector = features(mainland(text), self.bits)
        k = len(LABELS)
        sums = [0.0] * k
        w = self.weights
        for b, x in vector.items():
            row = b * k
            for c in range(k):
                sums[c] += x * w[row + c]
        logits = [bias + self.scale * s for bias, s in zip(self.bias, sums, strict=True)]
        top = max(logits)
        exps = [math.exp(v - top) for v in logits]
        total = sum(exps)
        return [e / total for e in exps]

    def judge(self, text: str) -> CharVerdict:
        """What `text` is: durable unless another kind passes its class's threshold, or
        durable is below its floor."""
        p = self.probabilities(text)
        best = max(range(len(LABELS)), key=lambda c: p[c])
        label = LABELS[best]
        cjk = has_cjk(text)
        thresholds = self.thresholds_cjk if cjk else self.thresholds
        floor = self.floor_cjk if cjk else self.floor
        if label != "durable" and p[best] < thresholds[label] and p[0] >= floor:
            label = "durable"
        probability = p[LABELS.index(label)]
        if label == "durable":
            return CharVerdict(label, probability)
        return CharVerdict(label, probability, self.weighed_most(text, label))

    def overrule_at(self, text: str) -> float:
        """The probability of "durable" that keeps `text` over a word rule's refusal."""
        return self.overrule_cjk if has_cjk(text) else self.overrule

    def weighed_most(self, text: str, label: str, count: int = 3) -> tuple[str, ...]:
        """The n-grams of `text` that pushed it furthest from durable towards `label`
        (punctuation alone, and a Latin letter alone, explain nothing and are left out)."""
        k, c = len(LABELS), LABELS.index(label)
        w = self.weights
        push: dict[str, float] = {}
        for gram in grams(mainland(text)):
            shown = gram.strip()
            if not any(ch.isalnum() for ch in shown) or (len(shown) == 1 and shown.isascii()):
                continue
            row = bucket(gram, self.bits) * k
            push[shown] = max(push.get(shown, -math.inf), w[row + c] - w[row])
        ranked = sorted(push, key=lambda g: (-push[g], -len(g), g))
        return tuple(g for g in ranked[:count] if push[g] > 0)


@dataclass(frozen=True)
class BinaryNgrams:
    """A yes-or-no logistic regression over the same hashed n-grams: one int8 weight per
    bucket (times `scale`) and a bias."""

    bits: int
    weights: array[int] | array[float]
    bias: float
    scale: float

    def probability(self, text: str) -> float:
        """How likely `text` is to be of the kind the model was trained to find."""
        w = self.weights
        score = self.bias + self.scale * sum(x * w[b] for b, x in features(text, self.bits).items())
        return 1.0 / (1.0 + math.exp(-score))


def load_binary(weights_file: Path, meta_file: Path) -> tuple[BinaryNgrams, dict[str, Any]]:
    """A shipped yes-or-no model and the rest of its data (its thresholds)."""
    meta = json.loads(meta_file.read_text(encoding="utf-8"))
    weights = array("b")
    weights.frombytes(weights_file.read_bytes())
    model = BinaryNgrams(int(meta["bits"]), weights, float(meta["bias"]), float(meta["scale"]))
    return model, meta


def pack(weights: Iterable[float], meta: dict[str, Any]) -> tuple[bytes, str]:
    """The two data files' contents: int8 weights, and the JSON with their scale, the bias,
    the hashing and the thresholds (what `load_chars` reads back)."""
    values = list(weights)
    scale = max((abs(v) for v in values), default=0.0) / 127 or 1.0
    quantised = array("b", (max(-127, min(127, round(v / scale))) for v in values))
    return quantised.tobytes(), json.dumps({**meta, "scale": scale}, indent=1, sort_keys=True)


@cache
def load_chars() -> CharModel:
    """The shipped n-gram model, read once per process (about 0.2 MB)."""
    meta = json.loads(META_FILE.read_text(encoding="utf-8"))
    quantised = array("b")
    quantised.frombytes(WEIGHTS_FILE.read_bytes())
    return CharModel(
        int(meta["bits"]),
        quantised,
        tuple(meta["bias"]),
        dict(meta["thresholds"]),
        dict(meta["thresholds_cjk"]),
        float(meta["scale"]),
        float(meta.get("overrule", NEVER)),
        float(meta.get("overrule_cjk", NEVER)),
        float(meta.get("overrule_screen", 0.0)),
        float(meta.get("floor", 0.0)),
        float(meta.get("floor_cjk", 0.0)),
    )
