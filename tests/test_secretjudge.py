"""The secret finder's learned backstop: a value the finder has no pattern for, read as a
secret by the sentence around it, is refused and hidden wherever the turn shows or keeps
it; harmless numbers stay facts."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from pipeline.credentials import REDACTED, find_secret, hide, redact
from pipeline.gate import gate
from pipeline.judge import Judge
from pipeline.models import CandidateIn, Policy
from pipeline.secretjudge import judge_secret, load_secret_model, value_spans
from tests.helpers import candidate, invoke, keyless_env, reflection, turn_env
from tests.llm_server import ScriptedLLM

POLICY = Policy()
NOW = datetime(2026, 11, 23, tzinfo=UTC)

# Secrets the finder has no pattern for: no noun it knows introduces the value.
BACKSTOP_SECRETS = [
    "User says the studio side entrance takes 6 0 3 9 then the bell.",
    "For the shed, it is 2-2-7 and a hard pull.",
    "用户跟保洁阿姨说，进屋就是 7 3 1 9 加#。",
    # Told in pieces with a pause, or spelled one by one, beside no noun the finder knows.
    "Voicemail to Morag: 'for the hut panel it's three one, then six eight from Monday.'",
    "For the score store Tomasz spelled it Kilo, Seven, Echo, Two, Tango.",
]
# Harmless numbers, several of them beside words that introduce secrets elsewhere.
HARMLESS = [
    "User's flat is number 4471.",
    "User's bus is the 471.",
    "User's favourite number is 1729.",
    "User's postcode is 10115.",
    "User was born in 1988.",
    "User runs 5 km every morning.",
    "User's office line is +49 30 2218 4471.",
    "User's shoe size is 43.",
    "User owns an RTX 4090.",
    "User's ZIP code is 94110.",
]


def _values(text: str) -> list[str]:
    return [text[start:end] for start, end in value_spans(text)]


def test_value_spans_are_what_a_secret_could_be() -> None:
    """Digit runs however grouped, letter-digit tokens, digits spelled out in words."""
    assert _values("punch 6 0 3 9 then the bell") == ["6 0 3 9"]
    assert _values("EIN 84-3920175 for the LLC") == ["84-3920175"]
    assert _values("Steam Guard code: F7K2Q") == ["F7K2Q"]
    assert _values("it opens at six oh three nine") == ["six oh three nine"]
    assert _values("支付密码是六个8") == ["六个8"]
    assert _values("门禁是一九八七") == ["一九八七"]
    assert _values("it's three one, then six eight") == ["three one, then six eight"]
    assert _values("then nineteen fifty-two.") == ["nineteen fifty-two"]
    assert _values("for me: Kilo, Seven, Echo, Two, Tango.") == ["Kilo, Seven, Echo, Two, Tango"]


def test_value_spans_leave_out_times_amounts_labels_and_phone_numbers() -> None:
    """A time of day, a measure, a price, a short number after a label and an international
    number are not values (a year is, for the model to judge: "punch 1984 then the tick")."""
    for text in (
        "The train leaves at 21:30.",
        "User's gym locker is number 112.",
        "User takes bus #471.",
        "User runs 10 km and 300 steps.",
        "Rent is $1200 a month.",
        "用户每月房租1200元。",
        "Office: +49 30 2218 4471",
        "User has 2 kids.",
        "User's PS5 is the disc model CFI-1216A.",
        "用户的显卡型号 RX-550。",
    ):
        assert value_spans(text) == [], text
    # A model's name exempts only itself.
    assert _values("Door model 4471, code 9034") == ["9034"]


def test_value_spans_hold_codes_kept_in_other_signs() -> None:
    """Playing cards and Suzhou numerals are signs a code may be kept in: the model reads
    them."""
    assert _values("The gate code is the cards 7♠ A♥ 9♦ 4♣, the ace as 1.") == ["7♠ A♥ 9♦ 4♣"]
    assert _values("夾萬密碼用花碼寫咗:〤〦〡〨。") == ["〤〦〡〨"]


def test_value_spans_leave_out_references_anyone_may_see() -> None:
    """A desk extension, an order, a ticket, an invoice, a charity's number: references
    their nouns introduce, whatever their length; not when a secret's noun comes between."""
    for text in (
        "User's desk extension is 4417, up on the third floor.",
        "User's Warhammer order #WH-2024-118734 shipped last Tuesday.",
        "The ticket for the broken hinge is number 44871.",
        "She prints the charity number, 1174829, on every receipt.",
        "用户的快递单号是 7730 2291 8845。",
        "他那张出库单 WMS-20240612-0375 出过错。",
        "Steam 好友代码是 1048273956。",
        "Fudge: 450 g sugar, 120 ml cream, 2 tbsp honey, boiled to 115 °C.",
        "Her postcode is EX20 2QA.",
        "Ingrid captains the MS Hardbakke (IMO 9231054) on the Bergen route.",
        "陳生揸專線小巴,車隊編號 HV-0317,每朝開頭班車。",
        "魏家宁订的云杉面板,顺丰单号 SF1438 7726 0915,预计周四到。",
        "That batch was numbered 23-J-0117 at the 2023 competition.",
        "Her home Wi-Fi network is called Skjaergard_5G.",
        "郭師傅間餐廳嘅 Wi-Fi 網絡名叫「KwokKitchen_Guest」。",
        "Conor's Eircode is D08 VF8H.",
        "图书馆建筑面积约 12480 平方米。",
        "Her own-brand sachets carry the barcode GTIN 8904017483035.",
        "黃詠詩嘅職員儲物櫃係214號。",
        "Ogun's cooperative registration number, painted on its public signboard, is OY/COOP/0457.",
        "王建国的档口在义乌国际商贸城二区，门牌号B-2108，对外公开。",
        "Her registration number with the veterinary council is 4127, which anyone can look up.",
        "Min-jun's studio booking line, listed on Naver Maps, is 02-3142-7788.",
        "She keeps the ISBN of her parish hymnbook, 978-0-19-147040-9, for reordering.",
        "Her operator certificate number, ROC-0419, is printed on every client report.",
    ):
        assert value_spans(text) == [], text
    assert _values("User's order PIN is 4471") == ["4471"]
    assert _values("The ticket's access code is 88231") == ["88231"]
    # A secret's noun anywhere before the reference's in the clause; a person's file number.
    assert _values("The keypad code for the bus depot gate is 7-1-9-3-0.") == ["7-1-9-3-0"]
    assert _values("The bank account for her invoices is 8356 2033 7929.") == ["8356 2033 7929"]
    assert _values("用户的医保个人编号是 4403001988071266。") == ["4403001988071266"]
    assert _values("Her PIN is 1987.") == ["1987"]  # a year, but no word places it in time
    assert _values("The office Wi-Fi password, printed on the poster, is 88214471.") == ["88214471"]


