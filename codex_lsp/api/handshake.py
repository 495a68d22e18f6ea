"""The answer to the v2 `initialize` handshake: who this server is, for either door."""

from __future__ import annotations

import platform
from pathlib import Path

from codex_lsp import __version__
from codex_lsp.protocol.v2_initialize import InitializeParams, InitializeResponse


def initialize_response(params: InitializeParams, codex_home: Path) -> InitializeResponse:
    client = params.client_info
    system = platform.system()
    os_name = {"Darwin": "macos"}.get(system, system.lower())
    agent = (
        f"codex_lsp/{__version__} ({system} {platform.release()}; {platform.machine()}) "
        f"({client.name}; {client.version})"
    )
    return InitializeResponse(
        user_agent=agent,
        codex_home=str(codex_home.resolve()),
        platform_family="windows" if system == "Windows" else "unix",
        platform_os=os_name,
    )
