"""Write `pipeline/identity/names.json`: each python-stdnum module that validates a
number naming a person (a national identity, social security, personal tax or student
number), with the names its own documentation gives that number, in its language and in
English ("OIB", "Osobni identifikacijski broj", "Croatian identification number").

The secret finder reads the table beside its own (`credentials.IDENTITY_NUMBERS`): a
number in the clause of one of these names is a secret when that module's check digits
accept it. The names come from the module's first line of documentation, which python-stdnum
writes in one form for every number it knows, so a country added to python-stdnum is read by
running this again; importing every module at a turn's start to read them would cost
hundreds of milliseconds. Numbers that name a company, a security, a school or a tax on
goods are left out: they are printed for anyone to see.

    python benchmarks/build_identity_names.py
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
from pathlib import Path

import stdnum

OUT = Path(__file__).resolve().parent.parent / "pipeline" / "identity" / "names.json"
PERSONAL = re.compile(
    r"personal|person\b|citizen|national (?:id|identi|number)|identity|identification number"
    r"|social security|social insurance|birth number|individual|health number|tax file"
    r"|taxpayer|income tax|student",
    re.IGNORECASE,
)
PUBLIC = re.compile(
    r"VAT|compan|entrepris|memorandum|meter|sepa|mobile|regist(?:er|ration) number|jurídica"
    r"|organisation|securit(?:y|ies) identification|school|excise|preparer|employer",
    re.IGNORECASE,
)
# A name part that names no number: a country's adjective alone ("Lithuanian"), "entities".
NOT_A_NAME = re.compile(r"^(?:[A-Z][a-z]+(?:an|ish|ese)|entities)$")


def names(first_line: str) -> list[str]:
    """The names in a module's first line: "OIB (Osobni identifikacijski broj, Croatian
    identification number)." gives the three of them."""
    head, _, inner = first_line.rstrip(".").partition("(")
    inner = inner.rsplit(")", 1)[0]
    found = [n.strip() for n in head.split(",")]
    found += [n.strip(' "“”') for n in re.split(r",|\band\b", inner)]
    found = [re.sub(r"^the ", "", n) for n in found]
    return [n for n in dict.fromkeys(found) if n and not NOT_A_NAME.fullmatch(n)]


def identity_modules() -> dict[str, list[str]]:
    """Each personal number's module (without "stdnum.") and its names."""
    table = {}
    for info in pkgutil.walk_packages(stdnum.__path__, "stdnum."):
        if info.ispkg:
            continue
        module = importlib.import_module(info.name)
        first = (module.__doc__ or "").strip().split("\n")[0]
        if PERSONAL.search(first) and not PUBLIC.search(first) and hasattr(module, "is_valid"):
            table[info.name.removeprefix("stdnum.")] = names(first)
    return table


def main() -> None:
    table = identity_modules()
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(table, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{len(table)} modules, {sum(map(len, table.values()))} names -> {OUT}")


if __name__ == "__main__":
    main()
