"""Configuration: command-line argument, then environment, then .env, then default.

Run from a checkout (`python memory_test.py`), state and `.env` default to the project
folder; installed as the `memory-test` command, to the user's XDG data and config folders
(see `Locations`). `.env` is read from that one place only (or the file named by
--env-file / MEMTEST_ENV_FILE), never from parent folders, and it never overrides the
environment.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar
from urllib.parse import urlsplit

from .errors import ConfigError, UsageError
from .kinds import Policy, Scope

if TYPE_CHECKING:
    from .paths import StatePaths
    from .store import Store

APP_NAME = "memory-test"
DEFAULT_BASE_URL = "https://api.moonshot.ai/v1"
# kimi-k2.6 is the current general model in Moonshot's docs (2026-11); its sampling
# parameters are fixed, so none are sent.
DEFAULT_MODEL = "kimi-k2.6"
# Models on which thinking is on by default and can be switched off for a fast answer.
THINKING_MODELS = ("kimi-k2.5", "kimi-k2.6")

N = TypeVar("N", int, float)


@dataclass(frozen=True)
class Settings:
    """Everything a turn needs to know, resolved once at start."""

    api_key: str | None
    base_url: str
    model: str
    state_dir: Path
    user_id: str = "default-user"
    session_id: str | None = None
    thinking: str = "auto"
    retriever: str = "auto"
    write_mode: str = "write"
    timeout: float = 60.0
    max_attempts: int = 4
    retry_max_seconds: float = 90.0
    retry_max_wait: float = 20.0
    session_turns: int = 10
    memory_token_budget: int = 1500
    memory_max_items: int = 40
    decay_horizon_hours: float = 720.0
    lock_timeout: float = 30.0
    max_state_mb: float = 256.0
    max_input_kb: float = 64.0
    store_url: str | None = None
    policy: Policy = field(default_factory=Policy)
    project: str | None = None
    agent: str | None = None
    # The .env this configuration looked for (named in the message when the key is missing).
    env_file: Path | None = None

    @property
    def scope(self) -> Scope:
        """The project and agent turns recall from and label what they write with."""
        return Scope(project=self.project, agent=self.agent)

    @property
    def paths(self) -> StatePaths:
        """The files of this user and session."""
        from .paths import StatePaths

        return StatePaths(
            self.state_dir, self.user_id, self.session_id, int(self.max_state_mb * 1024 * 1024)
        )

    @property
    def store(self) -> Store:
        """Where this user's memory and this session are kept: PostgreSQL when
        MEMTEST_STORE names a database, else the JSON files in the state folder."""
        if self.store_url:
            from .pgstore import PostgresStore

            return PostgresStore(self.store_url, self.user_id, self.session_id)
        from .store import FileStore

        return FileStore(self.paths)

    @property
    def max_input_bytes(self) -> int:
        return int(self.max_input_kb * 1024)

    @property
    def endpoint_host(self) -> str:
        return urlsplit(self.base_url).netloc or self.base_url

    def semantic_retrieval(self) -> bool:
        """Whether turns use embeddings: `auto` means when the semantic extra is installed."""
        if self.retriever == "auto":
            from .embeddings import semantic_available

            return semantic_available()
        return self.retriever == "semantic"

    def thinking_disabled(self) -> bool:
        """Whether to send thinking={"type": "disabled"} (only to models that accept it)."""
        if self.thinking == "auto":
            return self.model.startswith(THINKING_MODELS)
        return self.thinking == "disabled"


@dataclass(frozen=True)
class Locations:
    """Where the state folder and `.env` are when nothing else names them."""

    state_dir: Path
    env_file: Path

    @classmethod
    def checkout(cls, project_dir: Path) -> Locations:
        """A source checkout: `state/` and `.env` in the project folder."""
        return cls(state_dir=project_dir / "state", env_file=project_dir / ".env")

    @classmethod
    def installed(cls, environ: Mapping[str, str] | None = None) -> Locations:
        """An installed command: $XDG_DATA_HOME/memory-test (~/.local/share/memory-test)
        and $XDG_CONFIG_HOME/memory-test/.env (~/.config/memory-test/.env)."""
        env = os.environ if environ is None else environ
        return cls(
            state_dir=_xdg_folder(env, "XDG_DATA_HOME", ".local/share") / APP_NAME,
            env_file=_xdg_folder(env, "XDG_CONFIG_HOME", ".config") / APP_NAME / ".env",
        )

    @classmethod
    def find(cls, project_dir: Path | None, environ: Mapping[str, str] | None = None) -> Locations:
        """The checkout's folders when the entry point named one, else the installed ones."""
        return cls.checkout(project_dir) if project_dir else cls.installed(environ)


