"""Hypothesis strategies, kept in one module."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import strategies as st

from pipeline.models import MEMORY_TYPES, SUBJECTS, CandidateIn, Memory, RevisionIn

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def memory(
    mid: str,
    content: str,
    *,
    confidence: float = 0.9,
    age_hours: float = 48,
    type: str = "preference",
) -> Memory:
    """A stored memory created (and last reinforced) `age_hours` before NOW."""
    at = NOW - timedelta(hours=age_hours)
    return Memory(
        id=mid,
        type=type,
        subject="user",
        content=content,
        confidence=confidence,
        created_at=at,
        last_reinforced=at,
    )


# Facts built from a small vocabulary so that duplicates and near-duplicates are common.
_PEOPLE = st.sampled_from(["User", "The user", "user", "User's sister", "The assistant"])
_VERBS = st.sampled_from(
    [
        "likes",
        "prefers",
        "dislikes",
        "plays",
        "speaks",
        "is allergic to",
        "does not like",
        "never drinks",
        "works with",
    ]
)
_THINGS = st.sampled_from(
    [
        "tea",
        "green tea",
        "jazz",
        "Rust",
        "peanuts",
        "chess",
        "French",
        "concise answers",
        "2 cats",
        "3 cats",
        "hiking",
        "Crème brûlée",
        "北京烤鸭",
        "maybe jazz",
        "tea today",
        "sk-abcdefghijklmnopqrstu",
    ]
)
_ENDINGS = st.sampled_from(["", ".", "!", " a lot", " very much."])

contents = st.builds(lambda p, v, t, e: f"{p} {v} {t}{e}", _PEOPLE, _VERBS, _THINGS, _ENDINGS)

candidates = st.builds(
    CandidateIn,
    type=st.sampled_from([*MEMORY_TYPES, "mood"]),
    subject=st.sampled_from([*SUBJECTS, "world"]),
    content=contents,
    confidence=st.floats(min_value=-0.2, max_value=1.2, allow_nan=False),
    reason=st.just("stated by the user"),
    action=st.sampled_from(["create", "create", "reinforce", "delete"]),
    target_id=st.one_of(st.none(), st.sampled_from(["m1", "m2", "m9"])),
)

revisions = st.builds(
    RevisionIn,
    target_id=st.sampled_from(["m1", "m2", "m3", "m9", "mem_0001"]),
    action=st.sampled_from(["decrease_confidence", "increase_confidence", "revise", "drop"]),
    new_confidence=st.one_of(st.none(), st.floats(min_value=0, max_value=1)),
    reason=st.just("because"),
    new_content=st.one_of(st.none(), contents),
)


@st.composite
def stores(draw: st.DrawFn) -> list[Memory]:
    """A store whose memories are pairwise distinct facts, some created in the last day."""
    from pipeline.gate import is_duplicate

    texts = draw(st.lists(contents, max_size=8))
    memories: list[Memory] = []
    for text in texts:
        if any(is_duplicate(text, m.content) for m in memories):
            continue
        age = timedelta(hours=draw(st.integers(min_value=0, max_value=72)))
        memories.append(
            Memory(
                id=f"mem_{len(memories) + 1:04d}",
                type="preference",
                subject="user",
                content=text,
                confidence=draw(st.floats(min_value=0.5, max_value=1)),
                created_at=NOW - age,
                last_reinforced=NOW - age,
            )
        )
    return memories


# Texts for comparing two secret finders: words, sensitive nouns in any case, values of
# every shape the finder knows, and the characters where case and scripts get tricky.
_SECRET_PIECES = st.sampled_from(
    [
        "User's",
        "the",
        "is",
        "password",
        "PASSWORD",
        "Passcode",
        "pin",
        "PIN",
        "pin code",
        "door code",
        "zip code",
        "wi-fi",
        "login",
        "signed in",
        "acct no.",
        "account number",
        "National Insurance no.",
        "health number",
        "Social Security",
        "passport",
        "api key",
        "token:",
        "secret",
        "router",
        "gate",
        "lock",
        "p\u017fssword",
        "pa\u017fsword",
        "\u212aeypad code",
        "İban",
        "café",
        "it’s",
        "密码",
        "验证码",
        "身份证号",
        "PIN码",
        "xPIN码",
        "4471",
        "2580#",
        "9 0 1 3",
        "945 807 3022",
        "078-05-1120",
        "401 77 2365",
        "JT 48 21 93 B",
        "4111 1111 1111 1111",
        "4111111111111111",
        "DE89 3704 0044 0532 0130 00",
        "gb82west12345698765432",
        "11010519491231002X",
        "Zx9!qLm2",
        "Tr0ub4dor&3",
        "hunter",
        "since 2015",
        "8 digits",
        "10am",
        "1Password",
        "sk-proj-ABCDEFGHIJKLMNOPQRSTUV",
        "ésk-proj-ABCDEFGHIJKLMNOPQRSTUV",
        "_sk-proj-ABCDEFGHIJKLMNOPQRSTUV",
        "AKIAIOSFODNN7EXAMPLE",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY=",
        "xoxb-1234567890",
        "xoxb-123456789",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "eyJhbGciOiJI.eyJzdWIiOiIx.c2lnbmF0dXJl",
        "-----BEGIN RSA PRIVATE KEY----- MIIE -----END RSA PRIVATE KEY-----",
        "https://u:p4ss@example.com/x",
        "https://example.com/?token=abcdef123456",
        "https://hooks.slack.com/services/T0/B0/x",
        "abandon ability able about above absent absorb abstract absurd abuse access accident",
        "3f9a7c2e4b1d8f6a0c5e9b2d7a4f1c8e",
        "q8Zr2LmXw9Pt4Nv7Ks3Jh6",
        "internationalization",
        ".",
        ",",
        ":",
        ";",
        "\n",
        "。",
        "-",
        "(",
        ")",
        "'",
        "=",
    ]
)
secret_texts = st.lists(
    st.tuples(_SECRET_PIECES, st.sampled_from([" ", "", "  ", ": ", "\t"])), max_size=14
).map(lambda parts: "".join(piece + gap for piece, gap in parts))
