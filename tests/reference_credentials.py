"""The secret finder as it was before it was made fast: the reference that
test_credentials.py compares pipeline/credentials.py with, finding for finding.

Secrets found by their values, wherever they sit in a sentence.

A credential is recognised by what the value is, not by how the sentence around it is
worded: a provider key by its prefix, a card number by Luhn, an IBAN by mod-97, a Chinese
resident id by its check character, a recovery phrase by the BIP-39 word list, a
credential inside a URL by the URL's structure, a short value by a sensitive noun near it
(in either order, English or Chinese), and anything else by its length, character classes
and entropy. `find_secrets` returns the spans, and `redact` replaces exactly those spans,
so what the gate refuses is what every output boundary hides.

The checksums come from python-stdnum and the word list from the `mnemonic` package (the
reference BIP-39 implementation); both are read lazily, only when a candidate value of
their shape is present.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from pipeline.text import has_cjk, simplified

REDACTED = "[REDACTED]"


@dataclass(frozen=True)
class Finding:
    """One secret value in a text: what kind it is and where it is."""

    kind: str
    start: int
    end: int


# --- Provider keys: prefixes as published by each provider (cross-checked in the tests
# against detect-secrets' plugins). --------------------------------------------------------

_PROVIDER_KEYS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern))
    for kind, pattern in (
        ("api key", r"\bsk-(?:proj-|ant-|live-|or-v1-)?[A-Za-z0-9_\-]{16,}"),
        ("AWS access key", r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[A-Z0-9]{16}\b"),
        ("GitHub token", r"\bgh[pousr]_[A-Za-z0-9]{30,}|\bgithub_pat_[A-Za-z0-9_]{22,}"),
        ("GitLab token", r"\bglpat-[A-Za-z0-9_\-]{20,}"),
        ("Slack token", r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),
        ("Stripe key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
        ("Google API key", r"\bAIza[0-9A-Za-z_\-]{35}"),
        ("npm token", r"\bnpm_[A-Za-z0-9]{36}\b"),
        ("PyPI token", r"\bpypi-[A-Za-z0-9_\-]{50,}"),
        ("Hugging Face token", r"\bhf_[A-Za-z0-9]{30,}"),
        ("SendGrid key", r"\bSG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}"),
        ("Twilio key", r"\b(?:SK|AC)[0-9a-f]{32}\b"),
        ("Mailchimp key", r"\b[0-9a-f]{32}-us[0-9]{1,2}\b"),
        ("Telegram bot token", r"\b[0-9]{8,10}:[A-Za-z0-9_\-]{35}\b"),
        ("Discord token", r"\b[MNO][A-Za-z0-9_\-]{23,25}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,}"),
        (
            "AWS secret key",
            r"(?<![A-Za-z0-9/+])(?=[A-Za-z0-9/+]*[A-Z])(?=[A-Za-z0-9/+]*[a-z])"
            r"(?=[A-Za-z0-9/+]*[0-9])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])",
        ),
        ("JWT", r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
        (
            "private key",
            r"-----BEGIN[A-Z ]*PRIVATE KEY(?: BLOCK)?-----(?:[^-]*-----END[^-]*-----)?",
        ),
        ("private key", r"PuTTY-User-Key-File-\d"),
    )
)

# --- Credentials inside URLs ---------------------------------------------------------------

_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s<>\"'`)\]]+")
_URL_USERINFO = re.compile(r"^[^:/]+://[^/@\s]*:[^/@\s]+@")
_WEBHOOK = re.compile(
    r"hooks\.slack\.com/(?:services|workflows|triggers)/|discord(?:app)?\.com/api/webhooks/|"
    r"\.webhook\.office\.com/|outlook\.office\.com/webhook/|hooks\.zapier\.com/hooks/catch/|"
    r"maker\.ifttt\.com/trigger/|chat\.googleapis\.com/v1/spaces/.+key=",
    re.IGNORECASE,
)
_URL_SECRET_PARAM = re.compile(
    r"[?&#](?:access_?token|refresh_?token|id_?token|token|api_?key|apikey|key|secret|"
    r"client_secret|sig|signature|password|passwd|pwd|pass|auth|private_token|session)"
    r"=[^&\s#]{6,}",
    re.IGNORECASE,
)

# --- Checksummed numbers -------------------------------------------------------------------

_CARD = re.compile(r"(?<![A-Za-z\d-])\d(?:[ -]?\d){12,18}(?![\d-])")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b")
_CN_RIC = re.compile(r"(?<!\d)\d{17}[\dXx](?!\d)")
# A UK National Insurance number: two letters from the issued series, three pairs of
# digits, and a suffix A-D (HMRC's published format).
_NINO = re.compile(
    r"\b(?!BG|GB|KN|NK|NT|TN|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b"
)
_SSN = re.compile(r"(?<![\d-])(?!000|666|9\d\d)\d{3}([- ])(?!00)\d{2}\1(?!0000)\d{4}(?![\d-])")

# --- Short values next to a sensitive noun -------------------------------------------------

_SENSITIVE_NOUN = re.compile(
    r"\b(?:pass(?:word|wd|w|phrase|code|key)s?|pa?ss?w[o0]?r?ds?|p/?w|pwds?|pwords?|pswds?|"
    r"psw|(?<!\bshe )(?<!\bhe )(?<!\bthey )(?<!\bwe )(?<!\bi )pins?|mpins?"
    r"|wpa2? ?(?:keys?|passphrases?)|psk|network keys?|"
    r"pin ?(?:codes?|no|nr|#)|log-?ins?|credentials?|creds|"
    r"2fa|mfa|otp|one[- ]time (?:pass)?codes?|(?:backup|recovery|security|verification|"
    r"access|authenti[cz]ation|door|gate|alarm|garage|lock|locker|safe|keypad|entry|building|"
    r"lockbox|wi-?fi|unlock|confirmation|promo|voucher|gift card|pickup|parcel|otp|pairing|"
    r"override) ?"
    r"(?:codes?|keys?|phrases?|pins?)|seed phrases?|mnemonic|combinations?|"
    r"pre-?shared keys?|ssn|nif|social security(?: number)?|"
    r"passports?(?: (?:number|no))?|(?:bank |checking |savings )?account (?:number|no|#)|"
    r"acc(?:oun)?t? ?(?:number|num|no|nr|#)|acct|a/c(?: no)?|routing number|sort code|iban|"
    r"cvv|cvc|cvv2|security numbers?|tax (?:id|number|reference(?: number)?)|utr|"
    r"puk(?: ?codes?)?|combos?|"
    r"(?:nhs|pps|health|insurance|patient|medical|citizen|resident|personal|voter|social insurance|"
    r"national insurance) ?(?:number|no|id)|ni (?:number|no|id)|"
    r"national id|id (?:number|card number)|driver'?s licen[cs]e(?: number)?|"
    r"licen[cs]e (?:number|key)|serial (?:number|key)|product keys?|secrets?|api ?keys?|"
    r"tokens?(?= *[:=])|"
    r"(?:access|api|auth|bearer|refresh|session|bot|personal access|github|slack) tokens?|"
    r"private keys?|ssh keys?|user ?name and password|unlock(?:s|ed|ing)?|"
    r"(?:sign|log)(?:s|ged|ging)? ?(?:in|on)(?:to)?|social|codes?|vault"
    r"|(?:front |back )?door(?! hangers?| plaques?)|"
    r"gate|garage|alarm|safe|locker|keypad|wi-?fi|router|padlock|lock|lock ?box(?:es)?|"
    r"key ?safe|key ?box(?:es)?|(?:manager|admin|supervisor|engineer|master|till|pos) override)\b"
    r"|密码|口令|验证码|校验码|动态码|身份证(?:号码?)?|银行卡(?:号码?)?|信用卡(?:号码?)?|卡号|"
    r"(?<!书)(?<!音)(?<!博)(?<!众)(?<!手)(?<!站)(?<!频)账号|帐号|账户|银行户口|护照(?:号码?)?|社保(?:卡)?号|"
    r"门禁(?:码|卡)?|支付密码|密钥|秘钥|令牌|"
    r"助记词|私钥|取件码|安全码|PIN码|pin码|PUK码|puk码|备用码|恢复码|两步验证|二次验证|双重验证|开锁|解锁|"
    r"纳税人识别号|税号|统一社会信用代码|驾驶证号|驾照号|社保电脑号|撤防码|布防码|报警码|开门码|"
    r"解除码|开锁码|解锁码|授权码|激活码|兑换码|提货码|取货码|序列号|通行码|账密|帐密|三码|三位数|三个数字|三位数字|身分证(?:字号|号码?)?|统一编号|通关密语|密语|电子锁|密码锁|门锁|钥匙盒|钥匙箱|户口号码?|统一证号|居留证号码?|金钥|重设码|重置码|配对码|提取码",
    re.IGNORECASE,
)
# One clause: sensitive nouns and their values are looked for within it.
_CLAUSE_END = re.compile(r"(?<=[a-z\)\]])[.!?](?=\s|$)|[;\n。；！？]")
_VALUE_TOKEN = re.compile(r"[^\s\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]+")
_TRIM = "\"'`()[]{}<>,.;:!?*“”‘’"
_UNIT_WORDS = frozenset(
    """digit digits character characters char chars letter letters word words number
    numbers day days week weeks month months year years hour hours minute minutes time
    times percent euros dollars pounds yuan am pm km miles kg""".split()
)
_STREET_WORDS = frozenset(
    "street st avenue ave road rd lane ln boulevard blvd drive dr way place square".split()
)
_TEMPORAL = frozenset("since in from until till before after by every each per on at".split())
# A year after a month is a date ("expires in March 2029"), not a document's number.
_MONTHS = frozenset(
    "january february march april may june july august september october november december"
    " jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
_ORDINAL = re.compile(r"^\d+(?:st|nd|rd|th)(?:[-‐][a-z]+)?$", re.IGNORECASE)
_VERSION = re.compile(r"[vV]?(?=[\d.]*\d\d)\d+(?:\.\d+){2,}")
_IPV4 = re.compile(r"(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}")
_UNIT_SUFFIX = re.compile(r"^\d+[-‐]?(?:" + "|".join(sorted(_UNIT_WORDS)) + r")$", re.IGNORECASE)
_COPULA = re.compile(
    r"^\s*(?:is|was|are|were|=|:|：|-|–|→|->|=>|is set to|reads|of)?\s*$", re.IGNORECASE
)
# A number in groups said at the end of its noun's clause ("the locker code for the parcel
# at the Tesco Extra is 482 916").
_ENDS_IN_COPULA = re.compile(r"\b(?:is|was|are|were)\s+$|[=:：]\s*$", re.IGNORECASE)
_CLAUSE_ENDS = re.compile(r"\s*(?:[.,;!?)\]。，；！？]|$)")


def _said_last(text: str, start: int, end: int) -> bool:
    return bool(_ENDS_IN_COPULA.search(text, 0, start) and _CLAUSE_ENDS.match(text, end))


NEAR_NOUN_AFTER = 14  # tokens after a sensitive noun in which its value is looked for
NEAR_NOUN_BEFORE = 8  # and before it ("X9f!2 is the user's home network password")

# --- High-entropy tokens -------------------------------------------------------------------

_TOKEN_PART = re.compile(r"[A-Za-z0-9+/=_\-!@#$%^&*~.]{16,}")
_HOST = re.compile(r"[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
MIN_RANDOM_LENGTH = 20
# Shannon entropy in bits per character: English words sit near 3.0-3.5 over 20+
# characters, random base64 near 4.5-5.5, random hex near 3.7-4.0. Measured on the gate
# corpus and on 5,882 LoCoMo turns, where no token of ordinary text reached these values.
MIN_ENTROPY_MIXED = 3.7
MIN_ENTROPY_HEX = 3.3


def find_secrets(text: str) -> list[Finding]:
    """Every secret value in `text`, as non-overlapping spans in order of position."""
    # Fullwidth digits and letters read as ASCII, one character for one.
    text = "".join(
        chr(ord(ch) - 0xFEE0)
        if "０" <= ch <= "９" or "Ａ" <= ch <= "Ｚ" or "ａ" <= ch <= "ｚ"
        else ch
        for ch in text
    )
    text = simplified(text)  # Traditional Chinese as Simplified, one character for one
    found = _findings(text)
    # Read again with each aside (words between paired dashes, in brackets, or a clause
    # opened by ", which" between commas) blanked out.
    plain = _ASIDE.sub(lambda m: " " * len(m.group()), text)
    if plain != text:
        found += _findings(plain)
    return _merge(found)


_ASIDE = re.compile(
    r"(?<=\S)\s+(?:—|–|--)\s[^—–\n]{1,120}?\s(?:—|–|--)(?=\s)"
    r"|\s*——[^—\n]{1,60}?——"
    r"|,\s(?:which|the one)\s[^,;.\n]{1,80},(?=\s)"
    r"|\s*[(（](?=[^()（）\n]{1,120}[)）])[^()（）\n]*?(?:\s|[\u3400-\u9fff])[^()（）\n]*?[)）]"
)


def _findings(text: str) -> list[Finding]:
    found: list[Finding] = []
    for kind, pattern in _PROVIDER_KEYS:
        found += [Finding(kind, m.start(), m.end()) for m in pattern.finditer(text)]
    found += _url_secrets(text)
    found += _checksummed(text)
    found += _recovery_phrases(text)
    found += _labelled_values(text)
    found += _random_tokens(text)
    return found


def find_secret(text: str) -> str | None:
    """The kind of the first secret in `text`, or None."""
    found = find_secrets(text)
    return found[0].kind if found else None


def redact(text: str) -> str:
    """`text` with every secret value replaced by [REDACTED]; the sentence around it stays."""
    found = find_secrets(text)
    if not found:
        return text
    out, last = [], 0
    for f in found:
        out += [text[last : f.start], REDACTED]
        last = f.end
    out.append(text[last:])
    return "".join(out)


def redact_tree(value: Any) -> Any:
    """`value` (JSON-like: dicts, lists, strings) with every string redacted."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: redact_tree(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [redact_tree(item) for item in value]
    return value


