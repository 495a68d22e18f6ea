"""`run_stdio`: serve one ACP client on stdin/stdout until it goes away.

The ACP library reads and writes the JSON-RPC lines; `CodexAgent` answers the requests. The v2
API behind it is created on first use, while the modules it needs load in the background from
the moment `initialize` is answered (`wire/preload.py`), as the other doors start warm.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import acp

from codex_lsp.acp.agent import CodexAgent
from codex_lsp.acp.port import AcpClientPort
from codex_lsp.wire import preload

if TYPE_CHECKING:
    from codex_lsp.api.server import ApiServer
    from codex_lsp.engine.services import EngineServices


def run_stdio(
    services_factory: Callable[[list[str]], EngineServices],
    api_key: Callable[[], str | None],
) -> int:
    """`services_factory(overrides)`: the engine for one thread, with its session's MCP
    servers as extra config overrides."""
    asyncio.run(_serve(services_factory, api_key))
    return 0


async def _serve(
    services_factory: Callable[[list[str]], EngineServices],
    api_key: Callable[[], str | None],
) -> None:
    loop = asyncio.get_running_loop()
    holder: dict[str, Any] = {}
    overrides: list[str] = []

    async def send_update(notification: acp.schema.SessionNotification) -> None:
        await holder["agent"].connection.session_update(
            session_id=notification.session_id, update=notification.update
        )

    async def ask_permission(
        session_id: str, tool_call: dict[str, Any], options: list[dict[str, Any]]
    ) -> dict[str, Any]:
        request = acp.schema.RequestPermissionRequest.model_validate(
            {"sessionId": session_id, "toolCall": tool_call, "options": options}
        )
        answer = await holder["agent"].connection.request_permission(
            session_id=session_id, tool_call=request.tool_call, options=request.options
        )
        outcome: dict[str, Any] = answer.outcome.model_dump(mode="json", by_alias=True)
        return outcome

    port = AcpClientPort(loop, send_update, ask_permission)

    def api() -> ApiServer:
        if "api" not in holder:
            module = importlib.import_module(preload.API_MODULE)
            holder["api"] = module.ApiServer(lambda: services_factory(list(overrides)), port)
        server: ApiServer = holder["api"]
        return server

    agent = CodexAgent(api, port, overrides, api_key)
    holder["agent"] = agent
    try:
        # The library's `Agent` protocol spells out every optional method; ours serves some.
        await acp.run_agent(cast(acp.Agent, agent), use_unstable_protocol=True)
    finally:
        if "api" in holder:
            await holder["api"].aclose()
