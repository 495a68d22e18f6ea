"""MCP resources offered to the model: `list_mcp_resources`, `list_mcp_resource_templates` and
`read_mcp_resource`, as Codex offers them whenever a session has MCP servers configured.

Each call is shown like a tool call (`mcp_tool_call_begin` / `mcp_tool_call_end`) on the server
it names, or on `codex` when it lists every server's. The model reads JSON: the resources with
the server each came from, or the contents read (text, or base64 `blob`), middle-truncated to
its budget. What goes wrong (no such server, a server error, a cursor without a server) is an
error the model reads and can work around.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from mcp import MCPError
from pydantic import BaseModel

from codex_lsp.engine.exec_output import truncate_middle
from codex_lsp.engine.mcp.calls import emit_begin, emit_end, parse_arguments
from codex_lsp.engine.mcp.connection import McpServerConnection, McpUnavailable
from codex_lsp.engine.mcp.connections import McpConnections
from codex_lsp.engine.tools.base import ToolCall, ToolError, ToolOutput

log = logging.getLogger(__name__)

LIST_RESOURCES = "list_mcp_resources"
LIST_TEMPLATES = "list_mcp_resource_templates"
READ_RESOURCE = "read_mcp_resource"
# The server a call that spans every server is shown on.
ALL_SERVERS = "codex"
# A server that keeps handing out cursors is not followed past this many pages.
MAX_PAGES = 100

Lookup = Callable[[ToolCall], McpConnections | None]


def _string(description: str) -> dict[str, str]:
    return {"type": "string", "description": description}


RESOURCE_TOOL_SPECS: list[dict[str, Any]] = [
    {
        "type": "function",
        "name": LIST_RESOURCES,
        "description": "Lists resources provided by MCP servers. Resources allow servers to "
        "share data that provides context to language models, such as files, database schemas, "
        "or application-specific information. Prefer resources over web search when possible.",
        "strict": False,
        "parameters": {
            "type": "object",
            "properties": {
                "cursor": _string(
                    "Opaque cursor returned by a previous list_mcp_resources call for the same "
                    "server."
                ),
                "server": _string(
                    "Optional MCP server name. When omitted, lists resources from every "
                    "configured server."
                ),
            },
            "additionalProperties": False,
        },
    },
    {
        "type": "function",
        "name": LIST_TEMPLATES,
        "description": "Lists resource templates provided by MCP servers. Parameterized resource "
        "templates allow servers to share data that takes parameters and provides context to "
        "language models, such as files, database schemas, or application-specific "
        "information. Prefer resource templates over web search when possible.",
        "strict": False,
        "parameters": {
            "type": "object",
            "properties": {
                "cursor": _string(
                    "Opaque cursor returned by a previous list_mcp_resource_templates call for "
                    "the same server."
                ),
                "server": _string(
                    "Optional MCP server name. When omitted, lists resource templates from all "
                    "configured servers."
                ),
            },
            "additionalProperties": False,
        },
    },
    {
        "type": "function",
        "name": READ_RESOURCE,
        "description": "Read a specific resource from an MCP server given the server name and "
        "resource URI.",
        "strict": False,
        "parameters": {
            "type": "object",
            "properties": {
                "server": _string(
                    "MCP server name exactly as configured. Must match the 'server' field "
                    "returned by list_mcp_resources."
                ),
                "uri": _string(
                    "Resource URI to read. Must be one of the URIs returned by list_mcp_resources."
                ),
            },
            "required": ["server", "uri"],
            "additionalProperties": False,
        },
    },
]


def resource_tool_handlers(
    lookup: Lookup,
) -> dict[str, Callable[[ToolCall], Awaitable[ToolOutput]]]:
    """The three tools' handlers; `lookup` finds the calling session's servers."""

    async def list_resources(call: ToolCall) -> ToolOutput:
        return await _listing(call, lookup(call), "resources")

    async def list_templates(call: ToolCall) -> ToolOutput:
        return await _listing(call, lookup(call), "resourceTemplates")

    async def read(call: ToolCall) -> ToolOutput:
        return await _read(call, lookup(call))

    return {LIST_RESOURCES: list_resources, LIST_TEMPLATES: list_templates, READ_RESOURCE: read}


async def _listing(call: ToolCall, connections: McpConnections | None, key: str) -> ToolOutput:
    arguments = parse_arguments(call.payload)
    server = _optional(arguments, "server")
    cursor = _optional(arguments, "cursor")
    what = "resources/list" if key == "resources" else "resources/templates/list"

    async def run() -> dict[str, Any]:
        if server is None:
            if cursor is not None:
                raise ToolError("cursor can only be used when a server is specified")
            return {key: await _every_server(connections, key)}
        target = _server(connections, server)
        try:
            page = await _page(target, key, cursor)
        except (MCPError, McpUnavailable) as err:
            raise ToolError(f"{what} failed for `{server}`: {mcp_error_text(err)}") from err
        payload: dict[str, Any] = {"server": server, key: _with_server(server, _items(page, key))}
        if page.next_cursor:
            payload["nextCursor"] = page.next_cursor
        return payload

    return await _shown(call, server or ALL_SERVERS, arguments, run)


async def _read(call: ToolCall, connections: McpConnections | None) -> ToolOutput:
    arguments = parse_arguments(call.payload)
    server = _required(arguments, "server")
    uri = _required(arguments, "uri")

    async def run() -> dict[str, Any]:
        target = _server(connections, server)
        try:
            result = await target.read_resource(uri)
        except (MCPError, McpUnavailable) as err:
            raise ToolError(
                f"resources/read failed for `{server}` ({uri}): {mcp_error_text(err)}"
            ) from err
        payload: dict[str, Any] = {
            "server": server,
            "uri": uri,
            "contents": [_dump(content) for content in result.contents],
        }
        if result.meta:
            payload["_meta"] = result.meta
        return payload

    return await _shown(call, server, arguments, run)


async def _shown(
    call: ToolCall,
    server: str,
    arguments: dict[str, Any],
    run: Callable[[], Awaitable[dict[str, Any]]],
) -> ToolOutput:
    """Run one resource call between its begin and end events."""
    invocation = {"server": server, "tool": call.name, "arguments": arguments}
    emit_begin(call, invocation)
    started = time.monotonic()
    try:
        payload = await run()
    except ToolError as err:
        emit_end(call, invocation, error=str(err), seconds=time.monotonic() - started)
        raise
    text = truncate_middle(json.dumps(payload, ensure_ascii=False, separators=(",", ":")))
    result = {"content": [{"type": "text", "text": text}], "isError": False}
    emit_end(call, invocation, result=result, seconds=time.monotonic() - started)
    return ToolOutput(text)


async def _every_server(connections: McpConnections | None, key: str) -> list[dict[str, Any]]:
    """Every page of every connected server that has resources, by server name; a server
    that fails to answer is left out rather than failing the whole listing."""
    found: list[dict[str, Any]] = []
    servers = connections.servers if connections is not None else []
    for server in sorted(servers, key=lambda s: s.name):
        if not server.connected or not server.has_resources:
            continue
        try:
            found += _with_server(server.name, await all_pages(server, key))
        except (MCPError, McpUnavailable) as err:
            log.warning("MCP server %s: listing %s failed: %s", server.name, key, err)
    return found


async def all_pages(server: McpServerConnection, key: str) -> list[BaseModel]:
    """Every `resources` or `resourceTemplates` entry of one server, following its cursors."""
    items: list[BaseModel] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await _page(server, key, cursor)
        items += _items(page, key)
        cursor = page.next_cursor
        if not cursor:
            break
    return items


async def _page(server: McpServerConnection, key: str, cursor: str | None) -> Any:
    if key == "resources":
        return await server.list_resources(cursor)
    return await server.list_resource_templates(cursor)


def _items(page: Any, key: str) -> list[BaseModel]:
    return list(page.resources if key == "resources" else page.resource_templates)


def _with_server(server: str, items: list[BaseModel]) -> list[dict[str, Any]]:
    return [{"server": server, **_dump(item)} for item in items]


def _dump(model: BaseModel) -> dict[str, Any]:
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


def _server(connections: McpConnections | None, name: str) -> McpServerConnection:
    server = connections.server(name) if connections is not None else None
    if server is None:
        raise ToolError(f"unknown MCP server '{name}'")
    return server


def mcp_error_text(err: Exception) -> str:
    if isinstance(err, MCPError):
        return f"Mcp error: {err.code}: {err.message}"
    return str(err)


def _optional(arguments: dict[str, Any], key: str) -> str | None:
    value = arguments.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ToolError(f"failed to parse function arguments: `{key}` must be a string")
    return value.strip() or None


def _required(arguments: dict[str, Any], key: str) -> str:
    if key not in arguments:
        raise ToolError(f"failed to parse function arguments: missing field `{key}`")
    value = _optional(arguments, key)
    if value is None:
        raise ToolError(f"{key} must be provided")
    return value
