"""Shared fixtures. Safety first: no test can reach a real endpoint or a real state folder."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

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
