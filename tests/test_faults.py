"""Fault injection in the manner of SQLite's I/O-error tests, written as a contract.

For every operation that writes (a turn, a memory command, a purge, an import, a clear),
the suite counts the writes it performs, then runs it again once per write with that
write failing (ENOSPC, then EIO). After each run the state must be exactly the state
before the operation (and the operation must have said that nothing was saved) or
exactly the state after it (and it must have said it was saved).

The contract talks to a store through `StoreHarness`: make a state folder, read its
logical state (after any recovery), and fail the Nth write. A second store
implementation passes the same suite by providing its own harness.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pipeline import store
from pipeline.config import Settings, load_settings
from pipeline.errors import SaveFailed
from pipeline.llm import Completion
from pipeline.models import HistoryEntry, LtmFile, Message
from pipeline.session import new_session
from tests.strategies import NOW, memory

# --- The harness for the JSON-file store --------------------------------------------------


class InjectedFault(OSError):
    pass


@dataclass
class WriteCounter:
    seen: int = 0
    failed: bool = False


class JsonFileStore:
    """The contract's view of pipeline.store: folders, logical state, failing writes."""

    def logical_state(self, paths: store.StatePaths) -> dict[str, Any]:
        """Everything a user can observe, read through the store (which recovers first):
        every visible file byte for byte, and the committed history."""
        snapshot = store.load(paths, now=NOW)
        files = {
            str(f.relative_to(paths.root)): f.read_bytes()
            for f in sorted(paths.root.rglob("*"))
            if f.is_file() and not f.name.startswith(".") and f != paths.history
        }
        files["<committed history>"] = [
            h.model_dump_json() for h in store.read_history(paths, snapshot.ltm)
        ]
        return files

    @contextlib.contextmanager
    def failing_write(self, n: int, code: int) -> Iterator[WriteCounter]:
        """Fail the `n`th write (1-based) with OSError(code); count them all."""
        counter = WriteCounter()

        def hook(op: str, path: Path) -> None:
            counter.seen += 1
            if counter.seen == n:
                counter.failed = True
                raise InjectedFault(code, os.strerror(code), str(path))

        store.fault_hook = hook
        try:
            yield counter
        finally:
            store.fault_hook = None

    def leftovers(self, paths: store.StatePaths) -> list[str]:
        """Files a finished (or recovered) change must not leave behind, after a writer ran."""
        store.transact(paths, lambda _d: store.Change(result=None), now=NOW, lock_timeout=5)
        return [str(p) for p in paths.root.rglob(".*") if p.name != ".state.lock"]


HARNESSES = {"json": JsonFileStore}


@pytest.fixture(params=sorted(HARNESSES))
def harness(request: pytest.FixtureRequest) -> JsonFileStore:
    return HARNESSES[request.param]()


# --- The operations -----------------------------------------------------------------------


class FixedModel:
    """Answers every turn the same, and reflects one new memory, one duplicate and a
    summary, so a turn writes every kind of file."""

    def __init__(self, reflection: dict[str, Any]) -> None:
        self.reflection = json.dumps(reflection)

    def complete(self, messages: list[dict[str, str]], *, json_mode: bool = False) -> Completion:
        return Completion(text=self.reflection if json_mode else "Noted.", attempts=1, seconds=0)


REFLECTION = {
    "candidates": [
        {
            "type": "preference",
            "subject": "user",
            "content": "User likes green tea",
            "confidence": 0.9,
            "reason": "stated",
        },
        {
            "type": "preference",
            "subject": "user",
            "content": "User enjoys playing chess",
            "confidence": 0.95,
            "reason": "said again",
        },
    ],
    "revisions": [],
}


