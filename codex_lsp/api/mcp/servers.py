"""`mcpServerStatus/list`, `mcpServer/tool/call` and `mcpServer/resource/read`: the MCP servers
of config.toml as a client sees them.

Given a loaded thread, its own running servers answer (the same connections its model uses);
`mcpServerStatus/list` then says how each is doing (`runtimeStatus`). Without a thread, the
servers of the config on disk are connected just for the request and closed after it, as the
reference server does, so a settings page can show what a server offers before any thread
starts. A server's errors come back as the JSON-RPC error it sent (code, message, data).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import anyio

from codex_lsp.api.config.problems import load_failure
from codex_lsp.api.convert import invalid
from codex_lsp.api.family import ApiContext, Routes
from codex_lsp.api.mcp.oauth import oauth_login
from codex_lsp.api.port import INTERNAL_ERROR, ApiError
from codex_lsp.engine.mcp import McpExtension
from codex_lsp.protocol.mcp.models import (
    MCP_SERVER_OAUTH_LOGIN,
    MCP_SERVER_RESOURCE_READ,
    MCP_SERVER_STATUS_LIST,
    MCP_SERVER_TOOL_CALL,
    ListMcpServerStatusParams,
    ListMcpServerStatusResponse,
    McpResourceReadParams,
    McpResourceReadResponse,
    McpServerInfo,
    McpServerStatus,
    McpServerToolCallParams,
    McpServerToolCallResponse,
)
from codex_lsp.store.config_errors import ConfigError
from codex_lsp.store.config_mcp import McpServerConfig

if TYPE_CHECKING:
    from mcp.types import InitializeResult

    from codex_lsp.engine.mcp.connection import McpServerConnection
    from codex_lsp.engine.mcp.connections import McpConnections


def _thread_wide(environment_id: str | None) -> None:
    """Refuse a request for one environment's registration: every server here is thread-wide."""
    if environment_id is not None:
        raise invalid(
            "environmentId",
            f"no MCP server is registered by environment {environment_id!r}: every server "
            "here is thread-wide; omit environmentId",
        )


class McpServers:
    def __init__(self, ctx: ApiContext) -> None:
        self.ctx = ctx

    async def status_list(
        self, params: ListMcpServerStatusParams, _raw: dict[str, Any]
    ) -> ListMcpServerStatusResponse:
        _thread_wide(params.environment_id)
        configs = self._configs(params.thread_id)
        names = sorted(configs)
        if params.server_name is not None:
            names = [name for name in names if name == params.server_name]
        start = _cursor(params.cursor, len(names))
        end = len(names) if params.limit is None else start + max(params.limit, 1)
        page = names[start:end]
        full = params.detail != "toolsAndAuthOnly"
        async with self._servers(params.thread_id, {n: configs[n] for n in page}) as running:
            data = [
                await _status(
                    name, configs[name], running, runtime=params.thread_id is not None, full=full
                )
                for name in page
            ]
        return ListMcpServerStatusResponse(
            data=data, next_cursor=str(end) if end < len(names) else None
        )

    async def tool_call(
        self, params: McpServerToolCallParams, _raw: dict[str, Any]
    ) -> McpServerToolCallResponse:
        _thread_wide(params.environment_id)
        connections = self._thread_servers(params.thread_id)
        server = _named(connections, params.server)
        arguments = params.arguments if params.arguments is not None else {}
        if not isinstance(arguments, dict):
            raise invalid("arguments", "expected a JSON object")
        result = await _answered(server.call_tool(params.tool, arguments))
        return McpServerToolCallResponse.model_validate(
            result.model_dump(by_alias=True, mode="json", exclude_none=True)
        )

    async def resource_read(
        self, params: McpResourceReadParams, _raw: dict[str, Any]
    ) -> McpResourceReadResponse:
        _thread_wide(params.environment_id)
        if params.thread_id is not None:
            server = _named(self._thread_servers(params.thread_id), params.server)
            result = await _answered(server.read_resource(params.uri))
        else:
            configs = self._configs(None)
            if params.server not in configs:
                raise ApiError(INTERNAL_ERROR, f"unknown MCP server '{params.server}'")
            async with self._servers(None, {params.server: configs[params.server]}) as running:
                server = _named(running, params.server)
                result = await _answered(server.read_resource(params.uri))
        contents = [
            item.model_dump(by_alias=True, mode="json", exclude_none=True)
            for item in result.contents
        ]
        return McpResourceReadResponse(contents=contents)

    # -- where the servers come from -----------------------------------------------------

    def _configs(self, thread_id: str | None) -> dict[str, McpServerConfig]:
        if thread_id is not None:
            return dict(self.ctx.threads.get(thread_id).services.config.mcp_servers)
        # The config as it is on disk now, not as the server found it when it started.
        try:
            return dict(self.ctx.services().reload_config().mcp_servers)
        except ConfigError as err:
            raise load_failure(err) from None

    def _thread_servers(self, thread_id: str) -> McpConnections | None:
        thread = self.ctx.threads.get(thread_id)
        session = thread.codex.session
        extension = next(
            (e for e in thread.services.extensions if isinstance(e, McpExtension)), None
        )
        if session is None or extension is None:
            return None
        return extension.connections(session)

    @asynccontextmanager
    async def _servers(
        self, thread_id: str | None, configs: dict[str, McpServerConfig]
    ) -> AsyncIterator[McpConnections | None]:
        """The thread's running servers, or these servers connected for the moment."""
        if thread_id is not None:
            yield self._thread_servers(thread_id)
            return
        from codex_lsp.engine.mcp.connections import McpConnections

        connections = McpConnections.from_config(configs, Path(os.getcwd()))
        failure: Exception | None = None
        async with anyio.create_task_group() as tasks:

            def spawn(fn: Any, name: str) -> None:
                tasks.start_soon(fn, name=name)

            await connections.start(spawn)
            try:
                yield connections
            except Exception as err:
                # Raised once the servers' task group is left, so the caller sees the
                # request's own error rather than a group wrapping it.
                failure = err
            finally:
                with anyio.CancelScope(shield=True):
                    await connections.close()
        if failure is not None:
            raise failure


