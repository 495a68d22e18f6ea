"""What a Session needs from outside itself: config, model clients, tools, auth, homes."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from codex_lsp.engine.extensions import Extension
from codex_lsp.engine.tools.router import ToolRouter
from codex_lsp.engine.turn_context import TurnContext
from codex_lsp.model import ModelClient
from codex_lsp.model.errors import ModelError
from codex_lsp.model.recording import StreamRecorder
from codex_lsp.model.transport import http_client
from codex_lsp.store.auth import AuthStore
from codex_lsp.store.config import Config
from codex_lsp.store.token_refresh import RefreshFailed, TokenRefresher

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from codex_lsp.engine.codex import Codex
    from codex_lsp.engine.session import Session
    from codex_lsp.protocol.core.ops import Op


@dataclass
class EngineServices:
    codex_home: Path
    config: Config
    # None: API keys come from each provider's `env_key` only.
    auth: AuthStore | None = None
    http: httpx.AsyncClient | None = None
    router: ToolRouter = field(default_factory=ToolRouter)
    extensions: list[Extension] = field(default_factory=list)
    # Each thread's model streams are saved next to its rollout (`codex-lsp record`).
    record_streams: bool = False
    config_loader: Callable[[], Any] | None = None
    """Reads the config again as it was first read (same home, profile and overrides)."""
    # One per engine, so that its requests refresh a sign-in one at a time.
    _refresher: TokenRefresher | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        for extension in self.extensions:
            for name, handler in extension.tool_handlers().items():
                self.router.register(name, handler)
            self.router.add_resolver(extension.handles_tool)

    def reload_config(self) -> Config:
        """Read config.toml again and make it this engine's config; raises `ConfigError`."""
        if self.config_loader is not None:
            self.config = self.config_loader()
        else:
            from codex_lsp.store.config import load_config

            self.config = load_config(self.codex_home)
        return self.config

    def tool_specs(self, session: Session, ctx: TurnContext) -> list[dict[str, Any]]:
        return [spec for ext in self.extensions for spec in ext.tool_specs(session, ctx)]

    def instruction_sections(self, session: Session, ctx: TurnContext) -> list[str]:
        return [text for ext in self.extensions for text in ext.instructions(session, ctx)]

    def model_client(
        self, ctx: TurnContext, thread_id: str, recorder: StreamRecorder | None = None
    ) -> ModelClient:
        auth = self.auth
        provider = ctx.provider

        def api_key() -> str | None:
            if auth is not None:
                return auth.api_key_for(provider)
            return provider.env_api_key()

        refresh = None
        if auth is not None and provider.requires_openai_auth:
            refresh = self._refresh_sign_in(auth)
        return ModelClient(
            provider,
            api_key=api_key,
            http=self.http,
            session_id=thread_id,
            recorder=recorder,
            refresh_auth=refresh,
        )

    def token_refresher(self, auth: AuthStore) -> TokenRefresher:
        if self._refresher is None or self._refresher.store is not auth:
            issuer = getattr(self.config, "login_issuer", None)
            self._refresher = TokenRefresher(auth, issuer=issuer)
        return self._refresher

    def _refresh_sign_in(self, auth: AuthStore) -> Callable[[str | None], Awaitable[bool]]:
        refresher = self.token_refresher(auth)

        async def refresh(refused: str | None) -> bool:
            if refused is None and refresher.stale_token() is None:
                return False
            http = self.http or http_client()
            try:
                if refused is None:
                    return await refresher.refresh_if_stale(http)
                return await refresher.refresh(http, replacing=refused)
            except RefreshFailed as err:
                if refused is None:
                    # The request goes out with the token as it is; a 401 tries again.
                    log.warning("could not refresh the sign-in before a request: %s", err)
                    return False
                raise ModelError(
                    str(err), codex_error_info="unauthorized", http_status=401
                ) from None
            finally:
                if http is not self.http:
                    await http.aclose()

        return refresh

    async def handle_extra_op(self, codex: Codex, session: Session, sub_id: str, op: Op) -> None:
        """Ops served by extensions (review, skills); without one, a clear error."""
        handler = next(
            (ext.op_handlers()[op.type] for ext in self.extensions if op.type in ext.op_handlers()),
            None,
        )
        if handler is None:
            from codex_lsp.protocol.core.events import ErrorEvent

            codex.event(sub_id, ErrorEvent(message=f"op {op.type!r} is not supported here"))
            return
        await handler(codex, session, sub_id, op)
