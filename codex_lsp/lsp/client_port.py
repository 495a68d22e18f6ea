"""The API's `ClientPort` over an LSP connection.

v2 notifications go out as `codex/<method>` to a client that declared `experimental.codex`,
written from the API's params model, and every
observer (turn progress, review diagnostics, warnings shown as messages) is handed that same
model afterwards; v2 server requests become editor prompts or forwarded `codex/*` requests
through the `ApprovalBroker`, whose result is read into the request's result model here; every
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
from typing import TYPE_CHECKING

from pydantic import BaseModel

from codex_lsp.api.port import INTERNAL_ERROR, Answer, ApiError, read_answer
from codex_lsp.lsp.approvals import ApprovalBroker, ClientRequestError
from codex_lsp.protocol.approvals.models import ServerRequestParams
from codex_lsp.protocol.threads.notifications import (
    ItemCompletedNotification,
    ItemStartedNotification,
)
from codex_lsp.protocol.turns.items import FileChangeThreadItem, FileUpdateChange

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
        sends_notifications: Callable[[], bool] = lambda: True,
    ) -> None:
        self._protocol = protocol
        self._loop = loop
        self._loop_thread = threading.get_ident()
        self._approvals = approvals
        self._observers = observers
        self._workspace = workspace
        self._editor = editor
        self._sends_notifications = sends_notifications
        # Pending fileChange items by id: an approval prompt shows their diff when the
        # request itself does not carry it.
        self._file_changes: dict[str, list[FileUpdateChange]] = {}
        self.closed = False

    def notify(self, method: str, params: BaseModel) -> None:
        if self.closed:
            return
        if threading.get_ident() != self._loop_thread:
            # Engine work done on a worker thread must not write to the stream concurrently;
            # the copy is what the API sent now, whatever it changes in its models later.
            self._loop.call_soon_threadsafe(self.notify, method, params.model_copy(deep=True))
            return
        self._remember(params)
        try:
            # A client that did not declare `experimental.codex` would drop or warn about each.
            if self._sends_notifications():
                self._protocol.send_model_notification(f"codex/{method}", params)
        except Exception:
            logger.warning("could not send codex/%s", method, exc_info=True)
        self._observers.deliver(method, params)

    async def request(
        self, method: str, params: ServerRequestParams, answer: type[Answer]
    ) -> Answer:
        try:
            result = await self._approvals.ask(method, params)
        except ClientRequestError as err:
            raise ApiError(err.code, err.message, err.data) from None
        except ApiError:
            raise
        except Exception as err:
            # The turn must see a failed request, not a crash of its approval machinery.
            logger.warning("asking the editor (%s) failed", method, exc_info=True)
            raise ApiError(INTERNAL_ERROR, f"could not ask the editor: {err}") from None
        return read_answer(method, result, answer)

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

    def file_changes(self, item_id: str) -> list[FileUpdateChange] | None:
        return self._file_changes.get(item_id)

    def _remember(self, params: BaseModel) -> None:
        """Keep the changes of a pending `fileChange` item until it completes."""
        if not isinstance(params, ItemStartedNotification | ItemCompletedNotification):
            return
        item = params.item
        if not isinstance(item, FileChangeThreadItem):
            return
        if isinstance(params, ItemStartedNotification):
            self._file_changes[item.id] = list(item.changes)
        else:
            self._file_changes.pop(item.id, None)
