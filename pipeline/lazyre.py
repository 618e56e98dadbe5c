"""Regular expressions compiled on first use.

The gate's detectors hold a few hundred patterns, some of them alternations of hundreds of
words. Compiled at import, they cost every process about 45 ms, `memory list` included,
though a turn's texts reach only the few whose stems they hold. `lazy` returns an object
that answers as the compiled pattern does and compiles it the first time it is asked to
match; `.pattern` and `.flags` are answered without compiling, so one pattern can be built
from another's source at import. A turn compiles them all (`compile_all`) in the background
while the model answers, so its gate does not wait for them.
"""

from __future__ import annotations

import re
from typing import Any, cast


class _LazyPattern:
    # The compiled pattern's methods are copied onto the instance once compiled, so later
    # calls find them at once rather than through `__getattr__`.
    _METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split")

    def __init__(self, source: str, flags: int) -> None:
        self._source = source
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def pattern(self) -> str:
        return self._source

    @property
    def flags(self) -> int:
        return self._compiled_pattern().flags

    def _compiled_pattern(self) -> re.Pattern[str]:
        if self._compiled is None:
            compiled = re.compile(self._source, self._flags)
            for name in self._METHODS:
                setattr(self, name, getattr(compiled, name))
            self._compiled = compiled
        return self._compiled

    def __getattr__(self, name: str) -> Any:
        # Until compiled: the methods above; always: groups, groupindex and the rest. Dunder
        # lookups (copy, pickle) are not the pattern's.
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._compiled_pattern(), name)

    def __repr__(self) -> str:
        return f"lazy({self._source[:40]!r}…)"


def lazy(source: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """`re.compile(source, flags)`, done the first time the pattern is used. Pass the result
    to its own methods only: `re.search(pattern, …)` and the like need a compiled one."""
    pattern = _LazyPattern(source, int(flags))
    _ALL.append(pattern)
    return cast(re.Pattern[str], pattern)


_ALL: list[_LazyPattern] = []


def compile_all() -> int:
    """Compile every pattern made by `lazy` so far; returns how many were compiled now."""
    pending = [p for p in _ALL if p._compiled is None]
    for pattern in pending:
        pattern._compiled_pattern()
    return len(pending)
