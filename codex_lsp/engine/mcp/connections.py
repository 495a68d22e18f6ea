"""The MCP servers of one session, and their tools by the names the model calls them.

All servers start at once, each in its own long-lived task; the session waits until each has
connected, failed or run out its startup time, so the first turn already offers every tool
that will be there. A server that failed is reported, never fatal.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from mcp.types import Tool

from codex_lsp.engine.mcp.connection import McpServerConnection
from codex_lsp.engine.mcp.names import function_spec, qualified_name
from codex_lsp.store.config_mcp import McpServerConfig

# Start a long-lived task, named.
Spawn = Callable[[Callable[[], Awaitable[None]], str], None]
Report = Callable[[McpServerConnection], None]


@dataclass(frozen=True, slots=True)
class McpTool:
    """A tool the model may call: which server, and the tool's own name and definition."""

    qualified_name: str
    server: McpServerConnection
    tool: Tool
    spec: dict[str, Any]

    @property
    def name(self) -> str:
        return self.tool.name


class McpConnections:
    def __init__(self, servers: list[McpServerConnection]) -> None:
        self.servers = servers
        self._tools: dict[str, McpTool] = {}

    @classmethod
    def from_config(cls, configs: dict[str, McpServerConfig], cwd: Path) -> McpConnections:
        return cls(
            [
                McpServerConnection(name, config, cwd)
                for name, config in configs.items()
                if config.enabled
            ]
        )

    async def start(self, spawn: Spawn, report: Report | None = None) -> list[McpServerConnection]:
        """Connect every server concurrently; return those that failed. `report` hears of each
        server as soon as it has connected or failed."""

        async def settled(server: McpServerConnection) -> None:
            await server.wait_started()
            if report is not None:
                report(server)

        for server in self.servers:
            spawn(server.run, f"mcp server {server.name}")
        async with anyio.create_task_group() as waits:
            for server in self.servers:
                waits.start_soon(settled, server)
        self._index()
        return [server for server in self.servers if not server.connected]

    def server(self, name: str) -> McpServerConnection | None:
        return next((server for server in self.servers if server.name == name), None)

    def _index(self) -> None:
        taken: set[str] = set()
        for server in self.servers:
            if not server.connected:
                continue
            for tool in server.tools:
                name = qualified_name(server.name, tool.name, taken)
                taken.add(name)
                spec = function_spec(name, tool.description, tool.input_schema)
                self._tools[name] = McpTool(name, server, tool, spec)

    def tool_specs(self) -> list[dict[str, Any]]:
        # A server that stopped mid-session takes its tools with it; a call the model still
        # makes to one gets an error saying why.
        return [tool.spec for tool in self._tools.values() if tool.server.connected]

    def lookup(self, qualified: str) -> McpTool | None:
        return self._tools.get(qualified)

    async def close(self) -> None:
        async with anyio.create_task_group() as tasks:
            for server in self.servers:
                tasks.start_soon(server.close)
