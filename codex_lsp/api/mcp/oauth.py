"""`mcpServer/oauth/login`: OAuth sign-in to a streamable HTTP MCP server from the client.

The answer carries the authorization URL for the client to open; the sign-in then finishes in
the background (`engine/mcp/oauth_login.py`) and `mcpServer/oauthLogin/completed` says how it
ended. The tokens never travel over the protocol.
"""

from __future__ import annotations

import uuid

import anyio

from codex_lsp.api.convert import invalid
from codex_lsp.api.family import ApiContext, Handler
from codex_lsp.engine.mcp.oauth_login import LoginFlow, OAuthError
from codex_lsp.protocol.mcp.models import (
    McpServerOauthLoginCompletedNotification,
    McpServerOauthLoginParams,
    McpServerOauthLoginResponse,
)

DEFAULT_TIMEOUT_S = 300


def oauth_login(
    ctx: ApiContext,
) -> Handler[McpServerOauthLoginParams, McpServerOauthLoginResponse]:
    async def login(params: McpServerOauthLoginParams, _raw: object) -> McpServerOauthLoginResponse:
        services = ctx.services()
        server = services.reload_config().mcp_servers.get(params.name)
        if server is None:
            raise invalid("name", f"no MCP server named {params.name!r}")
        if not server.url:
            raise invalid("name", f"{params.name!r} is not a streamable HTTP server")
        url = server.url
        try:
            flow = await anyio.to_thread.run_sync(
                lambda: LoginFlow(services.codex_home, params.name, url, params.scopes or [])
            )
        except (OAuthError, OSError) as err:
            raise invalid("name", f"cannot sign in to {params.name!r}: {err}") from None
        login_id = str(uuid.uuid4())
        timeout = float(params.timeout_secs or DEFAULT_TIMEOUT_S)

        async def finish() -> None:
            error: str | None = None
            try:
                await anyio.to_thread.run_sync(flow.finish, timeout, abandon_on_cancel=True)
            except (OAuthError, OSError) as err:
                error = str(err)
            ctx.client.notify(
                "mcpServer/oauthLogin/completed",
                McpServerOauthLoginCompletedNotification(
                    name=params.name,
                    success=error is None,
                    error=error,
                    login_id=login_id,
                    thread_id=params.thread_id,
                ),
            )

        host = await ctx.host()
        host.start_soon(finish)
        return McpServerOauthLoginResponse(
            authorization_url=flow.authorization_url, login_id=login_id
        )

    return login
