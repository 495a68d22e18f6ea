"""The answer to the v2 `initialize` handshake: who this server is, for either door."""

from __future__ import annotations

from pathlib import Path

from codex_lsp.api.initialize.identity import platform_family, platform_os, user_agent
from codex_lsp.protocol.initialize.models import InitializeParams, InitializeResponse


def initialize_response(params: InitializeParams, codex_home: Path) -> InitializeResponse:
    client = params.client_info
    return InitializeResponse(
        user_agent=user_agent(client.name, client.version),
        codex_home=str(codex_home.resolve()),
        platform_family=platform_family(),
        platform_os=platform_os(),
    )
