"""`memory list` without pydantic (pipeline/quicklist.py): whatever it accepts, the models
accept and read as the same values, and both paths print the same bytes."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline import quicklist
from pipeline.api import MemoryView
from pipeline.commands import _line
from pipeline.kinds import DECAY_POLICIES, LABELS, STATUSES
from pipeline.models import LtmFile, Memory
from tests.helpers import invoke, keyless_env

PROJECT = Path(__file__).resolve().parent.parent
NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
HORIZON = 720.0

_labels = st.one_of(st.none(), st.sampled_from(["alpha", "beta", " spaced ", "项目"]))
_times = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2030, 1, 1), timezones=st.just(UTC)
)


@st.composite
def memories(draw: st.DrawFn, n: int) -> Memory:
    data: dict[str, Any] = {
        "id": f"mem_{n:04d}",
        "type": draw(st.sampled_from(["preference", "identity", "habit", "made-up"])),
        "subject": draw(st.sampled_from(["user", "assistant"])),
        "content": draw(st.text(min_size=1, max_size=30)),
        "confidence": draw(st.floats(min_value=0, max_value=1)),
        "reason": draw(st.text(max_size=10)),
        "created_at": draw(_times),
        "last_reinforced": draw(_times),
        "hit_count": draw(st.integers(min_value=0, max_value=10**6)),
        "source_turn_id": draw(st.one_of(st.none(), st.text(max_size=8))),
        "status": draw(st.sampled_from(STATUSES)),
        "source": draw(st.sampled_from(["reflection", "human", "import"])),
        "decay": draw(st.sampled_from(DECAY_POLICIES)),
        "global": draw(st.booleans()),
        **{name: draw(_labels) for name in LABELS},
    }
    return Memory.model_validate(data)


@st.composite
def files(draw: st.DrawFn) -> bytes:
    """ltm.json as the store writes it."""
    count = draw(st.integers(min_value=0, max_value=5))
    ltm = LtmFile(next_seq=count + 1, memories=[draw(memories(i + 1)) for i in range(count)])
    return ltm.model_dump_json(indent=2).encode()


def _library(raw: bytes) -> list[tuple[dict[str, Any], str]]:
    """What the library shows for each memory: its JSON and its line."""
    ltm = LtmFile.model_validate_json(raw)
    views = [MemoryView(m, m.current_confidence(NOW, HORIZON)) for m in ltm.memories]
    return [(v.to_json(), _line(v)) for v in views]


def _quick(memories: list[dict[str, Any]]) -> list[tuple[dict[str, Any], str]]:
    shown = []
    for m in memories:
        current = quicklist.confidence_now(m, NOW, HORIZON)
        line = quicklist.listing(
            [
                (
                    m["id"],
                    m["type"],
                    current,
                    m["hit_count"],
                    m["content"],
                    m["status"],
                    quicklist.labels(m),
                )
            ]
        )
        shown.append((quicklist.as_json(m, current), line))
    return shown


def test_the_fields_are_the_models_fields() -> None:
    """The field order and defaults are Memory's own, so the JSON keys come out alike."""
    fields = list(Memory.model_fields)
    assert fields == [*quicklist.FIELDS, *LABELS, "is_global"]
    for name, default in quicklist.DEFAULTS.items():
        assert Memory.model_fields[name].default == default
    required = {name for name, info in Memory.model_fields.items() if info.is_required()}
    assert required == set(quicklist.FIELDS) - set(quicklist.DEFAULTS)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files())
def test_what_the_store_writes_is_read_alike(raw: bytes) -> None:
    """Every file the store writes is in the canonical form, and read as the models read it."""
    read = quicklist.read_canonical(raw)
    assert read is not None
    assert _quick(read) == _library(raw)


# A value of any JSON kind, for putting where it does not belong.
_json_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(
        [
            "",
            "2026-01-02T03:04:05Z",
            "2026-01-02T03:04:05+00:00",
            "2026-01-02T03:04:05.5Z",
            "2026-01-02 03:04:05Z",
            "2026-01-02T03:04:05",
            "2026-01-02",
            "1",
            "true",
            "\ud800",
        ]
    ),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
_keys = st.sampled_from(
    [*quicklist.FIELDS, *LABELS, "global", "is_global", "extra", "schema_version", "next_seq"]
)


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """A written file with a few values replaced, keys added or removed, at either level."""
    document = json.loads(draw(files()))
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        items = document["memories"]
        target = draw(st.sampled_from(items)) if items and draw(st.booleans()) else document
        key = draw(_keys)
        if draw(st.integers(min_value=0, max_value=4)) == 0:
            target.pop(key, None)
        else:
            target[key] = draw(_json_values)
    return json.dumps(document, ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogatepass")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_a_file_read_here_is_read_alike_by_the_models(raw: bytes) -> None:
    """Whatever passes the check, the models accept too and read as the same values;
    anything else is left to them (None)."""
    read = quicklist.read_canonical(raw)
    if read is None:
        return
    assert _quick(read) == _library(raw)


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"{not json",
        b"[]",
        b'\xef\xbb\xbf{"memories": []}',
        '{"memories": []}'.encode("utf-16"),
        b'{"schema_version": 2, "memories": []}',
        b'{"schema_version": true, "memories": []}',
        b'{"memories": [], "unknown": 1}',
        b'{"memories": {}}',
    ],
)
def test_anything_unusual_is_left_to_the_models(raw: bytes) -> None:
    """Not UTF-8 JSON, a newer or odd schema_version, an unknown field: not read here."""
    assert quicklist.read_canonical(raw) is None


