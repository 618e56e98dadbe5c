"""The secret finder finds what its reference finds, however the text is laid out, and
quickly: the prefilters and the lower-case noun scan change the cost, never the result."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from benchmarks.gate_eval import corpus_texts
from pipeline import credentials
from pipeline.credentials import REDACTED, find_secrets, redact, redact_fields
from tests import reference_credentials as reference
from tests.helpers import PROJECT
from tests.strategies import secret_texts

CORPUS = Path(__file__).parent / "data" / "gate_corpus"


def _spans(found: list) -> list[tuple[str, int, int]]:
    return [(f.kind, f.start, f.end) for f in found]


# The kinds the reference does not have: identity numbers by their check digits, recovery
# phrases in the other BIP-39 lists or named by a recovery noun, licence, permit and member
# numbers, and values next to the password nouns of other languages or spelled out. Each is tested
# directly below; the comparison with the reference runs without them.
NEWER_KINDS = (
    "_identity_numbers",
    "_named_phrases",
    "_other_language_phrases",
    "_document_numbers",
    "_other_language_values",
    "_card_codes",
    "_framed_values",
    "_split_keys",
    "_spelled_out_keys",
    "_table_columns",
    "_unspaced_kana_phrases",
    "_security_answers",
    "_ein_numbers",
    "_assigned_values",
    "_dial_turns",
    "_letter_groups",
    "_code_in_pieces",
    "_user_pass_pairs",
    "_keyed_codes",
    "_spelled_card_numbers",
    "_command_passwords",
    "_password_shaped",
    "_read_joined",
    "_read_lookalikes",
    "_composed_values",
    "_sort_code_pairs",
    "_quoted_spelled_digits",
    "_lock_codes",
    "_told_length_values",
    "_opened_with_quoted",
    "_turns_told_after",
    "_maiden_name_values",
    "_set_to_codes",
    "_told_passphrases",
    "_key_presses",
    "_beside_login",
    "_ends_told",
    "_named_parts",
    "_typed_to_open",
    "_grid_places",
    "_listed_codes",
    "_digits_by_place",
    "_read_visible",
    "_partial_cards",
)


@contextmanager
def _without_identity_numbers() -> Iterator[None]:
    """The finder without the kinds the reference does not have: everything else must find
    exactly what the reference finds."""
    kept = {name: getattr(credentials, name) for name in NEWER_KINDS}
    for name in NEWER_KINDS:
        setattr(credentials, name, lambda text: iter(()))
    kept["_public_reference"] = credentials._public_reference
    credentials._public_reference = lambda text, finding: False
    credentials._find_secrets.cache_clear()
    try:
        yield
    finally:
        for name, detector in kept.items():
            setattr(credentials, name, detector)
        credentials._find_secrets.cache_clear()


def test_every_corpus_text_gives_the_reference_findings() -> None:
    """On every text of the gate corpus (contents and user turns), the finder returns the
    same findings as the reference, kind and span."""
    texts = corpus_texts()
    assert len(texts) > 1500
    with _without_identity_numbers():
        differ = [t for t in texts if _spans(find_secrets(t)) != _spans(reference.find_secrets(t))]
    assert differ == []
    assert sum(bool(find_secrets(t)) for t in texts) > 300  # the corpus holds secrets


@settings(max_examples=400, deadline=None)
@given(secret_texts)
def test_generated_texts_give_the_reference_findings(text: str) -> None:
    """Nouns, values, punctuation and case-folding characters in any order: the same
    findings as the reference."""
    with _without_identity_numbers():
        assert _spans(find_secrets(text)) == _spans(reference.find_secrets(text))


@settings(max_examples=300, deadline=None)
@given(st.lists(secret_texts, max_size=6))
def test_fields_redacted_together_are_redacted_as_each_alone(texts: list[str]) -> None:
    """One scan of many fields finds every secret that a scan of each alone finds, so
    `redact_fields` gives what `redact` gives each field."""
    assert redact_fields(texts) == [redact(text) for text in texts]


@pytest.mark.parametrize(
    "text",
    [
        "ésk-proj-ABCDEFGHIJKLMNOPQRSTUV",  # no word boundary before the prefix
        "pa\u017fsword Zx9!qLm2",  # the long s matches "s" case-insensitively, not in lower case
        "\u212aeypad code 4471",  # the Kelvin sign matches "k"
        "İBAN DE89 3704 0044 0532 0130 00 and PIN 4471",  # lower case makes it longer
        "İban AKIAIOSFODNN7EXAMPLE api key ",  # and a verb of keying at the very end
        "xPIN码 4471",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY= is not a key, "
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY is",
    ],
)
def test_edge_cases_give_the_reference_findings(text: str) -> None:
    """Where the lower-case scan and the per-run scan could part from the reference, they
    do not."""
    with _without_identity_numbers():
        assert _spans(find_secrets(text)) == _spans(reference.find_secrets(text))


def test_characters_that_fold_apart_are_all_known() -> None:
    """Every character outside ASCII that a case-insensitive pattern pairs with an ASCII
    letter, or whose lower case holds ASCII, sends the text to the case-insensitive scan."""
    ascii_letter = re.compile("[a-z]", re.IGNORECASE)
    apart = set()
    for code in range(0x80, 0x110000):
        ch = chr(code)
        if 0xD800 <= code <= 0xDFFF:
            continue
        if ascii_letter.fullmatch(ch) or any(c.isascii() for c in ch.lower()):
            apart.add(ch)
    assert apart == set(credentials._CASE_FOLDS_APART)


def test_the_noun_scan_matches_the_case_insensitive_noun_pattern() -> None:
    """The nouns the lower-case scan finds are those the reference's case-insensitive
    pattern finds, on text in any case."""
    assert all(noun[0].isalnum() for noun in credentials.SENSITIVE_NOUNS)  # a literal opens each
    text = (
        "Password: x. PIN 4471, Pin Code 12, ACCOUNT NUMBER 5, wi-fi, WiFi key, log-in, "
        "Signed In, NHS number, National Insurance No, driver's licence, 密码 身份证号 PIN码"
    )
    for variant in (text, text.upper(), text.lower(), text.title()):
        fast = [m.span() for m in credentials._sensitive_nouns(variant)]
        full = [m.span() for m in reference._SENSITIVE_NOUN.finditer(variant)]
        assert fast == full
        assert len(fast) >= 12


def test_findings_are_a_fresh_list_each_time() -> None:
    """Results are cached, so a caller that changes its list cannot change the next one."""
    first = find_secrets("User's PIN is 4471")
    first.clear()
    assert [f.kind for f in find_secrets("User's PIN is 4471")] == ["value labelled 'pin'"]
    long = "filler words " * 100 + "PIN 4471"
    assert len(long) > credentials.CACHED_CHARS
    assert redact(long).endswith("PIN [REDACTED]")


def test_the_gate_screens_for_secrets_before_it_can_merge_or_accept() -> None:
    """A secret that repeats a stored memory (one written before its kind was known) is
    rejected as a secret, not merged into it: no verdict but a rejection can hold one, which
    is what lets an import show accepted contents without redacting them again."""
    from pipeline.gate import gate
    from pipeline.models import CandidateIn, Policy
    from tests.helpers import candidate
    from tests.strategies import NOW, memory

    stored = [memory("m1", "User's garage door code is 4471"), memory("m2", "User likes tea")]
    offered = [
        CandidateIn(**candidate(text))
        for text in ("User's garage door code is 4471", "User likes tea", "User plays chess")
    ]
    result = gate(offered, [], stored, aliases={}, policy=Policy(), now=NOW)
    verdicts = [(d.verdict, d.reason) for d in result.candidates]
    assert verdicts == [("rejected", "secret"), ("merged", "duplicate"), ("accepted", "ok")]


def test_an_import_shows_rejected_contents_redacted_and_the_rest_as_written(
    tmp_path: Path,
) -> None:
    """`memory import` redacts only what the gate rejected (a secret, an invalid row that
    holds one) and shows accepted and merged contents as they were written."""
    import io

    from pipeline.api import Memory

    rows = [
        {"type": "habit", "content": "User swims on Sundays"},
        {"type": "habit", "content": "User's garage door code is 4471"},
        {"type": "mood", "content": "User's PIN is 8812"},
        {"type": "habit", "content": "User swims on Sundays"},
    ]
    lines = "".join(json.dumps(row) + "\n" for row in rows).encode()
    verdicts = Memory(tmp_path / "lib").import_lines(io.BytesIO(lines), name="rows")
    shown = [(v.verdict, v.reason, v.content) for v in verdicts]
    assert shown == [
        ("accepted", "ok", "User swims on Sundays"),
        ("rejected", "secret", "User's garage door code is [REDACTED]"),
        ("rejected", "invalid", "User's PIN is [REDACTED]"),
        ("rejected", "duplicate", "User swims on Sundays"),
    ]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Steuer-ID 65 929 970 489", "65 929 970 489"),
        ("my BSN: 111222333, for the Belastingdienst", "111222333"),
        ("User's CPF 111.444.777-35 is on file", "111.444.777-35"),
        ("codice fiscale RCCMNL83S18D969H", "RCCMNL83S18D969H"),
        ("El DNI de User: 54362315K", "54362315K"),
        ("Aadhaar no. 2341 2341 2346 belongs to the user", "2341 2341 2346"),
        ("44051401359 is the user's PESEL", "44051401359"),
        ("User's tax ID is 65929970489", "65929970489"),  # a noun of no one country
        # Names from python-stdnum's own documentation, for countries the table leaves out
        (
            "Dario's OIB, which he has to write on every official form, is 811 883 128 05.",
            "811 883 128 05",
        ),
        ("Her EGN is 7523169263.", "7523169263"),
        ("Isikukood: 37605030299, for the clinic", "37605030299"),
        ("User's CNIC number is 34201-0891231-8", "34201-0891231-8"),
    ],
)
def test_identity_numbers_are_found_by_their_check_digits(text: str, found: str) -> None:
    """A number next to an identity noun (any language, either side) is a secret when the
    validator of the number that noun names accepts it; the span is the number."""
    assert [text[f.start : f.end] for f in credentials._identity_numbers(text)] == [found]
    assert found in {text[f.start : f.end] for f in find_secrets(text)}


@pytest.mark.parametrize(
    "text",
    [
        "Steuer-ID 6592997",  # too short to be one, and the check fails
        "User's BSN letter came in 2019.",
        "User's Steuer-ID office is open from 9 to 17.",
        "The tax number form has 12 fields and costs 25 euros.",
        "User's order number is 65929970489.",  # a valid Steuer-ID, but no identity noun
        "Call the SIN helpline at 1 800 622 6232.",
        "User's CPF application took 14 days and 3 visits.",
        "User pays 1 249 euros a year for a tax adviser.",
        "Dario's OIB is 81188312806.",  # a check digit off, and the name is not the table's
        "IN 2019 User paid 81188312805 kuna for the boat.",  # "IN" is a word, not Japan's
        "in 2019 User paid 81188312805 kuna for the boat.",
    ],
)
def test_ordinary_numbers_near_identity_nouns_pass(text: str) -> None:
    """Years, counts, prices, phone numbers, a mistyped number, or a valid one with no
    identity noun are not identity numbers."""
    assert [f for f in find_secrets(text) if f.kind == "national id number"] == []


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["nl.bsn", "br.cpf"]),
    st.text(alphabet="0123456789", min_size=9, max_size=9),
    st.sampled_from(
        [
            ("User's {noun} is {value}.", True),
            ("{value} is the {noun} of the user", True),
            ("{noun}: {value}", True),
            ("User's order number is {value}.", False),
            ("Tracking code {value} for the parcel", False),
        ]
    ),
)
def test_generated_identity_numbers(module: str, digits: str, frame: tuple[str, bool]) -> None:
    """Any valid BSN or CPF in a sentence with its noun is found; in the same sentence with
    an order or tracking number it is not a national id number."""
    from stdnum.br import cpf
    from stdnum.nl import bsn

    noun = {"nl.bsn": "BSN", "br.cpf": "CPF"}[module]
    if module == "nl.bsn":
        value = next((digits[:8] + d for d in "0123456789" if bsn.is_valid(digits[:8] + d)), None)
    else:
        value = cpf.format(digits + cpf._calc_check_digits(digits))
    assume(value is not None and (module != "br.cpf" or cpf.is_valid(value)))
    template, is_id = frame
    text = template.format(noun=noun, value=value)
    kinds = [text[f.start : f.end] for f in find_secrets(text) if f.kind == "national id number"]
    assert kinds == ([value] if is_id else [])


def test_stdnum_names_are_python_stdnum_own() -> None:
    """Every module the shipped table names validates a number, and every name it gives is
    in that module's own first line of documentation: the table was read from there."""
    from importlib import import_module

    table = json.loads((PROJECT / "pipeline" / credentials.STDNUM_NAMES_FILE).read_text("utf-8"))
    assert len(table) >= 60
    for module, names in table.items():
        found = import_module(f"stdnum.{module}")
        first = (found.__doc__ or "").strip().split("\n")[0]
        assert callable(found.is_valid)
        assert all(name in first for name in names), (module, names, first)


def test_ordinary_text_imports_no_validator() -> None:
    """A text with no identity noun (or too few digits) never imports python-stdnum's
    national modules: a turn's start pays for them only when a candidate number is named."""
    code = (
        "import sys; from pipeline.credentials import IDENTITY_NUMBERS, find_secrets; "
        "find_secrets('User ran 12345 metres and likes tea'); "
        "find_secrets('User has a BSN and 2 cats'); "
        "print(sorted(m for m, _ in IDENTITY_NUMBERS if 'stdnum.' + m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=PROJECT
    )
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "text",
    [
        "User's door code is 4321",
        "My api key is sk-abcdefghijklmnopqrstuvwx1234",
        "User's national insurance number is QQ123456C",
        "the wifi password is hunter22 and the PIN 4471",
    ],
)
def test_redacting_twice_changes_nothing(text: str) -> None:
    """Output is redacted at more than one boundary (a gate verdict, then the command that
    prints it), so a [REDACTED] marker must not be read as a labelled value and wrapped again."""
    once = redact(text)
    assert "[REDACTED]" in once
    assert redact(once) == once


# --- Recovery phrases in the other BIP-39 word lists -------------------------------------

PHRASE_LANGUAGES = (
    "chinese_simplified",
    "chinese_traditional",
    "japanese",
    "korean",
    "spanish",
    "french",
    "italian",
    "czech",
    "portuguese",
)
PHRASE_FRAMES = (
    "User's wallet recovery phrase: {}",
    "{} is the seed of the user's hardware wallet.",
    "Les mots de récupération du portefeuille sont {}.",
    "用户的助记词是 {}。",
)