def seed(paths: store.StatePaths, *, turns: int = 3) -> None:
    """A store with two memories, a session of `turns` turns, counters and history."""
    session = new_session(NOW, "s-seed")
    for t in range(turns):
        for role in ("user", "assistant"):
            session.messages.append(
                Message(
                    role=role,
                    content=f"turn {t} {role} about chess",
                    timestamp=NOW,
                    turn_id=f"t-{t}",
                )
            )
    session.messages[0].content = "Remember: User enjoys playing chess"  # for purge to scrub
    ltm = LtmFile(
        next_seq=3,
        memories=[
            memory("mem_0001", "User enjoys playing chess"),
            memory("mem_0002", "User speaks French"),
        ],
    )
    history = [
        HistoryEntry(memory_id=m.id, at=NOW, event="created", after={"content": m.content})
        for m in ltm.memories
    ]
    store.transact(
        paths,
        lambda _d: store.Change(
            result=None, ltm=ltm, session=session, counters={"attempts": 1}, history=history
        ),
        now=NOW,
        lock_timeout=5,
    )


def run_turn_op(settings: Settings, *, new_session_: bool = False) -> list[str]:
    from pipeline import turn

    report = turn.run_turn(
        "I like green tea; and chess, as I said",
        settings,
        model=FixedModel(REFLECTION),
        clock=lambda: NOW,
        start_new_session=new_session_,
    )
    return report.warnings


def turn_op(settings: Settings) -> list[str]:
    return run_turn_op(settings)


def new_session_turn_op(settings: Settings) -> list[str]:
    return run_turn_op(settings, new_session_=True)


def command(*argv: str) -> Callable[[Settings], list[str]]:
    def run(settings: Settings) -> list[str]:
        from types import SimpleNamespace

        from pipeline import commands
        from pipeline.api import Memory

        group, name, *rest = argv
        found = {"memory": commands.memory_group, "session": commands.session_group}[group]
        options = found.commands[name].make_context(name, rest).params
        handler = commands.HANDLERS[(group, name)]
        handler(Memory(settings=settings), SimpleNamespace(**options, json=False))
        return []

    return run


def import_op(settings: Settings) -> list[str]:
    rows = [
        {
            **memory("mem_0040", "User reads science fiction").model_dump(mode="json"),
            "hit_count": 4,
            "source": "human",
            "tag": "kept",
        },
        {"type": "skill", "content": "User can sail a dinghy"},
        {"type": "preference", "content": "User enjoys playing chess"},  # a duplicate
    ]
    file = settings.state_dir.parent / "import.jsonl"
    file.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return command("memory", "import", str(file))(settings)


OPERATIONS: dict[str, Callable[[Settings], list[str]]] = {
    "turn": turn_op,
    "turn --new-session": new_session_turn_op,
    "memory forget": command("memory", "forget", "mem_0002"),
    "memory reinforce": command("memory", "reinforce", "mem_0001"),
    "memory add": command("memory", "add", "User owns a red bicycle", "--type", "identity"),
    "memory forget --purge": command("memory", "forget", "mem_0001", "--purge"),
    "memory import": import_op,
    "memory clear": command("memory", "clear"),
    "session clear": command("session", "clear"),
}


# --- The contract -------------------------------------------------------------------------


def settings_for(root: Path) -> Settings:
    return load_settings(
        state_dir=str(root),
        environ={
            "MOONSHOT_API_KEY": "sk-test-not-a-real-key",
            "MEMTEST_RETRIEVER": "lexical",
            "MEMTEST_SESSION_TURNS": "1",  # so a turn also archives what leaves the session
            "MEMTEST_ENV_FILE": os.environ["MEMTEST_ENV_FILE"],
        },
    )


