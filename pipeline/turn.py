"""One turn, top to bottom: load → retrieve → respond → reflect → gate → commit → report."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta

from . import store
from .apply import Applied, apply_decisions
from .config import Settings, require_api_key
from .credentials import hide, redact
from .errors import LLMError
from .explicit import asks_to_forget, asks_to_remember, matches_request
from .gate import gate
from .gate import prepare as prepare_gate
from .judge import Judge
from .llm import ChatModel
from .models import (
    CandidateIn,
    GateResult,
    HistoryEntry,
    LtmFile,
    Memory,
    RevisionIn,
    Scope,
    SessionFile,
)
from .prompts import answer_messages, reflection_messages
from .reflect import Completer, propose_memories
from .report import TurnReport
from .retrieval import (
    Embeds,
    PoolStats,
    Retrieved,
    Retriever,
    gate_view,
    in_scope,
    names_memory,
    query_weights,
    retrieve_relevant,
)
from .session import Fold, Recorded, leaving_turns, new_session, new_turn_id, record_turn
from .warm import WarmMemory

RETRIEVAL_HISTORY_TURNS = 2


def utcnow() -> datetime:
    return datetime.now(UTC)


def run_turn(
    user_input: str,
    settings: Settings,
    *,
    start_new_session: bool = False,
    dry_run: bool = False,
    on_answer: Callable[[str], None] = lambda _answer: None,
    model: Completer | None = None,
    clock: Callable[[], datetime] = utcnow,
    report: TurnReport | None = None,
    warm: WarmMemory | None = None,
    answer: str | None = None,
    on_delta: Callable[[str], None] | None = None,
) -> TurnReport:
    """Run one turn; the answer goes to `on_answer` as soon as it exists, before reflection.

    `warm` (chat, or any process that runs many turns) keeps the embedder and the vector
    cache between turns instead of building them again. A given `answer` (an exchange
    answered elsewhere, `Memory.remember`) skips the answer call: only the reflection runs.
    The API key is needed only when no `model` is given and one is built here. With
    `on_delta` the answer is streamed: each piece goes to it as it arrives.
    """
    if model is None:
        require_api_key(settings)  # fail fast, before any work
        with ChatModel(settings) as owned:
            return run_turn(
                user_input,
                settings,
                start_new_session=start_new_session,
                dry_run=dry_run,
                on_answer=on_answer,
                model=owned,
                clock=clock,
                report=report,
                warm=warm,
                answer=answer,
                on_delta=on_delta,
            )
    report = report or new_report(settings, dry_run=dry_run, new_session=start_new_session)
    state_store, started = settings.store, clock()

    with report.stage("load"):
        state_store.ensure_usable()  # a folder that cannot hold state fails before any call
        recalled = recall_for_turn(
            user_input, settings, state_store, start_new=start_new_session, now=started, warm=warm
        )
        state = (
            recalled.snapshot
            if recalled
            else state_store.load(
                now=started, quarantine_ltm=not dry_run and settings.write_mode != "shadow"
            )
        )
    session = open_session(
        state, report, start_new=start_new_session, now=started, name=settings.session_id
    )
    if recalled:
        report.memory_count = recalled.total
    # "remember that…", "forget…" (a forget request matches only what this scope sees)
    requests = read_requests(user_input, state, report, scope=settings.scope)
    with report.stage("retrieve"):
        retriever = warm.retriever if warm else build_retriever(settings)
        used = report.used = retrieve_for_turn(
            state,
            session,
            user_input,
            settings=settings,
            state_store=state_store,
            retriever=retriever,
            report=report,
            now=started,
            exclude=requests.forget_ids,
            warm=warm,
            stats=recalled.stats if recalled else None,
        )
    prepare_gate_while_waiting(model)
    if answer is None:
        with report.stage("answer"):
            answer = respond(
                model,
                used,
                session,
                user_input,
                report,
                actions=requests.actions,
                on_delta=on_delta,
            )
    report.response = answer
    answered = clock()
    on_answer(answer)
    with report.stage("reflect"):
        proposal = reflect_on_turn(
            model,
            report,
            used=used,
            session=session,
            user_input=user_input,
            answer=answer,
            max_turns=settings.session_turns,
        )
    with report.stage("gate"):
        judge = build_judge(retriever, proposal)
        # Before the lock the gate shows what it would decide (and the judge embeds outside
        # the lock); the commit decides. A partial snapshot (lexical: nothing to embed) holds no
        # memories near the candidates: the commit reads those under the lock.
        if not state.partial:
            report.result = gate(
                proposal.candidates,
                proposal.revisions,
                gate_view(state.ltm.memories, settings.scope),
                aliases=proposal.aliases,
                policy=settings.policy,
                now=clock(),
                explicit_turn=requests.explicit,
                forgotten=requests.forget_texts,
                user_text=user_input,
                judge=judge,
            )
            hide(report.result.hidden)
    pending = PendingTurn(
        turn_id=report.turn_id,
        session=session,
        start_new_session=start_new_session,
        user_input=user_input,
        answer=answer,
        started=started,
        answered=answered,
        proposal=proposal,
        requests=requests,
        judge=judge,
    )
    with report.stage("commit"):
        commit_turn(
            state_store, settings, pending, report, dry_run=dry_run, now=clock(), known=state
        )
        # The judge's vectors are the retriever's: reuse them rather than embed again.
        embedder = judge if judge is not None and judge.embedder is not None else None
        embed_written(state_store, settings, embedder or retriever.embedder, report)
    return report


def new_report(settings: Settings, *, dry_run: bool, new_session: bool) -> TurnReport:
    return TurnReport(
        model=settings.model,
        endpoint=settings.endpoint_host,
        store=settings.store.describe(),
        dry_run=dry_run,
        new_session=new_session,
        user_id=settings.user_id,
        write_mode=settings.write_mode,
    )


def recall_for_turn(
    user_input: str,
    settings: Settings,
    state_store: store.Store,
    *,
    start_new: bool,
    now: datetime,
    warm: WarmMemory | None = None,
) -> store.Recalled | None:
    """The memories this turn's retrieval can show, read through the store's index; None
    when the store has none or the turn ranks every memory anyway (semantic retrieval, a
    forget request, a memory named by id)."""
    semantic = warm.retriever.embedder is not None if warm else settings.semantic_retrieval()
    if semantic or asks_to_forget(user_input) or names_memory(user_input):
        return None

    def weights(stored: SessionFile | None) -> dict[str, float]:
        earlier = [] if start_new or stored is None else stored.messages
        history = [m.content for m in earlier if m.role == "user"]
        return query_weights(user_input, history[-RETRIEVAL_HISTORY_TURNS:])

    request = store.Recall(
        weights=weights,
        scope=settings.scope,
        min_confidence=settings.policy.min_confidence,
        horizon_hours=settings.decay_horizon_hours,
        limit=settings.memory_max_items,
    )
    return state_store.recall(request, now=now)


def open_session(
    state: store.Snapshot,
    report: TurnReport,
    *,
    start_new: bool,
    now: datetime,
    name: str | None = None,
) -> SessionFile:
    """The session this turn belongs to: the stored one, or a new one."""
    report.warnings.extend(state.warnings)
    report.memory_count = len(state.ltm.memories)
    session = state.session if state.session and not start_new else new_session(now, name)
    report.session_id, report.turn_id = session.session_id, new_turn_id()
    return session


def build_retriever(settings: Settings) -> Retriever:
    """Lexical, or semantic when configured (MEMTEST_RETRIEVER) and installed."""
    return Retriever.create(semantic=settings.semantic_retrieval())


@dataclass(frozen=True)
class Requests:
    """What the user asked of memory itself this turn (seed 004)."""

    explicit: bool = False
    forget: Memory | None = None
    actions: list[str] = field(default_factory=list)

    @property
    def forget_ids(self) -> set[str]:
        return {self.forget.id} if self.forget else set()

    @property
    def forget_texts(self) -> list[str]:
        return [self.forget.content] if self.forget else []


def read_requests(
    user_input: str, state: store.Snapshot, report: TurnReport, *, scope: Scope | None = None
) -> Requests:
    """Explicit remember and forget requests in the input. A forget request is matched, by
    its words, to one active memory, which is then left out of this turn's prompt; the
    answer prompt is told what was done so the answer can say so."""
    explicit = asks_to_remember(user_input)
    report.explicit = explicit
    request = asks_to_forget(user_input)
    if request is None:
        return Requests(explicit=explicit)
    active = [m for m in in_scope(state.ltm.memories, scope or Scope()) if m.status == "active"]
    ranked = Retriever().index(active).rank(request.about or user_input, limit=1).scored
    target = ranked[0].memory if ranked else None
    if target is None or not matches_request(request, target.content, None):
        report.forget_note = f"asked to forget {request.about!r}: no stored memory matches"
        return Requests(
            explicit=explicit,
            actions=[
                "The user asked to forget something, but no stored memory matches it: say so, "
                "and ask what exactly to forget."
            ],
        )
    report.forget_note = f"forgotten at the user's request: {target.id} ({target.content})"
    return Requests(
        explicit=explicit,
        forget=target,
        actions=[
            f"At the user's request this memory was forgotten and will not be used again: "
            f'"{target.content}". Confirm it briefly.'
        ],
    )


def retrieve_for_turn(
    state: store.Snapshot,
    session: SessionFile,
    user_input: str,
    *,
    settings: Settings,
    state_store: store.Store,
    retriever: Retriever,
    report: TurnReport,
    now: datetime,
    exclude: AbstractSet[str] = frozenset(),
    warm: WarmMemory | None = None,
    stats: PoolStats | None = None,
) -> list[Retrieved]:
    """Memories for this input, with the last user turns as context for follow-ups.

    With embeddings, vectors come from the store's cache; missing ones (a memory
    written by an older version, or a lost cache) are embedded now and saved.
    """
    # Only what this turn's project and agent may see is ranked at all (seed 003).
    memories = [m for m in in_scope(state.ltm.memories, settings.scope) if m.id not in exclude]
    vectors = None
    if warm is not None and retriever.embedder is not None:
        vectors, cached, embedded = warm.vectors_for(memories)
        report.retrieval_notes.append(f"vectors: {cached} cached, {embedded} embedded now")
    elif retriever.embedder is not None:
        from .embeddings import cached_vectors

        vectors, cached, embedded = cached_vectors(
            state_store,
            [m.content for m in memories],
            retriever.embedder,
            save_lock_timeout=settings.lock_timeout,
        )
        report.retrieval_notes.append(f"vectors: {cached} cached, {embedded} embedded now")
    earlier = [m.content for m in session.messages if m.role == "user"]
    retrieval = retrieve_relevant(
        memories,
        query=user_input,
        history=earlier[-RETRIEVAL_HISTORY_TURNS:],
        min_confidence=settings.policy.min_confidence,
        token_budget=settings.memory_token_budget,
        max_items=settings.memory_max_items,
        retriever=retriever,
        vectors=vectors,
        now=now,
        horizon_hours=settings.decay_horizon_hours,
        stats=stats,
    )
    report.selection_mode = retrieval.selection_mode
    return retrieval.used


def prepare_gate_while_waiting(model: Completer) -> None:
    """Read the gate's patterns and models in a background thread while the model answers.

    The thread starts once the request is out (`ChatModel.while_waiting`): started before,
    it holds the interpreter while the turn builds and sends the request, and delays the
    answer by as much as it saves the gate. A model that cannot say when it waits gets the
    thread at once."""

    def start() -> None:
        threading.Thread(target=_prepare_gate_quietly, name="prepare-gate", daemon=True).start()

    while_waiting = getattr(model, "while_waiting", None)
    if callable(while_waiting):
        while_waiting(start)
    else:
        start()


def _prepare_gate_quietly() -> None:
    """The gate's warm-up, in the background: what fails here (a model file that cannot be
    read) fails again where the gate needs it, and is reported there."""
    with contextlib.suppress(Exception):
        prepare_gate()


def build_judge(retriever: Retriever, proposal: Proposal) -> Judge | None:
    """The learned judgement, when there is something to judge: with the retriever's
    embedder when embeddings are on (the gate embeds, in one batch, only the texts that
    reach it), by character n-grams alone otherwise."""
    if not (proposal.candidates or proposal.revisions):
        return None
    return Judge(retriever.embedder)


def embed_written(
    state_store: store.Store, settings: Settings, embedder: Embeds | None, report: TurnReport
) -> None:
    """Embed the memories this turn created or revised, so the next turn finds them cached
    (the judge has already embedded most of them)."""
    if embedder is None:
        return
    texts = [w["content"] for w in report.writes if w["event"] == "created"]
    texts += [w["after"]["content"] for w in report.writes if w["event"] == "revised"]
    if not texts:
        return
    from .embeddings import embed_new

    embed_new(state_store, texts, embedder, lock_timeout=settings.lock_timeout)


def respond(
    model: Completer,
    used: list[Retrieved],
    session: SessionFile,
    user_input: str,
    report: TurnReport,
    *,
    actions: Sequence[str] = (),
    on_delta: Callable[[str], None] | None = None,
) -> str:
    """LLM call #1: the answer, streamed to `on_delta` if given. An empty answer is a
    failed turn."""
    messages = answer_messages(
        used=used,
        summary=session.session_summary,
        recent=session.messages,
        user_input=user_input,
        actions=actions,
    )
    if on_delta is None:
        completion = model.complete(messages)
    else:
        completion = model.complete(messages, on_delta=on_delta)
    report.add_usage("answer", completion.usage)
    if completion.attempts > 1:
        report.warnings.append(f"answer took {completion.attempts} attempts")
    answer = completion.text.strip()
    if not answer:
        raise LLMError("The model returned an empty answer; nothing was saved.")
    return answer


@dataclass(frozen=True)
class Proposal:
    """What the reflection proposed (empty when the memory step was skipped)."""

    candidates: list[CandidateIn] = field(default_factory=list)
    revisions: list[RevisionIn] = field(default_factory=list)
    fold: Fold | None = None
    aliases: dict[str, str] = field(default_factory=dict)


def reflect_on_turn(
    model: Completer,
    report: TurnReport,
    *,
    used: list[Retrieved],
    session: SessionFile,
    user_input: str,
    answer: str,
    max_turns: int,
) -> Proposal:
    """LLM call #2. Fails open: any failure here skips the memory step, never the turn."""
    leaving_ids = leaving_turns(session, max_turns)
    leaving = [m for m in session.messages if m.turn_id in leaving_ids]
    messages = reflection_messages(
        used=used,
        recent=session.messages,
        user_input=user_input,
        answer=answer,
        summary=session.session_summary,
        leaving=leaving,
    )
    try:
        reflection = propose_memories(model, messages)
    except LLMError as exc:
        report.memory_step, report.memory_step_note = "skipped", f"reflection call failed: {exc}"
        return Proposal()
    for call in reflection.calls:
        report.add_usage("reflection", call.usage)
    report.reflection_errors = reflection.errors
    if reflection.reply is None:
        report.memory_step = "skipped"
        report.memory_step_note = (
            "reflection reply was invalid twice (re-asked once); "
            "nothing written to long-term memory"
        )
        return Proposal()
    report.memory_step = "ok"
    if reflection.errors:
        report.memory_step_note = "valid after one re-ask"
    reply = reflection.reply
    report.candidates, report.revisions = reply.candidates, reply.revisions
    fold = None
    if leaving and reply.session_summary and reply.session_summary.strip():
        fold = Fold(
            turn_ids=tuple(leaving_ids),
            base_summary=session.session_summary,
            summary=reply.session_summary,
        )
    elif leaving:
        report.session_notes.append(
            "summary was asked for but not given; older turns kept verbatim until the next turn"
        )
    return Proposal(
        candidates=reply.candidates,
        revisions=reply.revisions,
        fold=fold,
        aliases={r.alias: r.memory.id for r in used},
    )


