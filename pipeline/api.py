"""The library: one user's memory as a Python object. The CLI and chat are its clients.

    from pipeline import Memory
    memory = Memory("state", user="sam")
    memory.add("User is vegan", type="identity")
    memory.search("what do I eat?")

Methods return plain typed values (frozen dataclasses and the stored pydantic models),
raise errors from `pipeline.errors`, and never print. Only `Memory.from_env` reads the
process environment and `.env`. Store warnings (a file moved aside, a cache rebuilt)
collect in `Memory.warnings` for the caller to show.
"""

from __future__ import annotations

import builtins
import json
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from . import store
from .config import (
    DEFAULT_BASE_URL,
    DEFAULT_MODEL,
    Locations,
    Settings,
    validate_id,
    validate_label,
)
from .credentials import redact
from .errors import NotFound, UsageError
from .models import CandidateIn, GateResult, HistoryEntry, LtmFile, Scope
from .models import Memory as StoredMemory

if TYPE_CHECKING:
    from .health import Health
    from .migrate import MigrateResult
    from .reflect import Completer
    from .report import TurnReport
    from .warm import WarmMemory


def utcnow() -> datetime:
    return datetime.now(UTC)


# --- Return values -------------------------------------------------------------------------


@dataclass(frozen=True)
class MemoryView:
    """A stored memory and its confidence now (after decay)."""

    memory: StoredMemory
    current_confidence: float

    @property
    def id(self) -> str:
        return self.memory.id

    @property
    def content(self) -> str:
        return self.memory.content

    def to_json(self) -> dict[str, Any]:
        """Every stored field, seed 003's labels (unset: null, false), and
        `current_confidence` rounded to 4 places."""
        labels = self.memory.labels()
        stored = self.memory.model_dump(mode="json")
        return {
            **{k: v for k, v in stored.items() if k not in labels},
            **labels,
            "current_confidence": round(self.current_confidence, 4),
        }


@dataclass(frozen=True)
class SearchHit:
    """One memory found by `search` or `recall`: its score and why it ranked."""

    memory: MemoryView
    score: float
    why: str
    alias: str = ""  # the short id (m1, m2...) a turn shows the model


@dataclass(frozen=True)
class SearchResult:
    """Memories best first, and the rule that ordered them (`selection_mode`)."""

    hits: list[SearchHit]
    selection_mode: str


@dataclass(frozen=True)
class GateVerdict:
    """What the gate decided for one memory offered by `add` or `import_lines`."""

    content: str  # redacted
    verdict: str  # accepted, merged or rejected
    reason: str
    detail: str = ""
    memory_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "content": self.content,
            "verdict": self.verdict,
            "reason": self.reason,
            "detail": self.detail,
            "memory_id": self.memory_id,
        }


@dataclass(frozen=True)
class StatusChange:
    """The outcome of forget, restore or approve: `changed` is False when the memory
    already had that status. A purge has status "purged" and no content."""

    id: str
    status: str
    changed: bool
    content: str | None = None


@dataclass(frozen=True)
class Stats:
    """Counts by status and type, the gate's counters and the size of each state file."""

    user_id: str
    memories: int
    by_status: dict[str, int]
    by_type: dict[str, int]
    counters: dict[str, int]
    file_bytes: dict[str, int]


@dataclass(frozen=True)
class Cleared:
    """What `clear` removed: memories and session turns (None: not asked to clear it)."""

    memories: int | None = None
    turns: int | None = None


@dataclass(frozen=True)
class TurnResult:
    """One finished turn: the answer, where it was recorded, and the full report
    (memories used, gate decisions, writes, usage, timings)."""

    answer: str
    session_id: str
    turn_id: str
    memory_step: str
    report: TurnReport

    @classmethod
    def of(cls, report: TurnReport) -> TurnResult:
        """The result a finished turn's report describes."""
        return cls(
            answer=report.response,
            session_id=report.session_id,
            turn_id=report.turn_id,
            memory_step=report.memory_step,
            report=report,
        )

    @property
    def memories_used(self) -> list[str]:
        return [r.memory.id for r in self.report.used]


# --- The facade ----------------------------------------------------------------------------


