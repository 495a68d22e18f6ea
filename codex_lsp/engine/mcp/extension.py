"""`McpExtension`: the engine seam for MCP servers' tools.

When a session starts it connects the enabled `[mcp_servers.<name>]` of the config, warns
about each one that fails (naming the server and the reason), offers the tools of the rest
to the model on every turn, and routes `mcp__…` calls to their server. When the session
ends the servers are disconnected. One extension serves every session of an engine, so the
connections are kept per session.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from anyio.abc import TaskGroup

from codex_lsp.engine.extensions import Extension, ToolHandler
from codex_lsp.engine.tools.base import ToolCall, ToolError, ToolOutput
from codex_lsp.store.config import McpServerConfig

# The `mcp` SDK (and the modules here that use it) are imported only once a session has a
# server to connect: it costs ~0.5 s and ~25 MB, which every session without MCP would pay.
if TYPE_CHECKING:
    from codex_lsp.engine.mcp.connections import McpConnections, Spawn
    from codex_lsp.engine.session import Session
    from codex_lsp.engine.turn_context import TurnContext

TOOL_PREFIX = "mcp__"


class McpExtension(Extension):
    name = "MCP"

    def __init__(self, servers: dict[str, McpServerConfig]) -> None:
        self._servers = dict(servers)
        self._sessions: dict[Session, McpConnections] = {}

    async def session_started(self, session: Session, sub_id: str) -> None:
        if not any(config.enabled for config in self._servers.values()):
            return
        from codex_lsp.engine.mcp.connections import McpConnections

        connections = McpConnections.from_config(self._servers, session.cwd)
        self._sessions[session] = connections
        failed = await connections.start(_spawner(session))
        for server in failed:
            session.warn_once(
                sub_id, f"MCP server `{server.name}` failed to start: {server.failure}"
            )

    async def session_closed(self, session: Session) -> None:
        connections = self._sessions.pop(session, None)
        if connections is not None:
            await connections.close()

    def tool_specs(self, session: Session, ctx: TurnContext) -> list[dict[str, Any]]:
        connections = self._sessions.get(session)
        return connections.tool_specs() if connections is not None else []

    def handles_tool(self, name: str) -> ToolHandler | None:
        return self._call if name.startswith(TOOL_PREFIX) else None

    async def _call(self, call: ToolCall) -> ToolOutput:
        connections = self._sessions.get(call.session)
        target = connections.lookup(call.name) if connections is not None else None
        if target is None:
            raise ToolError(f"unknown MCP tool: {call.name}")
        from codex_lsp.engine.mcp.calls import call_mcp_tool

        return await call_mcp_tool(call, target)


def _spawner(session: Session) -> Spawn:
    """Start long-lived tasks in the session's task group, which outlives every turn.

    Each server's task must enter and exit its client's context managers itself, so it
    cannot run inside `session_started` (which returns) or a turn (which ends).
    """
    task_group: TaskGroup = session.task_group

    def spawn(fn: Callable[[], Coroutine[Any, Any, None]], name: str) -> None:
        task_group.start_soon(fn, name=name)

    return spawn
