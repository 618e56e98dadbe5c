"""The learned backstop of the secret finder: is the value in this memory a secret?

The finder (`credentials.py`) knows formats and the nouns that introduce a value; a user
who writes "to get in: punch 6 0 3 9 then the bell icon" or "微信支付密码是六个8" uses
neither. This model reads the whole sentence instead: a logistic regression over the
same hashed character n-grams as the n-gram judge (`charjudge.py`, digits read as 0),
trained on the labelled corpus's secrets against every other kind of memory, so it has
learned the contexts that make a number a secret rather than the words of one phrasing.
It ships as `judge/secrets.bin` (int8 weights) with `judge/secrets.json`, written by
`benchmarks/train_secret_judge.py`, which also chose the threshold by cross-validation.

It speaks only when the text holds something a secret could be (`value_spans`): a run of
three or more digits that is not a time, an amount, a year a word places in time ("at the
2023 competition"), a short number a label introduces ("locker number 112"), a postcode or
a dialling code its noun introduces ("ZIP code is 94110"), a reference anyone may see (an
order, a parcel, a ship's IMO number, a network's name) or a phone number in international
form; a token of letters and
digits; digits spelled out in words, numbers told in words with a pause between ("three
one, then six eight"), characters spelled one by one ("Kilo, Seven, Echo, Two, Tango").
Those spans are what a refusal redacts. Pure Python, deterministic, a fraction of a
millisecond a text, and nothing is read until a text holds such a value.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .charjudge import NEVER, BinaryNgrams, bucket, explained, grams, load_binary
from .credentials import LETTER_BY_LETTER as _LETTER_BY_LETTER
from .credentials import clause_opening, public_identifiers, public_label_before, shown_to_all
from .lazyre import lazy
from .text import has_cjk

WEIGHTS_FILE = Path(__file__).parent / "judge" / "secrets.bin"
META_FILE = Path(__file__).parent / "judge" / "secrets.json"

# A run of digits, single spaces, hyphens, dots or slashes between them ("6 0 3 9",
# "84-3920175"), or a token that mixes letters and digits ("F7K2Q", "Brisket_1977").
# ASCII word edges: the Chinese words around a value ("密码是662190") are not part of it.
_DIGIT_RUN = lazy(r"(?<![\w+])\+?\d(?:[ \-./]?\d)*(?!\w)", re.ASCII)
_TOKEN = r"[A-Za-z0-9_!#$%&*-]"
_MIXED = lazy(rf"(?<![\w@.])(?={_TOKEN}*\d)(?={_TOKEN}*[A-Za-z]){_TOKEN}{{4,}}(?![\w@])", re.ASCII)
_EN_DIGIT = r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)"
_SPELLED = lazy(rf"\b{_EN_DIGIT}(?:[\s,\-]+{_EN_DIGIT}){{2,}}\b", re.IGNORECASE)
# Numbers told in words with a pause between ("three one, then six eight", "nineteen
# fifty-two"), and characters spelled one by one ("Kilo, Seven, Echo, Two, Tango").
_EN_NUMBER = (
    rf"(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:-{_EN_DIGIT})?"
    rf"|ten|eleven|twelve|(?:thir|four|fif|six|seven|eigh|nine)teen|{_EN_DIGIT})"
)
_SPELLED_PIECES = lazy(
    rf"\b{_EN_NUMBER}(?:(?:[\s,\-]+|,?\s+then\s+){_EN_NUMBER})+\b", re.IGNORECASE
)
# Chinese digits written out ("六六零八"), or a count of one digit ("六个8", "三个五").
_HAN_DIGITS = lazy(
    r"[零〇一二三四五六七八九两]{3,}|[一二三四五六七八九两]个[0-9零〇一二三四五六七八九]"
    # Suzhou numerals ("〤〦〡〨") and playing cards ("7♠ A♥ 9♦ 4♣"): signs a code may be
    # kept in.
    r"|[〇〡〢〣〤〥〦〧〨〩]{3,}"
    r"|(?:(?:10|[2-9AJQK])[♠♥♦♣♤♡♢♧](?:\s+|$)){2,}(?:10|[2-9AJQK])[♠♥♦♣♤♡♢♧]"
)
# A short number a label introduces names a thing ("locker number 112", "room no. 3112",
# "#471"); a code behind such a number is the finder's to read ("PIN number 4471").
MAX_LABEL_DIGITS = 4
_LABEL = lazy(r"(?:\bnumber|\bno\.?|\bnr\.?|#|№|第)\s?$", re.IGNORECASE)
# A number a public code's noun introduces is an address, whatever its length: "ZIP code is
# 94110", "postcode: 10115", "区号 0571", "Eircode D08 VF8H" (the finder leaves them too).
# A value shown as an example of a form ("bulletin IDs of the form GNP-2025-0214-AM", "e.g.
# TGHU 740213 8") is a format, not anyone's value.
_EXAMPLE_BEFORE = lazy(
    r"(?:\b(?:e\.g\.|for example|for instance|such as|of the form|in the form|in the format)"
    r"|例如|比如)[\s:,]*(?:[A-Za-z]{1,6}[- ])?$",  # and a prefix of letters: "e.g. TGHU 740213 8"
    re.IGNORECASE,
)
_PUBLIC_CODE = lazy(
    r"(?:\b(?:zip|postal|post|area|country|dialling|dialing) ?codes?|\bpostcodes?|\beircode"
    r"|邮编|邮政编码|区号)"
    r"(?:\s+(?:is|was)|\s*[:：=]|是|为)?\s*(?:[A-Za-z0-9]{1,4}\s)?$",  # "D08 VF8H": two parts
    re.IGNORECASE,
)
# A number that names an order, a ticket, an invoice or a desk telephone, or that a
# charity or a company prints, is a reference anyone may see: "desk extension is 4417",
# "order #WH-2024-118734", "ticket for the broken hinge is number 44871"; so is a ship's,
# a bus's, a batch's, a parcel's or a patent's, and the thing it names may come between ("the
# ISBN of her parish hymnbook, 978-…"). Not when a secret's noun comes before it in
# the clause ("the order's PIN is 4471").
_PUBLIC_NUMBER = lazy(
    r"(?:\b(?:extension|ext\.?|order|ticket|invoice|tracking|case|receipt|charity|"
    r"company registration|company|vat|isbn|issn|doi|orcid|flight|train|bus|fleet|imo|mmsi|"
    r"call sign|lot|batch|cask|serial|frame|patent|application|bill of lading|"
    r"container|bag tag|commit|cve|gtin|ean|upc|barcode|sku|asin|friend code|hotline|helpline"
    r"|non-emergency|switchboard|(?:phone|telephone|mobile|cell|contact|delivery|office) number"
    # A person's number, named by their name: "colleague Marc's number, 514-555-0178".
    r"|(?!User['’]s)(?-i:[A-Z][a-z]+)['’]s number"
    r"|(?:freephone|toll-free|toll free)(?: line)?|(?:claims|support|service|emergency|"
    r"enquiries|customer|booking|reservations?|complaints?) line)"
    r"(?: (?:number|no\.?|id|ref))?"
    r"|(?:工单|订单|快递单|运单|運單|发票|發票|分机|出库单|入库单|单号|單號|好友代码|好友码|"
    # A number of a thing, not of a person's file ("个人编号", "档案编号" are the finder's).
    r"(?<!个人)(?<!個人)(?<!档案)(?<!檔案)(?<!证)(?<!證)(?<!卡)(?:编号|編號)|"
    r"批次|批号|批號|交易号|掛號|挂号|车次|車次|航班|条码|条形码|條碼|條形碼)(?:号码?|號碼?|编号)?)"
    # Or the noun in brackets after the thing's name: "CD 嘅条码 (EAN) 系 4897…".
    r"\)?(?:[^.;:\n]{0,40}?\b(?:is|was|number|no\.?)|\s+of\s+[^.;:,\n]{1,40},)?(?:\s+(?:is|was))?"
    # Earlier groups of the same reference may come between ("顺丰单号 SF1438 7726 0915").
    r"\s*[:：=#,]?\s*(?:是|为|係|系)?\s*(?:\(?[A-Za-z0-9]{1,12}\)?[ -]){0,4}[#A-Za-z]*-?\(?$",
    re.IGNORECASE,
)
# A network's name is what it shows to everyone near it ("the Wi-Fi network is called
# Skjaergard_5G", "網絡名叫「KwokKitchen_Guest」").
_NETWORK_NAME = lazy(
    r"(?:\b(?:network|ssid|wi-?fi|wlan|hotspot)\b[^.;:\n]{0,24}?"
    r"\b(?:called|named|name is|name:)|网络名|網絡名|網路名|网络名称|网名)\s*(?:叫|是|為|为|係)?"
    r"\s*[\"'“‘「『]?$",
    re.IGNORECASE,
)
# A gauge's or a weather station's number right after its noun ("listed as station
# NBI-ASW-03", "station no. 6502500"); not a code a station's door takes.
_STATION_BEFORE = lazy(r"\bstation(?:\s+(?:no\.?|number|id))?\s*[:#]?\s*$", re.IGNORECASE)
_SECRET_BEFORE = lazy(
    r"\b(?:pin|code|pass\w*|key|secret|otp|token|account|iban|card)\b|密码|密碼|验证码|驗證碼|账号|帳號",
    re.IGNORECASE,
)
_CLOCK = lazy(r"\d{1,2}[.:]\d\d")
_FRACTION = lazy(r"\d{1,2}/\d{1,2}")  # "24/7", "50/50", a card's "11/27" expiry
_MODEL_BEFORE = lazy(
    r"(?:\bmodel(?: number| no\.?)?|\bpart (?:number|no\.?)|型号)\s*[:：#]?\s*$", re.I
)
_TOKEN_HEAD = lazy(r"[^\s:：]*$")
# An amount or a measure: the unit after the number says what it counts.
_UNIT_AFTER = lazy(
    r"\s?(?:年|月|日|号|號|楼|樓|层|層|室|栋|棟|路|岁|歲|元|块|塊|欧|美元|英镑|%|个|個|次|天|周|週|小时|"
    r"小時|分钟|分鐘|公里|公斤|平米|平方|人|"
    r"米|公分|厘米|毫米|克|升|毫升|页|字|"
    r"(?:percent|per cent|euros?|dollars?|pounds?|yuan|usd|eur|gbp|km|kg|mb|gb|tb|kb|"
    r"miles?|metres?|meters?|m2|sq|feet|ft|hours?|hrs?|minutes?|mins?|seconds?|days?|"
    r"weeks?|months?|years?|people|employees|students|users|pages|words|steps|calories|"
    r"kcal|times|st|nd|rd|th|g|mg|ml|cl|l|tbsp|tsp|cups?|oz|lbs?|°c|°f|℃)(?!\w))",
    re.IGNORECASE,
)
_CURRENCY_BEFORE = frozenset("$€£¥")
# A year after a word that places it in time ("at the 2023 competition", "since 1998") is a
# date; "the code is 1987" is the finder's to read.
_YEAR = lazy(r"(?:19|20)\d\d")
_TIME_BEFORE = lazy(
    r"\b(?:in|the|since|from|until|till|of|by|during|before|after|around|circa|early|late|mid|"
    r"spring|summer|autumn|fall|winter|january|february|march|april|may|june|july|august|"
    r"september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
    # Or whose year it was: "the museum's 2019 loans catalogue", "her 2021 novel".
    r"|his|her|their|its|our|my)[\s-]+$|['’]s[\s-]+$",
    re.IGNORECASE,
)
_MASK = "\u2400"  # stands for a value's characters when a verdict is explained


@dataclass(frozen=True)
class SecretVerdict:
    """A text judged to hold a secret: how sure, and the spans judged to be its value."""

    probability: float
    spans: tuple[tuple[int, int], ...]
    features: tuple[str, ...] = ()  # the n-grams that weighed most, none from the value

    @property
    def detail(self) -> str:
        return explained("judged to hold a secret value", self.probability, self.features)


def _public_number(text: str, start: int) -> bool:
    """Whether the value at `start` is a reference its noun says anyone may see."""
    if _NETWORK_NAME.search(text, max(0, start - 48), start):
        return True
    # Not when a secret's noun comes before it in the clause ("the keypad code for the bus
    # depot's gate is 7-1-9-3-0", "the bank account for invoices is PL55 …").
    m = _PUBLIC_NUMBER.search(text, max(0, start - 64), start)
    if m is None:
        return False
    return not _SECRET_BEFORE.search(text, max(clause_opening(text, m.start()), start - 64), start)


# A sentence that calls the value public in any words: "on the public register", "its
# published emergency number", "publishes … on its website", "是公開資料", "客人可以上網查".
_SAID_PUBLIC = lazy(
    r"\b(?:public|publicly|published|publishes|publish)\b|公开|公開|公示|(?:上网|上網|网上|網上)(?:可以)?查",
    re.IGNORECASE,
)


def _published(text: str, start: int, end: int) -> bool:
    """Whether the value's sentence says everyone is shown it ("painted on its public
    signboard", "对外公开", "which anyone can look up"), with no secret's noun in it."""
    left = max(text.rfind(mark, 0, start) for mark in ".!?\n。！？") + 1
    if not shown_to_all(text, start, end):
        ends = (text.find(mark, end) for mark in ".!?\n。！？")
        right = min((i for i in ends if i >= 0), default=len(text))
        if not _SAID_PUBLIC.search(text, left, right):
            return False
    nouns = [m.group().lower() for m in _SECRET_BEFORE.finditer(text, left, start)]
    # A code a public register's name introduces ("IATA cargo agent code", "SBI code") is
    # that register's, not a secret's noun.
    if nouns and public_label_before(text, start):
        nouns = [noun for noun in nouns if noun != "code"]
    return not nouns


