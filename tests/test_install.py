"""Checkout or installed: where state and .env go, and the wheel working outside the checkout."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.config import Locations, load_settings
from tests.helpers import PROJECT, echo_responder
from tests.llm_server import ScriptedLLM


def test_installed_locations_follow_xdg(tmp_path: Path) -> None:
    """Installed, state goes to $XDG_DATA_HOME/memory-test and .env to $XDG_CONFIG_HOME."""
    where = Locations.installed(
        {"XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    )
    assert where.state_dir == tmp_path / "data" / "memory-test"
    assert where.env_file == tmp_path / "config" / "memory-test" / ".env"


def test_installed_locations_default_to_home_and_ignore_relative_xdg(tmp_path: Path) -> None:
    """Without XDG variables (or with relative ones, which the spec says to ignore), the
    folders are ~/.local/share/memory-test and ~/.config/memory-test."""
    where = Locations.installed(
        {"HOME": str(tmp_path), "XDG_DATA_HOME": "relative/data", "XDG_CONFIG_HOME": ""}
    )
    assert where.state_dir == tmp_path / ".local" / "share" / "memory-test"
    assert where.env_file == tmp_path / ".config" / "memory-test" / ".env"


def test_settings_use_the_checkout_only_when_the_entry_point_names_it(tmp_path: Path) -> None:
    """load_settings defaults to the project folder given by memory_test.py, and to the XDG
    folders without one; .env is read from the matching place."""
    config = tmp_path / "config" / "memory-test"
    config.mkdir(parents=True)
    (config / ".env").write_text("MEMTEST_MODEL=from-xdg-env\n")
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / ".env").write_text("MEMTEST_MODEL=from-project-env\n")
    environ = {"XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config")}

    installed = load_settings(environ=environ)
    assert installed.state_dir == tmp_path / "data" / "memory-test"
    assert installed.model == "from-xdg-env"

    checkout = load_settings(environ=environ, project_dir=tmp_path / "project")
    assert checkout.state_dir == tmp_path / "project" / "state"
    assert checkout.model == "from-project-env"


def test_help_names_the_default_folders(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--help shows where state and .env are: the checkout's, or the XDG ones installed."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert main(["--help"]) == 0
    installed = capsys.readouterr().out
    assert str(tmp_path / "data" / "memory-test") in installed
    assert installed.startswith("Usage: memory-test ")
    assert main(["--help"], project_dir=PROJECT) == 0
    checkout = capsys.readouterr().out
    assert str(PROJECT / "state") in checkout
    assert checkout.startswith("Usage: memory_test.py ")


def test_prompt_templates_ship_inside_the_package() -> None:
    """The templates are package data (what the wheel carries), not files of the checkout."""
    from importlib.resources import files

    templates = files("pipeline").joinpath("templates")
    names = {p.name for p in templates.iterdir() if p.name.endswith(".md")}
    assert {"answer.md", "reflect.md", "reflect_context.md", "reflect_reask.md"} <= names
    assert not (PROJECT / "prompts").exists()


INSTALLED = os.environ.get("MEMTEST_INSTALLED_BIN", "")


@pytest.mark.skipif(
    not INSTALLED, reason="set MEMTEST_INSTALLED_BIN to an installed memory-test (.ci/run does)"
)
def test_installed_command_runs_a_turn_outside_the_checkout(tmp_path: Path) -> None:
    """The wheel installed in a fresh venv: a turn reads its key from the XDG config .env,
    writes state to the XDG data folder, and `memory list` shows what it remembered."""
    home = tmp_path / "home"
    config = home / ".config" / "memory-test"
    config.mkdir(parents=True)
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home)}
    with ScriptedLLM(responder=echo_responder) as server:
        (config / ".env").write_text(
            f"MOONSHOT_API_KEY=sk-test-not-a-real-key\nMEMTEST_BASE_URL={server.url}\n"
            "MEMTEST_RETRY_MAX_WAIT=0\nMEMTEST_RETRIEVER=lexical\n"
        )

        def run(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [INSTALLED, *args],
                capture_output=True,
                text=True,
                env=env,
                cwd=tmp_path,
                timeout=120,
                check=False,
            )

        turn = run("-i", "remember: User keeps bees")
        assert turn.returncode == 0, turn.stderr
        assert turn.stdout.strip() == "echo: remember: User keeps bees"
        listed = run("memory", "list", "--json")
        assert listed.returncode == 0, listed.stderr
    contents = [m["content"] for m in json.loads(listed.stdout)["memories"]]
    assert contents == ["User keeps bees"]
    assert "User keeps bees" in (home / ".local/share/memory-test/ltm.json").read_text()
    assert not (tmp_path / "state").exists()


@pytest.mark.skipif(
    not INSTALLED, reason="set MEMTEST_INSTALLED_BIN to an installed memory-test (.ci/run does)"
)
def test_readme_library_example_runs_from_the_installed_package(tmp_path: Path) -> None:
    """The README's library example runs with the installed package's Python, away from
    the checkout (nothing of it on the path)."""
    from tests.test_docs import readme_python_example

    script = tmp_path / "example.py"
    script.write_text(readme_python_example())
    result = subprocess.run(
        [str(Path(INSTALLED).parent / "python"), str(script)],
        capture_output=True,
        text=True,
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)},
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[:2] == ["accepted mem_0001", "secret"]


@pytest.mark.skipif(
    not INSTALLED, reason="set MEMTEST_INSTALLED_BIN to an installed memory-test (.ci/run does)"
)
def test_installed_mcp_command_explains_setup_and_the_extra(tmp_path: Path) -> None:
    """`memory-test mcp --help` names the installed command in its setup lines; without the
    mcp extra (CI installs the bare wheel), serving exits 2 saying what to install."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            args, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60, check=False
        )

    shown = run(INSTALLED, "mcp", "--help")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("Usage: memory-test mcp ")
    assert "claude mcp add memory-test -- memory-test mcp" in shown.stdout
    if run(str(Path(INSTALLED).parent / "python"), "-c", "import mcp").returncode != 0:
        served = run(INSTALLED, "mcp")
        assert served.returncode == 2
        assert "pip install 'memory-test[mcp]'" in served.stderr