def _phrase(language: str, entropy: bytes, form: str = "NFC") -> str:
    import unicodedata

    from mnemonic import Mnemonic

    return unicodedata.normalize(form, Mnemonic(language).to_mnemonic(entropy))


def _found_whole(text: str, value: str) -> bool:
    start = text.index(value)
    return any(
        f.start <= start and start + len(value) <= f.end and f.kind == "recovery phrase"
        for f in find_secrets(text)
    )


@pytest.mark.parametrize("language", PHRASE_LANGUAGES)
@pytest.mark.parametrize("frame", PHRASE_FRAMES)
@pytest.mark.parametrize("entropy", [bytes(range(16)), bytes(range(200, 232))])
def test_recovery_phrases_in_every_word_list_are_found(
    language: str, frame: str, entropy: bytes
) -> None:
    """A 12- or 24-word phrase of any shipped BIP-39 list, composed or decomposed, inside any
    sentence, is found whole as a recovery phrase and redacted."""
    for form in ("NFC", "NFD"):
        value = _phrase(language, entropy, form)
        text = frame.format(value)
        assert _found_whole(text, value), (language, form, text)
        assert value not in redact(text)


@pytest.mark.parametrize("language", ["chinese_simplified", "chinese_traditional"])
@pytest.mark.parametrize(
    "frame",
    [
        "用户的助记词是{}",
        "助记词：{}。",
        "钱包恢复短语为{}，请勿外传",
        "{}（用户的钱包助记词）",
        "User's seed phrase is {}",
        "用户的钱包助记词：{}",
    ],
)
@pytest.mark.parametrize("entropy", [bytes(range(16)), bytes(range(7, 27)), bytes(range(9, 41))])
def test_chinese_phrases_without_separators_are_found(
    language: str, frame: str, entropy: bytes
) -> None:
    """Chinese phrases are often written as one run of characters: one of 12, 15 or 24
    characters whose checksum holds, after a recovery noun or as a whole clause, is found."""
    value = _phrase(language, entropy).replace(" ", "")
    assert _found_whole(frame.format(value), value)


def test_traditional_phrases_with_the_words_the_lists_do_not_share_are_found() -> None:
    """The Traditional list, read in Simplified characters as the finder reads text, still
    holds "著" and "矽", which the Simplified list writes "着" and "硅"."""
    from mnemonic import Mnemonic

    words = Mnemonic("chinese_traditional").wordlist
    first, second = words.index("著"), words.index("矽")
    phrase = Mnemonic("chinese_traditional").to_mnemonic(
        (first << 117 | second << 106).to_bytes(16, "big")
    )
    for text in (f"用戶的助記詞是{phrase.replace(' ', '')}", f"錢包助記詞：{phrase}"):
        assert any(f.kind == "recovery phrase" for f in find_secrets(text)), text


@pytest.mark.parametrize("separator", ["、", "，", ",", "\u3000", "  "])
def test_chinese_phrases_with_other_separators_are_found(separator: str) -> None:
    """Commas, enumeration commas and the ideographic space separate words as a space does."""
    value = separator.join(_phrase("chinese_simplified", bytes(range(16))).split())
    assert _found_whole(f"助记词：{value}", value)


def test_a_spaced_phrase_is_found_even_when_its_checksum_fails() -> None:
    """Twelve list words written apart are a phrase by their shape: a phrase typed with one
    word wrong, or invented, still holds the words that open the wallet."""
    words = _phrase("spanish", bytes(range(16))).split()
    words[-1], words[0] = words[0], words[-1]
    value = " ".join(words)
    assert not credentials.bip39_checksum_holds(
        [credentials._bip39_list("spanish")[w] for w in words]
    )
    assert _found_whole(f"Frase de recuperación: {value}", value)


def test_the_checksum_is_bip39s() -> None:
    """The checksum check agrees with the reference implementation on phrases of every
    length, and refuses the same words with one changed."""
    from mnemonic import Mnemonic

    words = credentials._bip39_list("chinese_simplified")
    for size in (16, 20, 24, 28, 32):
        phrase = Mnemonic("chinese_simplified").to_mnemonic(bytes(range(size)))
        indices = [words[w] for w in phrase.split()]
        assert credentials.bip39_checksum_holds(indices)
        assert not credentials.bip39_checksum_holds([*indices[:-1], (indices[-1] + 1) % 2048])


# Ordinary Chinese: long clauses of common characters (every one of them is in the Chinese
# word lists), with and without a recovery noun near them.
CHINESE_PROSE = [
    "用户每天早上七点起床然后去公园跑步一个小时",
    "用户把钱包助记词抄在一张纸上，放在家里保险柜最下层的抽屉里。",
    "用户的助记词保存在一张纸上",
    "用户的钱包助记词一共有二十四个词，他说要好好保管",
    "用户说助记词是他去年在北京买房时设置的",
    "用户在一家做区块链钱包的公司上班负责安全方面的工作",
    "用户觉得硬件钱包比手机上的热钱包更加安全可靠",
    "用户的女儿今年九月就要去上海读大学了",
    "他每个周末都会和朋友一起去山里钓鱼和露营",
    "用户希望以后的回答都用简体中文而且尽量简短一些",
    "用户对花生过敏，吃了会起红疹，所以点菜时总是先问清楚",
    "用户正在学习如何使用助记词恢复自己的比特币钱包",
    "用户忘记了钱包的恢复短语只能重新创建一个新的钱包",
    "用户的老家在湖南长沙，父母现在还住在那里",
    "用户喜欢在晚上一边听音乐一边看书学习外语",
    "用户认为种子短语不应该保存在任何联网的设备上面",
    "用户和他的妻子计划明年夏天去日本北海道旅行",
    "用户是一名小学数学老师，已经教了十二年书",
    "用户的公司明年要在深圳开一家新的分公司",
    "用户每周二和周四晚上去健身房练习举重和游泳",
]


@pytest.mark.parametrize("text", CHINESE_PROSE)
def test_ordinary_chinese_is_not_a_recovery_phrase(text: str) -> None:
    """Chinese prose, made of the commonest characters, is not a phrase, even beside a
    recovery noun: unspaced text needs a phrase's length and its checksum."""
    assert [f for f in find_secrets(text) if f.kind == "recovery phrase"] == []


def test_chinese_rows_of_the_tune_part_hold_no_false_phrase() -> None:
    """No Chinese row of the tune part that is not labelled a secret is taken for a phrase
    (nor for a licence number), and the tune part's secrets are still secrets."""
    from pipeline.text import has_cjk

    rows = [json.loads(line) for line in (CORPUS / "tune.jsonl").read_text("utf-8").splitlines()]
    chinese = [r for r in rows if has_cjk(r["text"])]
    assert len(chinese) > 100
    new_kinds = {"recovery phrase", "licence or member number"}
    wrong = [
        r["text"]
        for r in chinese
        if r["label"] != "secret" and {f.kind for f in find_secrets(r["text"])} & new_kinds
    ]
    assert wrong == []
    assert all(find_secrets(r["text"]) for r in chinese if r["label"] == "secret")


@pytest.mark.parametrize(
    "text",
    [
        "El usuario vive en Madrid con su perro y trabaja como abogado en una empresa grande "
        "cerca del centro de la ciudad desde hace cinco años.",
        "L'utilisateur habite à Lyon avec sa femme et travaille comme médecin dans un grand "
        "hôpital public depuis plusieurs années maintenant.",
        "L'utente abita a Roma con la moglie e lavora come medico in un grande ospedale "
        "pubblico da molti anni ormai.",
        "O usuário mora em Lisboa com a esposa e trabalha como médico num grande hospital "
        "público há muitos anos.",
        "Uživatel bydlí v Praze se svou ženou a pracuje jako lékař ve velké veřejné nemocnici "
        "už mnoho let.",
        "사용자는 서울에서 아내와 함께 살고 있으며 큰 공립 병원에서 의사로 일하고 있습니다.",
        "ユーザーは東京に住んでいて、毎朝コーヒーを飲みながら新聞を読みます。",
    ],
)
def test_prose_in_the_lists_languages_is_not_a_phrase(text: str) -> None:
    """Sentences in each list's language hold some list words, never twelve in a row."""
    assert find_secrets(text) == []


# --- Licence, permit and member numbers ---------------------------------------------------

DOCUMENT_NUMBERS = [
    ("User's driver's licence number is D1234567.", "D1234567"),
    ("Driver license no. is B123-4567-8901", "B123-4567-8901"),
    ("User's driving licence: SMITH901015JJ9AA", "SMITH901015JJ9AA"),
    ("DL number 123456789 (California)", "123456789"),
    ("W4321987 is the user's drivers license", "W4321987"),
    ("User's work permit number is WP-448812.", "WP-448812"),
    ("Residence permit: RP7781234, valid to March", "RP7781234"),
    ("User's membership number is 88214407.", "88214407"),
    ("Frequent flyer number LH992211334", "LH992211334"),
    ("User's library card number is 29381004471123", "29381004471123"),
    ("Gym member ID 55120 at FitBox", "55120"),
    ("Führerscheinnummer des Nutzers: B072RRE2I55", "B072RRE2I55"),
    ("Die Führerschein-Nr. lautet J0101234567.", "J0101234567"),
    ("Seine Mitgliedsnummer ist 4471923.", "4471923"),
    ("Le numéro de permis de conduire de l'utilisateur est 120575300123.", "120575300123"),
    ("Numéro d'adhérent : 778812", "778812"),
    ("El número de licencia de conducir es 12345678Z.", "12345678Z"),
    ("Su carnet de conducir: X1234567", "X1234567"),
    ("Número de socio 552190 del club", "552190"),
    ("驾照号码 A12345678", "A12345678"),
    ("用户的驾驶证编号：330100200012", "330100200012"),
    ("他的会员号是88812345", "88812345"),
    ("居住证号码：SZ20231145", "SZ20231145"),
    ("User's insurance policy number is POL-88120045.", "POL-88120045"),
    ("Employee ID 448812 at the plant", "448812"),
    ("Student number: s2231987", "s2231987"),
    ("User's Medicare number is 2953 14781 1", "2953 14781 1"),
    ("Kundennummer 10048812 bei den Stadtwerken", "10048812"),
    ("Matrikelnummer des Nutzers: 4471290", "4471290"),
    ("Numéro client : 00123984", "00123984"),
    ("Número de póliza 55-0912331", "55-0912331"),
    ("他的学号是20231145", "20231145"),
    ("用户的保单号：PA88120045", "PA88120045"),
]


@pytest.mark.parametrize(("text", "value"), DOCUMENT_NUMBERS)
def test_licence_permit_and_member_numbers_are_found(text: str, value: str) -> None:
    """A number beside the noun of a licence, permit or membership (English, German,
    French, Spanish, Chinese; either order) is a secret, and exactly it is redacted."""
    assert value in {text[f.start : f.end] for f in find_secrets(text)}
    assert value not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "User has had a driver's licence since 2015.",
        "User's driving licence expires in 2031.",
        "User got the driving licence after 3 attempts.",
        "User has held a pilot licence for 12 years and flown 1500 hours.",
        "User's gym membership costs 45 euros a month.",
        "User renewed their residence permit in March 2024.",
        "User's work permit allows 20 hours of work a week.",
        "User's membership number is printed on the blue card.",
        "Der Führerschein des Nutzers ist seit 2010 gültig.",
        "Le permis de conduire de l'utilisateur expire en 2030.",
        "El carnet de conducir del usuario caduca en 2029.",
        "用户2015年拿到驾照，开车已经十年了。",
        "用户的驾照明年到期，需要去车管所换证。",
        "用户是健身房会员，每周去三次。",
        "User has been a customer of the bank since 2009.",
        "User's employee ID badge stopped working last week.",
        "User's insurance policy covers 80 percent of dental costs.",
        "User became a student at TU Berlin in 2021.",
        "Der Nutzer ist seit 2012 Kunde bei der Sparkasse.",
        "用户2019年入学，学号还没发下来。",
        "User paid 1200 for the work permit.",
        "User's insurance policy costs 1200 a year.",
        "User paid 1500 for the green card application and waited 9 months.",
        "User's gym membership card cost 4500 yen.",
    ],
)
def test_talk_about_licences_without_a_number_passes(text: str) -> None:
    """Years, durations, counts and prices beside a licence or membership are facts."""
    assert [f for f in find_secrets(text) if f.kind == "licence or member number"] == []


def test_ordinary_text_reads_no_other_word_list() -> None:
    """Prose in any script, Chinese prose beside a recovery noun included, reads none of the
    non-English word lists: a list is read only when a text has a phrase's shape."""
    code = (
        "from pipeline.credentials import _bip39_list, find_secrets; "
        "find_secrets('User prefers green tea over coffee when working late at night and "
        "walks the dog before breakfast on most days of the week'); "
        "find_secrets('El usuario vive en Madrid con su perro y trabaja como abogado.'); "
        f"find_secrets({CHINESE_PROSE[0]!r}); find_secrets({CHINESE_PROSE[1]!r}); "
        "print(_bip39_list.cache_info().currsize)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=PROJECT
    )
    assert done.stdout.strip() == "0"


def _spellings(pattern: str) -> set[str]:
    """Every string a pattern made of literals, classes, groups, alternatives and bounded
    repeats matches (the shape of the document nouns)."""
    from re import _constants as c  # type: ignore[attr-defined]
    from re import _parser  # type: ignore[attr-defined]

    def walk(items: list) -> set[str]:
        out = {""}
        for op, arg in items:
            if op is c.LITERAL:
                options = {chr(arg)}
            elif op is c.IN:
                options = {chr(a) for o, a in arg if o is c.LITERAL}
            elif op is c.BRANCH:
                options = set().union(*(walk(list(b)) for b in arg[1]))
            elif op is c.SUBPATTERN:
                options = walk(list(arg[3]))
            elif op is c.MAX_REPEAT:
                low, high, inner = arg
                once = walk(list(inner))
                options = {""} | once if (low, high) == (0, 1) else once
            else:
                raise AssertionError(op)
            out = {a + b for a in out for b in options}
        return out

    return walk(list(_parser.parse(pattern)))


