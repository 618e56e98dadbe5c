"""The memory gate: the program, not the model, decides what is remembered.

`gate()` is a pure function of (candidates, revisions, current memories, aliases, policy,
now): no I/O, no clock, no randomness. It returns one decision for every item, in input
order, each with a verdict and a reason code. The store runs it again under the lock
against what is on disk at commit time.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache

from .models import (
    DECAY_POLICIES,
    CandidateIn,
    Decision,
    GateResult,
    Memory,
    Policy,
    RevisionIn,
    Verdict,
)
from .text import NEGATIONS, dedupe_key, fold, terms

# --- Content screens ----------------------------------------------------------------------
# Each screen is a list of (pattern, label). Patterns run on folded text (lower case, no
# accents), so they are written in lower case.

_SECRET_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p)
    for p in (
        r"\bsk-[a-z0-9_\-]{16,}",  # OpenAI / Moonshot style API keys
        r"\bakia[0-9a-z]{16}\b",  # AWS access key id
        r"\bgh[pousr]_[a-z0-9]{30,}",  # GitHub tokens
        r"\bxox[abprs]-[a-z0-9\-]{10,}",  # Slack tokens
        r"\baiza[0-9a-z_\-]{35}",  # Google API keys
        r"\beyj[a-z0-9_\-]{10,}\.[a-z0-9_\-]{10,}\.[a-z0-9_\-]{10,}",  # JWT
        r"-----begin [a-z ]*private key-----",
    )
)
# "password is hunter2", "api key: abc", "密码是 123": the value after the label is the secret.
_LABELLED_SECRET = re.compile(
    r"\b(?:password|passwd|passphrase|pass code|passcode|pin(?: code)?|api[ _-]?key|"
    r"secret(?: key)?|access[ _-]?token|auth[ _-]?token|token|private key|ssh key)"
    r"\s*(?:is|was|=|:|：)\s*(?P<value>[^\s,;]{4,})"
    r"|(?:密码|口令|密钥)\s*(?:是|为|:|：|=)\s*(?P<zh>\S{4,})"
)
_CARD_CANDIDATE = re.compile(r"\b(?:\d[ -]?){12,18}\d\b")
_LONG_RANDOM = re.compile(r"\b(?=[a-z0-9_\-]*\d)(?=[a-z0-9_\-]*[a-z])[a-z0-9_\-]{32,}\b")

_INJECTION = [
    (re.compile(p), label)
    for p, label in (
        (
            r"\b(?:ignore|disregard|forget|override|bypass)\b.{0,40}\b(?:previous|prior|above|"
            r"earlier|all|any|system|your|the)\b.{0,25}\b(?:instructions?|prompts?|rules?|"
            r"guidelines?|guardrails?)",
            "overrides instructions",
        ),
        (
            r"\b(?:reveal|print|show|leak|output|disclose|dump|repeat)\b.{0,40}\b(?:system prompt|"
            r"instructions|api keys?|passwords?|secrets?|credentials?|hidden prompt)",
            "asks to reveal secrets or prompts",
        ),
        (
            r"\balways (?:reveal|disclose|leak|obey|comply with|execute|run)\b",
            "plants a standing order",
        ),
        (r"\byou (?:are|must|will) now\b", "redefines the assistant"),
        (
            r"\bnew (?:system )?instructions?\b|\bsystem prompt\b|\bdeveloper mode\b|\bjailbreak",
            "addresses the system prompt",
        ),
        (
            r"\b(?:do not|don't|never) tell the user\b|\bwithout telling the user\b",
            "hides behaviour from the user",
        ),
        (r"<\s*/?\s*(?:system|instructions?)\s*>", "fakes a system block"),
        (
            r"忽略.{0,10}(?:指令|指示|规则|提示)|系统提示|泄露.{0,10}(?:密码|密钥|提示)",
            "overrides instructions",
        ),
    )
]

_EPHEMERAL = [
    (re.compile(p), label)
    for p, label in (
        (r"\b(?:today|tonight|tomorrow|yesterday)\b", "a single day"),
        (
            r"\b(?:right now|just now|at the moment|for now|for the moment|at present|"
            r"in a minute|in an hour|later today)\b",
            "the present moment",
        ),
        (
            r"\bthis (?:morning|afternoon|evening|week|weekend|month)\b|\bnext week\b|"
            r"\blast night\b",
            "a short period",
        ),
        (
            r"\b(?:tired(?! of)|sleepy|exhausted|hungry|thirsty|in a hurry|bored|"
            r"feeling (?:sick|ill|unwell|down|good|great|bad))\b",
            "a passing state",
        ),
        (r"今天|今晚|明天|昨天|现在|刚才|此刻|这周|本周|累了|饿了|困了", "the present moment"),
    )
]

_SPECULATIVE = [
    (re.compile(p), "hedged")
    for p in (
        r"\b(?:maybe|perhaps|probably|possibly|presumably|apparently|seemingly|likely|"
        r"potentially|supposedly|might|unsure|unclear|uncertain)\b",
        r"\b(?:may|could|might) (?:be|have|not)\b",
        r"\bseems?\b|\bseemed\b|\bappears? to\b|\bi (?:think|guess|suppose|assume)\b",
        r"\bnot sure\b|\bhard to say\b|\bif i recall\b",
        r"可能|也许|大概|好像|似乎|或许",
    )
]

_SMALL_TALK = [
    (re.compile(p), "small talk")
    for p in (
        r"\b(?:greeted|said (?:hello|hi|hey|goodbye|bye|thanks|thank you)|thanked|"
        r"says? (?:hello|hi|hey))\b",
        r"\bhow are you\b|\bsmall talk\b|\bchit[ -]?chat|\bchatted\b|\bhad a conversation\b",
        r"\basked (?:about|how|what|whether|if|for|a question)\b|\bwanted to know\b",
        r"\b(?:started|began|is having) a (?:new )?(?:conversation|chat|session)\b",
    )
]
# Words that say nothing by themselves: a content made only of these is content-free.
_FILLER_TERMS = frozenset(
    terms(
        "hello hi hey thanks thank you greet bye goodbye ok okay yes sure chat talk said say"
        " ask asked question conversation answer respond reply mention mentioned stated"
        " something thing things stuff message info information"
    )
)


@dataclass(frozen=True)
class _Screen:
    reason: str
    detail: str


def find_secret(text: str) -> str | None:
    """Name the kind of secret in `text`, or None; used by the gate and by redaction."""
    folded = fold(text)
    for pattern in _SECRET_PATTERNS:
        if pattern.search(folded):
            return "credential"
    if _LABELLED_SECRET.search(folded):
        return "labelled secret"
    for match in _CARD_CANDIDATE.finditer(folded):
        if _luhn_ok(re.sub(r"\D", "", match.group())):
            return "card number"
    if _LONG_RANDOM.search(folded):
        return "random-looking token"
    return None


def redact(text: str) -> str:
    """`text` with every secret the gate would catch replaced by [REDACTED]."""
    out = text
    for pattern in (*_SECRET_PATTERNS, _LONG_RANDOM):
        out = re.sub(pattern.pattern, "[REDACTED]", out, flags=re.IGNORECASE)

    def _label(match: re.Match[str]) -> str:
        group = "value" if match.group("value") else "zh"
        start, end = match.span(group)
        whole = match.group()
        return whole[: start - match.start()] + "[REDACTED]" + whole[end - match.start() :]

    out = re.sub(_LABELLED_SECRET.pattern, _label, out, flags=re.IGNORECASE)

    def _card(match: re.Match[str]) -> str:
        digits = re.sub(r"\D", "", match.group())
        return "[REDACTED]" if _luhn_ok(digits) else match.group()

    return _CARD_CANDIDATE.sub(_card, out)


def _luhn_ok(digits: str) -> bool:
    if not 13 <= len(digits) <= 19:
        return False
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _first_match(folded: str, screen: list[tuple[re.Pattern[str], str]]) -> tuple[str, str] | None:
    for pattern, label in screen:
        match = pattern.search(folded)
        if match:
            return match.group(), label
    return None


def screen_content(text: str, policy: Policy) -> _Screen | None:
    """Why `text` must not become a memory, or None if it may. Order: safety first."""
    stripped = text.strip()
    if not stripped:
        return _Screen("invalid", "empty content")
    if len(stripped) > policy.max_content_chars:
        return _Screen("invalid", f"content longer than {policy.max_content_chars} characters")
    secret = find_secret(stripped)
    if secret:
        return _Screen("secret", f"contains a {secret}")
    folded = fold(stripped)
    hit = _first_match(folded, _INJECTION)
    if hit:
        return _Screen("injection", f"{hit[1]} ({hit[0]!r})")
    hit = _first_match(folded, _EPHEMERAL)
    if hit:
        return _Screen("ephemeral", f"{hit[1]} ({hit[0]!r})")
    hit = _first_match(folded, _SPECULATIVE)
    if hit:
        return _Screen("speculative", f"{hit[1]} ({hit[0]!r})")
    hit = _first_match(folded, _SMALL_TALK)
    if hit:
        return _Screen("small_talk", f"{hit[1]} ({hit[0]!r})")
    if len(stripped) < policy.min_content_chars or not set(terms(stripped)) - _FILLER_TERMS:
        return _Screen("small_talk", "no content words")
    return None


# --- Duplicates -----------------------------------------------------------------------------

_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
NEAR_DUPLICATE_JACCARD = 0.8


@dataclass(frozen=True)
class _Fingerprint:
    key: str
    terms: frozenset[str]
    negations: frozenset[str]
    numbers: frozenset[str]

    @classmethod
    def of(cls, text: str) -> _Fingerprint:
        return _fingerprint(text)

    @classmethod
    def compute(cls, text: str) -> _Fingerprint:
        term_list = terms(text)
        return cls(
            key=dedupe_key(text),
            terms=frozenset(term_list),
            negations=frozenset(t for t in term_list if t in NEGATIONS),
            numbers=frozenset(_NUMBER.findall(fold(text))),
        )

    def same_fact(self, other: _Fingerprint) -> bool:
        """Equal normalised text, or near-equal terms with the same negations and numbers.

        The negation and number checks keep "allergic to peanuts" apart from "not allergic
        to peanuts", and "has 2 kids" apart from "has 3 kids".
        """
        if self.key == other.key:
            return bool(self.key)
        if self.negations != other.negations or self.numbers != other.numbers:
            return False
        union = self.terms | other.terms
        return bool(union) and len(self.terms & other.terms) / len(union) >= NEAR_DUPLICATE_JACCARD


# The gate runs twice a turn (before the lock and under it) over the same stored texts.
@lru_cache(maxsize=100_000)
def _fingerprint(text: str) -> _Fingerprint:
    return _Fingerprint.compute(text)


class _StoredFacts:
    """The store's memories, searched for the same fact without fingerprinting them all.

    Two texts can only be the same fact if they share at least NEAR_DUPLICATE_JACCARD of
    the candidate's terms (Jaccard >= j means |A & B| >= j * |A | B| >= j * |A|), so a
    cheap overlap count over cached terms skips almost every memory.
    """

    def __init__(self, memories: Sequence[Memory]) -> None:
        self.items = [(m.id, m.content) for m in memories]

    def find(self, fingerprint: _Fingerprint, *, exclude: str | None = None) -> str | None:
        if not fingerprint.terms:
            return None  # a text with no terms is the same fact as nothing
        need = math.ceil(NEAR_DUPLICATE_JACCARD * len(fingerprint.terms) - 1e-9)
        wanted = fingerprint.terms
        for memory_id, content in self.items:
            if memory_id == exclude or len(wanted.intersection(terms(content))) < need:
                continue
            if _Fingerprint.of(content).same_fact(fingerprint):
                return memory_id
        return None


class _AcceptedFacts:
    """Fingerprints accepted so far in one call, looked up by their rarest terms, so that
    importing thousands of memories costs time in proportion to their number.

    A same fact shares at least `need` of the candidate's terms, so it holds one of any
    len(terms) - need + 1 of them: those with the shortest postings are enough.
    """

    def __init__(self) -> None:
        self.prints: list[_Fingerprint] = []
        self.postings: dict[str, list[int]] = {}

    def add(self, fingerprint: _Fingerprint) -> None:
        for term in fingerprint.terms:
            self.postings.setdefault(term, []).append(len(self.prints))
        self.prints.append(fingerprint)

    def has_same(self, fingerprint: _Fingerprint) -> bool:
        if not fingerprint.terms:
            return False
        need = math.ceil(NEAR_DUPLICATE_JACCARD * len(fingerprint.terms) - 1e-9)
        rarest = sorted(fingerprint.terms, key=lambda t: len(self.postings.get(t, ())))
        seen: set[int] = set()
        for term in rarest[: len(rarest) - need + 1]:
            for i in self.postings.get(term, ()):
                if i not in seen:
                    seen.add(i)
                    if self.prints[i].same_fact(fingerprint):
                        return True
        return False


def is_duplicate(a: str, b: str) -> bool:
    """True when two memory texts state the same fact (the gate's duplicate rule)."""
    return _Fingerprint.of(a).same_fact(_Fingerprint.of(b))


# --- The gate -----------------------------------------------------------------------------

CANDIDATE_ACTIONS = ("create", "reinforce")
REVISION_ACTIONS = ("decrease_confidence", "increase_confidence", "revise")


def gate(
    candidates: Sequence[CandidateIn],
    revisions: Sequence[RevisionIn],
    memories: Sequence[Memory],
    *,
    aliases: Mapping[str, str],
    policy: Policy,
    now: datetime,
    explicit_turn: bool = False,
    forgotten: Sequence[str] = (),
) -> GateResult:
    """Decide every candidate and revision; pure and deterministic.

    Candidates are considered best first (confidence, then position) so that quotas keep
    the strongest; decisions come back in input order. In a turn where the user asked to
    remember (`explicit_turn`), candidates marked `explicit` skip the confidence floor and
    the automatic quotas; every other rule still applies to them. `forgotten` holds texts
    the user asked to forget in this turn: they are not learned again.
    """
    # A forgotten memory is out of play: it is neither reinforced nor a reason to refuse.
    live = [m for m in memories if m.status != "forgotten"]
    by_id = {m.id: m for m in live}
    stored = _StoredFacts(live)
    # Only automatic writes count against the quotas (seed 004).
    created_last_day = sum(
        1 for m in memories if now - m.created_at < timedelta(days=1) and m.source == "reflection"
    )
    allowed = max(0, min(policy.max_per_turn, policy.max_per_day - created_last_day))

    cand_out: dict[int, Decision] = {}
    accepted_prints: list[_Fingerprint] = []
    accepted_index = _AcceptedFacts()
    merged_ids: set[str] = set()
    explicit_count = 0
    order = sorted(range(len(candidates)), key=lambda i: (-candidates[i].confidence, i))

    for i in order:
        c = candidates[i]

        def decide(
            verdict: Verdict,
            reason: str,
            detail: str = "",
            memory_id: str | None = None,
            *,
            index: int = i,
            explicit: bool = False,
        ) -> None:
            cand_out[index] = Decision(
                "candidate", index, verdict, reason, detail, memory_id, explicit
            )

        problem = _invalid_candidate(c, policy)
        if problem:
            decide("rejected", "invalid", problem)
            continue
        screen = screen_content(c.content, policy) or _secret_in_reason(c.reason)
        if screen:
            decide("rejected", screen.reason, screen.detail)
            continue
        explicit = explicit_turn and c.explicit
        if c.confidence < policy.min_confidence and not explicit:
            decide(
                "rejected",
                "low_confidence",
                f"confidence {c.confidence:.2f} < {policy.min_confidence:.2f}",
            )
            continue

        target: str | None = None
        if c.action == "reinforce" and c.target_id is not None:
            target = aliases.get(c.target_id)
            if target is None or target not in by_id:
                decide("rejected", "unknown_target", f"no memory {c.target_id!r} was shown")
                continue
        fingerprint = _Fingerprint.of(c.content)
        if any(_Fingerprint.of(text).same_fact(fingerprint) for text in forgotten):
            decide("rejected", "duplicate", "the user asked to forget this in this turn")
            continue
        if target is None:
            target = stored.find(fingerprint)
        if target is not None:
            if target in merged_ids:
                decide("rejected", "duplicate", f"{target} already reinforced in this turn")
            elif c.action == "reinforce":
                merged_ids.add(target)
                decide("merged", "ok", f"reinforces {target}", target)
            else:
                merged_ids.add(target)
                decide("merged", "duplicate", f"same fact as {target}; reinforced it", target)
            continue
        if accepted_index.has_same(fingerprint):
            decide("rejected", "duplicate", "repeats another candidate of this turn")
            continue
        if explicit:
            accepted_prints.append(fingerprint)
            accepted_index.add(fingerprint)
            explicit_count += 1
            decide("accepted", "ok", "asked for explicitly", explicit=True)
            continue
        if len(accepted_prints) - explicit_count >= allowed:
            if created_last_day + len(accepted_prints) - explicit_count >= policy.max_per_day:
                decide(
                    "rejected",
                    "quota_day",
                    f"{policy.max_per_day} memories already created in 24 hours",
                )
            else:
                decide("rejected", "quota_turn", f"{policy.max_per_turn} accepted this turn")
            continue
        accepted_prints.append(fingerprint)
        accepted_index.add(fingerprint)
        detail = "nothing to reinforce; stored as new" if c.action == "reinforce" else ""
        decide("accepted", "ok", detail)

    rev_out = _decide_revisions(
        revisions, by_id, stored=stored, created=accepted_prints, aliases=aliases, policy=policy
    )
    return GateResult(
        candidates=[cand_out[i] for i in range(len(candidates))],
        revisions=rev_out,
    )


def _invalid_candidate(c: CandidateIn, policy: Policy) -> str | None:
    if c.type not in policy.types:
        return f"type {c.type!r} is not one of {', '.join(policy.types)}"
    if c.subject not in policy.subjects:
        return f"subject {c.subject!r} is not one of {', '.join(policy.subjects)}"
    if not 0.0 <= c.confidence <= 1.0:
        return f"confidence {c.confidence} is outside 0..1"
    if c.action not in CANDIDATE_ACTIONS:
        return f"action {c.action!r} is not one of {', '.join(CANDIDATE_ACTIONS)}"
    if c.decay is not None and c.decay not in DECAY_POLICIES:
        return f"decay {c.decay!r} is not one of {', '.join(DECAY_POLICIES)}"
    return None


def _secret_in_reason(reason: str) -> _Screen | None:
    secret = find_secret(reason)
    return _Screen("secret", f"reason contains a {secret}") if secret else None


def _decide_revisions(
    revisions: Sequence[RevisionIn],
    by_id: Mapping[str, Memory],
    *,
    stored: _StoredFacts,
    created: Sequence[_Fingerprint],
    aliases: Mapping[str, str],
    policy: Policy,
) -> list[Decision]:
    out: list[Decision] = []
    revised: set[str] = set()
    # New texts this turn: created memories and earlier revisions. A revision must not
    # turn a memory into a copy of any of them, nor of another stored memory.
    new_texts: list[_Fingerprint] = list(created)
    for i, r in enumerate(revisions):
        target = aliases.get(r.target_id)
        if target is None or target not in by_id:
            out.append(
                Decision(
                    "revision",
                    i,
                    "rejected",
                    "unknown_target",
                    f"no memory {r.target_id!r} was shown",
                )
            )
            continue
        fingerprint = _Fingerprint.of(r.new_content or "") if r.action == "revise" else None
        verdict, reason, detail = _judge_revision(
            r,
            by_id[target],
            fingerprint=fingerprint,
            stored=stored,
            new_texts=new_texts,
            revised=revised,
            policy=policy,
        )
        out.append(Decision("revision", i, verdict, reason, detail, target))
        if verdict == "accepted":
            revised.add(target)
            if fingerprint is not None:
                new_texts.append(fingerprint)
    return out


def _judge_revision(
    r: RevisionIn,
    memory: Memory,
    *,
    fingerprint: _Fingerprint | None,
    stored: _StoredFacts,
    new_texts: Sequence[_Fingerprint],
    revised: set[str],
    policy: Policy,
) -> tuple[Verdict, str, str]:
    problem = _invalid_revision(r, memory)
    if problem:
        return "rejected", "invalid", problem
    if fingerprint is not None and r.new_content is not None:
        screen = screen_content(r.new_content, policy)
        if screen:
            return "rejected", screen.reason, screen.detail
        clash = stored.find(fingerprint, exclude=memory.id)
        if clash:
            return "rejected", "duplicate", f"would repeat {clash}"
        if any(fp.same_fact(fingerprint) for fp in new_texts):
            return "rejected", "duplicate", "would repeat a memory written in this turn"
    secret = _secret_in_reason(r.reason)
    if secret:
        return "rejected", secret.reason, secret.detail
    if memory.id in revised:
        return "rejected", "duplicate", f"{memory.id} already revised in this turn"
    if len(revised) >= policy.max_revisions_per_turn:
        return "rejected", "quota_turn", f"{policy.max_revisions_per_turn} revisions this turn"
    return "accepted", "ok", ""


def _invalid_revision(r: RevisionIn, memory: Memory) -> str | None:
    if r.action not in REVISION_ACTIONS:
        return f"action {r.action!r} is not one of {', '.join(REVISION_ACTIONS)}"
    if r.new_confidence is not None and not 0.0 <= r.new_confidence <= 1.0:
        return f"new_confidence {r.new_confidence} is outside 0..1"
    if r.action == "revise":
        if r.new_content is None or not r.new_content.strip():
            return "revise needs new_content"
        if r.new_content.strip() == memory.content.strip():
            return "new_content is the same as the memory"
        return None
    if r.new_confidence is None:
        return f"{r.action} needs new_confidence"
    if r.action == "decrease_confidence" and r.new_confidence >= memory.confidence:
        return f"new_confidence {r.new_confidence:.2f} is not below {memory.confidence:.2f}"
    if r.action == "increase_confidence" and r.new_confidence <= memory.confidence:
        return f"new_confidence {r.new_confidence:.2f} is not above {memory.confidence:.2f}"
    return None