@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_every_write_failing_leaves_the_state_exactly_before_or_after(
    harness: JsonFileStore,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    operation: str,
) -> None:
    """For each write of the operation, in turn, that write fails with ENOSPC or EIO: the
    state is then exactly as before (and SaveFailed said nothing was saved) or exactly as
    after (and the operation reported success), never anything in between."""
    monkeypatch.setattr("pipeline.turn.new_turn_id", lambda: "t-fixed")
    monkeypatch.setattr("pipeline.api.utcnow", lambda: NOW)
    monkeypatch.setattr(
        "pipeline.turn.new_session", lambda now, name=None: new_session(now, name or "s-new")
    )
    run = OPERATIONS[operation]
    template = tmp_path / "template"
    seed(store.StatePaths(template))
    before = harness.logical_state(store.StatePaths(template))

    clean = tmp_path / "clean"
    shutil.copytree(template, clean)
    with harness.failing_write(10**9, errno.EIO) as counter:
        run(settings_for(clean))
    writes = counter.seen
    after = harness.logical_state(store.StatePaths(clean))
    assert writes >= 1
    assert after != before

    outcomes = {"before": 0, "after": 0}
    for n in range(1, writes + 1):
        for code in (errno.ENOSPC, errno.EIO):
            root = tmp_path / f"run-{n}-{code}"
            shutil.copytree(template, root)
            error: SaveFailed | None = None
            with harness.failing_write(n, code) as counter:
                try:
                    run(settings_for(root))
                except SaveFailed as exc:
                    error = exc
            state = harness.logical_state(store.StatePaths(root))
            if error is not None:
                assert counter.failed
                assert "othing was" in str(error)  # "Nothing was saved/changed"
                assert error.exit_code == 1
                expected = before
                outcomes["before"] += 1
            else:
                expected = after
                outcomes["after"] += 1
            assert state == expected, f"write {n} of {writes} failing ({os.strerror(code)})"
            assert harness.leftovers(store.StatePaths(root)) == []
            shutil.rmtree(root)
    assert outcomes["before"] >= 2  # a write before the commit point was hit


# --- What the command line says when a write fails ----------------------------------------


@pytest.mark.parametrize(("n", "saved"), [(1, False), (3, False), (-1, True)])
def test_a_failed_write_in_a_turn_is_reported_honestly_in_json(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    n: int,
    saved: bool,
) -> None:
    """A write failing before the commit point: exit 1, the --json error object with
    `saved: false`. Failing after it (the last write): exit 0, `saved: true`, a warning
    that the next command finishes it, and the next read sees the turn."""
    from pipeline import cli
    from tests.helpers import echo_responder
    from tests.llm_server import ScriptedLLM

    root = tmp_path / "state"
    seed(store.StatePaths(root))
    with ScriptedLLM(echo_responder) as server:
        monkeypatch.setenv("MOONSHOT_API_KEY", "sk-test-not-a-real-key")
        monkeypatch.setenv("MEMTEST_BASE_URL", server.url)
        monkeypatch.setenv("MEMTEST_RETRIEVER", "lexical")
        argv = ["-i", "remember: User grows tomatoes", "--json", "--state-dir", str(root)]
        with JsonFileStore().failing_write(10**9, errno.EIO) as counter:
            assert cli.main([*argv, "--state-dir", str(tmp_path / "count")]) == 0
        capsys.readouterr()
        with JsonFileStore().failing_write(n if n > 0 else counter.seen, errno.ENOSPC):
            code = cli.main(argv)
    out, err = capsys.readouterr()
    payload = json.loads(out)
    assert payload["saved"] is saved
    contents = [m.content for m in store.load(store.StatePaths(root), now=NOW).ltm.memories]
    assert ("User grows tomatoes" in contents) is saved
    if saved:
        assert code == 0
        assert "the next command finishes it" in err
    else:
        assert code == 1
        assert payload["error"]["type"] == "SaveFailed"
        assert payload["error"]["exit_code"] == 1
        assert "Nothing was saved" in payload["error"]["message"]
    assert "Traceback" not in err


# --- Hostile inputs, through the real command line ----------------------------------------


def run_raw(*args: str, env: dict[str, str], stdin: bytes = b"") -> tuple[int, str, str]:
    """The command line in-process with raw bytes on stdin; (exit code, stdout, stderr)."""
    from tests.helpers import invoke

    result = invoke(*args, env=env, stdin=stdin)
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, result.stdout, result.stderr


@pytest.fixture
def server() -> Iterator[Any]:
    from tests.llm_server import ScriptedLLM

    with ScriptedLLM() as llm:
        yield llm


@pytest.fixture
def env(server: Any, tmp_path: Path) -> dict[str, str]:
    from tests.helpers import turn_env

    return turn_env(server, tmp_path / "state")


def json_error(out: str) -> dict[str, Any]:
    payload = json.loads(out)
    assert payload["saved"] is False
    return dict(payload["error"])


