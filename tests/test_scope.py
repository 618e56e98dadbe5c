"""Seed 003's metadata: stored and read back, and who sees a memory from which scope."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pipeline.apply import apply_decisions
from pipeline.gate import gate
from pipeline.models import CandidateIn, LtmFile, Memory, Policy, Scope
from pipeline.retrieval import gate_view, in_scope, retrieve_relevant
from tests.helpers import candidate, invoke, reflection, turn_env
from tests.llm_server import ScriptedLLM
from tests.strategies import NOW, memory

OLD_MEMORY = {
    "id": "mem_0001",
    "type": "identity",
    "subject": "user",
    "content": "User is allergic to peanuts",
    "confidence": 0.9,
    "reason": "",
    "created_at": "2026-11-22T10:00:00Z",
    "last_reinforced": "2026-11-22T10:00:00Z",
    "hit_count": 1,
    "source_turn_id": None,
    "status": "active",
    "source": "reflection",
    "decay": "stable",
    "colour": "blue",
}


def labelled(mid: str, content: str, **labels: object) -> Memory:
    return memory(mid, content).model_copy(update=labels)


def test_a_memory_without_metadata_is_written_back_as_it_was_read() -> None:
    """Old files load unchanged: no metadata key appears, and unknown fields are kept."""
    loaded = Memory.model_validate(OLD_MEMORY)
    assert (loaded.agent, loaded.personality, loaded.project, loaded.is_global) == (
        None,
        None,
        None,
        False,
    )
    assert json.loads(loaded.model_dump_json()) == OLD_MEMORY


def test_metadata_round_trips_with_global_as_its_seed_name() -> None:
    """`global` is the key on disk and in JSON; `is_global` only in Python."""
    row = {**OLD_MEMORY, "agent": "claude", "project": "memories", "global": True}
    loaded = Memory.model_validate(row)
    assert loaded.is_global
    assert (loaded.agent, loaded.project) == ("claude", "memories")
    dumped = json.loads(loaded.model_dump_json())
    assert dumped == row
    assert "is_global" not in dumped
    again = LtmFile.model_validate_json(LtmFile(memories=[loaded]).model_dump_json())
    assert again.memories[0] == loaded


def test_an_empty_label_means_unset() -> None:
    """Seed 003 writes "" for a label that is not set; it reads as None and is not written."""
    loaded = Memory.model_validate({**OLD_MEMORY, "project": "", "global": False})
    assert loaded.project is None
    assert "project" not in json.loads(loaded.model_dump_json())
    assert loaded.labels() == {
        "agent": None,
        "personality": None,
        "project": None,
        "global": False,
    }


STORE = [
    labelled("mem_0001", "Project a uses tabs", project="a"),
    labelled("mem_0002", "Project b uses spaces", project="b"),
    labelled("mem_0003", "User writes British English", is_global=True, project="b"),
    labelled("mem_0004", "User is called Sam"),
    labelled("mem_0005", "Reviews by the architect are strict", personality="architect"),
    labelled("mem_0006", "Codex runs the tests first", agent="codex", project="a"),
]


def visible(scope: Scope) -> list[str]:
    return [m.id for m in in_scope(STORE, scope)]


def test_a_project_sees_its_own_global_and_unscoped_memories() -> None:
    """--project a: a's memories, global ones (whatever their project) and those with no
    project; never b's."""
    assert visible(Scope(project="a")) == [
        "mem_0001",
        "mem_0003",
        "mem_0004",
        "mem_0005",
        "mem_0006",
    ]
    assert visible(Scope(project="b")) == ["mem_0002", "mem_0003", "mem_0004", "mem_0005"]


def test_no_scope_sees_everything() -> None:
    """A filter that is not given does not filter."""
    assert visible(Scope()) == [m.id for m in STORE]


def test_every_label_the_scope_sets_must_not_be_contradicted() -> None:
    """Agent and personality narrow like project; a global memory passes them all."""
    assert visible(Scope(project="a", agent="claude")) == [
        "mem_0001",
        "mem_0003",
        "mem_0004",
        "mem_0005",
    ]
    assert visible(Scope(personality="engineer")) == [
        "mem_0001",
        "mem_0002",
        "mem_0003",
        "mem_0004",
        "mem_0006",
    ]


def test_retrieval_from_a_project_never_shows_another_projects_memory() -> None:
    """The filter comes before ranking: a perfect match from project b is not recalled
    from project a."""
    found = retrieve_relevant(
        in_scope(STORE, Scope(project="a")),
        query="which project uses spaces?",
        min_confidence=0.65,
        token_budget=1500,
        max_items=40,
    )
    assert "mem_0002" not in [r.memory.id for r in found.used]


def cand(content: str) -> CandidateIn:
    return CandidateIn(
        type="preference", subject="user", content=content, confidence=0.9, reason="stated"
    )


