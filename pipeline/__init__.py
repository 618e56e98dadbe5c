"""A memory-aware command-line assistant: two LLM passes per turn and a programmatic gate.

`from pipeline import Memory` is the library (see pipeline/api.py). It is loaded on first
use, so that `import pipeline` stays as cheap as the command line needs it to be.
"""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["Memory", "__version__"]

# Not typing.TYPE_CHECKING: importing typing alone would add to every start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from .api import Memory


def __getattr__(name: str) -> object:
    if name == "Memory":
        from .api import Memory

        return Memory
    raise AttributeError(f"module 'pipeline' has no attribute {name!r}")
