"""The README, --help and the code tell the same story."""

from __future__ import annotations

import re

from pipeline.cli import build_parser
from pipeline.config import VARIABLES
from tests.helpers import PROJECT

README = (PROJECT / "README.md").read_text(encoding="utf-8")


def test_every_variable_is_in_the_readme_table() -> None:
    """Each configuration variable the code reads is documented in the README."""
    documented = set(re.findall(r"^\| `([A-Z_]+)` \|", README, flags=re.MULTILINE))
    assert documented == set(VARIABLES)


def test_every_flag_is_in_the_readme() -> None:
    """Each command-line flag appears in the README's command-line table."""
    for action in build_parser()._actions:
        for flag in action.option_strings:
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