def _merge(found: list[Finding]) -> list[Finding]:
    merged: list[Finding] = []
    for f in sorted(found, key=lambda f: (f.start, -f.end)):
        if merged and f.start < merged[-1].end:
            last = merged[-1]
            if f.end > last.end:
                merged[-1] = Finding(last.kind, last.start, f.end)
            continue
        merged.append(f)
    return merged


def _url_secrets(text: str) -> Iterator[Finding]:
    for m in _URL.finditer(text):
        url = m.group().rstrip(".,;:!?")
        if _URL_USERINFO.match(url):
            yield Finding("credential in a URL", m.start(), m.start() + len(url))
        elif _WEBHOOK.search(url):
            yield Finding("webhook URL", m.start(), m.start() + len(url))
        elif _URL_SECRET_PARAM.search(url):
            yield Finding("token in a URL", m.start(), m.start() + len(url))


def _checksummed(text: str) -> Iterator[Finding]:
    if not any(ch.isdigit() for ch in text):
        return
    from stdnum import iban, luhn
    from stdnum.cn import ric

    for m in _CARD.finditer(text):
        digits = re.sub(r"\D", "", m.group())
        # No card number starts with 0 (the industry digit) or is one digit repeated, though
        # "0000000000000" passes Luhn.
        issued = digits[0] != "0" and len(set(digits)) > 1
        issued = issued and (len(digits) != 13 or digits[0] in "456")
        if 13 <= len(digits) <= 19 and issued and luhn.is_valid(digits):
            yield Finding("card number", m.start(), m.end())
    upper = text.upper()
    for m in _IBAN.finditer(upper):
        # The pattern may run on into the next word ("... 00 IS"): try shorter prefixes.
        parts = m.group().split(" ")
        for n in range(len(parts), 0, -1):
            candidate = " ".join(parts[:n])
            compact = candidate.replace(" ", "")
            if len(compact) >= 15 and iban.is_valid(compact, check_country=False):
                yield Finding("IBAN", m.start(), m.start() + len(candidate))
                break
    for m in _CN_RIC.finditer(text):
        if ric.is_valid(m.group()):
            yield Finding("national id number", m.start(), m.end())
    for m in _SSN.finditer(text):
        yield Finding("social security number", m.start(), m.end())
    for m in _NINO.finditer(text):
        yield Finding("national insurance number", m.start(), m.end())