class Memory:
    """One user's long-term memory and sessions, in one state folder."""

    def __init__(
        self,
        state_dir: str | Path | None = None,
        *,
        user: str | None = None,
        session: str | None = None,
        store: str | None = None,
        settings: Settings | None = None,
    ) -> None:
        """Open the memory in `state_dir` (default: the installed command's data folder,
        ~/.local/share/memory-test), or in the PostgreSQL database `store` names
        (postgresql://…). `settings` carries everything else (model, endpoint, quotas);
        without it the defaults apply and no API key is known."""
        if settings is None:
            folder = Path(state_dir) if state_dir is not None else Locations.installed().state_dir
            settings = Settings(
                api_key=None, base_url=DEFAULT_BASE_URL, model=DEFAULT_MODEL, state_dir=folder
            )
        elif state_dir is not None:
            settings = replace(settings, state_dir=Path(state_dir))
        if user is not None:
            settings = replace(settings, user_id=validate_id("user", user))
        if session is not None:
            settings = replace(settings, session_id=validate_id("session", session))
        if store is not None:
            from .pgstore import check_url

            settings = replace(settings, store_url=check_url(store, setting="store"))
        self.settings = settings
        self.warnings: builtins.list[str] = []
        self._warm: WarmMemory | None = None

    @classmethod
    def from_env(
        cls,
        *,
        state_dir: str | Path | None = None,
        user: str | None = None,
        session: str | None = None,
        env_file: str | Path | None = None,
        store: str | None = None,
        project_dir: Path | None = None,
    ) -> Memory:
        """Settings as the command line resolves them: arguments, then the environment,
        then `.env`, then defaults (the key from MOONSHOT_API_KEY)."""
        from .config import load_settings

        settings = load_settings(
            state_dir=None if state_dir is None else str(state_dir),
            env_file=None if env_file is None else str(env_file),
            user=user,
            session=session,
            store=store,
            project_dir=project_dir,
        )
        return cls(settings=settings)

    @property
    def user_id(self) -> str:
        return self.settings.user_id

    def _settings_for(
        self, session: str | None, project: str | None = None, agent: str | None = None
    ) -> Settings:
        settings = self.settings
        if session is not None:
            settings = replace(settings, session_id=validate_id("session", session))
        if project is not None or agent is not None:
            scope = self.scope(project=project, agent=agent)
            settings = replace(settings, project=scope.project, agent=scope.agent)
        return settings

    def _note(self, warnings: Sequence[str]) -> None:
        self.warnings.extend(warnings)

    def _view(self, memory: StoredMemory, now: datetime) -> MemoryView:
        return MemoryView(memory, memory.current_confidence(now, self.settings.decay_horizon_hours))

    def _load(self, now: datetime) -> LtmFile:
        snapshot = self.settings.store.load(now=now)
        self._note(snapshot.warnings)
        return snapshot.ltm

    # --- Turns ----------------------------------------------------------------------------

    def turn(
        self,
        text: str,
        *,
        model: Completer | None = None,
        session: str | None = None,
        new_session: bool = False,
        dry_run: bool = False,
        on_answer: Callable[[str], None] | None = None,
        on_delta: Callable[[str], None] | None = None,
        report: TurnReport | None = None,
        project: str | None = None,
        agent: str | None = None,
    ) -> TurnResult:
        """One turn: recall, answer, reflect, gate, commit. With `model=None` the library
        builds its own client from the settings, and then needs the API key.

        `on_answer` gets the answer as soon as it exists (before reflection); with
        `on_delta` the answer is streamed and each piece goes to it as it arrives; `report`, if
        given, is filled as the turn goes, so a caller still has it when the turn fails.
        `project` and `agent` scope what is recalled and label what is learned."""
        from .turn import new_report, run_turn

        text = self._checked("the input", text)
        settings = self._settings_for(session, project, agent)
        report = report or new_report(settings, dry_run=dry_run, new_session=new_session)
        run_turn(
            text,
            settings,
            start_new_session=new_session,
            dry_run=dry_run,
            on_answer=on_answer or (lambda _answer: None),
            on_delta=on_delta,
            model=model,
            report=report,
            warm=self._warm,
        )
        return TurnResult.of(report)

    def remember(
        self,
        user_text: str,
        answer: str,
        *,
        model: Completer | None = None,
        session: str | None = None,
        dry_run: bool = False,
        project: str | None = None,
        agent: str | None = None,
    ) -> TurnResult:
        """Reflect on, gate and commit one exchange that was answered elsewhere (by a
        framework's own model): the model is called once, for the reflection only."""
        from .turn import new_report, run_turn

        user_text = self._checked("user_text", user_text)
        answer = self._checked("answer", answer)
        settings = self._settings_for(session, project, agent)
        report = new_report(settings, dry_run=dry_run, new_session=False)
        run_turn(
            user_text,
            settings,
            dry_run=dry_run,
            model=model,
            report=report,
            warm=self._warm,
            answer=answer,
        )
        return TurnResult.of(report)

    def _checked(self, what: str, text: str) -> str:
        """`text` stripped; a UsageError before any model call when it is empty or over
        the input limit (MEMTEST_MAX_INPUT_KB)."""
        if not text.strip():
            raise UsageError(f"{what} is empty; nothing was sent to the model")
        _require_utf8(text, what, "nothing was sent to the model")
        limit = self.settings.max_input_bytes
        if len(text.encode("utf-8", "surrogatepass")) > limit:
            raise UsageError(
                f"{what} is over the limit of {limit:,} bytes (MEMTEST_MAX_INPUT_KB); "
                "nothing was sent to the model"
            )
        return text.strip()

    def keep_warm(self) -> None:
        """Keep the embedder and vector cache between calls (a process that serves many)."""
        from .warm import WarmMemory

        if self._warm is None:
            self._warm = WarmMemory(self.settings)

    # --- Reading --------------------------------------------------------------------------

    def scope(
        self,
        *,
        project: str | None = None,
        agent: str | None = None,
        personality: str | None = None,
    ) -> Scope:
        """The scope of one call: the labels given, else this memory's project and agent
        (settings: --project, --agent, MEMTEST_PROJECT, MEMTEST_AGENT)."""
        given = {"project": project, "agent": agent, "personality": personality}
        for name, value in given.items():
            if value is not None:
                given[name] = validate_label(name, value)
        return Scope(
            project=given["project"] or self.settings.project,
            agent=given["agent"] or self.settings.agent,
            personality=given["personality"],
        )

    def recall(
        self,
        query: str,
        history: Sequence[str] = (),
        *,
        project: str | None = None,
        agent: str | None = None,
    ) -> builtins.list[SearchHit]:
        """The memories a turn with this input would show the model, best first, under the
        turn's budget and confidence floor; `history` is the previous user turns. Only
        memories the scope sees are recalled (see `scope`)."""
        return self._retrieve(
            query,
            history=history,
            min_confidence=self.settings.policy.min_confidence,
            token_budget=self.settings.memory_token_budget,
            max_items=self.settings.memory_max_items,
            keep=self.scope(project=project, agent=agent).admits,
        ).hits

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        type: str | None = None,
        project: str | None = None,
        agent: str | None = None,
        personality: str | None = None,
        only_global: bool = False,
    ) -> SearchResult:
        """Memories relevant to `query`, best first, with the turn's retriever (no budget,
        no confidence floor), among those the scope sees; `only_global`: global ones only."""
        return self._retrieve(
            query,
            history=(),
            min_confidence=0.0,
            token_budget=10**9,
            max_items=max(1, limit),
            keep=_matcher(
                self.scope(project=project, agent=agent, personality=personality),
                type=type,
                only_global=only_global,
            ),
        )

    def _retrieve(
        self,
        query: str,
        *,
        history: Sequence[str],
        min_confidence: float,
        token_budget: int,
        max_items: int,
        keep: Callable[[StoredMemory], bool],
    ) -> SearchResult:
        from .retrieval import Retriever, retrieve_relevant

        now = utcnow()
        vectors = None
        if self._warm is not None:
            # Parsed memories and their vector matrix are reused until the store changes.
            stored, matrix = self._warm.memories_and_vectors(now)
            chosen = [i for i, m in enumerate(stored) if keep(m)]
            memories = [stored[i] for i in chosen]
            retriever = self._warm.retriever
            if matrix is not None:
                vectors = matrix if len(chosen) == len(stored) else matrix[chosen]
        else:
            memories = [m for m in self._load(now).memories if keep(m)]
            retriever = Retriever.create(semantic=self.settings.semantic_retrieval())
        if self._warm is None and retriever.embedder is not None:
            from .embeddings import cached_vectors

            vectors, _, _ = cached_vectors(
                self.settings.store,
                [m.content for m in memories],
                retriever.embedder,
                save_lock_timeout=self.settings.lock_timeout,
            )
        found = retrieve_relevant(
            memories,
            query=query,
            history=list(history),
            min_confidence=min_confidence,
            token_budget=token_budget,
            max_items=max_items,
            retriever=retriever,
            vectors=vectors,
            now=now,
            horizon_hours=self.settings.decay_horizon_hours,
        )
        hits = [SearchHit(self._view(r.memory, now), r.score, r.why, r.alias) for r in found.used]
        return SearchResult(hits, found.selection_mode)

    def list(
        self,
        *,
        all: bool = False,
        type: str | None = None,
        project: str | None = None,
        agent: str | None = None,
        personality: str | None = None,
        only_global: bool = False,
        scoped: bool = True,
    ) -> builtins.list[MemoryView]:
        """Active memories (with `all`, also forgotten ones and drafts) that the scope sees,
        optionally of one type; `only_global`: global ones only. `scoped=False` ignores
        the default project and agent (an export takes every memory)."""
        now = utcnow()
        scope = self.scope(project=project, agent=agent, personality=personality)
        if not scoped:
            scope = Scope(project=project, agent=agent, personality=personality)
        keep = _matcher(scope, type=type, only_global=only_global)
        return [
            self._view(m, now)
            for m in self._load(now).memories
            if (all or m.status == "active") and keep(m)
        ]

    def status(self) -> Health:
        """Seed 003's `status`: whether the store can be read (nothing is moved aside),
        its schema version, the lock, files moved aside earlier, and the counts."""
        from .health import check_health

        return check_health(self.settings.store, now=utcnow())

    def export(self, *, all: bool = False) -> builtins.list[dict[str, Any]]:
        """Memories as `memory export` writes them: every stored field, and under `history`
        each memory's whole history, oldest first, so an import elsewhere keeps both."""
        now = utcnow()
        ltm = self._load(now)
        by_memory: dict[str, builtins.list[dict[str, Any]]] = {}
        for entry in self.settings.store.read_history(ltm):
            by_memory.setdefault(entry.memory_id, []).append(entry.model_dump(mode="json"))
        return [
            {**m.model_dump(mode="json"), EXPORTED_HISTORY: by_memory.get(m.id, [])}
            for m in ltm.memories
            if all or m.status == "active"
        ]

    def get(self, memory_id: str) -> MemoryView:
        """One memory, whatever its status; NotFound if this user has no such id."""
        now = utcnow()
        return self._view(self._find(self._load(now), memory_id), now)

    def history(self, memory_id: str) -> builtins.list[HistoryEntry]:
        """Every change to one memory, oldest first."""
        ltm = self._load(utcnow())
        return self.settings.store.read_history(ltm, self._find(ltm, memory_id).id)

    def stats(self) -> Stats:
        """Counts by status and type, the gate's counters and file sizes."""
        state = self.settings.store
        ltm = self._load(utcnow())
        return Stats(
            user_id=self.user_id,
            memories=len(ltm.memories),
            by_status=dict(Counter(m.status for m in ltm.memories)),
            by_type=dict(Counter(m.type for m in ltm.memories if m.status == "active")),
            counters=state.read_counters(),
            file_bytes=state.usage(),
        )

    def _find(self, ltm: LtmFile, memory_id: str) -> StoredMemory:
        for memory in ltm.memories:
            if memory.id == memory_id:
                return memory
        raise NotFound(
            f"no memory {memory_id!r} for user {self.user_id} "
            "(see `memory_test.py memory list --all`)"
        )

    # --- Changing -------------------------------------------------------------------------

    def forget(self, memory_id: str, *, purge: bool = False) -> StatusChange:
        """Forget a memory (restorable); with `purge`, remove its text for good from the
        store, its history and the session transcripts."""
        if purge:
            result, warnings = self.settings.store.purge_memory(
                memory_id, now=utcnow(), lock_timeout=self.settings.lock_timeout
            )
            self._note(warnings)
            if result is None:
                raise NotFound(f"no memory {memory_id!r} for user {self.user_id}")
            return StatusChange(memory_id, "purged", True)
        return self._move(memory_id, to="forgotten", allowed_from=("active", "draft"))

    def restore(self, memory_id: str) -> StatusChange:
        """Bring back a forgotten memory."""
        return self._move(memory_id, to="active", allowed_from=("forgotten",), event="restored")

    def approve(self, memory_id: str) -> StatusChange:
        """Make a draft (review mode) active."""
        return self._move(memory_id, to="active", allowed_from=("draft",), event="approved")

    def reinforce(self, memory_id: str) -> MemoryView:
        """Confirm an active memory: reset its decay and count a hit."""

        def change(memory: StoredMemory, now: datetime) -> _Outcome:
            if memory.status != "active":
                raise UsageError(
                    f"{memory.id} is {memory.status}; only active memories are "
                    "reinforced (restore or approve it first)"
                )
            before = {
                "hit_count": memory.hit_count,
                "last_reinforced": memory.last_reinforced.isoformat(),
            }
            memory.hit_count += 1
            memory.last_reinforced = now
            after = {"hit_count": memory.hit_count, "last_reinforced": now.isoformat()}
            return "reinforced", before, after

        memory, _ = self._change(memory_id, change)
        return self._view(memory, utcnow())

    def add(
        self,
        content: str,
        *,
        type: str,
        subject: str = "user",
        decay: str | None = None,
        project: str | None = None,
        agent: str | None = None,
        personality: str | None = None,
        is_global: bool = False,
    ) -> GateVerdict:
        """Write a memory through the gate (secrets, planted instructions, junk and
        duplicates are refused; quotas and the confidence floor are not applied).

        It is labelled with the scope's project, agent and personality; a duplicate is
        looked for only among the memories that scope sees (a global memory: among those
        seen everywhere), so the same fact in two projects is one memory in each."""
        _require_utf8(content, "the memory's text", "nothing was written")
        candidate = CandidateIn(
            type=type,
            subject=subject,
            content=content,
            confidence=1.0,
            reason="added by hand",
            decay=decay,
        )
        scope = self.scope(project=project, agent=agent, personality=personality)
        return self._write_through_gate(
            [candidate], source="human", scope=scope, is_global=is_global
        )[0]

    def import_lines(self, handle: IO[bytes], *, name: str) -> builtins.list[GateVerdict]:
        """Add memories from JSON lines (as `memory export` writes them), through the gate,
        in one commit. A whole exported memory keeps its fields, its history and, when
        free, its id; the history then records the import as well."""
        candidates: builtins.list[CandidateIn] = []
        originals: builtins.list[dict[str, Any]] = []
        for number, row in _import_rows(handle, name, self.settings.paths.max_bytes):
            try:
                row = _with_history(row)
                candidate = CandidateIn(
                    type=row["type"],
                    subject=row.get("subject", "user"),
                    content=row["content"],
                    confidence=float(row.get("confidence", 1.0)),
                    reason=row.get("reason") or "imported",
                    decay=row.get("decay"),
                )
                # A full row (from `memory export`) must be a valid memory as it stands.
                if row.keys() >= _FULL_ROW:
                    fields = {k: v for k, v in row.items() if k not in _COMPUTED | {_HISTORY}}
                    validated = StoredMemory.model_validate({**fields, "id": "mem_import"})
                    row = {**row, _VALIDATED: validated}
                else:
                    row = {**row, _LABELS: _row_labels(row)}
            except (ValueError, KeyError, TypeError, RecursionError) as exc:
                reason = "nested too deeply" if isinstance(exc, RecursionError) else exc
                raise UsageError(f"{name} line {number}: not a memory ({reason})") from None
            candidates.append(candidate)
            originals.append(row)
        return self._write_through_gate(candidates, source="import", originals=originals)

    def clear(self, *, memory: bool = True, session: bool = False) -> Cleared:
        """Delete this user's long-term memory (and its history) and/or the session's turns;
        immediate, and a no-op (count 0) when already empty."""
        timeout = self.settings.lock_timeout
        turns = self.settings.store.clear_session(lock_timeout=timeout) if session else None
        removed = self.settings.store.clear_memory(lock_timeout=timeout) if memory else None
        return Cleared(memories=removed, turns=turns)

    def migrate(self, *, to: store.Store | str | Path) -> MigrateResult:
        """Copy this user's whole state (memories, history, counters, next_seq, every
        session) into an empty store: a postgresql:// URL, a state folder or a Store.

        One commit in the target, verified by counts and a digest before it returns; this
        store is only read. NotEmpty if the target already holds data for this user.
        """
        from .migrate import migrate, open_store

        target = open_store(to, user=self.user_id, max_bytes=self.settings.paths.max_bytes)
        return migrate(self.settings.store, target, lock_timeout=self.settings.lock_timeout)

    # --- Internals of the changes ---------------------------------------------------------

    def _move(
        self, memory_id: str, *, to: str, allowed_from: tuple[str, ...], event: str = ""
    ) -> StatusChange:
        event = event or to

        def change(memory: StoredMemory, _now: datetime) -> _Outcome | None:
            if memory.status == to:
                return None
            if memory.status not in allowed_from:
                command = {"forgotten": "forget", "restored": "restore", "approved": "approve"}
                raise UsageError(
                    f"{memory.id} is {memory.status}; `memory {command.get(event, event)}` "
                    f"applies to {' or '.join(allowed_from)} memories"
                )
            before = {"status": memory.status}
            memory.status = to
            return event, before, {"status": to}

        memory, recorded = self._change(memory_id, change)
        if recorded is not None and to == "active":
            self._embed_written([memory.content])
        return StatusChange(memory.id, to, recorded is not None, memory.content)

    def _change(self, memory_id: str, change: _Edit) -> tuple[StoredMemory, str | None]:
        """Apply `change` to one memory under the lock, with a history line. Returns the
        memory and the event recorded (None when there was nothing to do)."""

        def merge(disk: store.Snapshot) -> store.Change[tuple[StoredMemory, str | None]]:
            now = utcnow()
            memory = self._find(disk.ltm, memory_id)
            outcome = change(memory, now)
            if outcome is None:
                return store.Change(result=(memory, None))
            event, before, after = outcome
            entry = HistoryEntry(
                memory_id=memory.id,
                at=now,
                event=event,
                reason="by command",
                before=before,
                after=after,
            )
            return store.Change(result=(memory, event), ltm=disk.ltm, history=[entry])

        result, warnings = self.settings.store.transact(
            merge, now=utcnow(), lock_timeout=self.settings.lock_timeout
        )
        self._note(warnings)
        return result

    def _write_through_gate(
        self,
        candidates: builtins.list[CandidateIn],
        *,
        source: str,
        originals: builtins.list[dict[str, Any]] | None = None,
        scope: Scope | None = None,
        is_global: bool = False,
    ) -> builtins.list[GateVerdict]:
        """The gate's rules, minus the automatic quotas and confidence floor: a person chose
        these. Secrets, planted instructions, junk and duplicates are still refused. All of
        it is one commit, however many memories."""
        from .apply import apply_decisions
        from .batch import DIRECT_MAX, gate_many
        from .retrieval import gate_view

        policy = replace(
            self.settings.policy,
            min_confidence=0.0,
            max_per_turn=len(candidates) or 1,
            max_per_day=10**9,
        )
        created: builtins.list[str] = []

        def merge(disk: store.Snapshot) -> store.Change[builtins.list[GateVerdict]]:
            now = utcnow()
            seen = gate_view(disk.ltm.memories, scope or Scope(), everywhere=is_global)
            result = gate_many(candidates, seen, policy=policy, now=now)
            first_free = disk.ltm.next_seq
            if originals is not None:
                # New ids start past every id the rows keep, so the two never collide.
                kept = [_keepable_id(r.get("id"), first_free, {}) for r in originals]
                numbers = [int(k[4:]) for k in kept if k]
                disk.ltm.next_seq = max([first_free, *(n + 1 for n in numbers)])
            applied = apply_decisions(
                disk.ltm,
                candidates,
                [],
                result,
                turn_id=None,
                now=now,
                source=source,
                labels=scope.labels() if scope else None,
            )
            if is_global:
                _make_global(disk.ltm, applied.result)
            if originals is not None:
                _restore_imported(disk.ltm, applied, originals, first_free=first_free)
            ids = {d.memory_id for d in applied.result.candidates if d.verdict == "accepted"}
            created[:] = [m.content for m in disk.ltm.memories if m.id in ids]
            verdicts = [
                GateVerdict(
                    content=_shown(c.content, d.verdict),
                    verdict=d.verdict,
                    reason=d.reason,
                    detail=d.detail,
                    memory_id=d.memory_id,
                )
                for c, d in zip(candidates, applied.result.candidates, strict=True)
            ]
            return store.Change(
                result=verdicts, ltm=disk.ltm if applied.writes else None, history=applied.history
            )

        # A single new text is compared with its possible same facts only (gate_many takes
        # more than one through an index whose order depends on every memory); an import
        # keeps ids, which are checked against every memory.
        focus = None
        if originals is None and len(candidates) <= DIRECT_MAX:
            focus = store.Focus(texts=tuple(c.content for c in candidates))
        verdicts, warnings = self.settings.store.transact(
            merge, now=utcnow(), lock_timeout=self.settings.lock_timeout, focus=focus
        )
        self._note(warnings)
        self._embed_written(created)
        return verdicts

    def _embed_written(self, texts: builtins.list[str]) -> None:
        """With semantic retrieval, embed what was written (in batches), so the next search
        finds every vector cached."""
        if not texts or not self.settings.semantic_retrieval():
            return
        from .embeddings import Embedder, embed_new, semantic_available

        if not semantic_available():
            return
        embed_new(self.settings.store, texts, Embedder(), lock_timeout=self.settings.lock_timeout)