def test_every_document_noun_opens_with_a_literal_and_holds_a_stem() -> None:
    """The document-noun scan dispatches on each noun's first character and is skipped for
    text with none of the stems: every noun opens with a literal, every spelling of it holds
    a stem, and the scan finds it."""
    pattern = credentials._document_noun_pattern()
    for noun in credentials.DOCUMENT_NOUNS:
        assert re.match(r"[\w°]", noun), noun
        for spelling in _spellings(noun):
            assert any(stem in spelling for stem in credentials._DOCUMENT_STEMS), spelling
            assert pattern.fullmatch(spelling), spelling
    assert all(noun in credentials._DOCUMENT_STEMS for noun in credentials.DOCUMENT_NOUNS_CJK)


# --- Passwords and codes in other languages, and codes spelled out -------------------------

OTHER_LANGUAGE_SECRETS = [
    ("Das WLAN-Passwort des Nutzers lautet Zebra!2024.", "Zebra!2024"),
    ("Kennwort: Sommer2024!", "Sommer2024"),
    ("Die Geheimzahl der EC-Karte ist 5521.", "5521"),
    ("Zugangscode 774411 für das Büro", "774411"),
    ("Le mot de passe du wifi est soleil2024.", "soleil2024"),
    ("Digicode de l'immeuble : 4471", "4471"),
    ("La contraseña del correo es Girasol#88.", "Girasol#88"),
    ("Su clave tributaria del SII es Albatros1994.", "Albatros1994"),
    ("El código de la puerta es 4471.", "4471"),
    ("Código de verificación: 552910", "552910"),
    ("Il codice del cancello è 4471.", "4471"),
    ("A senha do Wi-Fi é casa2024.", "casa2024"),
    ("暗証番号は4471です。", "4471"),
    ("パスワードはsakura2024です", "sakura2024"),
    ("비밀번호는 4471입니다.", "4471"),
    ("User's alarm code is four four seven one.", "four four seven one"),
    ("The PIN: nine, one, three, three", "nine, one, three, three"),
    ("门锁密码是四七一一。", "四七一一"),
    ("银行卡密码：六六二一九零", "六六二一九零"),
    ("Der Türcode ist vier vier sieben eins.", "vier vier sieben eins"),
    ("Le code de la porte est quatre quatre sept un.", "quatre quatre sept un"),
    ("La contraseña es: cinco, dos, uno, nueve", "cinco, dos, uno, nueve"),
]


@pytest.mark.parametrize(("text", "value"), OTHER_LANGUAGE_SECRETS)
def test_passwords_and_codes_in_other_languages_are_found(text: str, value: str) -> None:
    """A value with a digit beside a German, French, Spanish, Italian, Portuguese, Japanese
    or Korean password or code noun, and a code spelled out beside any sensitive noun, is a
    secret, and exactly it is redacted."""
    assert value in {text[f.start : f.end] for f in find_secrets(text)}
    assert value not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "Der Nutzer hat sein Passwort vergessen.",
        "Der Nutzer ändert sein Passwort seit 2015 jedes Jahr.",
        "Der Nutzer nutzt einen Passwort-Manager seit 2019.",
        "Le mot de passe doit contenir 12 caractères.",
        "L'utilisateur a oublié son mot de passe hier.",
        "La contraseña tiene 8 letras y 2 números.",
        "El usuario escribe código en Python desde 2018.",
        "User writes code in Python 3.12 and Rust 1.75.",
        "User's PIN has four digits.",
        "User changes the door code one or two times a year.",
        "用户的密码每三个月换一次。",
        "用户设置了一千二百个密码。",
        "Le mot de passe a été changé un ou deux fois.",
        "Der Nutzer hat drei Passwörter für zwei Konten.",
    ],
)
def test_talk_about_passwords_in_other_languages_passes(text: str) -> None:
    """Forgetting, changing or describing a password, code written in a language, and
    counts spelled out are facts."""
    assert find_secrets(text) == []


def test_no_tune_row_but_a_secret_meets_a_newer_kind() -> None:
    """On the tune part, the kinds the reference does not have find nothing in any row not
    labelled a secret (its near misses included)."""
    rows = [json.loads(line) for line in (CORPUS / "tune.jsonl").read_text("utf-8").splitlines()]
    wrong = [
        (name, r["text"])
        for r in rows
        if r["label"] != "secret"
        for name in NEWER_KINDS
        if list(getattr(credentials, name)(r["text"]))
    ]
    assert wrong == []


# --- Values found by probing as a hostile user would phrase them --------------------------

