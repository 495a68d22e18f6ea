"""A model's call of an MCP tool: arguments, approval, begin and end events, the output.

The UI sees `mcp_tool_call_begin` and `mcp_tool_call_end` with the invocation (server, tool,
arguments) and either the whole result or an error; the model sees the result as text, and a
failure (a result marked `isError`, a protocol error, a timeout, a server that is gone) as a
tool error it can read and work around.
"""

from __future__ import annotations

import json
import time
from typing import Any

import anyio
from mcp import MCPError
from mcp.types import REQUEST_TIMEOUT

from codex_lsp.engine.mcp.approval import (
    NOBODY_TO_ASK,
    REJECTED_BY_USER,
    ask_approval,
    needs_approval,
)
from codex_lsp.engine.mcp.connection import McpUnavailable, describe_error
from codex_lsp.engine.mcp.connections import McpTool
from codex_lsp.engine.mcp.results import result_for_event, text_for_model
from codex_lsp.engine.tools.base import ToolCall, ToolError, ToolOutput
from codex_lsp.protocol.core.events import Duration, McpToolCallBeginEvent, McpToolCallEndEvent
from codex_lsp.protocol.core.policy import AskForApproval

INTERRUPTED = "interrupted"


def parse_arguments(payload: str) -> dict[str, Any]:
    try:
        arguments = json.loads(payload) if payload.strip() else {}
    except json.JSONDecodeError as err:
        raise ToolError(f"failed to parse function arguments: {err}") from err
    if not isinstance(arguments, dict):
        raise ToolError("failed to parse function arguments: expected a JSON object")
    return arguments


async def call_mcp_tool(call: ToolCall, target: McpTool) -> ToolOutput:
    arguments = parse_arguments(call.payload)
    server, config = target.server, target.server.config
    invocation = {"server": server.name, "tool": target.name, "arguments": arguments}
    label = f"`{target.name}` of the MCP server `{server.name}`"

    if needs_approval(config, target.tool, call.ctx.approval_policy):
        refusal = None
        if call.ctx.approval_policy == AskForApproval.NEVER:
            refusal = NOBODY_TO_ASK
        elif not await ask_approval(call, server.name, target.name, arguments):
            refusal = REJECTED_BY_USER
        if refusal is not None:
            emit_begin(call, invocation)
            emit_end(call, invocation, error=refusal, seconds=0.0)
            return ToolOutput(refusal, success=False)

    emit_begin(call, invocation)
    was_connected = server.connected
    started = time.monotonic()
    try:
        result = await server.call_tool(target.name, arguments)
    except anyio.get_cancelled_exc_class():
        # The turn was interrupted: close the item before the cancellation goes on.
        emit_end(call, invocation, error=INTERRUPTED, seconds=time.monotonic() - started)
        raise
    except Exception as err:
        message = _failure(err, server.tool_timeout)
        emit_end(call, invocation, error=message, seconds=time.monotonic() - started)
        if was_connected and not server.connected:
            call.session.warn_once(call.sub_id, f"MCP server `{server.name}` stopped: {message}")
        raise ToolError(f"tool {label} failed: {message}") from err

    elapsed = time.monotonic() - started
    text = text_for_model(result)
    event_result = result_for_event(result)
    if result.is_error:
        emit_end(call, invocation, result=event_result, error=text, seconds=elapsed)
        return ToolOutput(f"tool {label} returned an error: {text}", success=False)
    emit_end(call, invocation, result=event_result, seconds=elapsed)
    return ToolOutput(text)


def _failure(err: Exception, timeout: float) -> str:
    if isinstance(err, MCPError) and err.code == REQUEST_TIMEOUT:
        return f"timed out after {timeout:g}s"
    if isinstance(err, McpUnavailable):
        return str(err)
    return describe_error(err)


def emit_begin(call: ToolCall, invocation: dict[str, Any]) -> None:
    call.session.emit(
        call.sub_id, McpToolCallBeginEvent(call_id=call.call_id, invocation=invocation)
    )


def emit_end(
    call: ToolCall,
    invocation: dict[str, Any],
    *,
    seconds: float,
    result: dict[str, Any] | None = None,
    error: str | None = None,
) -> None:
    whole = int(seconds)
    call.session.emit(
        call.sub_id,
        McpToolCallEndEvent(
            call_id=call.call_id,
            invocation=invocation,
            duration=Duration(secs=whole, nanos=int((seconds - whole) * 1e9)),
            result=result,
            error=error,
        ),
    )