def _require_utf8(text: str, what: str, outcome: str) -> None:
    """A UsageError when `text` holds lone surrogates: undecodable bytes read from argv or
    a terminal line, or a JSON escape, which no file or request can carry."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError(f"{what} is not valid UTF-8 text; {outcome}") from None


def _shown(content: str, verdict: str) -> str:
    """A candidate's content as its verdict may show it: the gate screens every candidate
    for secrets before it can accept or merge one, so only a rejected one can hold a
    secret (its rules read the stripped text, hence the check on surrounding space)."""
    if verdict != "rejected" and content == content.strip():
        return content
    return redact(content)


def _matcher(
    scope: Scope, *, type: str | None, only_global: bool
) -> Callable[[StoredMemory], bool]:
    """Whether a memory passes `search`'s and `list`'s filters."""

    def keep(memory: StoredMemory) -> bool:
        if type and memory.type != type:
            return False
        if only_global and not memory.is_global:
            return False
        return scope.admits(memory)

    return keep


def _make_global(ltm: LtmFile, result: GateResult) -> None:
    """Flag the memories a write just created as global (seen from every scope)."""
    created = {d.memory_id for d in result.candidates if d.verdict == "accepted"}
    for i, memory in enumerate(ltm.memories):
        if memory.id in created:
            ltm.memories[i] = memory.model_copy(update={"is_global": True})


_Outcome = tuple[str, dict[str, Any], dict[str, Any]]
_Edit = Callable[[StoredMemory, datetime], _Outcome | None]

# The fields that make an import row a whole memory whose stored fields are kept.
_FULL_ROW = {"type", "content", "created_at", "last_reinforced"}
_COMPUTED = {"current_confidence"}
_VALIDATED = "\0memory"  # where a full row keeps its validated form (not a JSON key)
_LABELS = "\0labels"  # where a partial row keeps its checked labels
_HISTORY = "\0history"  # and its validated history
EXPORTED_HISTORY = "history"  # the key under which `memory export` writes a memory's history
_MEM_ID = re.compile(r"mem_(\d+)")


def _import_rows(handle: IO[bytes], name: str, limit: int) -> Iterator[tuple[int, dict[str, Any]]]:
    """JSON objects, streamed one line at a time; neither a line nor the whole may exceed
    the cap."""
    from .safeio import iter_lines

    lines = iter_lines(
        handle, name=name, max_line=1 << 20, max_total=limit, setting="MEMTEST_MAX_STATE_MB"
    )
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except RecursionError:
            raise UsageError(f"{name} line {number}: nested too deeply") from None
        except ValueError as exc:
            raise UsageError(f"{name} line {number}: not JSON ({exc})") from None
        if not isinstance(row, dict):
            raise UsageError(f"{name} line {number}: not a memory (not an object)")
        yield number, row


def _with_history(row: dict[str, Any]) -> dict[str, Any]:
    """The row without its exported history, which is validated and kept aside."""
    if EXPORTED_HISTORY not in row:
        return row
    row = dict(row)
    entries = row.pop(EXPORTED_HISTORY)
    if not isinstance(entries, list):
        raise ValueError("history is not a list")
    row[_HISTORY] = [HistoryEntry.model_validate(e) for e in entries]
    return row


def _restore_imported(
    ltm: LtmFile,
    applied: Any,
    originals: list[dict[str, Any]],
    *,
    first_free: int,
) -> None:
    """Give memories created by an import the fields their rows carried (timestamps,
    source, hit count, status, unknown fields...). A row's id is kept when this store never
    issued it; otherwise the memory keeps the new id it was given."""
    position = {m.id: i for i, m in enumerate(ltm.memories)}
    renamed: dict[str, str] = {}
    for decision, row in zip(applied.result.candidates, originals, strict=True):
        if decision.verdict != "accepted" or decision.memory_id is None:
            continue
        index = position[decision.memory_id]
        if _VALIDATED not in row:
            if row.get(_LABELS):
                ltm.memories[index] = ltm.memories[index].model_copy(update=row[_LABELS])
            continue
        keep_id = _keepable_id(row.get("id"), first_free, position)
        restored = row[_VALIDATED].model_copy(
            update={"id": keep_id or decision.memory_id, "content": row["content"].strip()}
        )
        ltm.memories[index] = restored
        if keep_id:
            renamed[decision.memory_id] = keep_id
            del position[decision.memory_id]
            position[keep_id] = index
            match = _MEM_ID.fullmatch(keep_id)
            if match:
                ltm.next_seq = max(ltm.next_seq, int(match.group(1)) + 1)
    for entry in applied.history:
        entry.memory_id = renamed.get(entry.memory_id, entry.memory_id)
    # Each memory's exported history goes before the line that records its import.
    earlier: list[HistoryEntry] = []
    for decision, row in zip(applied.result.candidates, originals, strict=True):
        if decision.verdict == "accepted" and decision.memory_id and row.get(_HISTORY):
            final_id = renamed.get(decision.memory_id, decision.memory_id)
            earlier += [h.model_copy(update={"memory_id": final_id}) for h in row[_HISTORY]]
    applied.history[:0] = earlier
    for write in applied.writes:
        write["memory_id"] = renamed.get(write["memory_id"], write["memory_id"])
    applied.result = GateResult(
        candidates=[
            replace(d, memory_id=renamed[d.memory_id]) if d.memory_id in renamed else d
            for d in applied.result.candidates
        ],
        revisions=applied.result.revisions,
    )


def _row_labels(row: dict[str, Any]) -> dict[str, Any]:
    """Seed 003's labels of an import row, checked: names as `add` takes them, `global`
    true or false. An empty name means unset."""
    found: dict[str, Any] = {}
    for name in ("agent", "personality", "project"):
        value = row.get(name)
        if value is None or value == "":
            continue
        if not isinstance(value, str):
            raise ValueError(f"{name} is not a string")
        try:
            found[name] = validate_label(name, value)
        except UsageError as exc:
            raise ValueError(str(exc)) from None
    if "global" in row:
        if not isinstance(row["global"], bool):
            raise ValueError("global is not true or false")
        found["is_global"] = row["global"]
    return found


def _keepable_id(wanted: Any, first_free: int, taken: dict[str, int]) -> str | None:
    """`wanted` if this store never issued it: a mem_N id at or past the store's counter
    before the import, and not taken."""
    if not isinstance(wanted, str) or wanted in taken:
        return None
    match = _MEM_ID.fullmatch(wanted)
    return wanted if match and int(match.group(1)) >= first_free else None


__all__ = [
    "Cleared",
    "GateVerdict",
    "Memory",
    "MemoryView",
    "SearchHit",
    "SearchResult",
    "Stats",
    "StatusChange",
    "TurnResult",
]
