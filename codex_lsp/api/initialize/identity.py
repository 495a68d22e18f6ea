"""Who this server is, as the `initialize` answer tells a client (standard library only).

Both the v2 handshake (`api/initialize/handshake.py`) and the app-server's early answer,
written before the API is imported (`appserver/early_initialize.py`), describe the server
with these.
"""

from __future__ import annotations

import platform

from codex_lsp import __version__


def user_agent(client_name: str, client_version: str) -> str:
    """`codex_lsp/<version> (<system> <release>; <machine>) (<client>; <client version>)`."""
    return (
        f"codex_lsp/{__version__} ({platform.system()} {platform.release()}; "
        f"{platform.machine()}) ({client_name}; {client_version})"
    )


def platform_family() -> str:
    """`windows` or `unix`."""
    return "windows" if platform.system() == "Windows" else "unix"


def platform_os() -> str:
    """`linux`, `macos`, `windows`, ..."""
    system = platform.system()
    return {"Darwin": "macos"}.get(system, system.lower())
