"""The LSP lifecycle: what the client says in `initialize`, engine start-up, `shutdown`.

Text document sync (didOpen / incremental didChange / didClose) is pygls's built-in; its
workspace is what `EditorWorkspace` reads open buffers and their versions from.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from codex_lsp.lsp.logs import EditorLogHandler
from codex_lsp.lsp.protocol import plain_handler

if TYPE_CHECKING:
    from codex_lsp.lsp.engine_host import EngineHost
    from codex_lsp.lsp.server import CodexLanguageServer

_MESSAGE_TYPES = {
    logging.CRITICAL: types.MessageType.Error,
    logging.ERROR: types.MessageType.Error,
    logging.WARNING: types.MessageType.Warning,
    logging.INFO: types.MessageType.Info,
}


def codex_flag(capabilities: types.ClientCapabilities, name: str) -> bool:
    """`capabilities.experimental.codex.<name> == true` in the client's initialize."""
    experimental: Any = capabilities.experimental
    if not isinstance(experimental, dict):
        return False
    codex = experimental.get("codex")
    return isinstance(codex, dict) and codex.get(name) is True


def declares_codex(capabilities: types.ClientCapabilities) -> bool:
    """Whether the client's initialize has `capabilities.experimental.codex` (an object)."""
    experimental: Any = capabilities.experimental
    return isinstance(experimental, dict) and isinstance(experimental.get("codex"), dict)


def answers_message_requests(capabilities: types.ClientCapabilities) -> bool:
    """Any client may be sent `window/showMessageRequest` (its `window.showMessage` capability
    only describes extras of the actions); one opts out with
    `experimental.codex.messageRequests: false`."""
    experimental: Any = capabilities.experimental
    codex = experimental.get("codex") if isinstance(experimental, dict) else None
    return not (isinstance(codex, dict) and codex.get("messageRequests") is False)


def wants_rich_approvals(capabilities: types.ClientCapabilities) -> bool:
    """`capabilities.experimental.codex.richApprovals == true` in the client's initialize."""
    return codex_flag(capabilities, "richApprovals")


class Lifecycle:
    def __init__(self, server: CodexLanguageServer, host: EngineHost) -> None:
        self._server = server
        self._host = host
        self._log_handler: EditorLogHandler | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None

    def register(self, server: CodexLanguageServer) -> None:
        server.feature(types.INITIALIZE)(plain_handler(self.on_initialize))
        server.feature(types.INITIALIZED)(plain_handler(self.on_initialized))
        server.feature(types.SHUTDOWN)(plain_handler(self.on_shutdown))

    def on_initialize(self, params: types.InitializeParams) -> None:
        self._server.rich_approvals = wants_rich_approvals(params.capabilities)
        self._server.hunk_review = codex_flag(params.capabilities, "hunkReview")
        self._server.editor_context = codex_flag(params.capabilities, "editorContext")
        self._server.codex_client = declares_codex(params.capabilities)
        self._server.message_requests = answers_message_requests(params.capabilities)
        if self._log_handler is None:
            self._loop = asyncio.get_running_loop()
            self._loop_thread = threading.get_ident()
            self._log_handler = EditorLogHandler(self._log_to_editor)
            logging.getLogger().addHandler(self._log_handler)

    def on_initialized(self, params: types.InitializedParams) -> None:
        # Loading the engine here rather than in initialize keeps the initialize answer fast.
        self._host.start()

    async def on_shutdown(self, params: None) -> None:
        await self._host.aclose()

    def _log_to_editor(self, level: int, message: str) -> None:
        kind = _MESSAGE_TYPES.get(level, types.MessageType.Log)
        params = types.LogMessageParams(type=kind, message=message)
        if threading.get_ident() == self._loop_thread:
            self._server.window_log_message(params)
        elif self._loop is not None and not self._loop.is_closed():
            # Records from worker threads are written by the loop, never concurrently with it.
            self._loop.call_soon_threadsafe(self._server.window_log_message, params)