@cache
def _bip39_words() -> frozenset[str]:
    from importlib.util import find_spec
    from pathlib import Path

    spec = find_spec("mnemonic")  # the file only: importing the package would cost 20 ms
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("the mnemonic package (BIP-39 word list) is not installed")
    folder = Path(next(iter(spec.submodule_search_locations)))
    return frozenset((folder / "wordlist" / "english.txt").read_text("utf-8").split())


_WORD = re.compile(r"[A-Za-z]+")
_PHRASE_GAP = re.compile(r"^[\s,;:.\-()\d\"'“”]*$")
MIN_PHRASE_WORDS = 12


def _recovery_phrases(text: str) -> Iterator[Finding]:
    """Runs of 12 or more BIP-39 words, the length of the shortest wallet phrase."""
    words = list(_WORD.finditer(text))
    if len(words) < MIN_PHRASE_WORDS:
        return
    wordlist = _bip39_words()
    run: list[re.Match[str]] = []
    for m in [*words, None]:
        if m is not None and m.group().lower() in wordlist:
            if run and not _PHRASE_GAP.match(text[run[-1].end() : m.start()]):
                if len(run) >= MIN_PHRASE_WORDS:
                    yield Finding("recovery phrase", run[0].start(), run[-1].end())
                run = []
            run.append(m)
            continue
        if len(run) >= MIN_PHRASE_WORDS:
            yield Finding("recovery phrase", run[0].start(), run[-1].end())
        run = []


_CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


def _nouns(text: str) -> list[re.Match[str]]:
    """The sensitive nouns; a Latin noun right next to a CJK character is one too."""
    found = list(_SENSITIVE_NOUN.finditer(text))
    if has_cjk(text):
        for m in _SENSITIVE_NOUN.finditer(_CJK_CHAR.sub(" ", text)):
            if not any(m.start() < f.end() and f.start() < m.end() for f in found):
                found.append(m)
        found.sort(key=lambda m: m.start())
    return found


_YEAR = re.compile(r"(?:19|20)\d\d")


# What a number after it is the address of: a building, a unit, a floor, a room.
_ADDRESS_BEFORE = re.compile(r"(?:栋|幢|座|单元|楼|层|室)\s*$")
_NAMED_BEFORE = re.compile(
    r"(?:名字|名称|网名|昵称|叫做|叫|\b(?:called|named|ssid|network name))"
    r"\s*(?:是|为|:|：|\bis\b)?\s*$"
    r"|(?:型号|\bmodel)\s*(?:是|为|:|：|\bis\b)?\s*(?:[^\s，。；]+\s+)?$",
    re.IGNORECASE,
)


def _labelled_values(text: str) -> Iterator[Finding]:
    """Short values in the same clause as a sensitive noun, before or after it."""
    for noun in _nouns(text):
        word = noun.group().lower()
        weak = word in _WEAK_NOUNS or word in _WEAK_NOUNS_CJK
        if word.startswith("code") and _word_before(text, noun.start()) in _PUBLIC_CODES:
            continue  # "zip code 10115", "area code 030"
        clause_start, clause_end = _clause_around(text, noun.start(), noun.end())
        if text[clause_end : clause_end + 1] == ";" and _REFERS_BACK.match(text, clause_end + 1):
            clause_end = _clause_around(text, clause_end + 1, clause_end + 2)[1]
        after = list(_VALUE_TOKEN.finditer(text, noun.end(), clause_end))[:NEAR_NOUN_AFTER]
        before = list(_VALUE_TOKEN.finditer(text, clause_start, noun.start()))
        before = before[-NEAR_NOUN_BEFORE:]
        for i, m in enumerate(after):
            linked = i == 0 or _COPULA.match(text[noun.end() : m.start()]) is not None
            gap = text[noun.end() : m.start()]
            if (
                m.group()[:1] in "\"'`([{<“‘"
                and gap.lstrip()[:1] == ","
                and _ENDS_IN_COPULA.search(gap)
            ):
                linked = True  # a quoted value after ", which … is"
            if has_cjk(noun.group()):
                linked = _CJK_LINK.match(text, noun.end(), m.start()) is not None
            spaced = _spaced_digits(text, after, i)
            # Single digits one space apart are a code read out wherever they stand in
            # the clause ("the lockbox opens with 6 1 8 3").
            if spaced and (
                linked or _said_last(text, *spaced) or _DIGIT_BY_DIGIT.fullmatch(text, *spaced)
            ):
                yield Finding(_noun_kind(noun.group()), *spaced)
                continue
            span = _value_span(text, m, previous=after[i - 1].group() if i else "", next_=after)
            if weak and span and _has_letters(span[2]) and not _long_code(span[2]):
                continue
            if span and span[2].isalpha() and word.endswith("s") and not word.endswith("ss"):
                continue  # "lock combinations Bernadette mentions": a plural names no one word
            if weak and not linked and i and _names_a_model(after[i - 1].group()):
                continue  # "router is a Fritz!Box 7590": a model's number, not a code
            if weak and i and after[i - 1].group().strip(_TRIM).lower() in _PLACE_WORDS:
                continue  # "spot in the garage is number 4471": a place's number, not a code
            if span and word.startswith("passport") and _YEAR.fullmatch(span[2]):
                continue
            if span and word.split()[0] in ("pin", "pins") and span[2].isalpha():
                continue  # a PIN is digits
            adjective = i == 0 and m.start() == noun.end() + 1
            if word == "secret" and adjective and span and span[2].isalpha():
                continue  # "a secret handshake"
            if _SHOWS_A_TAIL.search(word) and _TAIL_PART.search(text, noun.end(), m.start()):
                continue
            if span and _is_value(span[2], linked=linked):
                yield Finding(_noun_kind(noun.group()), span[0], span[1])
        for i, m in enumerate(before):
            prev = before[i - 1].group() if i else ""
            span = _value_span(text, m, previous=prev, next_=before[i + 1 :])
            if weak and span and _has_letters(span[2]):
                continue
            if _ADDRESS_BEFORE.search(text, max(clause_start, m.start() - 4), m.start()):
                continue  # "住在 3 栋 1502 家门锁是…": a flat's number
            if _NAMED_BEFORE.search(text, max(clause_start, m.start() - 20), m.start()):
                continue
            if (
                span
                and _has_letters(span[2])
                and _THING_BEFORE.search(text, clause_start, m.start())
            ):
                continue
            if span and word.startswith("passport") and _YEAR.fullmatch(span[2]):
                continue
            if span and _is_value(span[2], linked=False):
                yield Finding(_noun_kind(noun.group()), span[0], span[1])


