"""MCP servers on the v2 wire: `mcpServerStatus/list`, `mcpServer/tool/call`,
`mcpServer/resource/read`, and the `mcpServer/startupStatus/updated` notification.

Tools, resources and results are MCP's own objects, passed through in MCP's spelling
(`inputSchema`, `mimeType`, `_meta`), so they are kept as JSON objects here.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field
from typing_extensions import TypeAliasType

from codex_lsp.protocol.common import Opt, V2Model
from codex_lsp.protocol.methods import MethodTable

McpServerStatusDetail = TypeAliasType("McpServerStatusDetail", Literal["full", "toolsAndAuthOnly"])
McpAuthStatus = TypeAliasType(
    "McpAuthStatus", Literal["unknown", "unsupported", "notLoggedIn", "bearerToken", "oAuth"]
)
McpServerConnectionStatus = TypeAliasType(
    "McpServerConnectionStatus",
    Literal[
        "notStarted",
        "starting",
        "connected",
        "authenticationRequired",
        "failed",
        "cancelled",
        "disabled",
    ],
)
McpServerStartupState = TypeAliasType(
    "McpServerStartupState", Literal["starting", "ready", "failed", "cancelled"]
)
McpServerStartupFailureReason = TypeAliasType(
    "McpServerStartupFailureReason", Literal["reauthenticationRequired"]
)


class ListMcpServerStatusParams(V2Model):
    cursor: Opt[str] = None
    limit: Opt[int] = Field(default=None, ge=0)
    detail: Opt[McpServerStatusDetail] = None
    """`toolsAndAuthOnly` skips listing resources; `full` (the default) lists them too."""
    server_name: Opt[str] = None
    thread_id: Opt[str] = None
    """A loaded thread whose running servers to report; without one the servers are
    connected just to be asked."""
    environment_id: Opt[str] = None
    """One environment's registration. Every server here is thread-wide (no environment)."""


class McpServerInfo(V2Model):
    name: str
    version: str
    title: str | None = None
    description: str | None = None
    icons: list[Any] | None = None
    website_url: str | None = None


class McpServerStatus(V2Model):
    name: str
    auth_status: McpAuthStatus
    tools: dict[str, dict[str, Any]]
    resources: list[dict[str, Any]]
    resource_templates: list[dict[str, Any]]
    runtime_status: McpServerConnectionStatus | None = None
    http_origin: str | None = None
    plugin_id: str | None = None
    server_info: McpServerInfo | None = None
    server_capabilities: dict[str, Any] | None = None
    tool_list_meta: dict[str, Any] | None = None
    tools_error: str | None = None
    # The environment that registered the server; every server here is thread-wide.
    environment_id: Opt[str] = None


class ListMcpServerStatusResponse(V2Model):
    data: list[McpServerStatus]
    next_cursor: str | None = None


class McpServerToolCallParams(V2Model):
    thread_id: str
    server: str
    tool: str
    arguments: Opt[Any] = None
    meta: Opt[Any] = Field(default=None, alias="_meta")
    environment_id: Opt[str] = None


class McpServerToolCallResponse(V2Model):
    content: list[Any]
    structured_content: Opt[Any] = None
    is_error: Opt[bool] = None
    meta: Opt[Any] = Field(default=None, alias="_meta")


class McpResourceReadParams(V2Model):
    server: str
    uri: str
    thread_id: Opt[str] = None
    meta: Opt[dict[str, Any]] = Field(default=None, alias="_meta")
    environment_id: Opt[str] = None


class McpResourceReadResponse(V2Model):
    contents: list[dict[str, Any]]
    """Each `{uri, mimeType?, text}` or `{uri, mimeType?, blob}` (base64)."""
    origin_call_id: str | None = None


class McpServerStatusUpdatedNotification(V2Model):
    name: str
    status: McpServerStartupState
    thread_id: str | None = None
    error: str | None = None
    failure_reason: McpServerStartupFailureReason | None = None
    # Always sent: the registration's environment, `null` for a thread-wide server.
    environment_id: str | None = None


class McpServerOauthLoginParams(V2Model):
    name: str
    scopes: Opt[list[str]] = None
    timeout_secs: Opt[int] = None
    thread_id: Opt[str] = None
    environment_id: Opt[str] = None
    client_registration: Opt[dict[str, Any]] = None


class McpServerOauthLoginResponse(V2Model):
    authorization_url: str
    login_id: str | None = None


class McpServerOauthLoginCompletedNotification(V2Model):
    name: str
    success: bool
    error: Opt[str] = None
    login_id: Opt[str] = None
    thread_id: str | None = None


METHODS = MethodTable()
MCP_SERVER_OAUTH_LOGIN = METHODS.request(
    "mcpServer/oauth/login", McpServerOauthLoginParams, McpServerOauthLoginResponse
)
METHODS.notification("mcpServer/oauthLogin/completed", McpServerOauthLoginCompletedNotification)
MCP_SERVER_STATUS_LIST = METHODS.request(
    "mcpServerStatus/list", ListMcpServerStatusParams, ListMcpServerStatusResponse
)
MCP_SERVER_TOOL_CALL = METHODS.request(
    "mcpServer/tool/call", McpServerToolCallParams, McpServerToolCallResponse
)
MCP_SERVER_RESOURCE_READ = METHODS.request(
    "mcpServer/resource/read", McpResourceReadParams, McpResourceReadResponse
)
METHODS.notification("mcpServer/startupStatus/updated", McpServerStatusUpdatedNotification)