def _xdg_folder(environ: Mapping[str, str], name: str, fallback: str) -> Path:
    # The XDG spec says a relative value is invalid and must be ignored.
    value = environ.get(name, "").strip()
    if value and Path(value).is_absolute():
        return Path(value)
    home = environ.get("HOME", "").strip()
    return (Path(home) if home else Path.home()) / fallback


# name: (help, default) — the README's configuration table is this list.
VARIABLES: dict[str, tuple[str, str]] = {
    "MOONSHOT_API_KEY": ("API key for the endpoint (required for turns)", "—"),
    "MEMTEST_BASE_URL": ("OpenAI-compatible endpoint", DEFAULT_BASE_URL),
    "MEMTEST_MODEL": ("model name", DEFAULT_MODEL),
    "MEMTEST_STATE_DIR": (
        "state folder",
        "state/ in a checkout; installed: $XDG_DATA_HOME/memory-test",
    ),
    "MEMTEST_STORE": (
        "postgresql://… keeps memory and sessions in PostgreSQL (extra `postgresql`); "
        "unset: JSON files in the state folder",
        "—",
    ),
    "MEMTEST_USER_ID": ("whose long-term memory (--user)", "default-user"),
    "MEMTEST_SESSION_ID": ("which session (--session); unset: the current one", "—"),
    "MEMTEST_PROJECT": (
        "the project turns and memory commands work in (--project): its, global and "
        "unscoped memories",
        "—",
    ),
    "MEMTEST_AGENT": ("the agent they work as (--agent), like the project", "—"),
    "MEMTEST_THINKING": ("auto, enabled or disabled", "auto"),
    "MEMTEST_RETRIEVER": ("auto, lexical or semantic", "auto"),
    "MEMTEST_WRITE_MODE": (
        "write, shadow (decide and count, store nothing) or review (new memories wait as drafts)",
        "write",
    ),
    "MEMTEST_TIMEOUT": ("seconds per HTTP request", "60"),
    "MEMTEST_MAX_ATTEMPTS": ("attempts per LLM call, retries included", "4"),
    "MEMTEST_RETRY_MAX_SECONDS": ("total seconds one LLM call may spend retrying", "90"),
    "MEMTEST_RETRY_MAX_WAIT": ("longest wait between attempts, seconds (0: no waits)", "20"),
    "MEMTEST_SESSION_TURNS": ("turns kept verbatim in the session", "10"),
    "MEMTEST_MEMORY_TOKEN_BUDGET": ("tokens of long-term memory in a prompt", "1500"),
    "MEMTEST_MEMORY_MAX_ITEMS": ("memories in a prompt at most", "40"),
    "MEMTEST_MIN_CONFIDENCE": ("gate and retrieval: minimum confidence", "0.65"),
    "MEMTEST_DECAY_HORIZON_HOURS": ("hours for a decaying memory to fade to 0", "720"),
    "MEMTEST_MAX_PER_TURN": ("gate: new memories per turn", "3"),
    "MEMTEST_MAX_PER_DAY": ("gate: new memories per 24 hours", "30"),
    "MEMTEST_MAX_REVISIONS_PER_TURN": ("gate: revisions per turn", "3"),
    "MEMTEST_LOCK_TIMEOUT": ("seconds to wait for the state lock", "30"),
    "MEMTEST_MAX_STATE_MB": ("largest state file or import read, in MB", "256"),
    "MEMTEST_MAX_INPUT_KB": ("largest input of one turn, in KB (UTF-8)", "64"),
    "MEMTEST_ENV_FILE": (
        "the .env file to read instead of the default one",
        ".env in a checkout; installed: $XDG_CONFIG_HOME/memory-test/.env",
    ),
}


def read_env_file(path: Path, *, named_as: str | None) -> dict[str, str]:
    """Values from one .env file; a file named explicitly (`named_as`) must exist."""
    if not path.is_file():
        if named_as and os.path.lexists(path):
            raise UsageError(f"{named_as}: not a regular file")
        if named_as:
            raise UsageError(f"{named_as}: no such file")
        return {}
    from .errors import UnsafeFile
    from .safeio import read_regular

    try:
        text = read_regular(path, max_bytes=1 << 20, setting="a 1 MB limit").decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path} is not UTF-8 text (at byte {exc.start}); fix or remove it"
        ) from None
    except (OSError, UnsafeFile) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else str(exc)
        raise ConfigError(f"cannot read settings from {path}: {reason}") from None
    simple = _simple_env(text)
    if simple is not None:
        return simple
    import io

    from dotenv import dotenv_values

    values = dotenv_values(stream=io.StringIO(text))
    return {k: v for k, v in values.items() if v is not None}


