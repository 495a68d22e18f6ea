"""The API's `ClientPort` over an ACP connection.

v2 notifications of a thread that is an open session become `session/update`s (`updates.py`);
the rest are dropped. Updates go out in order through one queue, so a prompt's answer, which
waits for its `turn/completed`, follows every update of its turn, and a permission request
follows the `tool_call` it names. Approvals become `session/request_permission`
(`permissions.py`); a session whose user chose "reject always" gets each later request of that
kind declined without asking. Each thread reads and writes files through an `AcpWorkspace`.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp.schema import SessionNotification
from pydantic import BaseModel

from codex_lsp.acp import permissions
from codex_lsp.acp.updates import SessionUpdates, Update
from codex_lsp.acp.workspace import AcpWorkspace, ReadFile, WriteFile
from codex_lsp.api.port import METHOD_NOT_FOUND, Answer, ApiError, read_answer
from codex_lsp.engine.patch import DiskFiles
from codex_lsp.engine.workspace import Workspace

log = logging.getLogger(__name__)

QUESTION_METHOD = "item/tool/requestUserInput"

SendUpdate = Callable[[SessionNotification], Awaitable[None]]
AskPermission = Callable[[str, dict[str, Any], list[dict[str, Any]]], Awaitable[dict[str, Any]]]


@dataclass
class Session:
    """One open ACP session: the thread it is, and what its stream needs."""

    id: str
    cwd: str
    model: str
    mode: str
    effort: str | None = None
    titled: bool = False
    updates: SessionUpdates = field(default_factory=lambda: SessionUpdates(_disk_text))
    refused: set[str] = field(default_factory=set)
    turn: asyncio.Future[dict[str, Any]] | None = None
    turn_id: str | None = None
    cancelled: bool = False


def _disk_text(path: str) -> str | None:
    try:
        return DiskFiles().read_text(Path(path))
    except (OSError, UnicodeDecodeError):
        return None


# Queued updates past which the engine's streaming waits for the client to catch up.
_HIGH_WATER = 256


class AcpClientPort:
    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        send_update: SendUpdate,
        ask_permission: AskPermission,
    ) -> None:
        self._loop = loop
        self._loop_thread = threading.get_ident()
        self._send_update = send_update
        self._ask_permission = ask_permission
        self.sessions: dict[str, Session] = {}
        self.read_file: ReadFile | None = None
        self.write_file: WriteFile | None = None
        self._queue: asyncio.Queue[Update | asyncio.Future[None] | tuple[str, Update]] = (
            asyncio.Queue()
        )
        self._sender: asyncio.Task[None] | None = None
        self._unbound: list[AcpWorkspace] = []
        self._workspaces: dict[str, AcpWorkspace] = {}

    # -- ClientPort -------------------------------------------------------------------------

    def notify(self, method: str, params: BaseModel) -> None:
        if threading.get_ident() != self._loop_thread:
            # Engine work on a worker thread: the dict is taken now, sent from the loop.
            data = params.model_dump(mode="json", by_alias=True)
            self._loop.call_soon_threadsafe(self._notify, method, data)
            return
        self._notify(method, params.model_dump(mode="json", by_alias=True))

    def _notify(self, method: str, params: dict[str, Any]) -> None:
        thread_id = params.get("threadId")
        session = self.sessions.get(thread_id) if isinstance(thread_id, str) else None
        if session is None:
            return
        if method == "turn/started":
            session.turn_id = params["turn"]["id"]
        for update in session.updates.translate(method, params):
            self.send(session.id, update)
        if method == "turn/completed":
            self._enqueue(("turn/completed", {"sessionId": session.id, **params}))

    async def request(self, method: str, params: Any, answer: type[Answer]) -> Answer:
        if method == QUESTION_METHOD:
            # ACP v1 has no form to ask the user in (elicitation is unstable): the model is
            # told the user gave no answer and goes on, as the official adapter does.
            return read_answer(method, {"answers": {}}, answer)
        kind = permissions.APPROVAL_METHODS.get(method)
        data = params.model_dump(mode="json", by_alias=True)
        session = self.sessions.get(data.get("threadId", ""))
        if kind is None or session is None:
            raise ApiError(METHOD_NOT_FOUND, f"{method} is not asked of ACP clients")
        if kind in session.refused:
            return read_answer(method, {"decision": "decline"}, answer)
        await self.flushed()
        call = permissions.tool_call(method, data)
        outcome = await self._ask_permission(session.id, call, permissions.options(data))
        if outcome.get("optionId") == permissions.REJECT_ALWAYS:
            session.refused.add(kind)
        return read_answer(method, {"decision": permissions.decision(outcome, data)}, answer)

    def workspace_for(self, cwd: Path) -> Workspace:
        workspace = AcpWorkspace(self._loop, self.read_file, self.write_file)
        self._unbound.append(workspace)
        return workspace

    def bind_workspaces(self, session_id: str) -> None:
        """The workspaces made for the thread just opened belong to `session_id`."""
        for workspace in self._unbound:
            workspace.session_id = session_id
            self._workspaces[session_id] = workspace
        self._unbound.clear()

    def old_text(self, session_id: str) -> Callable[[str], str | None]:
        """How a session reads a file's text before a patch: as the client last gave it to
        the engine (the text the patch was made against), else from disk."""

        def read(path: str) -> str | None:
            workspace = self._workspaces.get(session_id)
            if workspace is not None and path in workspace.client_texts:
                return workspace.client_texts[path]
            return _disk_text(path)

        return read

    # -- the outgoing queue -----------------------------------------------------------------

    def send(self, session_id: str, update: Update) -> None:
        self._enqueue((session_id, update))

    def _enqueue(self, item: Any) -> None:
        self._queue.put_nowait(item)
        if self._sender is None or self._sender.done():
            self._sender = self._loop.create_task(self._send_all())

    def backlog(self) -> int:
        """Updates queued but not yet sent to the client: how far behind it reads."""
        return self._queue.qsize()

    async def drained(self) -> None:
        """Wait while the client is far behind, so the model's stream paces itself by it."""
        if self._queue.qsize() > _HIGH_WATER:
            await self.flushed()

    async def flushed(self) -> None:
        """Wait until everything queued so far has been sent."""
        marker: asyncio.Future[None] = self._loop.create_future()
        self._enqueue(marker)
        await marker

    async def _send_all(self) -> None:
        while not self._queue.empty():
            item = self._queue.get_nowait()
            if isinstance(item, asyncio.Future):
                if not item.done():
                    item.set_result(None)
                continue
            target, update = item
            if target == "turn/completed":
                self._turn_completed(update)  # type: ignore[arg-type]
                continue
            try:
                notification = SessionNotification.model_validate(
                    {"sessionId": target, "update": update}
                )
                await self._send_update(notification)
            except Exception:  # one update the client cannot take must not stop the stream
                log.warning("could not send a session/update", exc_info=True)

    def _turn_completed(self, params: dict[str, Any]) -> None:
        session = self.sessions.get(params["sessionId"])
        if session is None or session.turn is None:
            return
        if not session.turn.done():
            session.turn.set_result(params["turn"])
        session.turn = None
        session.turn_id = None