def test_the_model_speaks_only_about_a_text_with_a_value() -> None:
    """No value, no verdict, however much the words talk of secrets."""
    assert judge_secret("User keeps the vault passphrase in a sealed envelope.") is None
    assert judge_secret("User changes the alarm code every month.") is None


def test_the_model_is_deterministic_and_a_probability() -> None:
    model = load_secret_model()
    for text in BACKSTOP_SECRETS + HARMLESS:
        p = model.probability(text)
        assert 0.0 <= p <= 1.0
        assert p == model.probability(text)


@pytest.mark.parametrize("text", BACKSTOP_SECRETS)
def test_a_secret_without_a_noun_is_refused_by_the_model(text: str) -> None:
    """The finder passes it; the gate refuses it as `secret` and says the model judged it."""
    assert find_secret(text) is None
    decision = _decide(text)
    assert (decision.verdict, decision.reason) == ("rejected", "secret")
    assert "judged to hold a secret value" in decision.detail


@pytest.mark.parametrize("text", HARMLESS)
def test_a_harmless_number_stays_a_fact(text: str) -> None:
    decision = _decide(text)
    assert (decision.verdict, decision.reason) == ("accepted", "ok"), decision.detail


def test_without_a_judge_the_rules_alone_decide() -> None:
    """`memory add` and the library's own writes pass no judge: the model is not asked."""
    text = BACKSTOP_SECRETS[0]
    c = CandidateIn(type="habit", subject="user", content=text, confidence=0.9)
    d = gate([c], [], [], aliases={}, policy=POLICY, now=NOW, judge=None).candidates[0]
    assert d.verdict == "accepted"


def test_the_explanation_shows_no_part_of_the_value() -> None:
    """The n-grams named for a verdict never include one drawn from the value."""
    model = load_secret_model()
    text = "Steam Guard code he read out: F7K2Q"
    shown = model.weighed_most(text, count=500)
    assert shown
    assert not [g for g in shown if "f" in g or "k" in g or "0" in g or "q" in g]