@pytest.mark.parametrize("name", ["ltm.json", "session.json"])
@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "folder"])
def test_a_state_file_that_is_not_a_regular_file_is_refused_at_once(
    env: dict[str, str], server: Any, tmp_path: Path, name: str, kind: str
) -> None:
    """A FIFO, a link to /dev/zero or a folder as a state file: a turn and `memory list`
    stop at once (no block, no growth) with a message, exit 1, and no model call."""
    root = tmp_path / "state"
    root.mkdir()
    target = root / name
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "dev-zero":
        target.symlink_to("/dev/zero")
    else:
        target.mkdir()
    code, out, err = run_raw("-i", "hello", "--json", env=env)
    assert code == 1
    assert "not a regular file" in err
    assert json_error(out)["type"] == "UnsafeFile"
    assert server.requests == []
    code, out, err = run_raw("memory", "list", "--json", env=env)
    assert code == 1
    assert json.loads(out)["error"]["exit_code"] == 1


def test_memory_import_refuses_a_device_and_deep_nesting(env: dict[str, str]) -> None:
    """`memory import /dev/zero` is refused unread; a line nested 100,000 deep is a clear
    error; neither changes anything."""
    code, _, err = run_raw("memory", "import", "/dev/zero", env=env)
    assert code == 1
    assert "character device" in err
    line = b'{"type": "skill", "content": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n"
    code, out, err = run_raw("memory", "import", "-", "--json", env=env, stdin=line)
    assert code == 2
    assert "line 1: nested too deeply" in json.loads(out)["error"]["message"]
    assert not (Path(env["MEMTEST_STATE_DIR"]) / "ltm.json").exists()


def test_import_over_the_size_cap_is_refused(env: dict[str, str]) -> None:
    """Standard input over MEMTEST_MAX_STATE_MB is refused without reading the rest."""
    rows = b"".join(
        json.dumps({"type": "skill", "content": f"User can juggle {i} balls"}).encode() + b"\n"
        for i in range(100)
    )
    code, _, err = run_raw(
        "memory", "import", "-", env={**env, "MEMTEST_MAX_STATE_MB": "0.001"}, stdin=rows
    )
    assert code == 1
    assert "MEMTEST_MAX_STATE_MB" in err
    assert not (Path(env["MEMTEST_STATE_DIR"]) / "ltm.json").exists()


