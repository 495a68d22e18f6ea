"""A running turn as an LSP work-done progress with a cancel button.

`turn/started` creates a progress token (`window/workDoneProgress/create`) and begins it,
each `item/started` reports what the agent is doing, `turn/completed` ends it. The editor's
cancel button (`window/workDoneProgress/cancel`) interrupts the turn through the API, exactly
as a `turn/interrupt` request would. Clients without `window.workDoneProgress` get none of it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from codex_lsp.lsp.observers import NotificationObservers
from codex_lsp.lsp.protocol import plain_handler
from codex_lsp.protocol.threads.notifications import (
    ItemStartedNotification,
    TurnCompletedNotification,
    TurnStartedNotification,
)
from codex_lsp.protocol.turns.items import (
    AgentMessageThreadItem,
    CommandExecutionThreadItem,
    FileChangeThreadItem,
    McpToolCallThreadItem,
    ReasoningThreadItem,
    ThreadItem,
    WebSearchThreadItem,
)
from codex_lsp.protocol.turns.models import Turn

logger = logging.getLogger(__name__)

TITLE = "Codex"
Interrupt = Callable[[str, str], Awaitable[Any]]


def describe_item(item: ThreadItem) -> str | None:
    """A few words on what a started item means, for the progress message."""
    if isinstance(item, CommandExecutionThreadItem):
        return f"Running {item.command or 'a command'}"
    if isinstance(item, FileChangeThreadItem):
        paths = [change.path.rsplit("/", 1)[-1] for change in item.changes]
        return f"Editing {', '.join(paths)}" if paths else "Editing files"
    if isinstance(item, ReasoningThreadItem):
        return "Thinking"
    if isinstance(item, AgentMessageThreadItem):
        return "Writing the answer"
    if isinstance(item, McpToolCallThreadItem):
        return f"Calling {item.server}/{item.tool}"
    if isinstance(item, WebSearchThreadItem):
        return "Searching the web"
    return None


def _token(thread_id: str, turn_id: str) -> str:
    return f"codex/turn/{thread_id}/{turn_id}"


class _TurnProgress:
    """One turn's progress. Messages wait until the client has accepted the token."""

    def __init__(self, server: LanguageServer, token: str) -> None:
        self._server = server
        self.token = token
        self._ready = False
        self._dead = False
        self._report: str | None = None
        self._end: str | None = None
        self._task = asyncio.ensure_future(self._create())

    async def _create(self) -> None:
        progress = self._server.work_done_progress
        try:
            await progress.create_async(self.token)
        except Exception as err:
            # The client refused the token; the turn runs on without a progress indicator.
            logger.debug("progress token %s refused: %s", self.token, err)
            self._dead = True
            return
        progress.begin(
            self.token,
            types.WorkDoneProgressBegin(title=TITLE, message="Working", cancellable=True),
        )
        self._ready = True
        if self._report is not None:
            self.report(self._report)
        if self._end is not None:
            self.end(self._end)

    def report(self, message: str) -> None:
        if self._dead:
            return
        if not self._ready:
            self._report = message  # only the latest matters once the token exists
            return
        self._server.work_done_progress.report(
            self.token, types.WorkDoneProgressReport(message=message, cancellable=True)
        )

    def end(self, message: str) -> None:
        if self._dead:
            return
        if not self._ready:
            self._end = message
            return
        self._dead = True
        self._server.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=message))
        # pygls keeps a future per token forever; this one is finished.
        self._server.work_done_progress.tokens.pop(self.token, None)

    def abandon(self) -> None:
        self._task.cancel()
        self._dead = True


class TurnProgressTracker:
    """Watches turn notifications and mirrors them as progress; routes cancel to `interrupt`."""

    def __init__(self, server: LanguageServer, interrupt: Interrupt) -> None:
        self._server = server
        self._interrupt = interrupt
        self._turns: dict[str, _TurnProgress] = {}
        self._by_token: dict[str, tuple[str, str]] = {}
        # thread id -> id of its running turn, for `codex.interrupt`
        self.running: dict[str, str] = {}

    def register(self, server: LanguageServer) -> None:
        server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)(plain_handler(self.on_cancel))

    def _enabled(self) -> bool:
        try:
            window = self._server.client_capabilities.window
        except AttributeError:
            return False
        return bool(window and window.work_done_progress)

    def subscribe(self, observers: NotificationObservers) -> None:
        observers.on(TurnStartedNotification, self._turn_started)
        observers.on(ItemStartedNotification, self._item_started)
        observers.on(TurnCompletedNotification, self._turn_completed)

    def _turn_started(self, notice: TurnStartedNotification) -> None:
        thread_id, turn_id = notice.thread_id, notice.turn.id
        self.running[thread_id] = turn_id
        if self._enabled():
            token = _token(thread_id, turn_id)
            self._turns[token] = _TurnProgress(self._server, token)
            self._by_token[token] = (thread_id, turn_id)

    def _item_started(self, notice: ItemStartedNotification) -> None:
        progress = self._turns.get(_token(notice.thread_id, notice.turn_id))
        message = describe_item(notice.item)
        if progress is not None and message:
            progress.report(message)

    def _turn_completed(self, notice: TurnCompletedNotification) -> None:
        thread_id, turn_id = notice.thread_id, notice.turn.id
        if self.running.get(thread_id) == turn_id:
            del self.running[thread_id]
        token = _token(thread_id, turn_id)
        progress = self._turns.pop(token, None)
        self._by_token.pop(token, None)
        if progress is not None:
            progress.end(_ended(notice.turn))

    async def on_cancel(self, params: types.WorkDoneProgressCancelParams) -> None:
        target = self._by_token.get(str(params.token))
        if target is None:
            return
        thread_id, turn_id = target
        progress = self._turns.get(str(params.token))
        if progress is not None:
            progress.report("Interrupting")
        try:
            await self._interrupt(thread_id, turn_id)
        except Exception as err:
            logger.warning("could not interrupt turn %s of thread %s: %s", turn_id, thread_id, err)

    def close(self) -> None:
        for progress in self._turns.values():
            progress.abandon()
        self._turns.clear()
        self._by_token.clear()


def _ended(turn: Turn) -> str:
    if turn.status == "failed":
        return f"Failed: {turn.error.message if turn.error else 'unknown error'}"
    if turn.status == "interrupted":
        return "Interrupted"
    return "Done"