def test_the_same_fact_in_another_project_is_a_new_memory_in_this_one() -> None:
    """The duplicate rule looks only at memories the scope can see: b's copy is not
    reinforced from project a (a could never recall it); a is given its own."""
    stored = [labelled("mem_0001", "User prefers tabs for indentation", project="b")]
    ltm = LtmFile(memories=list(stored), next_seq=2)
    scope = Scope(project="a")
    result = gate(
        [cand("User prefers tabs for indentation")],
        [],
        gate_view(ltm.memories, scope),
        aliases={},
        policy=Policy(),
        now=NOW,
    )
    assert result.candidates[0].verdict == "accepted"
    applied = apply_decisions(
        ltm,
        [cand("User prefers tabs for indentation")],
        [],
        result,
        turn_id="t-1",
        now=NOW,
        labels=scope.labels(),
    )
    new = ltm.memories[-1]
    assert applied.result.candidates[0].memory_id == new.id == "mem_0002"
    assert new.project == "a"
    assert (ltm.memories[0].hit_count, ltm.memories[0].status) == (1, "active")


def test_a_fact_already_global_or_unscoped_is_reinforced_not_copied() -> None:
    """What the scope can already see is merged, as without scopes."""
    for labels in ({"is_global": True, "project": "b"}, {}):
        stored = [labelled("mem_0001", "User prefers tabs for indentation", **labels)]
        result = gate(
            [cand("User prefers tabs for indentation")],
            [],
            gate_view(stored, Scope(project="a")),
            aliases={},
            policy=Policy(),
            now=NOW,
        )
        decision = result.candidates[0]
        assert (decision.verdict, decision.memory_id) == ("merged", "mem_0001")


def test_out_of_scope_memories_still_count_towards_the_daily_quota() -> None:
    """Scopes do not multiply the quota: 30 a day in all projects together."""
    others = [
        labelled(f"mem_{i:04d}", f"Project b fact number {i}", project="b").model_copy(
            update={"created_at": NOW, "last_reinforced": NOW}
        )
        for i in range(1, 31)
    ]
    result = gate(
        [cand("User prefers tabs for indentation")],
        [],
        gate_view(others, Scope(project="a")),
        aliases={},
        policy=Policy(),
        now=NOW,
    )
    assert result.candidates[0].reason == "quota_day"
    assert all(m.status == "active" for m in others)  # the view is a copy


# --- Turns in a project, end to end -----------------------------------------------------------


def prompt_of(llm: ScriptedLLM, index: int) -> str:
    return str(llm.requests[index]["messages"][0]["content"])


def test_a_turn_labels_what_it_learns_and_recalls_only_its_scope(
    llm: ScriptedLLM, state_dir: Path
) -> None:
    """Learned with --project a (and an agent from the environment), the memory carries
    both; a project b turn does not see it, a project a turn and an unscoped turn do."""
    env = turn_env(llm, state_dir, MEMTEST_AGENT="claude")
    llm.reply("ok").reply(reflection(candidate("User indents this codebase with tabs")))
    assert invoke("-i", "we use tabs here", "--project", "a", env=env).returncode == 0
    stored = json.loads((state_dir / "ltm.json").read_text())["memories"]
    assert [(m["project"], m["agent"]) for m in stored] == [("a", "claude")]
    for project, seen in (("b", False), ("a", True), (None, True)):
        llm.reply("ok").reply(reflection())
        flags = ("--project", project) if project else ()
        result = invoke("-i", "tabs or spaces for this codebase?", *flags, "--json", env=env)
        assert result.returncode == 0, result.stderr
        used = [m["id"] for m in json.loads(result.stdout)["memories_used"]]
        assert used == (["mem_0001"] if seen else [])
        assert ("indents this codebase" in prompt_of(llm, -2)) is seen


def test_a_bad_project_name_is_a_usage_error(llm: ScriptedLLM, state_dir: Path) -> None:
    """A name with a newline is refused before any model call, exit 2."""
    result = invoke("-i", "hi", "--project", "a\nb", env=turn_env(llm, state_dir))
    assert result.returncode == 2
    assert "--project 'a\\nb' is not a valid name" in result.stderr
    assert llm.requests == []
    bad = turn_env(llm, state_dir, MEMTEST_AGENT="x" * 65)
    assert "MEMTEST_AGENT" in invoke("-i", "hi", env=bad).stderr


# --- The memory commands, seed 003's names -----------------------------------------------------


