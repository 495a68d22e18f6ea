"""`McpExtension`: the engine seam for MCP servers' tools and resources.

When a session starts it connects the enabled `[mcp_servers.<name>]` of the config, reporting
each server's startup (`mcp_startup_update`: starting, then ready or failed) and warning about
each one that fails (naming the server and the reason). It offers the tools of the rest to the
model on every turn, with the resource tools (`list_mcp_resources`, ...) whenever servers are
configured, and routes `mcp__…` calls to their server. `refresh_mcp_servers` restarts them all
from the config on disk; a reloaded config whose servers changed does the same. When the
session ends the servers are disconnected. One extension serves every session of an engine, so
the connections are kept per session.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from anyio.abc import TaskGroup

from codex_lsp.engine.extensions import Extension, OpHandler, ToolHandler
from codex_lsp.engine.tools.base import ToolCall, ToolError, ToolOutput
from codex_lsp.protocol.core.events_mcp import McpStartupState, McpStartupUpdateEvent
from codex_lsp.store.config_mcp import McpServerConfig

# The `mcp` SDK (and the modules here that use it) are imported only once a session has a
# server to connect: it costs ~0.5 s and ~25 MB, which every session without MCP would pay.
if TYPE_CHECKING:
    from codex_lsp.engine.codex import Codex
    from codex_lsp.engine.mcp.connection import McpServerConnection
    from codex_lsp.engine.mcp.connections import McpConnections, Spawn
    from codex_lsp.engine.session import Session
    from codex_lsp.engine.turn_context import TurnContext

TOOL_PREFIX = "mcp__"
RESOURCE_TOOLS = ("list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource")


class McpExtension(Extension):
    name = "MCP"

    def __init__(self, servers: dict[str, McpServerConfig]) -> None:
        self._servers = dict(servers)
        self._sessions: dict[Session, McpConnections] = {}
        # Sessions not yet closed: a restart that finishes after its session ended must not
        # leave servers running.
        self._live: set[Session] = set()

    def connections(self, session: Session) -> McpConnections | None:
        """The servers of `session`, for a front door that lists or calls them directly."""
        return self._sessions.get(session)

    async def session_started(self, session: Session, sub_id: str) -> None:
        self._live.add(session)
        await self._connect(session, sub_id)

    async def session_closed(self, session: Session) -> None:
        self._live.discard(session)
        connections = self._sessions.pop(session, None)
        if connections is not None:
            await connections.close()

    async def config_reloaded(self, session: Session, sub_id: str) -> None:
        servers = dict(session.services.config.mcp_servers)
        if _tables(servers) == _tables(self._servers):
            return
        self._servers = servers
        _when_idle(session, lambda: self._restart(session, sub_id))

    def tool_specs(self, session: Session, ctx: TurnContext) -> list[dict[str, Any]]:
        connections = self._sessions.get(session)
        if connections is None:
            return []
        from codex_lsp.engine.mcp.resources import RESOURCE_TOOL_SPECS

        return [*RESOURCE_TOOL_SPECS, *connections.tool_specs()]

    def tool_handlers(self) -> dict[str, ToolHandler]:
        return {name: self._resource_call for name in RESOURCE_TOOLS}

    def handles_tool(self, name: str) -> ToolHandler | None:
        return self._call if name.startswith(TOOL_PREFIX) else None

    def op_handlers(self) -> dict[str, OpHandler]:
        return {"refresh_mcp_servers": self._refresh}

    async def _refresh(self, codex: Codex, session: Session, sub_id: str, op: Any) -> None:
        self._servers = dict(session.services.reload_config().mcp_servers)
        _when_idle(session, lambda: self._restart(session, sub_id))

    async def _restart(self, session: Session, sub_id: str) -> None:
        old = self._sessions.pop(session, None)
        if old is not None:
            await old.close()
        if session in self._live:
            await self._connect(session, sub_id)

    async def _connect(self, session: Session, sub_id: str) -> None:
        if not any(config.enabled for config in self._servers.values()):
            return
        from codex_lsp.engine.mcp.connections import McpConnections

        connections = McpConnections.from_config(self._servers, session.cwd)
        self._sessions[session] = connections
        for server in connections.servers:
            session.emit(sub_id, McpStartupUpdateEvent(server=server.name, state="starting"))

        def settled(server: McpServerConnection) -> None:
            state: McpStartupState = "ready" if server.connected else "failed"
            error = None
            if not server.connected:
                error = f"MCP server `{server.name}` failed to start: {server.failure}"
            session.emit(
                sub_id, McpStartupUpdateEvent(server=server.name, state=state, error=error)
            )

        failed = await connections.start(_spawner(session), settled)
        if session not in self._live:
            self._sessions.pop(session, None)
            await connections.close()
            return
        for server in failed:
            session.warn_once(
                sub_id, f"MCP server `{server.name}` failed to start: {server.failure}"
            )

    async def _call(self, call: ToolCall) -> ToolOutput:
        connections = self._sessions.get(call.session)
        target = connections.lookup(call.name) if connections is not None else None
        if target is None:
            raise ToolError(f"unknown MCP tool: {call.name}")
        from codex_lsp.engine.mcp.calls import call_mcp_tool

        return await call_mcp_tool(call, target)

    async def _resource_call(self, call: ToolCall) -> ToolOutput:
        from codex_lsp.engine.mcp.resources import resource_tool_handlers

        handlers = resource_tool_handlers(lambda c: self._sessions.get(c.session))
        return await handlers[call.name](call)


def _tables(servers: dict[str, McpServerConfig]) -> dict[str, Any]:
    return {name: config.model_dump() for name, config in servers.items()}


def _when_idle(session: Session, action: Callable[[], Awaitable[None]]) -> None:
    """Run `action` once the session's running turn (if any) has ended: a turn keeps the
    servers it started with rather than losing one in the middle of a call."""

    async def run() -> None:
        task = session.running_task
        if task is not None:
            await task.done.wait()
        await action()

    _spawner(session)(run, "mcp servers restart")


def _spawner(session: Session) -> Spawn:
    """Start long-lived tasks in the session's task group, which outlives every turn.

    Each server's task must enter and exit its client's context managers itself, so it
    cannot run inside `session_started` (which returns) or a turn (which ends).
    """
    task_group: TaskGroup = session.task_group

    def spawn(fn: Callable[[], Awaitable[None]], name: str) -> None:
        async def run() -> None:
            await fn()

        task_group.start_soon(run, name=name)

    return spawn
