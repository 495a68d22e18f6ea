"""The engine's `EditorContext` over LSP: `codex/editor/*` requests to the client.

Only a client that declared `capabilities.experimental.codex.editorContext` is asked. Files go
out as URIs (the buffer's own URI when the client opened it here, so the two sides agree on
the spelling). An answer that is an error, malformed, or late becomes `EditorContextError`,
which the model reads as a failed tool call; the turn goes on.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError
from pygls.exceptions import JsonRpcException

from codex_lsp.engine.editor_context import EditorContextError
from codex_lsp.protocol.common import dump
from codex_lsp.protocol.editor import (
    DIAGNOSTICS,
    OPEN_BUFFERS,
    READ_BUFFER,
    SELECTION,
    DiagnosticsParams,
    DiagnosticsResult,
    OpenBuffersParams,
    OpenBuffersResult,
    ReadBufferParams,
    ReadBufferResult,
    SelectionParams,
    SelectionResult,
)

if TYPE_CHECKING:
    from codex_lsp.lsp.editor_workspace import EditorWorkspace
    from codex_lsp.lsp.server import CodexLanguageServer

logger = logging.getLogger(__name__)

# An editor answers these from memory; one that has not after this long is not going to.
ANSWER_TIMEOUT_S = 30.0

M = TypeVar("M", bound=BaseModel)


class LspEditorContext:
    def __init__(self, server: CodexLanguageServer, workspace: EditorWorkspace) -> None:
        self._server = server
        self._workspace = workspace

    async def open_buffers(self) -> OpenBuffersResult:
        result = await self._ask(OPEN_BUFFERS, OpenBuffersParams(), OpenBuffersResult)
        return result if result is not None else OpenBuffersResult()

    async def read_buffer(self, path: Path) -> ReadBufferResult | None:
        params = ReadBufferParams(uri=self._uri(path))
        return await self._ask(READ_BUFFER, params, ReadBufferResult)

    async def selection(self) -> SelectionResult | None:
        return await self._ask(SELECTION, SelectionParams(), SelectionResult)

    async def diagnostics(self, path: Path | None) -> DiagnosticsResult:
        params = DiagnosticsParams(uri=self._uri(path) if path is not None else None)
        result = await self._ask(DIAGNOSTICS, params, DiagnosticsResult)
        return result if result is not None else DiagnosticsResult()

    def _uri(self, path: Path) -> str:
        from pygls.uris import from_fs_path

        doc = self._workspace.open_document(path)
        if doc is not None:
            return doc.uri
        return from_fs_path(str(path)) or path.as_uri()

    async def _ask(self, method: str, params: BaseModel, result_type: type[M]) -> M | None:
        """Send `codex/<method>`; the client's result as `result_type`, None for `null`."""
        raw = await self._request(f"codex/{method}", dump(params))
        if raw is None:
            return None
        try:
            return result_type.model_validate(raw)
        except ValidationError as err:
            logger.warning("the editor answered codex/%s with %r: %s", method, raw, err)
            raise EditorContextError(f"the editor's answer to {method} is malformed") from None

    async def _request(self, method: str, params: dict[str, Any]) -> Any:
        msg_id = f"codex-{uuid.uuid4().hex}"
        protocol = self._server.protocol
        try:
            async with asyncio.timeout(ANSWER_TIMEOUT_S):
                return await protocol.send_request_async(method, params, msg_id=msg_id)
        except TimeoutError:
            self._cancel(msg_id)
            raise EditorContextError(f"no answer within {ANSWER_TIMEOUT_S:.0f} s") from None
        except asyncio.CancelledError:
            self._cancel(msg_id)
            raise
        except JsonRpcException as err:
            raise EditorContextError(err.message) from None
        except Exception as err:  # the connection went away
            raise EditorContextError(str(err) or type(err).__name__) from None

    def _cancel(self, msg_id: str) -> None:
        from lsprotocol import types

        try:
            self._server.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
        except Exception:
            logger.debug("could not cancel %s on the client", msg_id, exc_info=True)
