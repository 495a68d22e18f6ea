"""The method families the `ApiServer` serves besides its core thread and turn methods.

Each is a module with `handlers(ctx: ApiContext) -> {method: handler}`; its wire types live in
the matching `codex_lsp.protocol.v2_*` module.
"""

from __future__ import annotations

from types import ModuleType

from codex_lsp.api import (
    background_terminals,
    commands,
    config_write,
    feedback,
    fs,
    fuzzy_search,
    mcp_servers,
    providers,
    read_state,
    settings,
    skills_settings,
    thread_ops,
    thread_pages,
    thread_records,
    thread_settings,
)

API_FAMILIES: tuple[ModuleType, ...] = (
    commands,
    background_terminals,
    thread_records,
    thread_pages,
    thread_ops,
    thread_settings,
    config_write,
    fs,
    fuzzy_search,
    mcp_servers,
    providers,
    read_state,
    skills_settings,
    settings,
    feedback,
)