_DIGIT_BY_DIGIT = re.compile(r"\d(?: \d){3,}")
_THING_BEFORE = re.compile(r"\ban?\s+(?:[A-Z][\w!-]*\s+)?$")


def _spaced_digits(text: str, tokens: list[re.Match[str]], i: int) -> tuple[int, int] | None:
    """The span of a number written in groups ("9 0 1 3", "945 807 3022") that starts at
    token `i`: two or more groups of digits, one space apart, four digits or more in all.
    The first group may open a bracket or a quote ("code (7 7 2 0)")."""
    groups = [m.group() for m in tokens[i:]]
    lead = len(groups[0]) - len(groups[0].lstrip("\"'`([{<“‘"))
    groups[0] = groups[0][lead:]
    run = [0]
    for k in range(1, len(groups)):
        if (
            not groups[k - 1].isdigit()
            or text[tokens[i + k - 1].end() : tokens[i + k].start()] != " "
        ):
            break
        run.append(k)
    while run and not groups[run[-1]].strip(_TRIM).isdigit():
        run.pop()
    if len(run) < 2 or not all(groups[k].isdigit() for k in run[:-1]):
        return None
    if sum(len(groups[k].strip(_TRIM)) for k in run) < 4:
        return None
    last = tokens[i + run[-1]]
    return tokens[i].start() + lead, last.start() + len(last.group().rstrip(_TRIM))