def value_spans(text: str) -> list[tuple[int, int]]:
    """Where in `text` a secret value could be, in order of position."""
    spans = []
    for m in _DIGIT_RUN.finditer(text):
        value = m.group()
        if value.startswith("+") or sum(ch.isdigit() for ch in value) < 3:
            continue
        if _CLOCK.fullmatch(value) or _FRACTION.fullmatch(value):
            continue
        if len(value) <= MAX_LABEL_DIGITS and _LABEL.search(text, 0, m.start()):
            continue
        if _UNIT_AFTER.match(text, m.end()) or text[m.start() - 1 : m.start()] in _CURRENCY_BEFORE:
            continue
        if _YEAR.fullmatch(value) and _TIME_BEFORE.search(text, max(0, m.start() - 12), m.start()):
            continue
        spans.append((m.start(), m.end()))
    for pattern in (_MIXED, _SPELLED, _SPELLED_PIECES, _HAN_DIGITS, _LETTER_BY_LETTER):
        spans += [(m.start(), m.end()) for m in pattern.finditer(text)]
    # A postcode, a reference anyone may see, or a model's name printed on the box ("the
    # disc model CFI-1216A", "型号 RX-550") is no secret, whatever shape it has.
    public = public_identifiers(text)
    spans = [
        (a, b)
        for a, b in spans
        if not any(c <= a and b <= d for c, d in public)
        and not _PUBLIC_CODE.search(text, max(0, a - 24), a)
        and not _STATION_BEFORE.search(text, max(0, a - 24), a)
        and not _EXAMPLE_BEFORE.search(text, max(0, a - 24), a)
        and not _public_number(text, a)
        and not _model_name(text, a)
        and not _published(text, a, b)
    ]
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _model_name(text: str, start: int) -> bool:
    head = _TOKEN_HEAD.search(text, 0, start)
    return _MODEL_BEFORE.search(text, 0, head.start() if head else start) is not None