@dataclass(frozen=True)
class PendingTurn:
    """Everything the commit needs, computed outside the lock."""

    turn_id: str
    session: SessionFile
    start_new_session: bool
    user_input: str
    answer: str
    started: datetime
    answered: datetime
    proposal: Proposal
    requests: Requests = field(default_factory=Requests)
    judge: Judge | None = None


def forget_on_disk(
    ltm: LtmFile, requests: Requests, turn_id: str, now: datetime
) -> list[HistoryEntry]:
    """Mark the memory the user asked to forget as forgotten, if it is still active."""
    if requests.forget is None:
        return []
    for i, memory in enumerate(ltm.memories):
        if memory.id == requests.forget.id and memory.status == "active":
            ltm.memories[i] = memory.model_copy(update={"status": "forgotten"})
            return [
                HistoryEntry(
                    memory_id=memory.id,
                    at=now,
                    event="forgotten",
                    turn_id=turn_id,
                    reason="the user asked to forget it",
                    before={"status": "active", "content": memory.content},
                    after={"status": "forgotten"},
                )
            ]
    return []


def count_decisions(result: GateResult) -> dict[str, int]:
    """Seed 004's counters for one turn: attempts, accepted, rejected by reason, deduped,
    skipped for quota."""
    counts: dict[str, int] = {}

    def add(key: str) -> None:
        counts[key] = counts.get(key, 0) + 1

    for d in result.candidates:
        add("attempts")
        if d.verdict == "accepted":
            add("accepted")
        elif d.verdict == "merged":
            add("deduped")
        else:
            add(f"rejected_{d.reason}")
            if d.reason in ("quota_turn", "quota_day"):
                add("skipped_quota")
    return counts


