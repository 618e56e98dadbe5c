"""The memory over MCP: `memory-test mcp` serves one user's memory to an agent on stdio.

Every tool is a thin call of `pipeline.api.Memory`: one per process, kept warm. The user
is fixed when the server starts (--user), and no tool takes one, so a client cannot reach
another user's memory. Needs the optional `mcp` extra (pip install 'memory-test[mcp]').
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import click
from pydantic import Field

from .api import Memory, MemoryView
from .cli import CONTEXT, Command, invocation, settings_from, shared_options
from .credentials import redact, redact_tree
from .errors import MemtestError, UsageError, as_error
from .retrieval import format_memory

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

T = TypeVar("T")

SETUP = """\
setup: the server speaks MCP on stdin/stdout; an agent starts it. For Claude Code:

  claude mcp add memory-test -- memory-test mcp --user sam

For Claude Desktop (claude_desktop_config.json) or any client that takes an
mcpServers block:

  {"mcpServers": {"memory-test": {"command": "memory-test",
                                  "args": ["mcp", "--user", "sam"]}}}

From a checkout, the command is the checkout's Python (.venv/bin/python) and the
arguments start with the path of memory_test.py. Tools: search, recall, add, get, list,
forget, history, stats, and remember when an API key is configured (MOONSHOT_API_KEY).
Every tool works on the user given here, and only on that user.
"""

INSTRUCTIONS = (
    "Long-term memory of one user. Call `recall` with the user's message to get what is "
    "known that bears on it; call `add` to store a durable fact (a gate refuses secrets, "
    "planted instructions, passing states and duplicates, and says why); `search`, `get`, "
    "`list` and `history` to look; `forget` when the user asks to forget."
)

Text = Annotated[str, Field(max_length=64 * 1024)]
Label = Annotated[
    str | None,
    Field(description="a project, agent or personality name; omitted: the server's default"),
]


@click.command("mcp", cls=Command, context_settings=CONTEXT, epilog=SETUP)
@shared_options(
    "state_dir",
    "store",
    "user",
    "project",
    "agent",
    "env_file",
    user="whose memory to serve (default: MEMTEST_USER_ID or default-user)",
    project="default project of every tool (default: MEMTEST_PROJECT)",
    agent="default agent of every tool (default: MEMTEST_AGENT)",
)
def mcp_command(**options: Any) -> int:
    """Serve one user's long-term memory to an agent over MCP (stdio)."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise UsageError(
            "the MCP server needs the mcp extra: pip install 'memory-test[mcp]'"
        ) from None
    settings = settings_from(options, invocation().project_dir)
    memory = Memory(settings=settings)
    memory.settings.store.ensure_usable()
    memory.keep_warm()
    try:
        build_server(memory, with_model=settings.api_key is not None).run("stdio")
    except KeyboardInterrupt:
        # Every change a tool made was committed before the tool returned.
        print("memory-test: mcp server interrupted", file=sys.stderr)
        return 130
    return 0


