"""Shared fixtures. Safety first: no test can reach a real endpoint or a real state folder."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline import credentials
from pipeline.config import Settings, load_settings
from tests.helpers import turn_env
from tests.llm_server import ScriptedLLM


@pytest.fixture(autouse=True)
def _isolated_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Clear keys and settings; point the state folder and .env at this test's tmp_path."""
    for name in list(os.environ):
        if name.startswith(("MEMTEST_", "MOONSHOT_", "OPENAI_")):
            monkeypatch.delenv(name)
    empty_env = tmp_path / "empty.env"
    empty_env.write_text("")
    monkeypatch.setenv("MEMTEST_ENV_FILE", str(empty_env))
    monkeypatch.setenv("MEMTEST_STATE_DIR", str(tmp_path / "state"))
    # Values the secret model hid stay hidden in their context; a test starts with none, as
    # a command's process does.
    credentials._HIDDEN.set(())


@pytest.fixture
def state_dir(tmp_path: Path) -> Path:
    return tmp_path / "state"


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    with ScriptedLLM() as server:
        yield server


@pytest.fixture
def settings(llm: ScriptedLLM, state_dir: Path) -> Settings:
    return load_settings(environ=turn_env(llm, state_dir))


# --- PostgreSQL for the store contract suite (tests/pgserver.py) ---------------------------
# Read at import, before the autouse fixture above clears MEMTEST_* variables. CI sets it,
# so a missing server fails there instead of skipping.
REQUIRE_POSTGRES = os.environ.get("MEMTEST_REQUIRE_POSTGRES") == "1"


@pytest.fixture(scope="session")
def pg_server() -> Iterator[object]:
    """One real PostgreSQL server for the whole run, on a Unix socket in a temp folder."""
    from tests.pgserver import PgServer, find_bin_dir

    bin_dir = find_bin_dir()
    if bin_dir is None:
        message = "PostgreSQL binaries (initdb, pg_ctl) not found"
        if REQUIRE_POSTGRES:
            pytest.fail(f"{message}, and MEMTEST_REQUIRE_POSTGRES=1")
        pytest.skip(message)
    server = PgServer.start(bin_dir)
    yield server
    server.stop()


@pytest.fixture
def pg_url(pg_server: object) -> Iterator[str]:
    """The URL of a fresh, empty database on the session's server; this process's
    connections to it are closed afterwards."""
    from pipeline import pgstore

    url: str = pg_server.new_database()  # type: ignore[attr-defined]
    yield url
    for conn in pgstore._connections.values():
        conn.close()
    pgstore._connections.clear()