async def _status(
    name: str,
    config: McpServerConfig,
    running: McpConnections | None,
    *,
    runtime: bool,
    full: bool,
) -> McpServerStatus:
    server = running.server(name) if running is not None else None
    status = McpServerStatus(
        name=name,
        auth_status="bearerToken" if config.bearer_token_env_var else "unsupported",
        http_origin=_origin(config.url),
        tools={},
        resources=[],
        resource_templates=[],
    )
    if server is None:
        status.runtime_status = "disabled" if runtime and not config.enabled else None
        return status
    if runtime:
        status.runtime_status = server.state  # type: ignore[assignment]
    if not server.connected:
        status.tools_error = server.failure
        return status
    if server.initialized is not None:
        status.server_info = _server_info(server.initialized)
        status.server_capabilities = server.initialized.capabilities.model_dump(
            by_alias=True, mode="json", exclude_none=True
        )
    status.tools = {
        tool.name: tool.model_dump(by_alias=True, mode="json", exclude_none=True)
        for tool in server.tools
    }
    if full and server.has_resources:
        status.resources = await _listed(server, "resources")
        status.resource_templates = await _listed(server, "resourceTemplates")
    return status


async def _listed(server: McpServerConnection, key: str) -> list[dict[str, Any]]:
    from mcp import MCPError

    from codex_lsp.engine.mcp.connection import McpUnavailable
    from codex_lsp.engine.mcp.resources import all_pages

    try:
        items = await all_pages(server, key)
    except (MCPError, McpUnavailable):
        return []  # what the server will not list is simply not shown
    return [item.model_dump(by_alias=True, mode="json", exclude_none=True) for item in items]


def _server_info(initialized: InitializeResult) -> McpServerInfo:
    info = initialized.server_info
    return McpServerInfo.model_validate(info.model_dump(by_alias=True, mode="json"))


def _named(connections: McpConnections | None, name: str) -> McpServerConnection:
    server = connections.server(name) if connections is not None else None
    if server is None:
        raise ApiError(INTERNAL_ERROR, f"unknown MCP server '{name}'")
    return server


async def _answered(call: Any) -> Any:
    """Await a request to a server; its errors become the JSON-RPC error it sent."""
    from mcp import MCPError

    from codex_lsp.engine.mcp.connection import McpUnavailable

    try:
        return await call
    except MCPError as err:
        raise ApiError(err.code, err.message, err.data) from None
    except McpUnavailable as err:
        raise ApiError(INTERNAL_ERROR, f"MCP server unavailable: {err}") from None


def _origin(url: str | None) -> str | None:
    """scheme://host[:port] of an HTTP server's URL: no credentials, path or query."""
    if not url:
        return None
    parts = urlsplit(url)
    if not parts.scheme or not parts.hostname:
        return None
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{parts.hostname}{port}"


def _cursor(cursor: str | None, total: int) -> int:
    if cursor is None:
        return 0
    if not cursor.isdigit() or int(cursor) > total:
        raise invalid("cursor", f"not a cursor this server gave out: {cursor!r}")
    return int(cursor)


def handlers(ctx: ApiContext) -> Routes:
    servers = McpServers(ctx)
    return (
        Routes()
        .on(MCP_SERVER_STATUS_LIST, servers.status_list)
        .on(MCP_SERVER_TOOL_CALL, servers.tool_call)
        .on(MCP_SERVER_RESOURCE_READ, servers.resource_read)
        .on(MCP_SERVER_OAUTH_LOGIN, oauth_login(ctx))
    )
