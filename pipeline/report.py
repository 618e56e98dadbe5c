"""What a turn did and why: the `--json` object and the `--show-trace` text come from here."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from .credentials import redact, redact_tree
from .models import CandidateIn, Decision, GateResult, RevisionIn
from .retrieval import Retrieved


@dataclass
class TurnReport:
    """Filled in as the turn runs, so a failed turn can still show how far it got."""

    model: str
    endpoint: str
    store: str  # where the state is kept (a folder, or a database without its password)
    dry_run: bool
    new_session: bool
    write_mode: str = "write"
    user_id: str = "default-user"
    session_id: str = ""
    turn_id: str = ""
    response: str = ""
    memory_count: int = 0
    used: list[Retrieved] = field(default_factory=list)
    selection_mode: str = ""
    explicit: bool = False
    forget_note: str = ""
    retrieval_notes: list[str] = field(default_factory=list)
    memory_step: str = "not run"
    memory_step_note: str = ""
    reflection_errors: list[str] = field(default_factory=list)
    candidates: list[CandidateIn] = field(default_factory=list)
    revisions: list[RevisionIn] = field(default_factory=list)
    result: GateResult = field(default_factory=GateResult)
    writes: list[dict[str, Any]] = field(default_factory=list)
    session_notes: list[str] = field(default_factory=list)
    usage: dict[str, dict[str, int]] = field(default_factory=dict)
    timings_ms: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time one stage of the turn into timings_ms."""
        started = time.perf_counter()
        try:
            yield
        finally:
            self.timings_ms[name] = round((time.perf_counter() - started) * 1000, 1)

    def add_usage(self, stage: str, usage: dict[str, int]) -> None:
        bucket = self.usage.setdefault(stage, {})
        for key, value in usage.items():
            bucket[key] = bucket.get(key, 0) + value

    # --- --json -------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The `--json` object, with every secret value redacted."""
        total = dict(self.timings_ms)
        total["total"] = round(sum(self.timings_ms.values()), 1)
        out: dict[str, Any] = {
            "response": self.response,
            "user_id": self.user_id,
            "session_id": self.session_id,
            "turn_id": self.turn_id,
            "dry_run": self.dry_run,
            "write_mode": self.write_mode,
            "model": self.model,
            "endpoint": self.endpoint,
            "selection_mode": self.selection_mode,
            "explicit_request": self.explicit,
            "forget": self.forget_note,
            "memories_used": [
                {
                    "id": r.memory.id,
                    "alias": r.alias,
                    "content": r.memory.content,
                    "type": r.memory.type,
                    "confidence": r.confidence,
                    "score": r.score,
                    "cosine": r.semantic,
                    "why": r.why,
                }
                for r in self.used
            ],
            "memory_step": {
                "status": self.memory_step,
                "note": self.memory_step_note,
                "reflection_errors": self.reflection_errors,
            },
            "decisions": [
                _decision_json(d, self.candidates[d.index].model_dump())
                for d in self.result.candidates
            ],
            "revisions": [
                _decision_json(d, self.revisions[d.index].model_dump())
                for d in self.result.revisions
            ],
            "writes": self.writes,
            "session": self.session_notes,
            "usage": self.usage,
            "timings_ms": total,
            "warnings": self.warnings,
        }
        return redact_tree(out)  # type: ignore[no-any-return]

    # --- --show-trace -------------------------------------------------------------------

    def format_trace(self) -> str:
        """The `--show-trace` text, with every secret value redacted."""
        lines = [
            f"── trace · turn {self.turn_id or '-'} · user {self.user_id} · session "
            f"{self.session_id or '-'}",
            f"model {self.model} at {self.endpoint} · state {self.store}"
            + (" · DRY RUN (ltm.json untouched)" if self.dry_run else "")
            + (f" · {self.write_mode.upper()} MODE" if self.write_mode != "write" else ""),
        ]
        lines.extend(f"warning: {w}" for w in self.warnings)

        lines.append(
            f"retrieval: {len(self.used)} of {self.memory_count} memories in the prompt · "
            f"selection {self.selection_mode or '-'}"
            + "".join(f" · {note}" for note in self.retrieval_notes)
        )
        for r in self.used:
            lines.append(
                f"  {r.alias}={r.memory.id} score {r.score:.3f} conf {r.confidence:.2f} · {r.why}"
            )
            lines.append(f"      {_short(r.memory.content)}")

        if self.explicit:
            lines.append(
                "explicit request to remember: explicit candidates skip the "
                "confidence floor and the quotas"
            )
        if self.forget_note:
            lines.append(self.forget_note)
        lines.append(
            f"memory step: {self.memory_step}"
            + (f" — {self.memory_step_note}" if self.memory_step_note else "")
        )
        for error in self.reflection_errors:
            lines.append(f"  invalid reply: {_short(error, 160)}")
        for d in self.result.candidates:
            c = self.candidates[d.index]
            target = f" → {d.memory_id}" if d.memory_id else ""
            lines.append(
                f"  candidate {d.index + 1}: {d.verdict.upper()} ({d.reason}){target}"
                + (f" · {d.detail}" if d.detail else "")
            )
            lines.append(
                f"      [{c.type}/{c.subject} {c.confidence:.2f} {c.action}] {_short(c.content)}"
            )
        for d in self.result.revisions:
            revision = self.revisions[d.index]
            lines.append(
                f"  revision {d.index + 1}: {d.verdict.upper()} ({d.reason}) "
                f"{revision.action} {revision.target_id}"
                + (f"={d.memory_id}" if d.memory_id else "")
                + (f" · {d.detail}" if d.detail else "")
            )
        if self.writes:
            lines.append("written to ltm.json:")
            for w in self.writes:
                lines.append(
                    f"  {w['event']} {w['memory_id']}"
                    + (f": {_short(w['content'])}" if "content" in w else "")
                )
        elif self.memory_step == "ok":
            lines.append("written to ltm.json: nothing" + (" (dry run)" if self.dry_run else ""))
        lines.extend(f"session: {note}" for note in self.session_notes)

        usage = " · ".join(
            f"{stage} {u.get('prompt_tokens', '?')}+{u.get('completion_tokens', '?')}"
            for stage, u in self.usage.items()
        )
        lines.append(f"tokens (prompt+completion): {usage or 'n/a'}")
        timing = " · ".join(f"{k} {v:.0f}" for k, v in self.timings_ms.items())
        lines.append(f"time ms: {timing} · total {sum(self.timings_ms.values()):.0f}")
        return redact("\n".join(lines))


def _decision_json(decision: Decision, item: dict[str, Any]) -> dict[str, Any]:
    return {
        "candidate" if decision.kind == "candidate" else "revision": item,
        "verdict": decision.verdict,
        "reason": decision.reason,
        "detail": decision.detail,
        "memory_id": decision.memory_id,
    }


def _short(text: str, limit: int = 100) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