@dataclass(frozen=True)
class SecretModel(BinaryNgrams):
    """Hashed n-gram weights for "holds a secret" against every other kind, the bias, and
    the probability that refuses (Chinese text has its own, chosen on Chinese rows)."""

    threshold: float = NEVER
    threshold_cjk: float = NEVER

    def judge(self, text: str, spans: list[tuple[int, int]]) -> SecretVerdict | None:
        """A verdict when `text`, whose possible values are `spans`, is judged a secret."""
        if not spans:
            return None
        p = self.probability(text)
        if p < (self.threshold_cjk if has_cjk(text) else self.threshold):
            return None
        return SecretVerdict(p, tuple(spans), self.weighed_most(text, spans=spans))

    def weighed_most(
        self, text: str, count: int = 3, *, spans: list[tuple[int, int]] | None = None
    ) -> tuple[str, ...]:
        """The n-grams of `text` that pushed it furthest towards a secret (`spans`: its
        possible values, when already found)."""
        # No n-gram that touches a value is shown: it would give away part of what is
        # redacted. The grams are read from the text with each value masked.
        masked = text
        for start, end in value_spans(text) if spans is None else spans:
            masked = masked[:start] + _MASK * (end - start) + masked[end:]
        push: dict[str, float] = {}
        for gram in grams(masked):
            shown = gram.strip()
            if _MASK in gram or not any(ch.isalnum() for ch in shown):
                continue
            if not (len(shown) < 3 and shown.isascii()):  # "he", "rd": no word to read
                push[shown] = max(push.get(shown, -math.inf), self.weights[bucket(gram, self.bits)])
        ranked = sorted(push, key=lambda g: (-push[g], -len(g), g))
        return tuple(g for g in ranked[:count] if push[g] > 0)


@cache
def load_secret_model() -> SecretModel:
    """The shipped model, read once per process (32 KB)."""
    model, meta = load_binary(WEIGHTS_FILE, META_FILE)
    return SecretModel(
        model.bits,
        model.weights,
        model.bias,
        model.scale,
        float(meta["threshold"]),
        float(meta["threshold_cjk"]),
    )


def judge_secret(text: str) -> SecretVerdict | None:
    """The backstop's verdict on one memory's text; the model is read only when the text
    holds a possible value."""
    spans = value_spans(text)
    if not spans:
        return None
    return load_secret_model().judge(text, spans)