# `KEY=value` with nothing to unquote, escape, expand or strip as a comment: the lines most
# .env files consist of. Anything else goes to python-dotenv, whose import (about 15 ms,
# most of it `logging`) a command that only reads memory would otherwise pay.
_SIMPLE_LINE = re.compile(r"(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)[ \t]*=[ \t]*([^\s'\"#\\$`]*)")


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _simple_env(text: str) -> dict[str, str] | None:
    """The values of a .env file made only of blank, comment and plain `KEY=value` lines;
    None when any line needs python-dotenv's full grammar."""
    values: dict[str, str] = {}
    for line in _LINE_BREAK.split(text):  # a lone "\r" ends a line for python-dotenv too
        stripped = line.strip(" \t")
        if not stripped or stripped.startswith("#"):
            continue
        match = _SIMPLE_LINE.fullmatch(stripped)
        if match is None or match[1] == "export":
            return None
        values[match[1]] = match[2]
    return values


# Ids become file names: letters, digits, '.', '_', '-'; no separators, no "..".
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def validate_id(kind: str, value: str) -> str:
    """`value` if it is a safe id, else a UsageError that says what is allowed."""
    if not _ID.fullmatch(value) or ".." in value:
        raise UsageError(
            f"{kind} {value!r} is not a valid id: use 1 to 64 letters, digits, '.', '_' or "
            "'-', starting with a letter or digit, and no '..'"
        )
    return value


# Labels (project, agent, personality) are names, not file names, but still one line.
MAX_LABEL_CHARS = 64


def validate_label(kind: str, value: str) -> str:
    """`value` stripped, if it can be a project, agent or personality name."""
    label = value.strip()
    if not label or len(label) > MAX_LABEL_CHARS or not label.isprintable():
        raise UsageError(
            f"{kind} {value!r} is not a valid name: use 1 to {MAX_LABEL_CHARS} printable characters"
        )
    return label