def test_a_hidden_value_is_redacted_however_its_digits_are_grouped() -> None:
    """Once hidden, "6 0 3 9" is redacted as 6039 or 6-0-3-9, but not inside 160391."""
    assert redact("seen 6039, 6-0-3-9, 160391") == "seen 6039, 6-0-3-9, 160391"
    hide(["6 0 3 9"])
    assert redact("seen 6039, 6-0-3-9, 160391") == f"seen {REDACTED}, {REDACTED}, 160391"
    hide(["F7K2Q"])
    assert redact("it was f7k2q") == f"it was {REDACTED}"


def test_a_value_only_the_model_caught_is_nowhere_after_the_turn(
    llm: ScriptedLLM, tmp_path: Path
) -> None:
    """The user's words, the answer, the trace, --json, the session and the listings are
    all written after the gate: the value it read as a secret is in none of them."""
    sentence, value = BACKSTOP_SECRETS[0], "6 0 3 9"
    state_dir = tmp_path / "state"
    env = turn_env(llm, state_dir)
    llm.reply(f"Noted: {sentence}").reply(
        reflection(candidate(sentence), candidate("User keeps a home server."))
    )
    turn = invoke("-i", f"remember: {sentence}", "--json", "--show-trace", env=env)
    assert turn.returncode == 0, turn.stderr
    assert '"reason": "secret"' in turn.stdout
    outputs = [turn.stdout, turn.stderr]
    for command in (["memory", "export"], ["memory", "list"], ["memory", "stats"]):
        shown = invoke(*command, env=keyless_env(state_dir))
        assert shown.returncode == 0, shown.stderr
        outputs.append(shown.stdout + shown.stderr)
    files = [p for p in state_dir.rglob("*") if p.is_file()]
    assert any(p.name == "session.json" for p in files)
    assert any("home server" in p.read_text(encoding="utf-8") for p in files)
    assert [str(p) for p in files if value.encode() in p.read_bytes()] == []
    assert [text for text in outputs if value in text] == []


def _decide(text: str):  # type: ignore[no-untyped-def]
    c = CandidateIn(type="habit", subject="user", content=text, confidence=0.9)
    judge = Judge(None)
    return gate([c], [], [], aliases={}, policy=POLICY, now=NOW, judge=judge).candidates[0]


def test_the_gate_names_what_to_hide_and_hides_nothing_itself() -> None:
    """The gate stays a pure function: it returns the values the model read as secrets,
    and redaction changes only when the caller hides them."""
    text = BACKSTOP_SECRETS[0]
    c = CandidateIn(type="habit", subject="user", content=text, confidence=0.9)
    result = gate([c], [], [], aliases={}, policy=POLICY, now=NOW, judge=Judge(None))
    assert result.hidden == ("6 0 3 9",)
    assert redact("seen 6039") == "seen 6039"
    hide(result.hidden)
    assert redact("seen 6039") == f"seen {REDACTED}"