def test_created_in_a_project_recalled_there_and_global_everywhere(
    llm: ScriptedLLM, state_dir: Path
) -> None:
    """`memory create --project a` is recalled in a project a turn, not in a project b
    turn; a `--global` one (labelled b) in both."""
    env = turn_env(llm, state_dir)
    for text, labels in (
        ("User deploys the billing service on Fridays", ("--project", "a")),
        ("User deploys nothing without a review", ("--global", "--project", "b")),
    ):
        made = invoke("memory", "create", text, "--type", "habit", *labels, env=env)
        assert made.returncode == 0, made.stderr
    for project, expected in (("a", ["mem_0001", "mem_0002"]), ("b", ["mem_0002"])):
        llm.reply("ok").reply(reflection())
        result = invoke("-i", "when do I deploy?", "--project", project, "--json", env=env)
        assert result.returncode == 0, result.stderr
        used = sorted(m["id"] for m in json.loads(result.stdout)["memories_used"])
        assert used == expected


def as_json(env: dict[str, str], *args: str) -> Any:
    result = invoke(*args, env=env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_list_and_search_filter_like_a_turn(llm: ScriptedLLM, state_dir: Path) -> None:
    """--project, --agent, --personality and --global filter list and search; every
    memory in JSON has the four labels, unset ones as null / false."""
    env = turn_env(llm, state_dir)
    for text, labels in (
        ("Project a ships on Fridays", ("--project", "a", "--agent", "claude")),
        ("Project b ships on Mondays", ("--project", "b")),
        ("User ships nothing untested", ("--global", "--personality", "engineer")),
    ):
        invoke("memory", "add", text, "--type", "habit", *labels, env=env)
    listed = as_json(env, "memory", "list", "--project", "a", "--format", "json")["memories"]
    assert [m["id"] for m in listed] == ["mem_0001", "mem_0003"]
    assert {k: listed[0][k] for k in ("agent", "personality", "project", "global")} == {
        "agent": "claude",
        "personality": None,
        "project": "a",
        "global": False,
    }
    assert listed[1]["global"] is True
    by_codex = as_json(env, "memory", "list", "--agent", "codex", "--json")["memories"]
    assert [m["id"] for m in by_codex] == ["mem_0002", "mem_0003"]
    only_global = as_json(env, "memory", "list", "--global", "--json")["memories"]
    assert [m["id"] for m in only_global] == ["mem_0003"]
    found = as_json(env, "memory", "search", "ships", "--project", "b", "--json")["results"]
    assert sorted(r["id"] for r in found) == ["mem_0002", "mem_0003"]
    text = invoke("memory", "list", env=env).stdout
    assert "(agent claude, project a)" in text
    assert "(global, personality engineer)" in text


def test_seed_names_are_the_same_commands(llm: ScriptedLLM, state_dir: Path) -> None:
    """create, get and delete do what add, show and forget do; --format json is --json."""
    env = turn_env(llm, state_dir)
    made = as_json(env, "memory", "create", "User is vegan", "--type", "identity", "--json")
    assert made["results"][0]["memory_id"] == "mem_0001"
    got = as_json(env, "memory", "get", "mem_0001", "--format", "json")
    assert (got["content"], [h["event"] for h in got["history"]]) == (
        "User is vegan",
        ["created"],
    )
    deleted = as_json(env, "memory", "delete", "mem_0001", "--format=json")
    assert (deleted["status"], deleted["changed"]) == ("forgotten", True)
    assert invoke("memory", "get", "mem_0001", "--format", "text", env=env).stdout.startswith(
        "mem_0001 (forgotten"
    )
    clash = invoke("memory", "list", "--json", "--format", "text", env=env)
    assert clash.returncode == 2
    assert "contradict" in json.loads(clash.stdout)["error"]["message"]


def test_status_reports_health_and_fails_when_unreadable(state_dir: Path) -> None:
    """`memory status` says healthy with counts; an unreadable ltm.json makes it exit 1,
    name the problem, and leave the file where it is."""
    env = {"MEMTEST_STATE_DIR": str(state_dir), "MEMTEST_RETRIEVER": "lexical"}
    env["MEMTEST_ENV_FILE"] = str(state_dir.parent / "empty.env")
    invoke("memory", "add", "User is vegan", "--type", "identity", env=env)
    healthy = as_json(env, "memory", "status", "--json")
    assert (healthy["status"], healthy["memory_count"], healthy["lock"]) == ("healthy", 1, "free")
    assert healthy["schema_version"] == 1
    (state_dir / "ltm.json").write_text("{not json")
    broken = invoke("memory", "status", "--format", "json", env=env)
    assert broken.returncode == 1
    report = json.loads(broken.stdout)
    assert (report["status"], report["readable"]) == ("unhealthy", False)
    assert "ltm.json could not be read" in report["problems"][0]
    assert (state_dir / "ltm.json").read_text() == "{not json"
    assert "unhealthy" in invoke("memory", "status", env=env).stdout


def test_the_library_labels_and_filters(state_dir: Path) -> None:
    """Memory.add labels; list, search and recall see what the scope sees; a Memory made
    for a project uses it as the default."""
    from pipeline import Memory

    memory = Memory(state_dir)
    memory.add("Project a ships on Fridays", type="habit", project="a")
    memory.add("Project b ships on Mondays", type="habit", project="b")
    memory.add("User ships nothing untested", type="habit", is_global=True)
    assert [v.id for v in memory.list(project="b")] == ["mem_0002", "mem_0003"]
    assert [v.id for v in memory.list(only_global=True)] == ["mem_0003"]
    assert [h.memory.id for h in memory.search("ships Fridays", project="b").hits] == [
        "mem_0002",
        "mem_0003",
    ]
    in_a = Memory(state_dir, settings=replace(memory.settings, project="a"))
    in_a.keep_warm()  # the scope's rows are picked from the warm vector matrix
    assert sorted(h.memory.id for h in in_a.recall("when do we ship?")) == [
        "mem_0001",
        "mem_0003",
    ]
    verdict = in_a.add("User reviews every pull request", type="habit")
    assert in_a.get(verdict.memory_id or "").memory.project == "a"
    assert [v.id for v in in_a.list(scoped=False)] == [
        "mem_0001",
        "mem_0002",
        "mem_0003",
        "mem_0004",
    ]


def test_import_keeps_the_labels_of_each_line(state_dir: Path, tmp_path: Path) -> None:
    """Plain import lines carry their labels; a label that is not a name is a usage error
    naming the line, and nothing is imported."""
    from pipeline import Memory
    from pipeline.errors import UsageError

    memory = Memory(state_dir)
    lines = [
        {"type": "habit", "content": "Project a ships on Fridays", "project": "a"},
        {"type": "habit", "content": "User ships nothing untested", "global": True},
        {"type": "habit", "content": "User pairs on hard bugs", "project": ""},
    ]
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    with path.open("rb") as handle:
        verdicts = memory.import_lines(handle, name=str(path))
    assert [v.verdict for v in verdicts] == ["accepted"] * 3
    stored = [v.memory.labels() for v in memory.list()]
    assert [(s["project"], s["global"]) for s in stored] == [
        ("a", False),
        (None, True),
        (None, False),
    ]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"type": "habit", "content": "User runs", "agent": 7}) + "\n")
    with bad.open("rb") as handle, pytest.raises(UsageError, match="line 1: not a memory"):
        memory.import_lines(handle, name=str(bad))
    assert len(memory.list()) == 3