# Things that open with a short number: only an all-digit value next to them is a code.
_WEAK_NOUNS = frozenset(
    "code codes vault door gate garage alarm safe locker keypad wifi wi-fi router padlock lock"
    " front door back door social".split(" ")
)
_WEAK_NOUNS_CJK = frozenset("门锁 电子锁 门禁 门禁卡 钥匙盒 钥匙箱 开锁 解锁".split())
# Codes that are public: a number next to these is an address or a label, not a secret.
_PUBLIC_CODES = frozenset(
    "zip postal post area country dress source qr bar morse genetic airport language colour"
    " color error status promo discount squawk transponder fault trouble diagnostic dtc icd"
    " billing procedure".split()
)


def _names_a_model(token: str) -> bool:
    """A capitalised name ("Fritz!Box", "Yale"): a number right after it is part of it."""
    word = token.strip(_TRIM)
    return word[:1].isupper() and any(ch.isalpha() for ch in word[1:]) and word.upper() != word


# A number after these names a place or a thing in a row, not the code of a door or a safe.
_PLACE_WORDS = frozenset(
    "number spot space bay level floor unit flat apartment apt room suite row aisle section"
    " lot stall pitch plot platform".split()
)


def _long_code(value: str) -> bool:
    """A code of ten characters or more, capitals and digits mixed ("X7QK9M3PLR2VWT8N"): a
    gift card's or a recovery code, beside any noun for a code; "E18" is an error's."""
    digits = sum(ch.isdigit() for ch in value)
    capitals = sum(ch.isupper() for ch in value)
    return len(value) >= 10 and value.isalnum() and digits >= 3 and capitals >= 3


def _has_letters(value: str) -> bool:
    return any(ch.isalpha() for ch in value)


def _word_before(text: str, index: int) -> str:
    words = re.findall(r"[A-Za-z]+", text[max(0, index - 30) : index])
    return words[-1].lower() if words else ""


_TAIL_PART = re.compile(r"尾号|尾號|尾數|尾数|\b(?:ending|ends) in\b", re.IGNORECASE)
_SHOWS_A_TAIL = re.compile(r"卡|账|帳|户|card|account", re.IGNORECASE)
_REFERS_BACK = re.compile(
    r"\s*(?:the|its|her|his|their|my) (?:new |old |current |full |actual )?(?:number|no\.?|code|"
    r"one)\s*(?:is|was|reads|:)",
    re.IGNORECASE,
)


def _clause_around(text: str, start: int, end: int) -> tuple[int, int]:
    left = 0
    for m in _CLAUSE_END.finditer(text, 0, start):
        if not _abbreviated(text, m.start()):
            left = m.end()
    right = next(
        (m for m in _CLAUSE_END.finditer(text, end) if not _abbreviated(text, m.start())), None
    )
    return left, right.start() if right else len(text)


