"""Printing an answer while it streams in, without printing a secret in it.

Every printed answer goes through `redact`, which needs the words around a value ("the
door code is 4471") to see that it is a credential. So a streamed answer is printed a
sentence at a time: text is held until a sentence or a line ends, then that stretch is
redacted and written. The reader sees the answer grow as it arrives; a secret is masked
exactly as in the complete answer.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable

from .credentials import redact

# The end of a sentence (with any closing quote or bracket) followed by white space, or a
# line break. Full-width punctuation ends a sentence without a space after it.
_BOUNDARY = re.compile(r"""[.!?…]["')\]»”’]*\s+|[。！？；]["')\]」』”’]*\s*|\n""")


def write_stdout(text: str) -> None:
    """Write to standard output at once: a streamed answer must show as it arrives."""
    sys.stdout.write(text)
    sys.stdout.flush()


class AnswerPrinter:
    """Writes a streamed answer sentence by sentence (`delta`), then the rest (`finish`).

    Without any delta (a reply that was not streamed) `finish` writes the whole answer.
    `abort` ends a partly written answer with a line break, so an error printed after it
    starts on a line of its own.
    """

    def __init__(self, write: Callable[[str], None], *, prefix: str = "") -> None:
        self._write = write
        self._prefix = prefix
        self._pending = ""
        self._started = False

    def delta(self, piece: str) -> None:
        """Take one piece of the answer; write what now ends a sentence."""
        self._pending += piece
        ends = [m.end() for m in _BOUNDARY.finditer(self._pending)]
        if ends:
            self._emit(self._pending[: ends[-1]])
            self._pending = self._pending[ends[-1] :]

    def finish(self, answer: str) -> None:
        """The answer is complete: write what is left (or all of it) and end the line."""
        if not self._started:
            self._emit(answer)
        else:
            self._emit(self._pending)
        self._pending = ""
        self._write("\n")
        self._started = False

    def abort(self) -> None:
        """The answer broke off: end the partly written line."""
        if self._started or self._pending:
            self._emit(self._pending)
            self._pending = ""
            self._write("\n")
            self._started = False

    def _emit(self, text: str) -> None:
        if not self._started:
            self._write(self._prefix)
            self._started = True
        if text:
            self._write(redact(text))