def test_identifiers_of_published_records_are_no_secret_values() -> None:
    """A DOI, a security advisory, a valid ORCID iD, a key's fingerprint named as one, and a
    barcode its noun introduces are made to be looked up: neither the finder nor the judge
    reads them as values. A fingerprint-shaped value a secret's noun introduces still is."""
    for text in (
        "Her dataset is archived under DOI 10.5061/dryad.4mw6m90b2 for anyone to cite.",
        "User's library was patched for CVE-2023-44487 within a day.",
        "He lists RUSTSEC-2022-0013 in the crate's security notes.",
        "Her paper cites advisory GHSA-jfh8-c2jp-5v3q in the appendix.",
        "Wen's ORCID iD is 0000-0002-1825-0097, on every paper she writes.",
        "He signs tags with GPG key fingerprint 3AA5 C343 7127 58F1 9AD1 4E8F 9C5B 2F3B 18D4 E6A1.",
        "用户店里自制辣酱的商品条码是 6901234567892，贴在每瓶背面。",
        "The band's vinyl barcode (EAN) is 5012345678900, printed on the sleeve.",
        "User's app is on the store under the public app ID 6448311069.",
        "用户茶行的统一编号 53212539 印在每张收据上。",
        "Her surveyor registration number, 40917, appears on the cover of every report she signs.",
        "His practice prints its registration number, 718223, in the footer of every letter.",
        "用户诊所的统一社会信用代码是 91350203MA2Y4F8C1R，营业执照挂在前台墙上。",
        "The companion book to her film has ISBN 978-978-548-213-3, listed in press kits.",
        "用户写的点心食谱书号 978-7-02-000220-7，书店有卖。",
        "The restaurant she runs has SIRET 832 941 751 00014, printed at the bottom of every bill.",
        "The carrier he adjusts for has NAIC company code 10927, on every claim form.",
        "Her journal's ISSN is 0378-5955.",
        "The clinic she covers has registry code 10931828, shown in its website footer.",
        "His firm trades under KvK number 24301527, shown in the footer of its website.",
        "Her agency's IATA cargo agent code, printed on every air waybill, is 36-4 7812 0.",
        "Crumb Ltd's Companies House number, shown in its website footer, is 12845077.",
        "用戶工作嘅診所商業登記號碼71842390掛喺接待處牆上。",
        "用户公司的统一社会信用代码是91350200MA2Y7HQ313，发票和官网上都公开印着。",
        "His bureau is registered with the CRO as company no. 647215 and files under NACE code"
        " 69.20.",
        "用戶任職公司的統一編號是22841034，每張發票上都印著。",
        "She co-edited the museum's 2019 loans catalogue, ISBN 978-972-776-528-7.",
        "He gives claimants the insurer's published 24/7 claims line, 1-866-555-0148.",
        "She gives residents TSSA's public toll-free line, 1-877-682-8772, for complaints.",
    ):
        assert value_spans(text) == [], text
        assert find_secret(text) is None, text
    assert find_secret("The passphrase for his GPG key is 3AA5C343712758F1.") is not None


def test_a_register_number_is_public_only_when_its_check_holds() -> None:
    """A register's name does not make any number public: the number must pass the
    register's check, and a secret's noun before it keeps it a secret."""
    for text in (
        "User's card, the one she pays ISBN orders with, is 4111 1111 1111 1111.",
        "Her SIRET login PIN is 832941.",
        "The carrier's NAIC portal password is 10927.",
        "Under the ISBN sticker he keeps his bank card, 4539 1488 0343 6467.",
        "The registry portal password is 10931828, shown to no one.",
    ):
        assert find_secret(text) is not None, text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("User's gauge is listed as station NBI-ASW-03 on the basin's public data portal.", False),
        ("User's main site is the Ounasjoki gauge, station no. 6502500.", False),
        ("User gives callers the police's published non-emergency number, 520-791-4444.", False),
        ("用戶喺網站底部列明公司商業登記號碼 71284356，方便客人核實。", False),
        ("The side entrance at Millbrook station takes 5-9-9-2 then star after hours.", True),
    ],
)
def test_station_numbers_switchboards_and_numbers_listed_for_customers(
    text: str, secret: bool
) -> None:
    """A gauge's station number, a published non-emergency line and a business number
    listed on a website for customers to check hold no secret; the code a station's door
    takes still does."""
    assert (judge_secret(text) is not None or find_secret(text) is not None) is secret


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            "User's clinic publishes its out-of-hours advice line, 0161 496 0732, on its website.",
            False,
        ),
        (
            "User's co-op is public supply system WA5300217 in the state's drinking-water records.",
            False,
        ),
        ("用戶的茶葉罐上印著茶廠登錄字號 T-203456789-00002-1，客人可以上網查。", False),
        ("User's public library PIN is 4471.", True),
    ],
)
def test_a_number_its_sentence_calls_public_in_any_words_is_no_secret(
    text: str, secret: bool
) -> None:
    """A number its sentence calls public, published or checkable online (公開, 上網查) is
    made to be seen; a PIN stays a secret whatever public thing it opens."""
    assert (judge_secret(text) is not None or find_secret(text) is not None) is secret


@pytest.mark.parametrize(
    "text",
    [
        "User wants quotes to end with colleague Ana's number, 514-555-0142, as the site contact.",
        "Assistant should put the supplier's phone number, (406) 555-0139, at the foot of orders.",
    ],
)
def test_a_persons_or_a_firms_phone_number_is_no_secret_value(text: str) -> None:
    """A number named as a person's or a firm's phone, written into drafts, is where people
    call, not a secret; an account or a PIN named so stays one."""
    assert judge_secret(text) is None
    assert find_secret(text) is None
    account = "User's account number, 514-555-0142, is with Chase."
    assert judge_secret(account) is not None or find_secret(account) is not None