def load_settings(
    *,
    state_dir: str | None = None,
    env_file: str | None = None,
    user: str | None = None,
    session: str | None = None,
    project: str | None = None,
    agent: str | None = None,
    store: str | None = None,
    environ: Mapping[str, str] | None = None,
    project_dir: Path | None = None,
) -> Settings:
    """Resolve settings; raise ConfigError naming the variable when a value is unusable.

    `project_dir` is the source checkout the program runs from (memory_test.py passes it);
    without it, the defaults are the installed command's XDG folders.
    """
    env = dict(os.environ if environ is None else environ)
    defaults = Locations.find(project_dir, env)
    if env_file:
        path, named_as = Path(env_file), f"--env-file {env_file}"
    elif env.get("MEMTEST_ENV_FILE"):
        path = Path(env["MEMTEST_ENV_FILE"])
        named_as = f"MEMTEST_ENV_FILE={path}"
    else:
        path, named_as = defaults.env_file, None
    file_values = read_env_file(path, named_as=named_as)
    source = {**file_values, **env}

    def text(name: str, default: str) -> str:
        value = source.get(name, "").strip()
        return value or default

    def number(name: str, default: N, parse: Callable[[str], N], low: N, high: N) -> N:
        raw = source.get(name, "").strip()
        if not raw:
            return default
        try:
            value = parse(raw)
        except ValueError:
            raise ConfigError(f"{name}={raw!r} is not a number") from None
        if not low <= value <= high:
            raise ConfigError(f"{name}={raw} is out of range ({low} to {high})")
        return value

    thinking = text("MEMTEST_THINKING", "auto").lower()
    if thinking not in ("auto", "enabled", "disabled"):
        raise ConfigError(f"MEMTEST_THINKING={thinking!r}: use auto, enabled or disabled")
    write_mode = text("MEMTEST_WRITE_MODE", "write").lower()
    if write_mode not in ("write", "shadow", "review"):
        raise ConfigError(f"MEMTEST_WRITE_MODE={write_mode!r}: use write, shadow or review")
    retriever = text("MEMTEST_RETRIEVER", "auto").lower()
    if retriever not in ("auto", "lexical", "semantic"):
        raise ConfigError(f"MEMTEST_RETRIEVER={retriever!r}: use auto, lexical or semantic")
    base_url = text("MEMTEST_BASE_URL", DEFAULT_BASE_URL).rstrip("/")
    if urlsplit(base_url).scheme not in ("http", "https"):
        raise ConfigError(f"MEMTEST_BASE_URL={base_url!r} is not an http(s) URL")
    if state_dir is not None and not state_dir.strip():
        raise UsageError("--state-dir needs a folder name (it was empty)")
    folder = state_dir or text("MEMTEST_STATE_DIR", "") or str(defaults.state_dir)
    source_name = "--state-dir" if state_dir else "MEMTEST_STATE_DIR"
    try:
        state_path = Path(folder).expanduser()
    except RuntimeError:  # ~someone who does not exist
        raise ConfigError(f"{source_name} {folder}: no such user's home folder") from None
    if "\x00" in folder:
        raise ConfigError(f"{source_name}: a folder name cannot contain a NUL byte")
    if state_path.exists() and not state_path.is_dir():
        raise ConfigError(f"{source_name} {folder} is a file, not a folder")

    user_id = validate_id(
        "--user" if user is not None else "MEMTEST_USER_ID",
        user if user is not None else text("MEMTEST_USER_ID", "default-user"),
    )
    session_name = session if session is not None else text("MEMTEST_SESSION_ID", "") or None
    if session_name is not None:
        validate_id("--session" if session is not None else "MEMTEST_SESSION_ID", session_name)

    labels: dict[str, str | None] = {}
    for name, flag, variable in (
        ("project", project, "MEMTEST_PROJECT"),
        ("agent", agent, "MEMTEST_AGENT"),
    ):
        raw = flag if flag is not None else text(variable, "") or None
        labels[name] = (
            None
            if raw is None
            else validate_label(f"--{name}" if flag is not None else variable, raw)
        )

    if store is not None and not store.strip():
        raise ConfigError("--store needs a postgresql:// URL (leave it out for the state folder)")
    store_url = store.strip() if store is not None else text("MEMTEST_STORE", "") or None
    if store_url is not None:
        from .pgstore import check_url

        check_url(store_url, setting="--store" if store is not None else "MEMTEST_STORE")

    policy = Policy(
        min_confidence=number("MEMTEST_MIN_CONFIDENCE", 0.65, float, 0.0, 1.0),
        max_per_turn=number("MEMTEST_MAX_PER_TURN", 3, int, 0, 100),
        max_per_day=number("MEMTEST_MAX_PER_DAY", 30, int, 0, 10_000),
        max_revisions_per_turn=number("MEMTEST_MAX_REVISIONS_PER_TURN", 3, int, 0, 100),
    )
    return Settings(
        api_key=source.get("MOONSHOT_API_KEY", "").strip() or None,
        base_url=base_url,
        model=text("MEMTEST_MODEL", DEFAULT_MODEL),
        state_dir=state_path,
        user_id=user_id,
        session_id=session_name,
        thinking=thinking,
        retriever=retriever,
        write_mode=write_mode,
        timeout=number("MEMTEST_TIMEOUT", 60.0, float, 0.1, 3600.0),
        max_attempts=number("MEMTEST_MAX_ATTEMPTS", 4, int, 1, 20),
        retry_max_seconds=number("MEMTEST_RETRY_MAX_SECONDS", 90.0, float, 0.0, 3600.0),
        retry_max_wait=number("MEMTEST_RETRY_MAX_WAIT", 20.0, float, 0.0, 600.0),
        session_turns=number("MEMTEST_SESSION_TURNS", 10, int, 1, 1000),
        memory_token_budget=number("MEMTEST_MEMORY_TOKEN_BUDGET", 1500, int, 0, 200_000),
        memory_max_items=number("MEMTEST_MEMORY_MAX_ITEMS", 40, int, 0, 10_000),
        decay_horizon_hours=number("MEMTEST_DECAY_HORIZON_HOURS", 720.0, float, 1.0, 1e6),
        lock_timeout=number("MEMTEST_LOCK_TIMEOUT", 30.0, float, 0.0, 3600.0),
        max_state_mb=number("MEMTEST_MAX_STATE_MB", 256.0, float, 0.001, 1e6),
        max_input_kb=number("MEMTEST_MAX_INPUT_KB", 64.0, float, 0.001, 1e6),
        store_url=store_url,
        policy=policy,
        project=labels["project"],
        agent=labels["agent"],
        env_file=path,
    )


def require_api_key(settings: Settings) -> str:
    """The key, or a ConfigError that says what to set and where."""
    if settings.api_key:
        return settings.api_key
    raise ConfigError(
        "MOONSHOT_API_KEY is not set. Put MOONSHOT_API_KEY=sk-... in "
        f"{settings.env_file or '.env'} (see .env.example), export it in your shell, "
        "or pass --env-file PATH."
    )
