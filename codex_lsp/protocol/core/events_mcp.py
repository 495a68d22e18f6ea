"""Events about MCP: a session's servers starting, and the tool calls a turn makes to them.

A server's startup is reported as it goes (`starting`, then `ready`, `failed` or `cancelled`),
when the session starts and again whenever its servers are restarted.
"""

from __future__ import annotations

from typing import Any, Literal

from codex_lsp.protocol.core.events_exec import Duration
from codex_lsp.protocol.core.inputs import WireModel

McpStartupState = Literal["starting", "ready", "failed", "cancelled"]


class McpStartupUpdateEvent(WireModel):
    type: Literal["mcp_startup_update"] = "mcp_startup_update"
    server: str
    state: McpStartupState
    error: str | None = None


class McpToolCallBeginEvent(WireModel):
    type: Literal["mcp_tool_call_begin"] = "mcp_tool_call_begin"
    call_id: str
    invocation: dict[str, Any]


class McpToolCallEndEvent(WireModel):
    type: Literal["mcp_tool_call_end"] = "mcp_tool_call_end"
    call_id: str
    invocation: dict[str, Any]
    duration: Duration | None = None
    result: dict[str, Any] | None = None
    error: str | None = None
