"""The character n-gram judgement: the gate's judge for Chinese text and without the extra."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from benchmarks.gate_eval import load, score
from pipeline.charjudge import LABELS, bucket, features, grams, load_chars
from pipeline.gate import gate
from pipeline.judge import Judge
from pipeline.models import CandidateIn, Policy
from tests.helpers import candidate, invoke, reflection, turn_env
from tests.llm_server import ScriptedLLM

POLICY = Policy()
NOW = datetime(2026, 11, 23, tzinfo=UTC)
PROJECT = Path(__file__).resolve().parent.parent


def _decide(text: str, judge: Judge | None) -> tuple[str, str, str]:
    candidate = CandidateIn(type="habit", subject="user", content=text, confidence=0.9)
    d = gate([candidate], [], [], aliases={}, policy=POLICY, now=NOW, judge=judge).candidates[0]
    return d.verdict, d.reason, d.detail


def test_grams_fold_case_and_digits_and_mark_word_edges() -> None:
    """Digits and case fold ("Tired 42" and "tired 17" agree); spaces mark word edges."""
    assert grams("Tired 42") == grams("tired 17")
    assert " t" in grams("tired")
    assert "d " in grams("tired")
    assert "头疼" in grams("用户头疼")


def test_hashing_is_the_same_in_every_process() -> None:
    """Buckets come from crc32, not the salted `hash`: a fresh process agrees."""
    here = [bucket(g, 15) for g in grams("User has a headache. 用户头疼")]
    code = (
        "from pipeline.charjudge import bucket, grams; "
        "print([bucket(g, 15) for g in grams('User has a headache. 用户头疼')])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=PROJECT,
        env={"PYTHONHASHSEED": "123", "PATH": "/usr/bin:/bin"},
        check=True,
    ).stdout
    assert out.strip() == str(here)


def test_a_feature_vector_has_unit_length() -> None:
    """Long and short texts weigh the same: the vector is normalised."""
    for text in ("hi", "User has been a keen birdwatcher since childhood.", "用户头疼"):
        assert sum(x * x for x in features(text, 15).values()) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("用户正坐在去南京的火车上。", "ephemeral"),
        ("用户该不会是律师吧。", "speculative"),
        ("User has a splitting headache.", "ephemeral"),
        ("User is bound to be a teacher, given all the grading questions.", "speculative"),
        ("User really liked that last reply.", "small_talk"),
        ("用户嗓子哑了，说不出话。", "ephemeral"),
        ("用户说这些建议很专业。", "small_talk"),
    ],
)
def test_without_the_extra_the_ngram_model_refuses_and_explains(text: str, label: str) -> None:
    """With no embedder the gate's judge is the n-gram model: it refuses a passing state or
    a guess the rules let through, and names the n-grams that decided it."""
    verdict, reason, detail = _decide(text, Judge(None))
    assert (verdict, reason) == ("rejected", label)
    assert "n-grams" in detail


@pytest.mark.parametrize(
    "text",
    [
        "用户在杭州做软件工程师。",
        "用户有慢性偏头痛。",
        "用户每天坐高铁通勤。",
        "用户有慢性胃炎，饮食要清淡。",
        "User currently lives in Berlin.",
        "User researches probability theory.",
        "User's cat is named Maybe.",
        # A standing liking for what the assistant does, which the model reads as talk.
        "Ingrid likes the assistant to ask about the birds at her feeder at the start of a chat.",
        # A hedge the rules read as the person's own question or belief.
        "卓玛正在研究高原环境是否可能影响藏药材有效成分的含量。",
    ],
)
def test_durable_facts_pass_the_ngram_model(text: str) -> None:
    """Facts that share words with passing states ("在", "头痛", "currently") are kept."""
    assert _decide(text, Judge(None))[0] == "accepted"


def test_chinese_text_is_judged_by_ngrams_even_with_an_embedder() -> None:
    """The embedder is never asked about Chinese text: the n-gram model judges it."""

    class NoEmbedding:
        model_id = "none"

        def embed(self, texts: list[str]) -> object:
            raise AssertionError(f"embedded {texts}")

    judge = Judge(NoEmbedding())  # type: ignore[arg-type]
    assert _decide("用户正坐在去南京的火车上。", judge)[1] == "ephemeral"


def test_the_ngram_judge_is_fast() -> None:
    """After start-up a candidate costs well under 5 ms (the judge's budget)."""
    model = load_chars()
    texts = [r["text"] for r in load("tune")][:200]
    started = time.perf_counter()
    for text in texts:
        model.judge(text)
    assert (time.perf_counter() - started) / len(texts) < 0.005


def test_the_shipped_model_covers_every_label() -> None:
    """Weights for each label in every bucket, and thresholds for each refusing label."""
    model = load_chars()
    assert len(model.weights) == len(LABELS) << model.bits
    assert set(model.thresholds) == set(model.thresholds_cjk) == set(LABELS[1:])


def test_without_the_extra_no_secret_or_injection_passes_on_the_held_out_part() -> None:
    """The n-gram judge does not weaken the safety rules: every secret and injection row
    of the held-out part is still refused."""
    result = score(load("heldout"), judge=Judge(None), policy=POLICY)
    passed = [
        r["id"]
        for r, p in zip(result.rows, result.predicted, strict=True)
        if r["label"] in ("secret", "injection") and p == "durable"
    ]
    assert not passed, f"{len(passed)} secret or injection rows passed"


def test_a_lexical_turn_refuses_a_passing_state_by_ngrams_and_says_why(
    llm: ScriptedLLM, state_dir: Path
) -> None:
    """A turn with lexical retrieval (no embeddings) still judges by meaning: a passing
    state with no time word is refused, the trace names the n-grams, and a fact is kept."""
    llm.reply("Sorry to hear that.").reply(
        reflection(candidate("User is stuck in traffic."), candidate("User plays the cello."))
    )
    result = invoke("-i", "stuck in traffic again", "--show-trace", env=turn_env(llm, state_dir))
    assert result.returncode == 0, result.stderr
    assert "candidate 1: REJECTED (ephemeral)" in result.stderr
    assert "n-grams" in result.stderr
    assert "candidate 2: ACCEPTED (ok)" in result.stderr


@pytest.mark.parametrize(
    ("taiwan", "mainland"),
    [
        ("使用者回了一句「哈哈好啦謝謝」。", "用户回了一句「哈哈好啦谢谢」。"),
        ("使用者在網路上申請補發了健保卡。", "用户在网络上申请补发了健保卡。"),
        ("使用者每天晚上看日劇影片。", "用户每天晚上看日剧视频。"),
        # Cantonese's written words as Mandarin's; 係 only where it is "to be"
        ("部電腦啱啱死咗機，佢好嬲。", "部电脑刚刚死了机，他好嬲。"),
        ("應該係佢媽媽教佢煮飯嘅。", "应该是他妈妈教他煮饭的。"),
        ("用戶同佢老闆關係好好。", "用户同他老板关系好好。"),
    ],
)
def test_taiwans_words_are_judged_as_the_mainlands(taiwan: str, mainland: str) -> None:
    """The n-gram judge learnt mostly from mainland Chinese: "使用者" reads as "用户", and
    Cantonese's "啱啱…咗" as "刚刚…了", as Traditional characters read as Simplified ones."""
    model = load_chars()
    assert model.probabilities(taiwan) == pytest.approx(model.probabilities(mainland))
    assert model.judge(taiwan).label == model.judge(mainland).label


@pytest.mark.parametrize(
    ("bias", "floor", "label"),
    [
        # durable 0.09, small talk 0.57: short of its threshold, refused only with a floor
        ([0.0, 0.5, 0.2, 1.9, 0.1], 0.1, "small_talk"),
        ([0.0, 0.5, 0.2, 1.9, 0.1], 0.0, "durable"),
        # durable 0.20 is above the floor: the threshold alone decides
        ([1.0, 0.5, 0.2, 1.9, 0.1], 0.1, "durable"),
    ],
)
def test_a_text_far_from_durable_is_refused_as_its_likeliest_kind(
    bias: list[float], floor: float, label: str
) -> None:
    """Below the floor of p(durable), the likeliest other kind refuses the text even
    short of that kind's threshold; above it, only a threshold refuses."""
    from array import array

    from pipeline.charjudge import CharModel

    thresholds = {kind: 0.6 for kind in LABELS[1:]}
    model = CharModel(
        1, array("f", [0.0] * 2 * len(LABELS)), tuple(bias), thresholds, {}, floor=floor
    )
    p = model.probabilities("User has a plan")
    assert p[LABELS.index("small_talk")] < 0.6
    assert model.judge("User has a plan").label == label


def test_the_shipped_model_reads_its_floor() -> None:
    """The floor cross-validation chose is read from chars.json: 0.05 for English, 0.15
    for Chinese."""
    model = load_chars()
    assert (model.floor, model.floor_cjk) == (0.05, 0.15)
