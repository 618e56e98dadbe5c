"""Reading .env files: the plain-line reader agrees with python-dotenv on every file."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from dotenv import dotenv_values
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pipeline.config import _simple_env, read_env_file

ROOT = Path(__file__).resolve().parent.parent

# Lines built from the pieces .env grammar cares about: quotes, comments, escapes,
# interpolation, `export`, odd whitespace and line ends, non-ASCII text.
_PIECES = st.sampled_from(
    [
        "KEY", "MOONSHOT_API_KEY", "export ", "export", "_x1", "a.b", "=", " = ", "==", "#",
        " #", "'", '"', "\\", "$", "${KEY}", "`", " ", "\t", "\r", "\x0c", "sk-abc123",
        "https://api.example/v1", "é", "値", "0", "", "\u2028",
    ]
)  # fmt: skip
_VALUE = st.text(alphabet=st.sampled_from("aZ09-_./:é値#'\"\\$` \t"), max_size=8)
_ASSIGNMENT = st.builds(
    "{}{}{}{}".format,
    st.sampled_from(["", "export ", " ", "\t"]),
    st.sampled_from(["KEY", "MOONSHOT_API_KEY", "_x1", "export"]),
    st.sampled_from(["=", " =", "= ", " = ", "\t=\t"]),
    _VALUE,
)
_LINE = st.one_of(_ASSIGNMENT, st.lists(_PIECES, max_size=6).map("".join))
_TEXT = st.lists(_LINE, max_size=6).map("\n".join)


def _dotenv(text: str) -> dict[str, str]:
    values = dotenv_values(stream=io.StringIO(text))
    return {k: v for k, v in values.items() if v is not None}


@settings(max_examples=400, deadline=None)
@given(_TEXT)
@example("KEY=\n#\rKEY")  # a lone carriage return ends the comment: "KEY" is a line
@example("KEY=1\r\nOTHER=2\r\n")
def test_plain_reader_agrees_with_dotenv_or_defers_to_it(text: str) -> None:
    simple = _simple_env(text)
    if simple is not None:
        assert simple == _dotenv(text)


def test_plain_files_are_read_without_dotenv(tmp_path: Path) -> None:
    text = "# keys\nMOONSHOT_API_KEY=sk-123\n\nexport MEMTEST_MODEL = kimi-k2\nEMPTY=\n"
    assert _simple_env(text) == {
        "MOONSHOT_API_KEY": "sk-123",
        "MEMTEST_MODEL": "kimi-k2",
        "EMPTY": "",
    }
    env = tmp_path / ".env"
    env.write_text(text, encoding="utf-8")
    assert read_env_file(env, named_as=None) == _dotenv(text)


def test_quoted_and_commented_values_go_through_dotenv(tmp_path: Path) -> None:
    text = "A='quoted # not a comment'\nB=plain # a comment\nC=\"line\\nbreak\"\nD=${A}\n"
    assert _simple_env(text) is None
    env = tmp_path / ".env"
    env.write_text(text, encoding="utf-8")
    assert read_env_file(env, named_as=None) == {
        "A": "quoted # not a comment",
        "B": "plain",
        "C": "line\nbreak",
        "D": "quoted # not a comment",
    }


def test_a_plain_file_does_not_import_dotenv(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text("MOONSHOT_API_KEY=sk-123\n", encoding="utf-8")
    probe = (
        "import sys; from pathlib import Path; from pipeline.config import read_env_file; "
        f"read_env_file(Path({str(env)!r}), named_as=None); print('dotenv' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "False"
