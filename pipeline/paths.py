"""Where one user's files live in a state folder; no pydantic, so a command that only
reads memory can find them without building the models."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .safeio import DEFAULT_MAX_BYTES

DEFAULT_USER = "default-user"


@dataclass(frozen=True)
class StatePaths:
    """Where one user's memory and one session live inside a state folder.

    The default user keeps the top-level files (state/ltm.json, state/session.json);
    any other user has state/users/<id>/. A named session is sessions/<id>.json in the
    user's folder, the unnamed one session.json. One lock guards the whole folder.
    `max_bytes` caps every state file that is read (MEMTEST_MAX_STATE_MB).
    """

    root: Path
    user: str = DEFAULT_USER
    session_name: str | None = None
    max_bytes: int = DEFAULT_MAX_BYTES

    @property
    def home(self) -> Path:
        return self.root if self.user == DEFAULT_USER else self.root / "users" / self.user

    @property
    def ltm(self) -> Path:
        return self.home / "ltm.json"

    @property
    def session(self) -> Path:
        if self.session_name is None:
            return self.home / "session.json"
        return self.archive / f"{self.session_name}.json"

    @property
    def archive(self) -> Path:
        return self.home / "sessions"

    @property
    def overflow(self) -> Path:
        """Turns that left a session's window without a summary, one file per session."""
        return self.archive / "overflow"

    @property
    def history(self) -> Path:
        return self.home / "ltm.history.jsonl"

    @property
    def counters(self) -> Path:
        return self.home / "ltm.counters.json"

    @property
    def vectors(self) -> Path:
        return self.home / "ltm.vectors.npz"

    @property
    def lock(self) -> Path:
        return self.root / ".state.lock"

    @property
    def commit_record(self) -> Path:
        return self.root / ".commit.json"