# Words shortened with a full stop: "acct no. 5512", "tel. 030" go on in the same clause.
_ABBREVIATIONS = frozenset("no nr num acct acc tel ph approx incl ref mr mrs ms dr".split())


def _abbreviated(text: str, dot: int) -> bool:
    return text[dot] == "." and _word_before(text, dot) in _ABBREVIATIONS


_AMOUNTS = tuple("元块万千百斤岁年月天次个米层楼")  # what a number before them counts
# A year between an article or an owner and a name is a make's or a model's year.
_OWNERS = frozenset("a an the her his their my our its".split())
_NAME_AFTER = re.compile(r"\s*[A-Z][a-z]")


def _value_span(
    text: str, m: re.Match[str], *, previous: str, next_: list[re.Match[str]]
) -> tuple[int, int, str] | None:
    raw = m.group()
    lead = len(raw) - len(raw.lstrip(_TRIM))
    value = raw.strip(_TRIM)
    if not value:
        return None
    year = re.fullmatch(r"(?:19|20)\d\d", value) is not None
    if year and previous.strip(_TRIM).lower() in _TEMPORAL | _MONTHS:
        return None  # "since 2015", "in 1998", "expires in March 2029"
    if year and previous.strip(_TRIM).lower() in _OWNERS and _NAME_AFTER.match(text, m.end()):
        return None  # "restoring a 1956 Chevrolet in her garage": the year of a make
    after = [n.group().strip(_TRIM).lower() for n in next_ if n.start() > m.start()][:2]
    following = after[0] if after else ""
    if following in _UNIT_WORDS and value.replace(",", "").replace(".", "").isdigit():
        return None  # "8 digits", "90 days"
    start = m.start() + lead
    if year and text[start + len(value) :].lstrip(" ").startswith("年"):
        return None  # "身份证在2019年补办过", "护照 2031 年才过期"
    if value.replace(",", "").isdigit() and text[start + len(value) :].lstrip(" ")[:1] in _AMOUNTS:
        return None  # "公积金账户每月扣 1200 元": an amount
    if value.isdigit() and not _STREET_WORDS.isdisjoint(after):
        return None  # "the social security office is at 1600 Main Street"
    if re.fullmatch(r"\d{1,2}:\d{2}(?::\d{2})?", value):
        return None  # "boarding starts 14:05"
    if value.isdigit() and previous.strip(_TRIM) in _DOCUMENT_TITLES:
        return None  # "IRS Publication 4557": a document's number
    return start, start + len(value), value


_DOCUMENT_TITLES = frozenset(
    "Publication Pub Form Section Chapter Article Rule Regulation Standard Schedule Annex"
    " Appendix Bulletin Circular Directive Amendment Title Order Act".split()
)


def _is_value(value: str, *, linked: bool) -> bool:
    """Whether a token looks like a secret value rather than a word or a quantity."""
    if _ORDINAL.match(value) or _UNIT_SUFFIX.match(value) or value.lower() in _ALGORITHMS:
        return False
    if re.fullmatch(r"@[A-Za-z0-9_.]{2,30}", value):
        return False  # "@kai.irezumi": a public handle, not a secret
    if _IPV4.fullmatch(value) or _VERSION.fullmatch(value):
        return False  # "192.168.8.1": where a router answers, not a secret
    if linked and re.fullmatch(r"\d{1,2}(?:[-–]\d{1,2}){2,}", value):
        return True  # a dial lock's combination, "3-3-9"
    digits = sum(ch.isdigit() for ch in value)
    letters = sum(ch.isalpha() for ch in value)
    symbols = len(value) - digits - letters
    if digits == len(value) or (not letters and digits >= 4):
        return digits >= 4  # PINs and codes ("4471", "2580#", "9384-2210"); "42" says nothing
    if digits and letters and len(value) >= 4:
        if re.fullmatch(r"\d{1,4}[a-z]{1,3}", value, re.IGNORECASE):
            return False  # "5km", "10am"
        # "1Password", "7Zip": a brand is a digit and a capitalised word.
        return not (
            re.fullmatch(r"\d{1,2}[A-Z][a-z]+", value)
            and _is_known_word(value.lstrip("0123456789"))
        )
    if symbols and (digits or linked) and len(value) >= 6 and not _is_plain_word(value):
        return True  # "Zx9!qLm2"; unlinked symbol runs such as "(prompt+completion)" are not
    if re.search(r"[a-z][#!$%^&*~=|][a-z]", value.removesuffix("'s")) and len(value) >= 6:
        return True  # a sign struck inside lower-case letters, "agagfedc#d", is no word's
    if not linked or len(value) < 6 or letters != len(value) or _is_known_word(value):
        return False
    # A noun of its own is no value: "a combination padlock", "combination padlocks".
    return _SENSITIVE_NOUN.fullmatch(value.removesuffix("s")) is None