PROBED_SECRETS = [
    # A password noun, a link, and the value: quoted (words and spaces included), after a
    # colon or "lautet", or a bare capitalised word after a German copula.
    ("The vault passphrase is 'purple monkey dishwasher 42'.", "purple monkey dishwasher 42"),
    ("User's SSH passphrase is ‘moonlight sonata’.", "moonlight sonata"),
    ("User's password for the NAS is `correct horse`.", "correct horse"),
    ("Das Passwort für das WLAN ist Sonnenblume.", "Sonnenblume"),
    ("Mein Passwort ist Katze.", "Katze"),
    ("Das WLAN-Passwort lautet Sommerregen.", "Sommerregen"),
    ("Mot de passe du routeur : papillon", "papillon"),
    ("Contraseña del correo: mariposa", "mariposa"),
    # Password nouns of more languages, with a digit in the value.
    ("Hasło do wifi to Słonecznik77.", "Słonecznik77"),
    ("Пароль от почты: медведь2020", "медведь2020"),
    ("Het wachtwoord is tulp1984.", "tulp1984"),
    ("Wifi şifresi: kedi4471", "kedi4471"),
    # Fullwidth digits, a card's three-digit code, foreign digit words beside an English noun.
    ("User's PIN: ４４７１", "４４７１"),
    ("User's CVV is 123.", "123"),
    ("El PIN de la tarjeta es cuatro cuatro siete uno.", "cuatro cuatro siete uno"),
    # A value given as a recipe from another fact.
    ("The door code is the year the user was born plus 4.", "the year the user was born plus 4"),
    (
        "User's password is the name of their first dog followed by 99.",
        "the name of their first dog followed by 99",
    ),
    # A key copied in groups.
    ("User's AWS key is AKIA IOSF ODNN 7EXA MPLE", "AKIA IOSF ODNN 7EXA MPLE"),
    ("Backup key: 9fQ2-xK7p-Lm3Z-8vRt-Qw4e", "9fQ2-xK7p-Lm3Z-8vRt-Qw4e"),
    # A phrase shorter than a wallet's, or of words from no list, named by a recovery noun.
    (
        "Seed phrase for her Ledger: orbit cactus velvet ladder hungry plate ozone drift",
        "orbit cactus velvet ladder hungry plate ozone drift",
    ),
    ("用户的钱包助记词：河流 灯塔 苹果 沙漠 星辰 铁轨 秋天", "河流 灯塔 苹果 沙漠 星辰 铁轨 秋天"),
    # A quoted value right after its noun, and more Chinese identity nouns.
    ("User signs in with the passphrase 'purple-otter-seventeen'.", "purple-otter-seventeen"),
    ("用户的个税纳税人识别号是 91330106MA2KX7Q83R", "91330106MA2KX7Q83R"),
    # A code read out digit by digit, away from its noun.
    ("The lockbox at the holiday flat opens with 6 1 8 3", "6 1 8 3"),
    # An identity number its noun introduces, whether or not its check digit holds.
    ("Steuer-ID of the user = 47 036 892 815", "47 036 892 815"),
    ("Hamish's self-assessment UTR: 83710 44529", "83710 44529"),
    # A dial lock's combination, and a key spelled out a character at a time.
    ("Locker 114 at the pool; combination 3-3-9.", "3-3-9"),
    (
        "openai key: s k - p r o j - A 9 f 3 K d 0 2 L m Q x 7 T z R",
        "s k - p r o j - A 9 f 3 K d 0 2 L m Q x 7 T z R",
    ),
    # A password noun typed in haste, a Wi-Fi key, an arrow for a link, more Chinese
    # code nouns, numbers in groups after a member noun, a passphrase that holds a number.
    ("usr's passwrd for the lab computer is Brisket_1977", "Brisket_1977"),
    ("- SSID: Casa-Lupo-5G\n- WPA2 key: 77f3-ab19-c2d8-e450", "77f3-ab19-c2d8-e450"),
    ("user's US passport number → 567 204 913", "567 204 913"),
    ("Steuer-ID (Steueridentifikationsnummer): 47 036 892 815", "47 036 892 815"),
    ("店里防盗报警器的撤防码是 6 6 0 8", "6 6 0 8"),
    ("社保电脑号 1038475920（上海）", "1038475920"),
    ("DL# D482-1663-9077 (Illinois)", "D482-1663-9077"),
    ("Health insurance member ID: XGH 884 210 773", "XGH 884 210 773"),
    ("Costco membership # 111 8829 4403", "111 8829 4403"),
    ('Vault passphrase is "my cat eats 3 tacos on Sunday".', "my cat eats 3 tacos on Sunday"),
    # A table column headed by a password noun.
    ("| service | pwd |\n|---|---|\n| gmail | Tr0ub4dor&3 |", "Tr0ub4dor&3"),
    ("| site | login | password |\n|--|--|--|\n| nas | admin | sunflower |", "sunflower"),
    # A code read out in groups inside brackets, digits counted in Chinese, number words of
    # two digits, a card's code named in Chinese or beside a card, a security answer.
    ("keeps the med-room code (7 7 2 0) on a sticky note", "7 7 2 0"),
    ("用户的支付宝支付密码是六个8。", "六个8"),
    ("微信支付密码：三个五两个零一个七。", "三个五两个零一个七"),
    (
        "User's social is five two one, eighty-four, thirty-three oh seven.",
        "five two one, eighty-four, thirty-three oh seven",
    ),
    ("The alarm code is twenty twenty.", "twenty twenty"),
    ("信用卡背面的安全码是 417（中信卡）。", "417"),
    ("The card security code is 417.", "417"),
    ('Security answer for the bank login (mother\'s maiden name): "Kowalczyk".', "Kowalczyk"),
    ("User's answer to 'name of your first pet' for PayPal recovery is Biscuit.", "Biscuit"),
    ("The answer to the user's security question is Rex.", "Rex"),
    ("用户的密保答案是“小白”。", "小白"),
    ("User's answer to the bank's 'first pet' security question is 'Biscuit2'", "Biscuit2"),
    ("User gave their mother's maiden name for verification: Kowalczyk", "Kowalczyk"),
    ("User's Trezor passphrase (the hidden-wallet 25th word) is 'lighthouse'", "lighthouse"),
    ("User's LLC has EIN 84-3729105.", "84-3729105"),
    ("El código del portal at the user's Madrid flat is 4A7719.", "4A7719"),
    # A value given as a date or a number of one's own.
    ("User's building door code is the year the Berlin Wall fell", "the year the Berlin Wall fell"),
    ("The PIN is her birthday.", "her birthday"),
    # A secret's key in a line of configuration, a dial lock's turns, a security answer
    # the user set.
    ("router config: ssid=Nook_Staff, wpa_passphrase=oatmilk-4eva-2291", "oatmilk-4eva-2291"),
    ("db_password: hunter22x", "hunter22x"),
    ('DB_PASSWORD="s3cr3t!x" in the .env', "s3cr3t!x"),
    ("門禁主機設定檔寫著 admin_user=lobby、admin_pwd=Qianzhen88!，一年改一次。", "Qianzhen88!"),
    ("His corporate Visa starts 4539 1782 0461. The last four are 7530.", "4539 1782 0461"),
    ("clientSecret = 9f8a7b6c5d", "9f8a7b6c5d"),
    ("front_door_pin=4471", "4471"),
    ("The safe opens with left 36, right 12, left 8.", "36, right 12, left 8"),
    ("Padlock: R-24, L-10, R-3", "R-24, L-10, R-3"),
    ("用户店里保险柜的开法：左转 36，右转 12，再左转 8。", "36，右转 12，再左转 8"),
    ("保险箱：顺时针转3圈到25，逆时针到10，顺时针到40", "25，逆时针到10，顺时针到40"),
    (
        "For the bank's security question 'first pet', User set the answer to Biscuit the iguana.",
        "Biscuit the iguana",
    ),
    (
        'The answer the user set for the bank\'s security question "first pet" is Mr. Waffles.',
        "Mr. Waffles",
    ),
    ("用户家的报警器解除码是 9034。", "9034"),
    # A value past an aside between dashes or in brackets, the answer a security question
    # was set to, a card's code told as the digits on its back.
    ("User's PIN — the one for the debit card, not the credit one — is 4471.", "4471"),
    ("Alarm disarm code for the cabin (they go up most weekends): 0612", "0612"),
    ("用户的密码（就是银行卡那个）是 662190", "662190"),
    ("User set the bank's security question answer — childhood street — to 'Elm Row'.", "Elm Row"),
    ("User changed the security answer for PayPal to Marmalade7.", "Marmalade7"),
    ("The three digits on the back of her Visa are 916.", "916"),
    ("卡片背面那三个数字是 九、一、六。", "九、一、六"),
    # A quoted value after the copula of a relative clause, a device's pairing code, a
    # code read out in groups of Chinese digits, a security answer after a word of recovery.
    ("The alarm firm's passphrase, which for the cabin is 'bluebonnet', is old.", "bluebonnet"),
    ("User's Apple TV pairing code is 7QF-31K.", "7QF-31K"),
    ("用户把短信验证码念给了客服：四二九、零八一。", "四二九、零八一"),
    ("For account recovery, the answer to 'first school' on her Gmail is St Anne's.", "St Anne's"),
    # A login told as a pair after a noun for both, a memorable word quoted at once, a
    # code read out digit by digit with words between.
    ("The VPN profile's auth-user-pass is mlopez / Harbour-Lights-7", "Harbour-Lights-7"),
    ("用户VPN的帐号密码为 chenyt / Tpe-Remote-99", "Tpe-Remote-99"),
    ("User typed her memorable word 'lanternfish' into the bank chat.", "lanternfish"),
    ("The key safe: turn to 7, then 1, then 9, and finally 4.", "9"),
    # A hardware wallet's words; Cantonese, whose copula is 係, and its 戶口號碼.
    (
        "User read her Trezor words aloud: kettle amber frost lily harbor crane spice",
        "kettle amber frost lily harbor crane spice",
    ),
    ("我嘅中銀戶口號碼係 012-875-2-046381-9", "012-875-2-046381-9"),
    ("佢部手機嘅密碼係 Kwun7788", "Kwun7788"),
    # A Chinese security answer set to a value or after a quoted question; the first words
    # of a phrase listed with 、; a residence card's number, a Portuguese NIF.
    ("用户把安全提问「小学校名」的答案设成「青石9」。", "青石9"),
    ("银行客服核实身份时问「第一辆车的牌子」，用户登记的答案是「Lada77」。", "Lada77"),
    (
        "用户钱包助记词的前五个字是 orbit、velvet、candle、frost、mirror。",
        "orbit、velvet、candle、frost、mirror",
    ),
    ("用戶的居留證統一證號是 A800173924。", "A800173924"),
    ("User's NIF for the Lisbon flat is 245 871 906.", "245 871 906"),
    ("用户网易将军令的序列号是 M2834-7712-0093。", "M2834-7712-0093"),
    ("User's Irish PPS number is 8261947WA.", "8261947WA"),
    ("用户的WiFi密码设成了 sunflower", "sunflower"),
    # A phrase copied with a slip, an app password in letter groups, a pre-shared key.
    (
        "Ledger recovery phrase: orbit velvet canyon mirror tulip basket frozen exile ladder",
        "orbit velvet canyon mirror tulip basket frozen exile ladder",
    ),
    ("用户给 Thunderbird 收 Gmail 用的应用专用密码是 qzvf lmtk rpwa hxne。", "qzvf lmtk rpwa hxne"),
    ("The office VPN pre-shared key IT sent the user is Vx92!tangerine!Qa.", "Vx92!tangerine!Qa"),
    # A Latin noun inside Chinese, a number in groups at the end of its noun's clause, an
    # answer given to a security question.
    ("用户给Switch设的家长控制PIN是 7316，不让儿子晚上九点后玩。", "7316"),
    ("The locker code for the parcel at the Tesco Extra on Hartcliffe Way is 482 916.", "482 916"),
    (
        "When the loan portal asks her security question, User answers 'Mrs Pennywhistle'.",
        "Mrs Pennywhistle",
    ),
    # A long code beside a noun for a code; an answer a comma closes.
    ("User has an unused Apple gift card, code X7QK9M3PLR2VWT8N, to spend.", "X7QK9M3PLR2VWT8N"),
    (
        "User's bank security answer for 'first pet' is Biscuit-the-ferret, which they use.",
        "Biscuit-the-ferret",
    ),
    # A card code a few words after its noun; a number named by "security number"; an
    # answer said as what a thing "was named" in a security question's sentence; a Chinese
    # answer a Chinese comma closes.
    ("The CVV printed on the back of her Visa is 093.", "093"),
    ("User keys in security number 771204 when the bank's phone line asks.", "771204"),
    (
        "On the bank's security question, the user's childhood street was named Larkspur Close.",
        "Larkspur Close",
    ),
    ("密保问题答案：第一只宠物叫豆豆，小学是实验小学。", "第一只宠物叫豆豆"),
    # Traditional Chinese reads as Simplified: "密碼" is "密码".
    ("我的銀行卡密碼是 662190", "662190"),
    ("門禁碼：4471，週末會換。", "4471"),
    ("驗證碼是 882913", "882913"),
    ("密保問題答案：第一隻寵物叫豆豆，小學是實驗小學。", "第一隻寵物叫豆豆"),
    # A name of a few words that a comma closes; a Chinese noun for a pass code.
    (
        "User's answer to the card's security question 'first teacher' is Mrs Ada Quill, "
        "and they keep forgetting it.",
        "Mrs Ada Quill",
    ),
    ("小区停车场的通行码是 K5521，每月初更换。", "K5521"),
    # A quoted passphrase of plain words; a code read out digit by digit or in pieces; a
    # card's "three digits"; the answer when a login asks a quoted question; the first
    # words of a recovery phrase; "账密" (account and password).
    ("User's vault passphrase is 'lantern orchard at midnight'", "lantern orchard at midnight"),
    ("User's seed phrase starts with 'orbit maple vessel thunder'", "orbit maple vessel thunder"),
    ("用户保险箱密码是：3、8、1、1、7、2", "3、8、1、1、7、2"),
    ("The alarm code is 7, 3, 9, 1 for the back door", "7, 3, 9, 1"),
    ("The gate code comes in two parts: first 63, then 19.", "63, then 19"),
    ("用户的信用卡背面三码是 418", "418"),
    ("If the bank's login asks 'first car', the answer is Corolla Blue", "Corolla Blue"),
    ("助记词的前四个词是 orbit maple vessel thunder。", "orbit maple vessel thunder"),
    ("用户 NAS 的账密是 admin/Qx7pLm29", "admin/Qx7pLm29"),
    # Digits spelled with "nought", in the capital numerals of cheques, a card code in
    # Chinese digits.
    ("The lockbox opens with four, nought, one, one, six.", "four, nought, one, one, six"),
    ("用户家保险柜的密码是贰柒零肆伍陆。", "贰柒零肆伍陆"),
    ("她信用卡背面的三位数是五零八。", "五零八"),
    # A passphrase of plain words that ends its clause; a network's key.
    ("The vault passphrase is correct horse battery staple.", "correct horse battery staple"),
    (
        "Guest wifi is 'Fernhill' and the key is marble otter sings loudly, all lowercase.",
        "marble otter sings loudly",
    ),
    ("The office network is OakNet and the key is Plover-Dune-4410.", "Plover-Dune-4410"),
    # A quoted question with an apostrophe in it; Taiwan's id and business numbers.
    (
        "For the bank's security question, her answer to 'first pet's name' is Biscuit-the-ferret.",
        "Biscuit-the-ferret",
    ),
    ("用户的身分证字号是 A123456789，报名要用。", "A123456789"),
    ("工作室的统一编号是 12345675。", "12345675"),
    ("接孩子时要报的通关密语是「绿色海豚」。", "绿色海豚"),
    # A login told as a pair; a lock's keypad code; a member number; a code in Chinese
    # digits listed; a question of many words before "security question".
    ("Old host login: user gardenhut, pass T0mato$eason", "T0mato$eason"),
    ("老家大门的电子锁要按 8642# 才开。", "8642#"),
    ("用户的强积金成员编号是 7730-2418-91。", "7730-2418-91"),
    ("快递柜的取件密码是：三、八、零、二、二、七。", "三、八、零、二、二、七"),
    ("User's tax reference (UTR) is 48213 90576.", "48213 90576"),
    (
        "The answer she set for her bank's 'name of first pet' security question is Rex-the-Dog.",
        "Rex-the-Dog",
    ),
    # A code keyed in with no noun for it, a number a lock was set to, a dial's turns in
    # Chinese numbers, a device's administrator login, a maiden-name answer quoted.
    ("The cleaner lets herself in: she keys in 5820 and waits for the green light.", "5820"),
    ("Mum finally got into the old tablet with 240519 after an hour of guessing.", "240519"),
    ("仓库的卷帘门，先输入 3319 再按井号。", "3319"),
    ("The allotment padlock was reset to 0471 after the break-in.", "0471"),
    ("车棚那把密码锁已经换成了 5082。", "5082"),
    ("阁楼保险箱：左转十二，右转四十，再左转七。", "十二，右转四十，再左转七"),
    ("The old camera still takes root / Lark2291 on its web page.", "Lark2291"),
    ("Her bank login's maiden-name answer is 'Oyelaran-Cole'.", "Oyelaran-Cole"),
    # A card number and a card's code in digit words; the start of a wallet phrase quoted.
    (
        "He read his Visa out to the florist: four five three two, zero one five one, one two "
        "eight three, zero three six six.",
        "four five three two, zero one five one, one two eight three, zero three six six",
    ),
    ("for the gym app the card with cvv seven oh two, the blue one", "seven oh two"),
    (
        "Her wallet's recovery phrase begins 'lizard opera velvet cabin ...'",
        "lizard opera velvet cabin",
    ),
    # A code in pieces right after the words that count them.
    ("银行卡密码她分两次发的：前两位57，后四位0392。", "0392"),
    # A product key; an identity number with words after it; a code counted in groups
    # joined by 加.
    ("The old Office product key was 7HQ2M-K9X4P, now useless.", "7HQ2M-K9X4P"),
    (
        "She entered her Unique Taxpayer Reference 5910 3317 42 on the form yesterday.",
        "5910 3317 42",
    ),
    ("保险柜密码是三个七加一个三", "三个七加一个三"),
    # Passwords on a command line; a card's code beside a card brand's name; the answer a
    # quoted question was set to; a memorable word in capitals; Taiwan's word for a key;
    # a wallet phrase's start, quoted, with more after it.
    ("Nightly job: mysqldump -h db1 -u backup -pKettle_204 --all-databases", "Kettle_204"),
    ("He scripts it with sshpass -p 'Quay7!sunset' ssh admin@nas", "Quay7!sunset"),
    ("The staging check is curl -u ops:Fjord91x https://staging.example/health", "Fjord91x"),
    ("the three digits on the back of her Mastercard are 806", "806"),
    (
        "For the email account she reset the 'city you were born in' answer to Port Talbot.",
        "Port Talbot",
    ),
    ("bank app notes: memorable word LANTERN, they ask for three letters", "LANTERN"),
    ("用户的 VPN 金钥是「海风-0423-灯塔」。", "海风-0423-灯塔"),
    ("The answer to her mother's maiden name question is Okafor.", "Okafor"),
    # A code keyed in or a lock set to, in Chinese digits or the capitals of cheques.
    ("王阿姨说警报面板撤防按三三八五，平时就这样。", "三三八五"),
    ("后门那个换成 五五零二 了，晚班记得锁。", "五五零二"),
    ("倉庫的鎖改成了 玖肆柒壹 ，鑰匙就不用了。", "玖肆柒壹"),
    # A reset, pairing or share-extraction code; a recovery question answered.
    ("追踪器的重置码是 470258，写在保修卡背面。", "470258"),
    ("网盘链接发你了，提取码 k3f9。", "k3f9"),
    ("Her recovery question 'first school' is answered with St Brigid's.", "St Brigid's"),
    # A password by its shape alone, however it is introduced: capitals, small letters,
    # digits and signs together, as a piece of a line too.
    ("Marco says the rest is seawall!Gulls4, typed after the guest name.", "seawall!Gulls4"),
    ("Jonah told her the Bandcamp one is still tidepool-9-Orca.", "tidepool-9-Orca"),
    ("the sheet lists it as 'Adm1n-EV/4471' (maybe a 1 read as a slash)", "Adm1n-EV/4471"),
    ("奶奶贴在平板背面的那张纸写着 Gardenia#1947。", "Gardenia#1947"),
    ("backup host line: db.lan:5432:shop:admin:T0ffee_Crunch91", "T0ffee_Crunch91"),
    ("same as always, Run10k!2020", "Run10k!2020"),
    # A code read out in digit words between quotes, with no noun.
    ("Her dad just has to remember 'four oh one eight' at the gate.", "four oh one eight"),
    # A sort code with its account number, with no noun.
    ("Her spreadsheet's BACS row reads 30-96-52 / 01447739 for the rent.", "30-96-52 / 01447739"),
    # A value told by the parts it is made of, then written out.
    ("Her alarm is the dog's name plus the year we met, so it's Biscuit2011.", "Biscuit2011"),
    ("爸爸开柜子就用老家门牌加上他的生日，也就是 36-0917。", "36-0917"),
    # A number read out in Chinese digits, in groups, is read as the digits it stands for.
    ("她的护照号码读出来是 E 三九二 七七一 零五八。", "三九二 七七一 零五八"),
    ("卡背后的安全码是七四二，别告诉别人。", "七四二"),
    (
        "His Trezor recovery phrase starts 'velvet harbor crane amused' and the rest is safe.",
        "velvet harbor crane amused",
    ),
    # A code standing alone beside what it opens, in digits, Chinese digits, digits read
    # over a radio or parted by marks.
    ("For the allotment shed padlock it's 3 8 1 7, then pull down.", "3 8 1 7"),
    ("自行车棚的锁：七、二、五、一，对准再拉。", "七、二、五、一"),
    ("仓库卷闸门按幺洞九三再按确认。", "幺洞九三"),
    ("學校置物櫃，八四二零六一，別忘了。", "八四二零六一"),
    # A number told with how many digits it has.
    ("For the fuel pump it's the four-digit one, 8 2 0 4.", "8 2 0 4"),
    ("妈妈网银那个六位的是 叁玖零柒壹伍。", "叁玖零柒壹伍"),
    ("He keeps the last six digits of his card, 551902, on a sticky note.", "551902"),
    # What something is unlocked with, quoted.
    ("The backup drive decrypts with 'amber.kettle.ridge' on any laptop.", "amber.kettle.ridge"),
    ('Her old Kindle opens using "harbour77" since the reset.', "harbour77"),
    # An override kept by a manager; a memorable word's question, hyphenated.
    ("The supervisor override on the self-checkout is 90417.", "90417"),
    ("His answer to the building society's memorable-word question is 'Tamarisk'.", "Tamarisk"),
    # A dial's turns told number first, alternating, with no word for the lock.
    ("Note under the till: 22 left, 8 right, 31 left.", "22 left, 8 right, 31"),
    ("工具柜那个转盘：二五 右，一零 左，三三 右。", "二五 右，一零 左，三三"),
    # A maiden name a bank checks, in apposition or after an aside.
    ("His bank's phone check uses his mother's maiden name, Oyelowo.", "Oyelowo"),
    (
        "Her mother's maiden name, which the building society asks for at login, is Marchetti.",
        "Marchetti",
    ),
    # What things were set to, or all use.
    ("家里的路由器和网银都设成他结婚纪念日1108。", "1108"),
    ("He changed both to 5 0 2 7 after the burglary.", "5 0 2 7"),
    # A password keyed in, letters and digits together.
    ("客人连上网以后输入 qiaomu2231 就行。", "qiaomu2231"),
    # A value told in pieces with a pause between them, spelled letter by letter or in the
    # phonetic alphabet, or keyed in with the hash key after it or between quotes.
    ("Nan's card PIN: two nine, a pause, then eight one.", "two nine, a pause, then eight one"),
    ("Wi-Fi password for the flat, spelled out: K, 9, m, Q, 2, 2, x.", "K, 9, m, Q, 2, 2, x"),
    (
        "The VPN password is Romeo seven X-ray Quebec four four Bravo.",
        "Romeo seven X-ray Quebec four four Bravo",
    ),
    ("门禁先按五八，再按三一，最后按井号。", "五八，再按三一"),
    ("The gym login is harbour, all lower case, then 58.", "harbour, all lower case, then 58"),
    ("Photo of the site whiteboard: 'cabin -> 6620#'.", "6620"),
    ("保险箱打开时输入「春风2024」就行。", "春风2024"),
    ("小区车库的卷帘门是三位数，依次是六、零、九。", "六、零、九"),
    ("奶奶的存折密码是四码，前两码三一、后两码零七。", "三一、后两码零七"),
    ("The answer to her memorable question is Pickles.", "Pickles"),
    ("Grandad's PIN, read out slowly: four... one... one... eight.", "four... one... one... eight"),
    ("柜子是四位密码，前两位是三六，后两位是零二。", "三六，后两位是零二"),
    ("The CVC is printed on the back: 7, 1, 5.", "7, 1, 5"),
    ("The NAS backup passphrase is copper lantern 19 meadow.", "copper lantern 19 meadow"),
    (
        "Ines logs on by typing capital Q, u, i, l, l, four, four, at sign.",
        "capital Q, u, i, l, l, four, four, at sign",
    ),
    (
        "He unlocks the tablet with 'Heron' followed by nineteen eighty-one.",
        "'Heron' followed by nineteen eighty-one",
    ),
    ("Security question 'first school' — his answer is Ashgrove.", "Ashgrove"),
    # A label read by OCR, with letters and digits that look alike swapped.
    ("OCR of the alarm panel label: 'INSTALLER C0DE: 4O71'.", "4O71"),
    ("The photo of the sticker reads 'Pa55word: Hx7-Tq2'.", "Hx7-Tq2"),
    ("The label on the cash box says 'PlN 9O12'.", "9O12"),
    # Spelled one by one with Chinese digits among the letters, or in the phonetic alphabet
    # with capitals; a word, a remark on its case and digits, with no "then" between.
    ("小林报后台管理员密码：D、I、C、E、七、七、R、O、L、L。", "D、I、C、E、七、七、R、O、L、L"),
    ("The door code, spelled: Kilo, Seven, Echo, Two, Tango.", "Kilo, Seven, Echo, Two, Tango"),
    (
        "Ruth's database password: harvest, all lower case, nine nine, then an exclamation mark.",
        "harvest, all lower case, nine nine",
    ),
    # A dial turned to numbers one after another, without directions.
    ("To get into pump shed two you turn the dial to 14, then 31, then 8.", "14, then 31, then 8"),
    (
        "Morag swings the dial to twenty-six, then eleven, then thirty-eight.",
        "twenty-six, then eleven, then thirty-eight",
    ),
    # A security answer after an article, a coined word, a question quoted inside quotes.
    (
        "Her answer to the harbour office's security question was the Morning Star II.",
        "Morning Star II",
    ),
    ("Fen said her memorable word for online banking is badgerwatch.", "badgerwatch"),
    (
        "The answer Priya set for the portal's 'mother's maiden name' question is Okonkwo.",
        "Okonkwo",
    ),
    ("连的时候输 abc/2024/gas 就行。", "abc/2024/gas"),
    ("Security question 'first pet?' — she set it to Snúlla.", "Snúlla"),
    # Keys pressed one after another; four characters keyed in; a password written after a
    # login command ends.
    ("开秤前先按 设置键+8+1+5+0 进后台。", "8+1+5+0"),
    ("To arm it, press star, 6, 1, 9, then hash.", "6, 1, 9"),
    ("On the gate panel she hits 2 then 7 then 7 then 1.", "2 then 7 then 7 then 1"),
    ("后台登录就输入 QX47 回车。", "QX47"),
    ("Backups go by rsync backup@files.example.org # comment: Harbour_5512", "Harbour_5512"),
    # Keys pressed in Cantonese; a Hong Kong security question; a code told by its ends; the
    # answer given when a bank asks a verification question; a password told as named parts.
    ("阿婆話後門要撳 7719 再撳井字。", "7719"),
    ("老人机要㩒 3 9 1 7 先解锁。", "3 9 1 7"),
    ("閘口要㩒 7、1、9 再㩒井字。", "7、1、9"),
    ("爸爸網上理財嘅保安問題「小學叫咩名」，答案係「聖約瑟」。", "聖約瑟"),
    ("收银机退款要输的那串数字，前两位四八，后两位一七。", "四八"),
    ("收银机退款要输的那串数字，前两位四八，后两位一七。", "一七"),
    ("For the shed, the first three digits are 905 and the last two are 31.", "905"),
    ("When the bank asks for his mother's maiden name, he says Quigley.", "Quigley"),
    (
        "Whenever the helpline asks her favourite teacher she answers 'Mrs Ogunleye'.",
        "Mrs Ogunleye",
    ),
    ("She logs in as ops, then types the word Heron, the year 2011 and a hash.", "Heron"),
    ("She logs in as ops, then types the word Heron, the year 2011 and a hash.", "2011"),
]


