"""The README, --help and the code tell the same story."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from pipeline.cli import root
from pipeline.config import VARIABLES
from tests.helpers import PROJECT

README = (PROJECT / "README.md").read_text(encoding="utf-8")


def test_every_variable_is_in_the_readme_table() -> None:
    """Each configuration variable the code reads is documented in the README."""
    documented = set(re.findall(r"^\| `([A-Z_]+)` \|", README, flags=re.MULTILINE))
    assert documented == set(VARIABLES)


def test_every_flag_is_in_the_readme() -> None:
    """Each command-line flag appears in the README's command-line table."""
    for param in root.params:
        for flag in param.opts + param.secondary_opts:
            if flag.startswith("--") and flag != "--help":
                assert f"`{flag}" in README, flag


def test_ci_runs_the_readme_test_command() -> None:
    """.ci/run runs exactly the test command the README gives."""
    command = (
        "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test,semantic]' "
        "&& python -m pytest"
    )
    assert command in README
    assert command in (PROJECT / ".ci" / "run").read_text()


def readme_python_example() -> str:
    """The runnable example of the README's "Use it from Python" section."""
    section = README.split("## Use it from Python", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def test_readme_library_example_runs(tmp_path: Path) -> None:
    """The README's library example runs as written, in a fresh process with no settings
    in the environment, and prints what its comments say."""
    script = tmp_path / "example.py"
    script.write_text(readme_python_example())
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(PROJECT), "HOME": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:2] == ["accepted mem_0001", "secret"]
    assert lines[2].startswith("Noted. [")
    assert "User prefers tea to coffee" in result.stdout
    assert lines[-1] in ("{'active': 1, 'forgotten': 1}", "{'forgotten': 1, 'active': 1}")