def commit_focus(proposal: Proposal, requests: Requests, now: datetime) -> store.Focus:
    """The memories a turn's commit reads: those the gate may find the same fact as a
    proposed text, those the proposal or a forget request names, and those created in
    the day before `now` (the daily quota counts them)."""
    texts = [c.content for c in proposal.candidates]
    texts += [r.new_content for r in proposal.revisions if r.new_content is not None]
    ids = set(proposal.aliases.values()) | requests.forget_ids
    return store.Focus(
        texts=tuple(texts), ids=frozenset(ids), created_since=now - timedelta(days=1)
    )


def commit_turn(
    state_store: store.Store,
    settings: Settings,
    pending: PendingTurn,
    report: TurnReport,
    *,
    dry_run: bool,
    now: datetime,
    known: store.Snapshot | None = None,
) -> None:
    """Under the lock: re-run the gate on what is on disk now, apply it, record the turn.

    `known` is the snapshot the turn started from; if ltm.json has not changed since, the
    store reuses it instead of parsing the file again.
    """

    # Shadow mode (seed 004) is a dry run for the whole setup, except that the gate's
    # decisions are still counted.
    no_ltm_writes = dry_run or settings.write_mode == "shadow"

    def merge(disk: store.Snapshot) -> store.Change[tuple[Applied, Recorded]]:
        archive = None
        if pending.start_new_session:
            archive = disk.session if disk.session and disk.session.messages else None
            base = pending.session
        elif disk.session is None:
            # Gone since we loaded it (cleared by another process): start it again, empty.
            base = pending.session.model_copy(update={"messages": [], "session_summary": ""})
        else:
            base = disk.session  # appended to as it is now, so a concurrent turn is kept
        proposal, requests = pending.proposal, pending.requests
        forgot = [] if no_ltm_writes else forget_on_disk(disk.ltm, requests, pending.turn_id, now)
        result = gate(
            proposal.candidates,
            proposal.revisions,
            gate_view(disk.ltm.memories, settings.scope),
            aliases=proposal.aliases,
            policy=settings.policy,
            now=now,
            explicit_turn=requests.explicit,
            forgotten=requests.forget_texts,
            user_text=pending.user_input,
            judge=pending.judge,
        )
        hide(result.hidden)
        # Everything the session keeps is redacted here: the turn, and the model's summary
        # of older turns; after the gate, which may have read a value in a candidate as a
        # secret that the user's words hold too.
        fold = pending.proposal.fold
        recorded = record_turn(
            base,
            turn_id=pending.turn_id,
            user_input=redact(pending.user_input),
            answer=redact(pending.answer),
            started=pending.started,
            answered=pending.answered,
            fold=replace(fold, summary=redact(fold.summary)) if fold else None,
            max_turns=settings.session_turns,
        )
        applied = Applied(result)
        if not no_ltm_writes:
            applied = apply_decisions(
                disk.ltm,
                proposal.candidates,
                proposal.revisions,
                result,
                turn_id=pending.turn_id,
                now=now,
                drafts=settings.write_mode == "review",
                labels=settings.scope.labels(),
            )
        applied.writes[:0] = [
            {"event": "forgotten", "memory_id": h.memory_id, "content": h.before["content"]}
            for h in forgot
            if h.before
        ]
        return store.Change(
            result=(applied, recorded),
            ltm=disk.ltm if applied.writes else None,
            session=recorded.session,
            archive_session=archive,
            history=[*forgot, *applied.history],
            counters={} if dry_run else count_decisions(applied.result),
            overflow=recorded.archived,
        )

    (applied, recorded), warnings = state_store.transact(
        merge,
        now=now,
        lock_timeout=settings.lock_timeout,
        write_ltm=not no_ltm_writes,
        known=known,
        focus=commit_focus(pending.proposal, pending.requests, now),
    )
    report.warnings.extend(warnings)
    report.result, report.writes = applied.result, applied.writes
    report.session_id = recorded.session.session_id
    if recorded.folded:
        report.session_notes.append(f"{recorded.folded} older turn(s) folded into the summary")
    if recorded.archived_turns:
        report.session_notes.append(
            f"{recorded.archived_turns} oldest turn(s) left the session without a summary "
            "(window cap reached); archived in sessions/overflow/"
        )
