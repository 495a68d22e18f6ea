"""Events about a session's MCP servers rather than a turn's progress.

A server's startup is reported as it goes (`starting`, then `ready`, `failed` or `cancelled`),
when the session starts and again whenever its servers are restarted.
"""

from __future__ import annotations

from typing import Literal

from codex_lsp.protocol.inputs import WireModel

McpStartupState = Literal["starting", "ready", "failed", "cancelled"]


class McpStartupUpdateEvent(WireModel):
    type: Literal["mcp_startup_update"] = "mcp_startup_update"
    server: str
    state: McpStartupState
    error: str | None = None
