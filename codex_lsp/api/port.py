"""The seam between the v2 API and its transports.

`ApiServer` (in `codex_lsp.api.server`) is driven by a front door: the door hands it each client
request as `(method, params)` and gets back the result dict or an `ApiError`. The API talks back
through a `ClientPort` the door provides: notifications, and requests to the client (approvals,
questions) whose answers it awaits. The door also chooses the `Workspace` each thread's engine
reads and writes files through (disk for the app-server, editor buffers for the language server).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from codex_lsp.engine.editor_context import EditorContext
from codex_lsp.engine.workspace import Workspace

# JSON-RPC error codes the API raises; doors put them on the wire as they are.
from codex_lsp.protocol.jsonrpc import INTERNAL_ERROR as INTERNAL_ERROR
from codex_lsp.protocol.jsonrpc import INVALID_PARAMS as INVALID_PARAMS
from codex_lsp.protocol.jsonrpc import INVALID_REQUEST as INVALID_REQUEST
from codex_lsp.protocol.jsonrpc import METHOD_NOT_FOUND as METHOD_NOT_FOUND
from codex_lsp.protocol.jsonrpc import PARSE_ERROR as PARSE_ERROR


class ApiError(Exception):
    """A request that failed; `code` and `message` go back to the client verbatim."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


class ClientPort(Protocol):
    """What the API needs from the door it is served through."""

    def notify(self, method: str, params: dict[str, Any]) -> None:
        """Send a v2 notification (`turn/started`, `item/agentMessage/delta`, ...)."""

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Send a v2 server request (`item/commandExecution/requestApproval`, ...) and
        return the client's result. Raise `ApiError` if the client answered with an error."""

    def workspace_for(self, cwd: Path) -> Workspace:
        """The Workspace a thread rooted at `cwd` reads and writes through."""


@runtime_checkable
class EditorContextSource(Protocol):
    """A door whose client is an editor that answers questions about itself (open buffers,
    selection, diagnostics) also provides this; its threads get the `editor_*` tools."""

    def editor_context(self) -> EditorContext | None:
        """The editor to ask, or None when the client did not offer to answer."""