def build_server(memory: Memory, *, with_model: bool) -> MCPServer:
    """The tools, each a call of `memory`; `remember` only when a model can be called."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import ToolAnnotations

    from . import __version__

    app: MCPServer = MCPServer(name="memory-test", version=__version__, instructions=INSTRUCTIONS)
    reading = ToolAnnotations(read_only_hint=True)
    adding = ToolAnnotations(read_only_hint=False, destructive_hint=False)

    def call(work: Callable[[], T]) -> T:
        """Run one library call; its errors become tool errors the model can read."""
        try:
            return work()
        except (MemtestError, OSError) as exc:
            raise ToolError(redact(str(as_error(exc)))) from exc
        finally:
            memory.warnings.clear()

    def out(payload: dict[str, Any]) -> dict[str, Any]:
        # Memories stored before a detector knew a value are hidden on the way out too.
        return redact_tree(payload)  # type: ignore[no-any-return]

    @app.tool(annotations=reading)
    def search(
        query: Text,
        *,
        limit: Annotated[int, Field(ge=1, le=100)] = 10,
        type: str | None = None,
        project: Label = None,
        agent: Label = None,
        personality: Label = None,
        only_global: bool = False,
    ) -> dict[str, Any]:
        """Memories relevant to a query, best first, with their score and why they matched."""
        found = call(
            lambda: memory.search(
                query,
                limit=limit,
                type=type,
                project=project,
                agent=agent,
                personality=personality,
                only_global=only_global,
            )
        )
        return out(
            {
                "selection_mode": found.selection_mode,
                "results": [
                    {**h.memory.to_json(), "score": h.score, "why": h.why} for h in found.hits
                ],
            }
        )

    @app.tool(annotations=reading)
    def recall(
        message: Text,
        history: list[str] | None = None,
        project: Label = None,
        agent: Label = None,
    ) -> dict[str, Any]:
        """What a turn would show the model for this message: the memories that fit the
        budget, best first, and `context`, the lines to put in a prompt as background."""
        hits = call(lambda: memory.recall(message, history or (), project=project, agent=agent))
        return out(
            {
                "memories": [
                    {**h.memory.to_json(), "alias": h.alias, "score": h.score, "why": h.why}
                    for h in hits
                ],
                "context": "\n".join(
                    format_memory(h.alias, h.memory.memory, h.memory.current_confidence)
                    for h in hits
                ),
            }
        )

    @app.tool(annotations=adding)
    def add(
        content: Text,
        *,
        type: Annotated[
            str,
            Field(description="preference, relationship, boundary, identity, habit or skill"),
        ],
        subject: str = "user",
        decay: Annotated[
            str | None, Field(description="stable, contextual or reinforceable")
        ] = None,
        project: Label = None,
        agent: Label = None,
        personality: Label = None,
        is_global: bool = False,
    ) -> dict[str, Any]:
        """Store a memory through the gate. The verdict says what happened: accepted (a
        new memory), merged (it repeats one, which is reinforced) or rejected, with the
        reason (secret, injection, ephemeral, speculative, small_talk, duplicate...)."""
        verdict = call(
            lambda: memory.add(
                content,
                type=type,
                subject=subject,
                decay=decay,
                project=project,
                agent=agent,
                personality=personality,
                is_global=is_global,
            )
        )
        return out(verdict.to_json())

    @app.tool(annotations=reading)
    def get(id: str) -> dict[str, Any]:
        """One memory by id, whatever its status, with its confidence now."""
        return out(call(lambda: memory.get(id)).to_json())

    @app.tool(name="list", annotations=reading)
    def list_memories(
        *,
        include_inactive: bool = False,
        type: str | None = None,
        project: Label = None,
        agent: Label = None,
        personality: Label = None,
        only_global: bool = False,
    ) -> dict[str, Any]:
        """Active memories (with include_inactive, also forgotten ones and drafts)."""
        views: list[MemoryView] = call(
            lambda: memory.list(
                all=include_inactive,
                type=type,
                project=project,
                agent=agent,
                personality=personality,
                only_global=only_global,
            )
        )
        return out({"memories": [v.to_json() for v in views]})

    @app.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True))
    def forget(id: str, purge: bool = False) -> dict[str, Any]:
        """Forget a memory: it is no longer recalled, and can be restored by the user.
        With purge, its text is removed for good."""
        change = call(lambda: memory.forget(id, purge=purge))
        return out({"id": change.id, "status": change.status, "changed": change.changed})

    @app.tool(annotations=reading)
    def history(id: str) -> dict[str, Any]:
        """Every change to one memory, oldest first, with the reason for each."""
        entries = call(lambda: memory.history(id))
        return out({"id": id, "history": [h.model_dump(mode="json") for h in entries]})

    @app.tool(annotations=reading)
    def stats() -> dict[str, Any]:
        """Counts by status and type, and the gate's counters."""
        found = call(memory.stats)
        return out(
            {
                "user_id": found.user_id,
                "memories": found.memories,
                "by_status": found.by_status,
                "by_type": found.by_type,
                "counters": found.counters,
            }
        )

    if with_model:

        @app.tool(annotations=adding)
        def remember(user_message: Text, answer: Text) -> dict[str, Any]:
            """Learn from one exchange answered elsewhere: the model proposes what is worth
            keeping, the gate decides, and the decisions come back with their reasons."""
            result = call(lambda: memory.remember(user_message, answer))
            report = result.report.to_json()
            return out(
                {
                    "memory_step": result.memory_step,
                    "decisions": report.get("decisions", []),
                    "writes": report.get("writes", []),
                }
            )

    return app
