"""The secret finder finds what its reference finds, however the text is laid out, and
quickly: the prefilters and the lower-case noun scan change the cost, never the result."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pipeline import credentials
from pipeline.credentials import find_secrets, redact
from tests import reference_credentials as reference
from tests.helpers import PROJECT
from tests.strategies import secret_texts

CORPUS = Path(__file__).parent / "data" / "gate_corpus"


def _spans(found: list) -> list[tuple[str, int, int]]:
    return [(f.kind, f.start, f.end) for f in found]


@contextmanager
def _without_identity_numbers() -> Iterator[None]:
    """The finder without the identity-number check, which the reference does not have:
    everything else must find exactly what the reference finds."""
    kept = credentials._identity_numbers
    credentials._identity_numbers = lambda text: iter(())  # type: ignore[assignment]
    credentials._find_secrets.cache_clear()
    try:
        yield
    finally:
        credentials._identity_numbers = kept
        credentials._find_secrets.cache_clear()


def _corpus_texts() -> list[str]:
    texts = []
    for path in sorted(CORPUS.glob("*.jsonl")):
        for line in path.read_text("utf-8").splitlines():
            row = json.loads(line)
            texts += [row["text"], *([row["user_text"]] if row.get("user_text") else [])]
    return texts


def test_every_corpus_text_gives_the_reference_findings() -> None:
    """On every text of the gate corpus (contents and user turns), the finder returns the
    same findings as the reference, kind and span."""
    texts = _corpus_texts()
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


@pytest.mark.parametrize(
    "text",
    [
        "ésk-proj-ABCDEFGHIJKLMNOPQRSTUV",  # no word boundary before the prefix
        "pa\u017fsword Zx9!qLm2",  # the long s matches "s" case-insensitively, not in lower case
        "\u212aeypad code 4471",  # the Kelvin sign matches "k"
        "İBAN DE89 3704 0044 0532 0130 00 and PIN 4471",  # lower case makes it longer
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
        "Steuer-ID 65 929 970 488",  # one digit off: the check fails
        "User's BSN letter came in 2019.",
        "User's Steuer-ID office is open from 9 to 17.",
        "The tax number form has 12 fields and costs 25 euros.",
        "User's order number is 65929970489.",  # a valid Steuer-ID, but no identity noun
        "Call the SIN helpline at 1 800 622 6232.",
        "User's CPF application took 14 days and 3 visits.",
        "User pays 1 249 euros a year for a tax adviser.",
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
