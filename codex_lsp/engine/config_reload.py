"""`reload_user_config`: a running session takes up what changed in config.toml.

What the session reads from the config between turns is refreshed: the `[features]` flags and
`tools.web_search` of the next turn, and whatever each extension keeps (skills settings, MCP
servers). The thread's model, provider and policies are its own and stay as they are. A config
that no longer loads is reported as a warning and the session keeps the one it had.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING

from codex_lsp.protocol.core.events import WarningEvent
from codex_lsp.store.config_errors import ConfigError

if TYPE_CHECKING:
    from codex_lsp.engine.session import Session

log = logging.getLogger(__name__)


async def reload_user_config(session: Session, sub_id: str) -> None:
    try:
        config = session.services.reload_config()
    except ConfigError as err:
        session.emit(sub_id, WarningEvent(message=f"config.toml was not reloaded: {err}"))
        return
    session.ctx = replace(
        session.ctx,
        features=dict(config.features or {}),
        web_search=bool(config.tools.web_search),
    )
    for extension in session.services.extensions:
        try:
            await extension.config_reloaded(session, sub_id)
        except Exception:  # one feature failing to refresh must not stop the others
            log.exception("%s failed to take up the reloaded config", extension.name)
