"""The API's `ClientPort` over an LSP connection.

v2 notifications go out as `codex/<method>`, and every observer (turn progress, review
diagnostics, warnings shown as messages) sees each of them afterwards; v2 server requests
become editor prompts or forwarded `codex/*` requests through the `ApprovalBroker`; every
thread reads and writes files through the one `EditorWorkspace`, and asks the editor about
itself through `LspEditorContext` when the client offered to answer.

Nothing here may raise into the API: a notification that cannot be sent is logged and dropped,
so a broken editor connection ends a turn's output, never the turn's bookkeeping.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codex_lsp.api.port import INTERNAL_ERROR, ApiError
from codex_lsp.lsp.approvals import ApprovalBroker, ClientRequestError

if TYPE_CHECKING:
    import asyncio

    from codex_lsp.engine.editor_context import EditorContext
    from codex_lsp.engine.workspace import Workspace
    from codex_lsp.lsp.observers import NotificationObservers
    from codex_lsp.lsp.protocol import CodexProtocol

logger = logging.getLogger(__name__)


class LspClientPort:
    def __init__(
        self,
        protocol: CodexProtocol,
        loop: asyncio.AbstractEventLoop,
        approvals: ApprovalBroker,
        observers: NotificationObservers,
        workspace: Workspace,
        editor: Callable[[], EditorContext | None] = lambda: None,
    ) -> None:
        self._protocol = protocol
        self._loop = loop
        self._loop_thread = threading.get_ident()
        self._approvals = approvals
        self._observers = observers
        self._workspace = workspace
        self._editor = editor
        # Pending fileChange items by id: an approval prompt shows their diff when the
        # request itself does not carry it.
        self._file_changes: dict[str, list[dict[str, Any]]] = {}
        self.closed = False

    def notify(self, method: str, params: dict[str, Any]) -> None:
        if self.closed:
            return
        if threading.get_ident() != self._loop_thread:
            # Engine work done on a worker thread must not write to the stream concurrently.
            self._loop.call_soon_threadsafe(self.notify, method, params)
            return
        self._remember(method, params)
        try:
            self._protocol.send_notification(f"codex/{method}", params)
        except Exception:
            logger.warning("could not send codex/%s", method, exc_info=True)
        self._observers.deliver(method, params)

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        try:
            return await self._approvals.ask(method, params)
        except ClientRequestError as err:
            raise ApiError(err.code, err.message, err.data) from None
        except ApiError:
            raise
        except Exception as err:
            # The turn must see a failed request, not a crash of its approval machinery.
            logger.warning("asking the editor (%s) failed", method, exc_info=True)
            raise ApiError(INTERNAL_ERROR, f"could not ask the editor: {err}") from None

    def workspace_for(self, cwd: Path) -> Workspace:
        return self._workspace

    def editor_context(self) -> EditorContext | None:
        return self._editor()

    def backlog(self) -> int:
        """Messages written but not yet taken by the editor."""
        outbox = self._protocol.outbox
        return outbox.backlog() if outbox is not None else 0

    async def drained(self) -> None:
        """Wait while the editor is far behind: the engine paces its streaming by this."""
        outbox = self._protocol.outbox
        if outbox is not None:
            await outbox.drained()

    def file_changes(self, item_id: str) -> list[dict[str, Any]] | None:
        return self._file_changes.get(item_id)

    def _remember(self, method: str, params: dict[str, Any]) -> None:
        if method not in ("item/started", "item/completed"):
            return
        item = params.get("item")
        if not isinstance(item, dict) or item.get("type") != "fileChange":
            return
        if method == "item/started":
            self._file_changes[str(item.get("id"))] = list(item.get("changes") or [])
        else:
            self._file_changes.pop(str(item.get("id")), None)
