"""Telling loaded threads that config.toml changed.

`config/batchWrite` with `reloadUserConfig`, a feature switched on or off, or a skill enabled or
disabled sends `reload_user_config` to every loaded thread, so their next turns see the new
settings; `config/mcpServer/reload` sends `refresh_mcp_servers`. Each op is queued on the
thread's engine and applied there; the request does not wait for it.
"""

from __future__ import annotations

import logging

from codex_lsp.api.family import ApiContext
from codex_lsp.protocol.core.ops import Op, ReloadUserConfig

log = logging.getLogger(__name__)


async def submit_to_loaded(ctx: ApiContext, op: Op) -> None:
    for thread in list(ctx.threads.loaded.values()):
        if thread.done.is_set() or thread.codex.session is None:
            continue
        try:
            await thread.submit(op)
        except Exception:  # a thread closing under us has nothing left to reload
            log.warning("thread %s did not take %s", thread.thread_id, op.type, exc_info=True)


async def reload_loaded_threads(ctx: ApiContext) -> None:
    await submit_to_loaded(ctx, ReloadUserConfig())