# Pieces with a pause between them, letters and digits parted by marks, and amounts beside a
# noun, that are no value.
@pytest.mark.parametrize(
    "text",
    [
        "User takes the 42 bus, then the 17 tram to work.",
        "用户周五先去健身，然后周六回老家。",
        "User spells her surname M, c, K, a, y on forms.",
        "The kids' grades were A, B, B and C this term.",
        "用户的快递单号末四码是 0412，然后就没动静了。",
        "Dial *100# to check the balance.",
        "User was born in 1988, then moved to Leeds in 2001.",
        "Her shifts are 7 to 3, then 3 to 11 next week.",
        "User's password manager is Bitwarden, then 2FA on top.",
        "他家住三楼，然后二十三号搬去新小区。",
        "The freezer alarm goes off at minus 15, then again at minus 10.",
        "用户的公积金账户每月扣 1200 元。",
        "User's passphrase is four random words.",
        "The restic passphrase is 12 words long.",
        "The team won 4, 1, 2 games across the three seasons.",
        "Never store the door codes Marguerite mentions.",
        "用户住在 5 栋 2203，家里装的是指纹锁。",
        "User keeps API keys in 1Password and injects them at run time.",
        "用户家的Wi-Fi名字是 ChinaNet-5G，然后密码贴在路由器背面。",
        "User takes 1OO mg of B12 and drives a VW Golf GTI.",
        "The door of room B1O2 sticks; the gate code changed last year.",
        "User's band is called C0DE and plays at the Lock Inn.",
        "The co-op's tool cage has a combination padlock; only shift leads know the combination.",
        "The kit lockers have four-digit combination padlocks that are reset every quarter.",
        "Her memorable word is lowercase.",
        "User wears a T-shirt to her A-level exams and checks e-mail after.",
        "Set the oven dial to 180, then 200 for the last ten minutes.",
        "User types cd docs/2024/q3 to reach the reports.",
        "User presses 1, then 3 to reach billing on the bank's phone line.",
        "按 Ctrl+Shift+4 截图。",
        "Tomas connects with ssh admin@nas using the Ed25519 key.",
        "User typed 2024 in the year box.",
        "The router is an ASUS RT-AX86U on firmware 3.0.0.4.388, and its password is on a card.",
        "The till is a 10th-gen iPad, and she resets the manager PIN whenever a cook quits.",
        "手机号前三位是138，后八位记不清了。",
        "前两天下了三场雨，后两天晴。",
        "The first two chapters are 12 pages and the last two are 30.",
        "When the bank asks for his first school he says he can't remember.",
        "The school app asks parents for the child's teacher and she types Ms Kelly.",
        "In the essay she used the word 'liminal', the year 1989 and a question mark.",
        "刘工的创业公司在深圳南山做智能门锁，主控芯片用的是 ESP32-S3。",
        "他公司做门禁，读卡器用的是 RC522。",
        "用户的门锁型号是 Yale YDM-4109，密码另外保管。",
    ],
)
def test_pieces_and_amounts_that_are_no_value_are_not_found(text: str) -> None:
    assert find_secrets(text) == []


def test_a_network_named_before_its_password_is_not_the_password() -> None:
    text = "用户家的WiFi叫 Lin-7G，密码是 lin77776666。"
    assert [text[f.start : f.end] for f in find_secrets(text)] == ["lin77776666"]


# A lock or a door's access is a device: beside it a code is digits, and one with letters is
# its model; the code of the same lock is still found.
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("用户家门锁是 4471#。", "4471#"),
        ("门禁 8823，进门按井号。", "8823"),
        ("用户的门锁密码是 a8823k。", "a8823k"),
        ("用户家的门禁码是 A7731。", "A7731"),
    ],
)
def test_a_locks_code_is_found_beside_it(text: str, value: str) -> None:
    assert [text[f.start : f.end] for f in find_secrets(text)] == [value]


# What shares part of a password's shape: a name and its number, addresses, handles.
@pytest.mark.parametrize(
    "text",
    [
        "User's laptop has an i9-14900K and a 4090.",
        "User flies the Boeing-737 and the Airbus-A320 for a regional airline.",
        "User's studio wifi network is called BlueHeron_5G.",
        "The guest network is called Harbour-Guest_5G.",
        "用户的Wi-Fi叫 TP-Link_88A2，贴在路由器上。",
        "Her home network is Lindqvist-Mesh-2.4GHz, on the landing.",
        "User writes to Bob.Smith_2@mail.example.org about the rota.",
        "User's notes live in ~/Notes/Work_2024!/plan.md on the laptop.",
        "User asked whether 14...Nxe4 was a blunder in the Sicilian.",
        "User coaches the Under-12 team and drives a Kia-EV6.",
        "Her handle on the forum is @Moss_Cat#42.",
        "User's site is https://Example.org/Blog_2024!",
    ],
)
def test_names_models_and_addresses_are_not_password_shaped(text: str) -> None:
    assert list(credentials._password_shaped(text)) == []


# Numbers in a text that names a door or a lock, which open nothing.
@pytest.mark.parametrize(
    "text",
    [
        "User's office door is room 4120 on the fourth floor.",
        "The storage unit with the red padlock costs about 1200 a year.",
        "User's garage door is a 1998 Hormann model and sticks in winter.",
        "The key safe shop on the corner is on 020-7946 0321.",
        "用户在厦门工作，公司电话区号 0592。",
        "小区门口的公交 1042 路直达地铁站。",
        "用户家的防盗门是 2015 年装的。",
    ],
)
def test_numbers_beside_a_lock_that_open_nothing_are_not_lock_codes(text: str) -> None:
    assert list(credentials._lock_codes(text)) == []


def test_a_word_for_a_lock_on_another_line_makes_no_number_a_code() -> None:
    """In a listing each memory is its own line: a door in one says nothing of the number
    in the next."""
    one_line = "User's front door is blue; her allotment is plot 2145."
    assert list(credentials._lock_codes(one_line)) != []
    listing = "mem_0001  User's front door is blue.\nmem_0002  Her allotment is plot 2145."
    assert list(credentials._lock_codes(listing)) == []


# Numbers told with a length that are not codes, or not of that length.
@pytest.mark.parametrize(
    "text",
    [
        "The six-digit postcode of her village is 100101.",
        "用户老家的邮编是六位数 215000。",
        "Her bank sends a six-digit code by text, and the last one took 10 minutes.",
        "User's salary went up to a five-digit figure of 48000 a year.",
        "用户的车牌是六位，尾号 7731。",
    ],
)
def test_numbers_with_a_told_length_that_are_not_codes(text: str) -> None:
    assert list(credentials._told_length_values(text)) == []


@pytest.mark.parametrize(
    "text",
    [
        "用户把手机壁纸换成 2024 年的全家福。",
        "她把充电宝换成 5000 mAh 的那款。",
        "User changed her route to the 2145 bus.",
        "用户把闹钟设成 0630。",
        "She changed them to 1500 words each.",
        "User's mother kept her maiden name, Okafor, after marrying.",
    ],
)
def test_numbers_things_were_set_to_that_are_not_codes(text: str) -> None:
    assert list(credentials._set_to_codes(text)) == []
    assert list(credentials._maiden_name_values(text)) == []


def test_a_length_told_in_capitals_is_read() -> None:
    found = list(credentials._told_length_values("The Six-Digit one for the pension is 402913."))
    assert [f.kind for f in found] == ["code told with its length"]


@pytest.mark.parametrize(
    "text",
    [
        "Enter B12345 as the booking reference.",
        "用户在快递柜输入 SF1234567 查件。",
        "She typed iPhone15 into the search box to compare prices.",
    ],
)
def test_references_keyed_in_are_not_passwords(text: str) -> None:
    assert not [f for f in find_secrets(text) if f.kind == "password keyed in"]


def test_turns_that_do_not_alternate_are_directions_not_a_combination() -> None:
    text = "Take exit 14 right, then turn 2 right and 3 left at the lights."
    assert list(credentials._turns_told_after(text)) == []


@pytest.mark.parametrize(
    "text",
    [
        "Her phone opens with 'Face ID' most of the time.",
        "The meeting always opens with 'any other business' for some reason.",
        "User signs in with 'Sign in with Apple' on most apps.",
    ],
)
def test_what_opens_a_thing_in_quotes_that_is_a_name_is_no_passphrase(text: str) -> None:
    assert list(credentials._opened_with_quoted(text)) == []