@pytest.mark.parametrize("name", ["ltm.json", "session.json"])
def test_a_deeply_nested_state_file_is_moved_aside_and_the_turn_goes_on(
    env: dict[str, str], server: Any, name: str
) -> None:
    """Nesting 100,000 deep: moved aside with a warning, the turn runs, the next one too."""
    from tests.helpers import reflection

    root = Path(env["MEMTEST_STATE_DIR"])
    root.mkdir()
    (root / name).write_bytes(b'{"memories": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")
    server.reply("Hi.").reply(reflection()).reply("Hi again.").reply(reflection())
    code, out, err = run_raw("-i", "hello", env=env)
    assert (code, out) == (0, "Hi.\n")
    assert "nested too deeply" in err
    assert len(list(root.glob(f"{name}.corrupt-*"))) == 1
    assert run_raw("-i", "hello", env=env)[0] == 0


@pytest.mark.parametrize(
    ("args", "setup", "message"),
    [
        (["--state-dir", "~nosuchuser-xyz/x"], None, "no such user"),
        (["--state-dir", ""], None, "--state-dir needs a folder"),
        (["--state-dir", "/proc/self"], None, "cannot be used"),
        (["--env-file", "binary.env"], b"MOONSHOT_API_KEY=\xff\xfe\x00\x81", "not UTF-8"),
    ],
)
def test_bad_configuration_is_one_line_and_exit_2(
    env: dict[str, str],
    server: Any,
    tmp_path: Path,
    args: list[str],
    *,
    setup: bytes | None,
    message: str,
) -> None:
    """Bad folders and a binary settings file: one line, exit 2, at once, no model call."""
    import time

    if setup is not None:
        (tmp_path / args[1]).write_bytes(setup)
        args = [args[0], str(tmp_path / args[1])]
    started = time.monotonic()
    code, out, err = run_raw("-i", "hello", "--json", *args, env=env)
    assert time.monotonic() - started < 10
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert json_error(out)["exit_code"] == 2
    assert server.requests == []


@pytest.mark.parametrize(
    ("stdin", "extra", "message"),
    [
        (b"caf\xe9 au lait", {}, "not valid UTF-8"),
        (b"x" * 3000, {"MEMTEST_MAX_INPUT_KB": "2"}, "MEMTEST_MAX_INPUT_KB"),
    ],
)
def test_undecodable_or_oversized_input_is_refused_before_the_model_call(
    env: dict[str, str], server: Any, stdin: bytes, extra: dict[str, str], message: str
) -> None:
    """Input that is not UTF-8, or over the limit: exit 2, nothing sent, nothing saved."""
    code, out, err = run_raw("-i", "-", "--json", env={**env, **extra}, stdin=stdin)
    assert code == 2
    assert message in err
    assert json_error(out)["type"] == "UsageError"
    assert server.requests == []
    assert not Path(env["MEMTEST_STATE_DIR"]).joinpath("session.json").exists()


@pytest.mark.parametrize("version", ['"99"', "99.0", "-5", "true"])
def test_an_odd_schema_version_is_moved_aside_not_written_back(
    env: dict[str, str], server: Any, version: str
) -> None:
    """ "99", 99.0, -5 or true: the file is moved aside and the turn writes a fresh one
    with schema_version 1, so the next turn runs too."""
    from tests.helpers import candidate, reflection

    root = Path(env["MEMTEST_STATE_DIR"])
    root.mkdir()
    (root / "ltm.json").write_text(f'{{"schema_version": {version}, "memories": []}}')
    server.reply("Ok.").reply(reflection(candidate("User grows tomatoes")))
    assert run_raw("-i", "I grow tomatoes", env=env)[0] == 0
    assert json.loads((root / "ltm.json").read_text())["schema_version"] == 1
    [aside] = root.glob("ltm.json.corrupt-*")
    assert version in aside.read_text()


def test_permission_denied_is_a_message_with_the_json_error(
    env: dict[str, str], server: Any
) -> None:
    """An unreadable ltm.json (mode 000, as a user who is not root) gives one message, exit
    1 and the --json error object."""
    root = Path(env["MEMTEST_STATE_DIR"])
    root.mkdir()
    (root / "ltm.json").write_text('{"memories": []}')
    (root / "ltm.json").chmod(0)
    as_nobody: dict[str, str] = {}
    if os.geteuid() == 0:
        # Root reads anything: run the command as `nobody` through setpriv, if present.
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv")
        os.chmod(root.parent, 0o755)
        os.chmod(root, 0o777)
        as_nobody["wrap"] = setpriv
    import subprocess
    import sys

    from tests.helpers import PROJECT

    command = [sys.executable, str(PROJECT / "memory_test.py"), "memory", "list", "--json"]
    if as_nobody:
        command = [as_nobody["wrap"], "--reuid=65534", "--regid=65534", "--clear-groups", *command]
    env_file = Path(env["MEMTEST_ENV_FILE"])
    env_file.chmod(0o644)
    result = subprocess.run(
        command,
        capture_output=True,
        text=True,
        env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(PROJECT), **env},
        timeout=30,
        check=False,
        cwd="/",
    )
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 1, result.stderr
    assert "Permission denied" in result.stderr
    assert json.loads(result.stdout)["error"]["type"] == "StateError"


@pytest.mark.parametrize(
    "argv",
    [["-i", "hi", "--json", "--no-such-flag"], ["memory", "show", "--json"], ["--json"]],
)
def test_a_bad_command_line_is_one_line_and_the_json_error(
    env: dict[str, str], argv: list[str]
) -> None:
    """Unparseable arguments: exit 2, one line on stderr, and with --json the error object."""
    code, out, err = run_raw(*argv, env=env)
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert json_error(out) == {
        "type": "ArgumentError",
        "message": err.strip().removeprefix("memory-test: error: "),
        "exit_code": 2,
    }