@pytest.fixture
def stored(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A state folder with memories of every status, type and label."""
    state = tmp_path / "state"
    state.mkdir()
    made = [
        ("User likes green tea", "preference", "active", {}),
        ("User works on the alpha parser", "habit", "active", {"project": "alpha"}),
        ("User reviews beta releases", "habit", "active", {"project": "beta", "agent": "ci"}),
        ("User's name is Ada", "identity", "active", {"global": True, "project": "beta"}),
        ("User used to live in Lyon", "identity", "forgotten", {}),
        ("User may like jazz", "preference", "draft", {"personality": "coach"}),
    ]
    at = NOW - timedelta(days=3)
    ltm = LtmFile(
        next_seq=len(made) + 1,
        memories=[
            Memory.model_validate(
                {
                    "id": f"mem_{i:04d}",
                    "type": kind,
                    "subject": "user",
                    "content": text,
                    "confidence": 0.9,
                    "created_at": at,
                    "last_reinforced": at,
                    "status": status,
                    "decay": "reinforceable",
                    **labels,
                }
            )
            for i, (text, kind, status, labels) in enumerate(made, start=1)
        ],
    )
    (state / "ltm.json").write_text(ltm.model_dump_json(indent=2))
    return state, keyless_env(state)


@pytest.mark.parametrize(
    "options",
    [
        (),
        ("--all",),
        ("--type", "habit"),
        ("--project", "alpha"),
        ("--project", "beta", "--agent", "ci"),
        ("--global",),
        ("--personality", "coach", "--all"),
        ("--json",),
        ("--json", "--all", "--project", "beta"),
    ],
)
def test_memory_list_prints_what_the_library_path_prints(
    stored: tuple[Path, dict[str, str]], options: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same stdout, byte for byte, with and without the quick path."""
    _state, env = stored
    fixed = NOW
    monkeypatch.setattr("pipeline.api.utcnow", lambda: fixed)
    real = quicklist.quick_list
    monkeypatch.setattr(
        "pipeline.commands.quick_list", lambda s, a: real(s, a, now=fixed), raising=True
    )
    quick = invoke("memory", "list", *options, env=env)
    monkeypatch.setattr("pipeline.commands.quick_list", lambda s, a: None)
    library = invoke("memory", "list", *options, env=env)
    assert quick.returncode == library.returncode == 0
    assert quick.stdout == library.stdout
    assert quick.stdout.strip()


def _imports(env: dict[str, str], *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-X", "importtime", str(PROJECT / "memory_test.py"), *command],
        capture_output=True,
        text=True,
        env={**env, "PYTHONPATH": str(PROJECT)},
        check=False,
    )


def test_listing_a_written_store_builds_no_models(stored: tuple[Path, dict[str, str]]) -> None:
    """A store as the program writes it is listed without importing pydantic's models."""
    _state, env = stored
    result = _imports(env, "memory", "list")
    assert result.returncode == 0
    assert "User likes green tea" in result.stdout
    assert "pipeline.quicklist" in result.stderr
    assert "pydantic.main" not in result.stderr
    assert "pipeline.models" not in result.stderr


def test_a_hand_edited_store_is_listed_by_the_library(
    stored: tuple[Path, dict[str, str]],
) -> None:
    """A field this version does not know sends `memory list` down the library's path,
    which keeps the field and lists the memories as before."""
    state, env = stored
    document = json.loads((state / "ltm.json").read_text())
    document["memories"][0]["mood"] = "sunny"
    (state / "ltm.json").write_text(json.dumps(document))
    result = _imports(env, "memory", "list")
    assert result.returncode == 0
    assert "User likes green tea" in result.stdout
    assert "pipeline.models" in result.stderr
    assert json.loads((state / "ltm.json").read_text())["memories"][0]["mood"] == "sunny"


def test_a_secret_stored_before_its_detector_is_hidden_by_both_paths(
    stored: tuple[Path, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A secret in a memory's text or in a hand-edited type is redacted on the way out,
    with and without the quick path; the program's own ids and statuses are shown."""
    state, env = stored
    document = json.loads((state / "ltm.json").read_text())
    document["memories"][0]["content"] = "User's garage door code is 4471"
    document["memories"][1]["type"] = "sk-proj-ABCDEFGHIJKLMNOPQRSTUV"
    (state / "ltm.json").write_text(json.dumps(document))
    quick = invoke("memory", "list", env=env)
    monkeypatch.setattr("pipeline.commands.quick_list", lambda s, a: None)
    library = invoke("memory", "list", env=env)
    for result in (quick, library):
        assert result.returncode == 0
        assert "4471" not in result.stdout
        assert "ABCDEFGHIJKLMNOPQRSTUV" not in result.stdout
        assert "mem_0001" in result.stdout
        assert "User's garage door code is [REDACTED]" in result.stdout
    assert quick.stdout == library.stdout