# The names of key types and ciphers: "an ed25519 SSH key" says what kind, not which.
_ALGORITHMS = frozenset(
    "ed25519 ed448 x25519 curve25519 rsa1024 rsa2048 rsa3072 rsa4096 p256 p384 p521 secp256k1"
    " secp256r1 aes128 aes256 sha1 sha256 sha384 sha512 md5 hmac-sha256 chacha20 argon2"
    " argon2id bcrypt scrypt pbkdf2".split()
)


def _is_plain_word(value: str) -> bool:
    """Hyphenated or dotted words ("long-term", "e.g.", "1Password's") are words."""
    parts = [p for p in re.split(r"[-'.’/]", value) if p]
    return all(p.isalpha() or p.isdigit() for p in parts) and len(parts) <= 3


@cache
def _vocabulary() -> frozenset[str]:
    """Whole words of the MiniLM tokenizer's vocabulary (30,522 entries, shipped here)."""
    import json
    from importlib.resources import files

    data = json.loads(files("pipeline").joinpath("minilm", "tokenizer.json").read_text("utf-8"))
    return frozenset(w for w in data["model"]["vocab"] if w.isalpha())


# An inflected word is known by its stem: the vocabulary holds "scope" and "expired", not
# "scoped" or "expires".
_SUFFIXES = ("s", "es", "d", "ed", "ing", "ly", "er")
_ENDINGS = ("", "e", "s", "ed", "ing")


def _is_known_word(value: str) -> bool:
    lowered = value.lower()
    vocabulary = _vocabulary()
    if lowered in vocabulary:
        return True
    if any(lowered + end in vocabulary for end in ("d", "s", "ed")):
        return True  # "expire" through "expired"
    stems = {lowered[: -len(s)] for s in _SUFFIXES if lowered.endswith(s)}
    stems |= {stem[:-1] for stem in stems if len(stem) > 3 and stem[-1] == stem[-2] not in "aeiou"}
    return any(stem + end in vocabulary for stem in stems if len(stem) >= 3 for end in _ENDINGS)


# After a Chinese noun a value is linked to it across a copula or a colon, or with nothing
# between ("密码是 sunflower", "密码设成了 sunflower", "密码: sunflower"); "密码全部用 Bitwarden
# 管理" names a tool.
_CJK_LINK = re.compile(r"\s*的?(?:[\u4e00-\u9fff]{0,3}(?:是|为|為|成|作|系)了?|[:：=])?\s*$")


def _noun_kind(noun: str) -> str:
    return f"value labelled {noun.lower()!r}"


def _random_tokens(text: str) -> Iterator[Finding]:
    for m in _TOKEN_PART.finditer(text):
        for part in re.finditer(r"[^/?&=#]+", m.group()):
            token = part.group().strip("-_.!")
            start = m.start() + part.start()
            if text.endswith("://", 0, start) and _HOST.fullmatch(part.group()):
                continue
            if _HOST.fullmatch(token) and token.islower():
                continue
            if re.fullmatch(r"[a-z]+(?:[._-][a-z]+)*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+", token):
                continue
            if _looks_random(token):
                start = m.start() + part.start()
                yield Finding("random-looking token", start, start + len(part.group()))


def _looks_random(token: str) -> bool:
    """Long, mixed character classes and high entropy: a generated key, not a word."""
    if len(token) < MIN_RANDOM_LENGTH:
        return False
    classes = sum(
        (
            any(ch.islower() for ch in token),
            any(ch.isupper() for ch in token),
            any(ch.isdigit() for ch in token),
            any(not ch.isalnum() for ch in token),
        )
    )
    if re.fullmatch(r"[0-9a-f]+", token, re.IGNORECASE):
        return len(token) >= 32 and _entropy(token) >= MIN_ENTROPY_HEX
    return (
        classes >= 2
        and any(ch.isdigit() for ch in token)
        and _entropy(token) >= (MIN_ENTROPY_MIXED)
    )


def _entropy(token: str) -> float:
    counts: dict[str, int] = {}
    for ch in token:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(token)
    return -sum(c / n * math.log2(c / n) for c in counts.values())