@pytest.mark.parametrize(("text", "value"), PROBED_SECRETS)
def test_probed_phrasings_of_secrets_are_found(text: str, value: str) -> None:
    """Each phrasing is found by the value's frame or shape, and exactly the value is
    redacted."""
    assert value in {text[f.start : f.end] for f in find_secrets(text)}
    assert value not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "Mein Passwort ist sicher.",
        "Ein starkes Passwort ist Pflicht.",
        "Le mot de passe du routeur est oublié.",
        "User's password hint is 'first pet'.",
        'User says their password is "too long to remember".',
        "User's Wi-Fi password is 'the usual one'.",
        "User's password manager is 'Bitwarden'.",
        "User's Wi-Fi network is called 'HomeNet'.",
        "User's password is longer than 12 characters plus a symbol.",
        "User runs 10km each week with Anna.",
        "User owns a 2019 Audi A4 and a 2021 Kia EV6.",
        "User reads ISBN 978 0 14 044913 6 twice a year.",
        "The user's door is painted blue.",
        "User knows a CVV is 3 digits.",
        "The digits on the back of the box are 5012.",
        "User's door code — which changes monthly — is kept in 1Password.",
        "User set a security question for the bank but forgot the answer.",
        "用户的门牌号是三个数字，很好记。",
        "用户的门禁卡在一二、一三楼都能刷",
        "User's headphones have a pairing button that sticks.",
        "User's locker 3, row 2, shelf 5.",
        "User keeps the username and password for the NAS in Bitwarden, separately.",
        "用户的钥匙盒挂在门口。",
        "User keeps the accounting ledger words short.",
        "用户的户口在杭州。",
        "User got a NIF from the Portuguese tax office last year.",
        "用户的居留证下个月到期。",
        "客服问「还有什么可以帮您」，用户回答说没有了。",
        "User's password manager, which the family shares, is 'Bitwarden'.",
        "User never shares the CVV with 3 shops.",
        "Hasło reklamowe firmy brzmi dobrze.",
        "ひらがなだけでかいたぶんしょうはとてもよみにくいのでかんじをつかいましょう",
        "User's seed phrase is stamped on a steel plate kept in the safe.",
        "用户的助记词抄在纸上，放在保险柜里。",
        "User's password manager is called 'Bitwarden'.",
        "用户的身份证在2019年补办过一次。",
        "User's social security office is at 1600 Main Street.",
        "User is at gate B12, boarding starts 14:05 today.",
        "User bought a lockbox for 40 euros.",
        "User has had a Steuer-ID since 2008.",
        "User's Steuer-ID letter came on 20240512.",
        "User's team drew 3-3 in the final.",
        "a b c d e f g h i j k l m n o p q r s t u v w x y z is the alphabet.",
        'User says their password must be "at least 12 characters".',
        "User renewed the gym membership for 12 months in 2024.",
        "User's WPA2 key is printed on the router's sticker.",
        "| day | plan |\n|---|---|\n| mon | gym |",
        "| site | password |\n|--|--|\n| nas | same as the usual one |",
        "| item | code |\n|---|---|\n| shirt | A12 |",
        "| service | 2FA |\n|---|---|\n| gmail | yes |\n| bank | SMS only |",
        "用户有两个3岁的孩子，密码用1Password管理。",
        "User has one or two passwords written down.",
        "The alarm code has four or five digits.",
        "User's alarm security code is 417.",
        "User's security answer is lowercase.",
        "The answer to the security question is in her notebook.",
        "User forgot the answer to their security question.",
        "User's answer to the question was Yes.",
        "User's answer to 'favourite food' is Pizza.",
        "User's card has a 3-digit security code.",
        "User's mother's maiden name is Kowalczyk.",
        "User's passphrase (a long one) is stored in 1Password.",
        "Ein Freund hat 12-3456789 Punkte.",
        "User's LLC got its EIN in 2019.",
        "User's router is a Fritz!Box 7590 in the study.",
        "User's alarm is a Bosch 2000 panel.",
        "El código postal de la usuaria es 28004.",
        "El código de descuento es VERANO2024.",
        "The wifi password is the one on the router sticker.",
        "The door code is the same as last year.",
        "User changes the wifi password every year.",
        "User's password manager is the best one this year.",
        "User prefers fine-grained GitHub tokens scoped to one repository.",
        "User's passport expires in March 2029, so it's fine for the trip in May.",
        "用户的护照 2031 年才过期，这次去泰国不用换。",
        "max_tokens=512 is set in the config.",
        "The config reads password_file=/run/app/creds.txt.",
        "session_token_ttl=3600",
        "AWS_SECRET_ACCESS_KEY=${AWS_SECRET} is read from the environment.",
        "sort_key=name, wifi_key: <your key>",
        "User keeps DB_PASSWORD in a .env file.",
        "To reach the lockers turn left after 200 m, right onto 36th, left at 5th.",
        "Turn the safe's dial left 2 times, right 3 times, left 1 time to reset it.",
        "User's gym locker is on the left, row 3, right next to locker 12.",
        "User dislikes security questions and fills them with random strings.",
        "For the bank's security questions User answers with random words from Bitwarden.",
        "User's parking spot in the Alder Lane garage is number 4471 on level P2.",
        "User's locker at the gym is in row 12.",
        "用户的激活码还没收到。",
        "The answer User uses for security questions is always a random string.",
        "用户的密码全部用 Bitwarden 管理，开了两步验证。",
        "User's recovery phrase is written on a card and kept in the safe at home with the deeds",
        "User's password hint: life goes very fast, make time",
        "User deploys to a VPS with an ed25519 SSH key and has password login disabled.",
        "User's locker is number 12 and the gym is 200 300 m away.",
        "User dislikes security questions and answers them with made-up strings.",
        "The washing machine shows error code E18 after the spin cycle.",
        "User's memorable word is lowercase, oddly.",
        "User's card CVV is printed on the back.",
        "The CVV on the user's old card, which expired last year in March, is worn off.",
        "User's security question is about a pet named after a river.",
        "User hates security questions; their dog is named Rex.",
        "User's phone banking security number is in the drawer.",
        "用戶的密碼都用 1Password 管理。",
        "用戶的門禁卡丟了，物業補辦要 50 元。",
        "The answer to the security question is in her notebook, in the drawer.",
        "用户的通行码要每周去物业更新。",
        "User changed the alarm code 12 times in 18 months.",
        "User's door code has 4 digits and changes every 30 days.",
        "User's seed phrase is stored on paper in the safe.",
        "User's crypto wallet is ledger nano hardware wallet.",
        "User's teacher asked 'why is the sky blue' and the answer is Rayleigh scattering.",
        "用户的卡背面三码已经磨掉了。",
        "用户的房号是三位数，在三楼。",
        "用户参加了壹基金的志愿活动。",
        "User's password is rotated every quarter now.",
        "User's wifi password is printed on the router sticker.",
        "The wifi name is Harbour and the key is on the fridge.",
        "The key to good wifi is placing the router up high.",
        "User's network is mostly old colleagues and the key is staying in touch.",
        "用户公司的统一编号还没申请下来。",
        "User wants emails that ask for passwords flagged as likely phishing.",
        "User renewed their passport in March and it now runs to 2035.",
        "The twins' passports expire in 2026, before the move.",
        "用户工作室的 IG 账号是 @kai.irezumi，用来放作品集。",
        "User bought a monthly bus pass; the user card is blue.",
        "用户家的电子锁是去年装的，用指纹开。",
        "User's old passwords planned for rotation are listed in the vault.",
        "用户的身分证快过期了，要去户政事务所换。",
        "User typed 300 words of the essay before lunch.",
        "User keys in about 40 invoices a day at work.",
        "按2019年的标准，用户的房子算节能建筑。",
        "User got into Cambridge in 2009 with three A grades.",
        "The office safe was set to lock itself at 7 pm.",
        "User is the admin / organiser of the village Facebook group.",
        "User's role on the club site: admin: editor rights for the fixtures page.",
        "用户家门口右转三十米就是地铁站。",
        "User counted one two three four five six seven eight nine ten out loud for the kids.",
        "User's router admin page is at 192.168.0.254 and only works on the home network.",
        "用户的密码长度是12位，前3位是字母。",
        "User runs mysql with -p so it prompts for the password.",
        "User passes --password --user admin and types the password when asked.",
        "User's memorable word is one they picked as a child.",
        "User keeps every product key in the family password manager.",
        "门禁密码的位数是四个数加一个井号。",
        "用户家的门牌号改成了一三零六，邮局还没更新。",
        "用户一九九八年出生，属虎，住在三零一室。",
        "用户家的门牌是二零八号。",
        "User adds 10% plus VAT, that is 1200 euros in total.",
        "The drummer counts in 'one, two, three, four' before every song.",
        "User's favourite song is 'One Two Three Four' by Feist.",
        "两千加上三百，就是 2300元，用户记在账本上。",
        "User's team is the manager plus four engineers, that is five people.",
        "The answer to the maiden name question is on a card in the drawer.",
        "用户把门口的灯换成了三盏感应灯。",
        "用户每天输入一九九八年以来的档案，已经录到第三册。",
        "The CVV is one of the things User never writes down.",
        "User's seed phrase begins with a word they can never spell.",
    ],
)
def test_near_misses_of_the_probed_phrasings_pass(text: str) -> None:
    """Adjectives after a copula, passwords in general, hints, names of things, counts,
    years, street numbers, times of day and ordinary kana are not values."""
    assert find_secrets(text) == []


@pytest.mark.parametrize("entropy", [bytes(range(16)), bytes(range(100, 116)), bytes(range(7, 39))])
@pytest.mark.parametrize("frame", ["ウォレットの復元フレーズ：{}", "シードは{}です。", "復元用 {}"])
def test_japanese_phrases_without_separators_are_found(entropy: bytes, frame: str) -> None:
    """A Japanese BIP-39 phrase written as one run of kana, beside a recovery noun, is split
    into list words, its checksum checked, and redacted whole."""
    import unicodedata

    from mnemonic import Mnemonic

    phrase = unicodedata.normalize("NFC", Mnemonic("japanese").to_mnemonic(entropy))
    run = "".join(phrase.split())
    text = frame.format(run)
    assert run in {text[f.start : f.end] for f in find_secrets(text)}


@pytest.mark.parametrize(
    "name",
    [
        "ltm.json.corrupt-20261123T223724",
        "ltm.json.invalid-20261123T223724-2.jsonl",
        "session.corrupt-20261123T223724123456",  # a PostgreSQL session kept aside
        "work.corrupt-20261123T223724123456",
    ],
)
def test_the_names_of_state_kept_aside_are_shown(name: str) -> None:
    """The warning that names a file or session kept aside shows the name: its time is
    not a key."""
    warning = f"the session could not be read; kept it as session {name!r}"
    assert redact(warning) == warning


def test_a_random_stem_before_a_set_aside_time_is_still_found() -> None:
    """Only the time is exempt: a key in front of it is still redacted."""
    assert "aB3dE5fG7hJ9kL2mN4pQ6rS8" not in redact(
        "kept as aB3dE5fG7hJ9kL2mN4pQ6rS8.corrupt-20261123T223724123456"
    )


def test_every_recovery_noun_holds_a_stem_the_quick_check_looks_for() -> None:
    """The named-phrase finder skips a text that holds no stem: each noun must hold one."""
    nouns = credentials._RECOVERY_NOUN.pattern.split("|")
    assert len(nouns) > 20
    missed = [n for n in nouns if not any(s in n.lower() for s in credentials._RECOVERY_STEMS)]
    assert missed == []


# Words that open a reading (nouns, verbs of keying, number words, the phonetic alphabet,
# look-alikes, pauses), characters whose lower case is longer or folds apart, and marks:
# in any order, at any end of the text.
_READING_WORDS = st.sampled_from(
    "key keys enter type tap press unlock open dial to then followed by last answer memorable"
    " word security question maiden password PIN code door gate alarm safe is: = # 4471 2580#"
    " seven three nine nineteen fifty-two Kilo Echo capital exclamation mark C0DE 4O71 PlN"
    " 9O12 Pa55word 密码 门禁 输 按 七 三 、 , - — ( ) ' \" İ ẞ ﬁ \u212a \n".split(" ")
)


@settings(max_examples=1000, deadline=None)
@given(
    st.lists(st.one_of(_READING_WORDS, _READING_WORDS, st.text(max_size=4)), max_size=12),
    st.sampled_from(["", " ", "\n", ".", " \t"]),
)
def test_any_text_gives_ordered_spans_inside_it_and_redacts(words: list[str], end: str) -> None:
    """However the words that open a reading are put together, the finder returns spans
    inside the text, in order and apart, and what it redacts reads the same redacted again."""
    text = " ".join(words) + end
    found = find_secrets(text)
    assert all(0 <= f.start < f.end <= len(text) for f in found)
    assert all(a.end <= b.start for a, b in pairwise(found))
    redacted = redact(text)
    assert redact(redacted) == redacted


def test_a_quoted_value_is_its_own_characters() -> None:
    """What lies between the quotes around a key and those around its value is no value,
    and the spaces inside a value's quotes are not part of it: redacting again changes
    nothing."""
    text = '{"iban": "DE44500105175407324931", "name": "L. Brandt"}'
    assert [text[f.start : f.end] for f in find_secrets(text)] == ["DE44500105175407324931"]
    for text in ("PlN `0 `0", 'The password is " hunter22 " for now.'):
        redacted = redact(text)
        assert redacted != text
        assert redact(redacted) == redacted


def test_a_recovery_phrase_before_a_break_and_another_list_word_is_found() -> None:
    """Twelve list words stay a phrase when a break and another list word follow them
    ("— my wallet", "密码 hello": "wallet" and "hello" are list words too), alone or
    redacted with other fields."""
    words = "abandon ability able about above absent absorb abstract absurd abuse access accident"
    for text in (f"{words} — my wallet phrase", f"{words} 密码 hello"):
        assert [f.kind for f in find_secrets(text)] == ["recovery phrase"]
    texts = [f"{words} 密码 ", "door code "]
    assert redact_fields(texts) == [redact(t) for t in texts] == [f"{REDACTED} 密码 ", "door code "]


# A password agreed between people (暗号) is a value like any other; digits read as over a
# radio (幺 1, 两 2 beside them, 拐 7, 勾 9, 洞 0) are digits, and 两 among plain words counts.
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("用户家保姆接孩子时，要跟老师对上暗号“蓝色长颈鹿”才能接走。", "蓝色长颈鹿"),
        ("用户手机锁屏密码他习惯念成“幺两拐洞洞三”。", "幺两拐洞洞三"),
        ("用户的门禁是勾拐幺洞。", "勾拐幺洞"),
        ("他有两个孩子，密码四四七一。", "四四七一"),
    ],
)
def test_agreed_words_and_radio_digits_are_values(text: str, value: str) -> None:
    assert [text[f.start : f.end] for f in find_secrets(text)] == [value]


def test_two_among_words_is_no_digit() -> None:
    assert find_secrets("用户有两台电脑和一台平板，密码另外保管。") == []


# A number named again after a semicolon, keys that bear two digits, and what is typed to
# get in: each beside a sentence of the same shape that tells no value.
@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("User renewed her passport; the new number is K41920377.", ["K41920377"]),
        ("User renewed her passport; the new photo is much better.", []),
        ("User changed the alarm code; the new one is 8830.", ["8830"]),
        ("User lost his passport; the embassy number is 0207 555 0199.", []),
        (
            "He opens the truck by pressing 3·4, 7·8, 1·2, 1·2 on the keypad.",
            ["3·4, 7·8, 1·2, 1·2"],
        ),
        ("User presses 1/2 for billing on the phone menu.", []),
        ("User unlocks the laptop by typing maple orbit 77 at the prompt.", ["maple orbit 77"]),
        ("User logs into the NAS by typing her birthday.", []),
        ("User opens files by typing their names into the search bar.", []),
        ("User gets into the terminal by typing ssh at the prompt.", []),
    ],
)
def test_values_named_again_keyed_or_typed_to_get_in(text: str, values: list[str]) -> None:
    assert [text[f.start : f.end] for f in find_secrets(text)] == values


