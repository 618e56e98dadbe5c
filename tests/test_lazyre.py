"""Patterns compiled on first use answer as compiled ones do."""

from __future__ import annotations

import re
import subprocess
import sys

from hypothesis import given
from hypothesis import strategies as st

from pipeline.lazyre import lazy

from .helpers import PROJECT

SOURCE = r"(?P<noun>code|pin)\s*(?:is|:)\s*(?P<value>\d{4,})"


def test_source_is_read_without_compiling() -> None:
    pattern = lazy(SOURCE, re.IGNORECASE)
    assert pattern.pattern == SOURCE
    assert re.compile(pattern.pattern + "$")  # built from another's source at import
    assert pattern._compiled is None  # type: ignore[attr-defined]


@given(st.text(alphabet="codepinCODEPIN :is0123456789x\n", max_size=40))
def test_every_method_answers_as_the_compiled_pattern(text: str) -> None:
    lazily, eager = lazy(SOURCE, re.IGNORECASE), re.compile(SOURCE, re.IGNORECASE)
    assert lazily.flags == eager.flags
    assert lazily.groupindex == eager.groupindex
    for name in ("search", "match", "fullmatch"):
        got, want = getattr(lazily, name)(text), getattr(eager, name)(text)
        assert (got and got.span(), got and got.groupdict()) == (
            want and want.span(),
            want and want.groupdict(),
        )
    assert [m.span() for m in lazily.finditer(text)] == [m.span() for m in eager.finditer(text)]
    assert lazily.findall(text) == eager.findall(text)
    assert lazily.sub("#", text) == eager.sub("#", text)
    assert lazily.split(text) == eager.split(text)


def test_importing_the_gate_compiles_none_of_its_patterns() -> None:
    """The detectors' patterns wait for a text that needs them."""
    code = (
        "import re, pipeline.gate, pipeline.credentials, pipeline.directives\n"
        "from pipeline.lazyre import _LazyPattern\n"
        "mods = (pipeline.gate, pipeline.credentials, pipeline.directives)\n"
        "lazy = [v for m in mods for v in vars(m).values() if isinstance(v, _LazyPattern)]\n"
        "eager = [k for m in mods for k, v in vars(m).items() if isinstance(v, re.Pattern)]\n"
        "print(len(lazy), sum(p._compiled is not None for p in lazy), eager)\n"
    )
    count, compiled, eager = _in_a_fresh_process(code).split(maxsplit=2)
    assert int(count) > 150
    assert (int(compiled), eager.strip()) == (0, "[]")


def test_the_gate_prepared_in_a_fresh_process_has_nothing_left_to_compile() -> None:
    """What a turn runs in the background while the model answers: every pattern compiled,
    the sensitive nouns' pattern among those made on first use, and the models read."""
    code = (
        "import pipeline.gate as g, pipeline.credentials as c\n"
        "from pipeline.lazyre import compile_all\n"
        "from pipeline.charjudge import load_chars\n"
        "g.prepare()\n"
        "print(compile_all(), c._sensitive_noun_latin.cache_info().currsize > 0,"
        " load_chars.cache_info().currsize)\n"
    )
    assert _in_a_fresh_process(code).split() == ["0", "True", "1"]


def _in_a_fresh_process(code: str) -> str:
    """What `code` prints, run by a new interpreter, which must write nothing to stderr."""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=PROJECT
    )
    assert out.stderr == ""
    return out.stdout
