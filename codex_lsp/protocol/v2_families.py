"""The method families beyond the core thread and turn methods, each in its own `v2_*` module.

Each module declares `REQUESTS` (method -> params and result models) and may declare
`NOTIFICATIONS` (method -> params model) and `NO_PARAMS` (methods whose params may be absent);
`v2` merges them into its registries.
"""

from __future__ import annotations

from types import ModuleType

from codex_lsp.protocol import (
    v2_commands,
    v2_config_write,
    v2_feedback,
    v2_fs,
    v2_mcp,
    v2_providers,
    v2_read_state,
    v2_search,
    v2_settings,
    v2_thread_ops,
)

FAMILIES: tuple[ModuleType, ...] = (
    v2_thread_ops,
    v2_config_write,
    v2_fs,
    v2_search,
    v2_commands,
    v2_mcp,
    v2_providers,
    v2_settings,
    v2_feedback,
    v2_read_state,
)