# A passphrase said to be so many words and then listed, as many as it said, is the list;
# the words of a password's rules, or a list of another length, are not.
@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("The Wi-Fi password is three words: copper, lantern and 48.", ["copper, lantern and 48"]),
        (
            "Her vault passphrase is five words: reef, ladle, comet, spruce, ninety.",
            ["reef, ladle, comet, spruce, ninety"],
        ),
        ("User's password rules are three words: long, random, unique.", []),
        ("Her passphrase is four words, in this order: reef, ladle, comet.", []),
    ],
)
def test_a_passphrase_listed_word_by_word(text: str, values: list[str]) -> None:
    assert [text[f.start : f.end] for f in find_secrets(text)] == values


# The tail of a card's or an account's number, as a statement shows it, is a part of the
# number; a code told in pieces, and a card's PIN, are still found.
@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("用户嘅信用卡尾号係4821，对账时用嚟分辨系边张卡。", []),
        ("用户工资卡尾號 7730，每月十号到账。", []),
        ("用户的银行卡密码是 4821。", ["4821"]),
        ("收银机口令前两位是8和6，后四位是0912，合起来就是860912。", ["0912", "860912"]),
    ],
)
def test_a_cards_tail_is_a_part_of_its_number(text: str, values: list[str]) -> None:
    assert sorted(text[f.start : f.end] for f in find_secrets(text)) == values


# What kind of answers someone gives is not an answer; an answer is found however it reads.
@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("用户各个网站的密保问题答案都是随机生成的乱码，统一存在密码管理器里。", []),
        ("用户的密保问题答案都是胡编的，每个网站不一样。", []),
        ("用户的密保问题答案是“红烧肉”。", ["红烧肉"]),
    ],
)
def test_an_answer_of_a_kind_is_no_answer(text: str, values: list[str]) -> None:
    assert [text[f.start : f.end] for f in find_secrets(text)] == values


# A code of a told length given piece by piece, the pieces adding up to the length, is
# found whole; pieces of another sum, or of an amount, are not a code.
@pytest.mark.parametrize(
    ("text", "pieces"),
    [
        (
            "Her phone opens with six digits: it starts with 73, ends with 09, and the two in "
            "the middle are 58.",
            ["73", "09", "58"],
        ),
        ("The locker takes five digits: first 31, then 7, and it ends with 40.", ["31", "7", "40"]),
        ("The number has six digits: it starts with 73 and ends with 09.", []),
        ("User's salary has six digits, starting with 120 and then 000 after that.", []),
    ],
)
def test_a_code_told_in_pieces_of_its_length(text: str, pieces: list[str]) -> None:
    found = find_secrets(text)
    assert sorted(p for f in found for p in pieces if p in text[f.start : f.end]) == sorted(pieces)
    assert bool(found) == bool(pieces)


@pytest.mark.parametrize("text", ["PlN 0\x1b 0 0 0", "password: [REDACTED]x9k", "PIN [REDACTED]!"])
def test_redacting_twice_changes_nothing_where_a_value_runs_into_a_marker(text: str) -> None:
    """A value read as running into a marker already there is redacted only outside it."""
    once = redact(text)
    assert redact(once) == once


@pytest.mark.parametrize(
    ("text", "values"),
    [
        (
            "林佩君開病房藥櫃的按法:中間那排由左到右按一遍(4、5、6),再按右下角的 9 兩次。",
            ["中間那排由左到右按一遍(4、5、6),再按右下角的 9 兩次"],
        ),
        (
            "To unlock Vesna's phone, Dario draws an L: top-left dot down to bottom-left, then"
            " across to bottom-right.",
            ["top-left dot down to bottom-left, then across to bottom-right"],
        ),
        ("她的手机解锁图案是从左上角划到右下角再到左下角。", ["左上角划到右下角再到左下角"]),
        ("单元门的密码是在九宫格上依次按左上、正中、右下、右上。", ["左上、正中、右下、右上"]),
        (
            "Her unlock pattern is a 'Z': across the top row, diagonally down to the"
            " bottom-left dot, then across the bottom row.",
            ["top row, diagonally down to the bottom-left dot, then across the bottom row"],
        ),
        ("The quilt pattern opens with the top-left corner and the bottom-right corner.", []),
        ("To open the menu, press the top-left button.", []),  # one place is a button
        ("User's desk is by the top-left window, which opens onto the bottom-right yard.", []),
        ("中间那排座位靠右上角的窗,开会时她坐左下角。", []),  # places, nothing pressed or drawn
    ],
)
def test_keys_or_dots_told_by_their_places(text: str, values: list[str]) -> None:
    """Two places on a keypad or a pattern's grid, pressed or drawn to open something, are
    its code, however the keys are named; places alone are not."""
    assert [text[f.start : f.end] for f in find_secrets(text)] == values
    assert [text[f.start : f.end] for f in credentials._grid_places(text)] == values


@pytest.mark.parametrize(
    ("text", "values"),
    [
        (
            "何雪梅的比特币钱包助记词,前六个是“胁 载 看 泡 幻 算”,后六个是“停 诸 远 忽 返 情”。",
            ["胁 载 看 泡 幻 算", "停 诸 远 忽 返 情"],
        ),
        ("钱包助记词是「河流 灯塔 苹果 沙漠 星辰 铁轨」", ["河流 灯塔 苹果 沙漠 星辰 铁轨"]),
        (
            "她的錢包助記詞前四個是「聽、秋、絨、功」，中間是「矩、田、按、挖」。",
            ["聽、秋、絨、功", "矩、田、按、挖"],
        ),
        ("钱包放在“左边、右边”两个抽屉里。", []),  # two words quoted are no phrase
    ],
)
def test_a_chinese_phrase_in_quoted_halves(text: str, values: list[str]) -> None:
    """Short Chinese words set apart after a recovery noun are a phrase inside quotes too,
    and so are quoted groups of them with six words or more in all."""
    assert [text[f.start : f.end] for f in find_secrets(text)] == values


def test_a_web_addresss_host_is_no_token() -> None:
    """A host is public however random its name looks; a token in the path is still one."""
    assert find_secrets("Class page: https://class703.lin-teach.tw for the answers") == []
    text = "The hook is https://api.example.com/x9Kq2LmP4zR7tW1vB8nY3cD6 for alerts"
    assert [text[f.start : f.end] for f in find_secrets(text)] == ["x9Kq2LmP4zR7tW1vB8nY3cD6"]


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("He sets the case's combination lock by solfège: re, sol, do, la.", ["re, sol, do, la"]),
        (
            "The safe opens by turning the dial to XII, then XXXIV, then VII.",
            ["XII, then XXXIV, then VII"],
        ),
        (
            "Her UPI PIN in Morse code as ..--- ...-- ----. -.... for memory.",
            ["..--- ...-- ----. -...."],
        ),
        ("Her PIN code in Norwegian words: sju, null, to, ni.", ["sju, null, to, ni"]),
        ("夾萬嘅密碼佢用電阻色碼嚟記：紅、紫、黑、橙。", ["紅、紫、黑、橙"]),
        ("Her password rules: long, random, unique.", []),
        ("密码要求：大写、小写、数字、符号。", []),
        ("User's password manager: Bitwarden, synced to phone, laptop and tablet.", []),
    ],
)
def test_a_code_told_as_a_list_of_signs(text: str, values: list[str]) -> None:
    """Short signs listed after a code's noun are its value whatever they are written in;
    what a password should be is not one."""
    assert [text[f.start : f.end] for f in find_secrets(text)] == values


def test_an_identity_number_told_in_pieces() -> None:
    """Pieces after an identity noun that pass its check digits when joined are the number."""
    text = "Priya's Aadhaar starts with 6268; the middle block is 3546 and it ends in 0104."
    assert [text[f.start : f.end] for f in find_secrets(text)] == ["6268", "3546", "0104"]
    assert find_secrets("Her Aadhaar came in 2019 after 3 visits and 45 minutes.") == []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (
            "The first digit of the alarm code is 7, the second is one more than the first,"
            " the third is 0 and the last is 5.",
            True,
        ),
        ("密码第一位是3,第二位是8,最后一位是1。", True),
        ("The first step of the password reset is email, the second SMS, the third a call.", False),
        ("User's first son is 7, the second is 4 and the third is 1.", False),
    ],
)
def test_a_code_told_digit_by_digit(text: str, found: bool) -> None:
    """Three places of a code told one by one, one of them named as a digit, beside the
    code's noun; steps of a reset or children's ages are not."""
    assert bool(list(credentials._digits_by_place(text))) is found
    assert bool(find_secrets(text)) is found


def test_a_security_answer_after_a_long_question() -> None:
    text = (
        "The answer Ingrid set for her bank's 'name of your first pet' security question is 'Pøl'."
    )
    assert [text[f.start : f.end] for f in find_secrets(text)] == ["Pøl"]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (
            "钱包助记词按月份写在台历上：一月“贷”、二月“惨”、三月“佳”、四月“拟”、五月“训”、六月“败”、"
            "七月“蒸”、八月“虎”、九月“捅”、十月“促”、十一月“份”、十二月“声”。",
            True,
        ),
        (
            "His wallet seed, first four letters of each word: much fit weir resi avoi job call"
            " dign bori rada vers sadd.",
            True,
        ),
        ("她的钱包里放着“身份证”、“驾照”、“银行卡”、“会员卡”、“现金”、“照片”。", False),
        ("His wallet seed card is in the safe; he never takes it on trips.", False),
    ],
)
def test_a_phrase_one_quoted_character_or_four_letters_at_a_time(text: str, found: bool) -> None:
    """Twelve list characters quoted one by one, or twelve words by their first four letters
    (all a BIP-39 word needs), after a recovery noun are a phrase."""
    assert bool(find_secrets(text)) is found


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (
            "Priya keeps her Aadhaar as superscripts, ⁸⁴⁸⁶ ⁸⁷⁰⁴ ³⁵⁸⁹, in her phone.",
            "⁸⁴⁸⁶ ⁸⁷⁰⁴ ³⁵⁸⁹",
        ),
        ("His fødselsnummer in bold maths digits: 𝟎𝟗𝟎𝟐𝟖𝟗𝟒𝟕𝟒𝟔𝟗.", "𝟎𝟗𝟎𝟐𝟖𝟗𝟒𝟕𝟒𝟔𝟗"),
        ("门禁密码是 ④④⑦①", "④④⑦①"),
    ],
)
def test_digits_unicode_writes_otherwise_are_digits(text: str, value: str) -> None:
    """A number kept in circled, superscript or mathematical digits is read as the number."""
    assert value in [text[f.start : f.end] for f in find_secrets(text)]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("User's door code is 4\u200b4\u200b7\u200b1.", "4\u200b4\u200b7\u200b1"),
        (
            "Her debit card is saved as 5\ufe0f\u20e34\ufe0f\u20e31\ufe0f\u20e32\ufe0f\u20e3"
            " 3635 5739 3637 under 'Mama'.",
            "5\ufe0f\u20e34\ufe0f\u20e31\ufe0f\u20e32\ufe0f\u20e3 3635 5739 3637",
        ),
        ("路由器密码是 Zx9\u2060qLm2\u00ad77", "Zx9\u2060qLm2\u00ad77"),
        (
            "User likes tea" + "".join(chr(0xE0000 + ord(ch)) for ch in " password: Zx9!qLm2"),
            "".join(chr(0xE0000 + ord(ch)) for ch in "Zx9!qLm2"),
        ),
    ],
)
def test_characters_no_screen_shows_hide_no_value(text: str, value: str) -> None:
    """A value split by zero-width characters, told in keycaps, or spelled in tag characters
    is found whole, its marks with it, so redaction leaves none of it."""
    assert value in [text[f.start : f.end] for f in find_secrets(text)]
    assert value not in redact(text)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Dave's truck number is 4417; it's painted on both cab doors.", False),
        (
            "Priya's pharmacy drug licence number shown on the shop signboard is MH-PZ4-118302.",
            False,
        ),
        ("用户公司的统一社会信用代码 91330206MA2H3K7X1Q 印在所有报价单上。", False),
        ("用户公司的统一社会信用代码是 91330206MA2H3K7X1Q。", True),
        ("Dave's gate code 4417 is written on a sign by the gate.", True),
        ("Her visa number, shown on her profile, is MH-PZ4-118302.", True),
        ("User's PAN card number is ABCPV4821K, for every income-tax filing.", True),
        ("The SKU on the box is ABCPV4821K.", False),
    ],
)
def test_a_reference_shown_to_all_or_a_pan(text: str, found: bool) -> None:
    """A business's, a licence's or a vehicle's number its sentence says is shown to all is
    no secret; a code, a card or a person's document is one wherever it is written. India's
    PAN, with four digits, is an identity number."""
    assert bool(find_secrets(text)) is found


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (
            "Mojca's apiary registration number, which by law is painted on every hive, is 10472.",
            False,
        ),
        (
            "Lan's salon license number, SLN 782341, is framed on the wall behind the front desk.",
            False,
        ),
        ("助手写朋友圈文案时要带上店铺的小红书账号“木棉里花事”。", False),
        ("用户的账号是 zhang88，密码是 Abc12345", True),
    ],
)
def test_shown_on_every_one_hung_for_customers_or_a_social_handle(text: str, found: bool) -> None:
    """A number painted on every one of many things, or hung where customers look, is
    shown to all; an account on a social platform is a handle."""
    assert bool(find_secrets(text)) is found


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("User's Italian codice fiscale is RSSGLI79D52D150K, for supplier invoices.", True),
        ("Paolo's GCash MPIN is 0612.", True),
        (
            "The pharmacy's business identification number 180940012345 is printed on every"
            " receipt.",
            False,
        ),
        ("Her national ID number 180940012345 is printed on every receipt.", True),
    ],
)
def test_a_number_of_its_shape_a_wallet_pin_and_a_business_number_shown(
    text: str, found: bool
) -> None:
    """A number its noun introduces with the number's own shape is one even when its check
    character fails; a mobile wallet's MPIN is a PIN; a business's number printed on every
    receipt is shown to all, a person's is not."""
    assert bool(find_secrets(text)) is found


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Nino's published translation has ISBN 978-9941-8-1234-5, in her portfolio.", False),
        ("His NI number is AB 12 34 56 C.", True),
        ("阿梅的蜂蜜有食品生产许可证编号 SC12253012300456，印在每个瓶子上。", False),
        (
            "User's parcels are referenced like LR No. 209/12345, which are public"
            " land-registry numbers.",
            False,
        ),
        ("用户的银行卡号6214830192764552", True),
    ],
)
def test_names_licences_on_every_bottle_and_cards_not_glued_to_letters(
    text: str, found: bool
) -> None:
    """ "Nino" is a name, not "NI no"; a licence printed on every bottle and numbers called
    public are shown to all; a card number does not run on from letters, but may from
    Chinese."""
    assert bool(find_secrets(text)) is found