def test_export_then_import_keeps_the_labels(llm: ScriptedLLM, state_dir: Path) -> None:
    """`memory export` writes the labels that are set, and `memory import` of that file
    into another user's memory keeps them."""
    env = turn_env(llm, state_dir)
    invoke(
        "memory",
        "create",
        "Project a ships on Fridays",
        "--type",
        "habit",
        "--project",
        "a",
        "--agent",
        "claude",
        env=env,
    )
    invoke(
        "memory", "create", "User ships nothing untested", "--type", "habit", "--global", env=env
    )
    exported = invoke("memory", "export", env=env).stdout
    rows = [json.loads(line) for line in exported.splitlines()]
    assert [(r.get("project"), r.get("agent"), r.get("global")) for r in rows] == [
        ("a", "claude", None),
        (None, None, True),
    ]
    imported = invoke("memory", "import", "-", "--user", "bob", stdin=exported, env=env)
    assert imported.returncode == 0, imported.stderr
    listed = as_json(env, "memory", "list", "--user", "bob", "--json")["memories"]
    assert [(m["project"], m["agent"], m["global"]) for m in listed] == [
        ("a", "claude", False),
        (None, None, True),
    ]


def test_labels_scopes_and_status_on_the_postgresql_store(pg_url: str, tmp_path: Path) -> None:
    """The same through the PostgreSQL store: labels are stored and filtered on, and
    `status` reads it (no lock file, no side files there)."""
    from pipeline import Memory
    from pipeline.config import load_settings

    settings = load_settings(
        environ={
            "MEMTEST_STORE": pg_url,
            "MEMTEST_STATE_DIR": str(tmp_path / "state"),
            "MEMTEST_RETRIEVER": "lexical",
        }
    )
    memory = Memory(settings=settings)
    memory.add("Project a ships on Fridays", type="habit", project="a")
    memory.add("Project b ships on Mondays", type="habit", project="b")
    memory.add("User ships nothing untested", type="habit", is_global=True)
    assert [v.id for v in memory.list(project="a")] == ["mem_0001", "mem_0003"]
    assert Memory(settings=settings).get("mem_0003").memory.is_global
    health = memory.status()
    assert (health.status, health.readable, health.memories, health.lock) == (
        "healthy",
        True,
        3,
        "n/a",
    )