def test_what_a_redaction_leaves_is_read_again() -> None:
    """Of two codes before one noun, the one read as the code is hidden first; the other,
    read as the code once the first is gone, is hidden in the same call."""
    assert redact("4471 4O71 ; door") == f"{REDACTED} {REDACTED} ; door"
    assert redact(redact("4471 4O71 ; door")) == redact("4471 4O71 ; door")


def test_a_clause_between_a_noun_and_its_value_is_read_past() -> None:
    """ ", which …," between a noun and its value is an aside like one between dashes."""
    text = "User's Steuer-ID, which he puts on his court fee invoices, is 47 182 903 569."
    assert [text[f.start : f.end] for f in find_secrets(text)] == ["47 182 903 569"]
    assert find_secrets("Her cat, which is nine, is called Tiger.") == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Her Chilean RUT is 9.876.543-3.", True),
        (
            "Diego's cédula, read out in Spanish, is cero nueve uno siete tres cuatro cinco"
            " seis dos uno.",
            True,
        ),
        ("The gym locker PIN starts with a 2 and ends with 8.", True),
        ("User's password begins with a capital letter and ends with a symbol.", False),
        ("User banks with BNP Paribas, whose BIC is BNPAFRPP.", False),
        ("User's bakery prints its public hygiene code, 12-3456, on every box.", False),
        ("User keeps the status codes 401 and 403 on a sticky note.", False),
        ("User stores taxpayer data as IRS Publication 1075 requires.", False),
        ("用户诊所的执业许可证号 PDY12345678 公示在候诊室墙上。", False),
        ("The door codes are 4471 and 9902.", True),
        ("User's clinic shows its GMC number, 7012345, on its letterhead.", False),
        ("User's charity publishes its helpline, 0808 164 0219, on its website.", False),
        (
            "User's project ID ARC-DP250100123 appears in the council's public grants dataset.",
            False,
        ),
        ("用户店门口营业执照上的统一社会信用代码是 92350502MA2Y8K3L6F。", False),
        ("The shed's lock code is the house number times four, which makes it 1668.", True),
        ("User's commute is 12 km, which makes it 1200 a month.", False),
    ],
)
def test_ids_read_out_codes_told_by_their_ends_and_public_numbers(text: str, secret: bool) -> None:
    """A Chilean RUT and a cédula read out in Spanish digit words are identity numbers, and a
    PIN told by its first and last digits is a PIN; a bank's BIC, a code its sentence calls
    public and prints on every box, standard status codes, a publication's number and a
    licence posted for all to see are not secrets, while door codes stay secrets, and so does a
    code worked out in its sentence and its result told ("which makes it 1668")."""
    assert bool(find_secrets(text)) is secret


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("User's cargo ship Nordic Tern has IMO number 9074729.", False),
        ("User's yard's company number 04567812 is on all its invoices.", False),
        ("User's brewery is in the Estonian business register with registry code 14382916.", False),
        ("User's new extension has building permit B-2025-0417 taped to the site gate.", False),
        ("User's guesthouse shows its licence number, AL 88231, at the front desk.", False),
        ("用户工厂的茶叶包装上都印着生产许可证编号SC10635012300218。", False),
        ("佢間公司嘅商業登記證號碼印喺每本目錄封底:53817264。", False),
        ("Invoice numbers have six digits, for example 004512.", False),
        ("Her banking app PIN has six digits: 004512.", True),
        ("User keeps the spare key in the 货柜, code 7316.", True),
    ],
)
def test_register_checks_examples_and_numbers_every_copy_carries(text: str, secret: bool) -> None:
    """A ship's IMO number, by its check digit, is public. A business's register number on
    every invoice, a permit on the site, a licence at the front desk, a number printed on
    every pack or every catalogue's back cover are public; a format shown by an example is no
    code, while a PIN told with its length stays one, and a cabinet's code is a lock's code."""
    assert bool(find_secrets(text)) is secret


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("用户韩国同事的住民登录番号是 900101-1234568。", True),
        ("User's notary number, NJ-NOT 2291, is on the state's public notary roster.", False),
        ("User's company tax number, 731 004 218, is printed on all her quotes.", False),
        ("User's tax number is 731 004 218.", True),
        ("用户的专利登记号 ZL-2022-1-0458831 可在知识产权局网站公开查询。", False),
        ("佢間舖門口掛住嘅酒牌編號係 LL-88213-KT,人人都睇得到。", False),
        ("用户店里挂着营业执照，上面的统一社会信用代码是91330106MA2H3K8L4T。", False),
        ("User's kennel licence number, DOG-4471, is displayed in the shop's front window.", False),
        ("用户家饼干包装上印的生产许可证编号是SC11233010500118。", False),
        ("User keeps his card PIN memorised and never writes it down.", False),
        ("User's card PIN is 4471 and she keeps it memorised.", True),
    ],
)
def test_rosters_printed_numbers_and_a_pin_kept_in_mind(text: str, secret: bool) -> None:
    """A Korean resident number named in Chinese is an identity number by its check. A
    number on a public roster, a business's tax number on every quote, a number anyone may
    look up or see, a licence hung in the shop with its code "上面", one in the front window
    and one printed on the pack are public, while a person's tax number is not; a PIN
    "memorised" holds no value, and the digits of one do."""
    assert bool(find_secrets(text)) is secret


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("User's pharmacy prints its night line on door hangers: 0161 496 0732.", False),
        ("She pins 4471 as the thread's number in the forum.", False),
        ("The door code is 4471.", True),
        ("The PIN for her SIM is 3807.", True),
    ],
)
def test_a_door_hanger_and_the_verb_pin(text: str, secret: bool) -> None:
    """A door hanger is a flyer, and "she pins" is a verb: neither names a code; a door code
    and "the PIN" still do."""
    assert bool(find_secrets(text)) is secret


def test_a_hotline_called_public_is_no_secret() -> None:
    """A number its sentence calls a public hotline is public; a PIN is still a PIN."""
    assert find_secrets("用户常打港务局公开的查询热线022-2570 6666。") == []
    assert find_secrets("用户的银行卡密码是 662190。") != []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            "User cites the series' ISAN, 0000-0002-4B5D-0000-K-0000-0000-2, in every contract.",
            False,
        ),
        ("Field teams quote bulletin IDs of the form AVB-2026-0112-PM back to User.", False),
        ("用户小店的食品经营许可证挂在收银台上方，顾客都能看到:JY13301060099881。", False),
        ("用户的渔船船身漆着船号 ZJ-0417，方便买家对货。", False),
        ("用户茶厂的追溯码 10807241936 印在每袋茶上，供消费者查询。", False),
    ],
)
def test_an_isan_a_form_shown_by_example_and_numbers_shown_to_buyers(
    text: str, secret: bool
) -> None:
    """An ISAN passes its register's check; an ID shown "of the form" is a format; a licence
    over the till that customers can see, a number painted on a boat's hull and a trace code
    on every bag for buyers to look up are public."""
    assert bool(find_secrets(text)) is secret


def test_a_quoted_phrase_of_a_phrases_length_is_one_even_far_from_its_noun() -> None:
    """Twelve lower-case words quoted after "is", in the clause of a recovery noun, are a
    phrase even when most are not BIP-39 words and the noun is some words back; a sentence
    that only says where the phrase is kept holds none."""
    text = (
        "The recovery phrase for her cold-storage wallet is 'harbor quilt ember lagoon velvet"
        " orbit canyon ripple cedar lantern meadow quartz'."
    )
    assert [f.kind for f in find_secrets(text)] == ["recovery phrase"]
    assert find_secrets("The recovery phrase for the family wallet is on a steel plate.") == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("User's clinic shows its registration number, 40917, on the door plaque.", False),
        (
            "User's dealer licence, 2417-P, is posted above the scale-house window for all to see.",
            False,
        ),
        ("The kiosk's number, WAW-118, is printed on its front panel for customers.", False),
        ("The front door code is 40917.", True),
    ],
)
def test_a_door_plaque_and_numbers_posted_for_all_to_see(text: str, secret: bool) -> None:
    """A door plaque names no lock; a licence posted for all to see and a number printed
    for customers are public; a door's code is still a code."""
    assert bool(find_secrets(text)) is secret


def test_a_chilean_clave_unica_written_as_one_word_is_a_password_noun() -> None:
    """ "ClaveÚnica", the Chilean state login, written as one word, names a password."""
    assert find_secrets("Diego's ClaveÚnica for the SII portal is Quellon.42Rio.") != []
    assert find_secrets("Diego's ClaveÚnica login works again after the reset.") == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            "The courier firm has its operator licence number, OK1089342, painted on the side of"
            " its vans.",
            False,
        ),
        (
            "User's SRA number, 612874, is shown publicly on the Solicitors Regulation register.",
            False,
        ),
        (
            "The filming notice the user posts shows permit number AND-FLM-2024-0813 so residents"
            " can check the shoot is authorised.",
            False,
        ),
        ("User's work permit number, WP-2024-0813, is shown on her badge.", True),
        ("用戶叫阿Ben將場租過數去佢大西洋銀行戶口 9017-2245-3381-0。", True),
        (
            "User's wallet backup words: 'orbit velvet puppet / stage lantern crowd / ribbon mouse"
            " ankle / tribe hollow sugr / canvas theme arrow'.",
            True,
        ),
        ("User's Ionity charging card number is DE-ION-C4471-9028-K.", True),
        (
            "User's company trades under DED licence no. 784512, which is shown on its website.",
            False,
        ),
        ("助手写陆空通话练习时，数字按“幺两三拐洞”的读法写出。", False),
        ("User is restoring a 1956 Chevrolet pickup in her garage.", False),
        ("The garage code is 1956.", True),
    ],
)
def test_numbers_on_a_vans_side_or_for_residents_and_accounts_phrases_and_cards(
    text: str, secret: bool
) -> None:
    """A licence painted on the side of vans, a number shown publicly and a permit residents
    can check are public, a person's work permit is not; a Cantonese bank account (銀行戶口),
    recovery words set apart by slashes and a charging card number are secrets; digits
    followed by how they are read (按…的读法) are no code keyed in."""
    assert bool(find_secrets(text)) is secret


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("The shed's keypad takes the year her son was born, 2011, then the hash key.", True),
        ("仓库后门输 0815 再按井号键就开。", True),
        ("The side gate opens with 7731 followed by pound.", True),
        ("User ran the shop from 2011 and then the pound shop next door.", False),
        ("User's Wi-Fi key is a folk tune typed as letters, gabcd#eg, all lower case.", True),
        ("User's router password is on a card; her broadband is AT&T's fibre plan.", False),
    ],
)
def test_a_code_with_the_hash_key_named_after_it_and_a_sign_inside_letters(
    text: str, secret: bool
) -> None:
    """Digits with the hash key named after them ("2011, then the hash key", "再按井号键")
    are keyed in on a keypad; a sign struck inside lower-case letters ("gabcd#eg") beside a
    password noun is no word, a brand's ampersand is."""
    assert bool(find_secrets(text)) is secret


@pytest.mark.parametrize(
    "text",
    [
        "用戶話間舖嘅商業登記號碼 41234567 印喺收據上面，唔算秘密。",
        "User says the shop's registration number 41234567 is no secret.",
    ],
)
def test_a_business_number_said_to_be_no_secret_is_shown_to_all(text: str) -> None:
    at = text.index("41234567")
    assert credentials.shown_to_all(text, at, at + 8)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("助手写邀请函时要留用户本人的邮箱 wangfang.jingju@163.com。", False),
        ("User's relay login is x7Fq9LmZ2pRt8WvKd3@mail.example.", True),
        (
            "User keeps the first six words of her wallet seed here — lunar pivot opera slate"
            " cargo bright — and the rest on paper.",
            True,
        ),
        ("User keeps her seed phrase — engraved on steel — in the safe.", False),
        ("使用者劇團的統一編號24536817是公開登記資料，報價單上要寫。", False),
    ],
)
def test_addresses_of_words_seed_words_after_a_dash_and_a_number_on_a_public_register(
    text: str, secret: bool
) -> None:
    """An email address made of words is no random token, a random one still is; six words
    set off by dashes after a seed noun are a phrase, prose set off so is not; a business
    number said to be public registration data (公開登記資料) is public."""
    assert bool(find_secrets(text)) is secret


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("User's router admin password is the words walrus and pepper, joined by a dot.", True),
        ("User says her password is the words of a hymn she loves.", False),
    ],
)
def test_a_password_said_to_be_words_then_given(text: str, secret: bool) -> None:
    assert bool(find_secrets(text)) is secret


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # A book's number that happens to pass Luhn is no card: of 13 digits only Visa and
        # Maestro issue cards.
        ("User's self-published atlas has ISBN 978-1-7385-2041-6.", False),
        ("Her old Visa was 4222222222222.", True),
        # A Bitcoin address is where a payment goes; no key is in it.
        (
            "User's donation address, on her blog, is bc1qm4x7vz2k9h3r8t5w0ejn6pf2sdul7cq8ya3g5k.",
            False,
        ),
        # A public key's fingerprint in OpenSSH's form names a public key.
        (
            "User's SSH public key fingerprint is"
            " SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8, on his site.",
            False,
        ),
        ("The deploy token is SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8.", True),
        # A host written bare is an address.
        ("User's shop is at shop379120548.taobao.com.", False),
        ("User's key is Shop379120548Qx7Zt2Lm9.", True),
        # A national number given as what a form holds.
        ("On the visa form, her resident registration number is entered as 850612-2184375.", True),
    ],
)
def test_public_addresses_fingerprints_and_book_numbers_are_no_secrets(
    text: str, found: bool
) -> None:
    assert bool(find_secrets(text)) is found


@pytest.mark.parametrize(
    "text",
    [
        "User shared their public SSH key ssh-ed25519"
        " AAAAC3NzaC1lZDI1NTE5AAAAIFq8mR2vLx7T9pZ3wNbK4cY6hJ1sD0gUeAiOkWrXtVn for server setup.",
        "User's public PGP key fingerprint, published on their website, is E41B 6D08 92FA C37E"
        " 5B10 A4D9 28C6 F073 1E5A 9B42.",
    ],
)
def test_a_public_key_and_a_fingerprint_named_before_an_aside_are_no_secrets(text: str) -> None:
    assert find_secrets(text) == []
