"""One JSON-RPC connection of the app-server, and the `ClientPort` the API talks through.

Messages are JSON objects, one per line, without the `jsonrpc` member (the reference server
leaves it out; one a client sends is accepted and ignored). Server-to-client requests get ids of
their own, counting from 0, and the connection awaits the client's answer to each.

The API hands over notifications and requests as their v2 params models: they become JSON
here, each written straight from its model (no intermediate dict on the streaming path), and the
client's answers are read back into the result model the API asked for.

When a request is settled (answered, or dropped because the API gave up on it when its turn
ended) the client is told with `serverRequest/resolved`: only this door knows the wire id.

Messages go out through an `Outbox`, so the same connection serves stdio, a socket or any
other byte transport; its backlog is what the engine paces its streaming by.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError

from codex_lsp.api.port import INTERNAL_ERROR, Answer, ApiError, read_answer
from codex_lsp.engine.workspace import DiskWorkspace, Workspace
from codex_lsp.protocol.approvals.models import ServerRequestParams
from codex_lsp.protocol.common import dump
from codex_lsp.protocol.threads.notifications import ServerRequestResolvedNotification
from codex_lsp.wire.input import clip_error_message
from codex_lsp.wire.output import Outbox

log = logging.getLogger(__name__)

_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


class ConnectionClosed(ApiError):
    def __init__(self) -> None:
        super().__init__(INTERNAL_ERROR, "the client connection is closed")


class Connection:
    """Implements `ClientPort` over an `Outbox`; the serve loop feeds it client responses."""

    def __init__(self, writer: Outbox) -> None:
        self._writer = writer
        self._ids = itertools.count()
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._workspace = DiskWorkspace()
        self.opted_out: frozenset[str] = frozenset()
        self.closed = False

    # -- writing ----------------------------------------------------------------------------

    def send(self, message: dict[str, Any]) -> None:
        self._writer.write((_encode(message) + "\n").encode("utf-8"))

    def send_result(self, request_id: Any, result: Any) -> None:
        self.send({"id": request_id, "result": result})

    def send_error(self, request_id: Any, code: int, message: str, data: Any = None) -> None:
        error: dict[str, Any] = {"code": code, "message": clip_error_message(message)}
        if data is not None:
            error["data"] = data
        self.send({"id": request_id, "error": error})

    # -- ClientPort -------------------------------------------------------------------------

    def notify(self, method: str, params: BaseModel) -> None:
        if method in self.opted_out:
            return
        # The envelope's `emittedAtMs`, as the reference server stamps its notifications.
        stamp = time.time_ns() // 1_000_000
        try:
            body = params.__pydantic_serializer__.to_json(params, by_alias=True)
        except PydanticSerializationError:
            # What pydantic will not write as JSON (a lone surrogate in a delta) goes the
            # slower way, which writes what `json` can.
            self.send({"method": method, "params": dump(params), "emittedAtMs": stamp})
            return
        self._writer.write(
            b'{"method":"%s","params":%s,"emittedAtMs":%d}\n' % (method.encode(), body, stamp)
        )

    async def request(
        self, method: str, params: ServerRequestParams, answer: type[Answer]
    ) -> Answer:
        if self.closed:
            raise ConnectionClosed()
        request_id = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        self.send({"id": request_id, "method": method, "params": dump(params)})
        try:
            response = await future
        finally:
            self._pending.pop(request_id, None)
            if not self.closed:
                resolved = ServerRequestResolvedNotification(
                    thread_id=params.thread_id, request_id=request_id
                )
                self.notify("serverRequest/resolved", resolved)
        error = response.get("error")
        if error is not None:
            code = error.get("code") if isinstance(error, dict) else None
            message = error.get("message") if isinstance(error, dict) else None
            raise ApiError(code if isinstance(code, int) else INTERNAL_ERROR, str(message or error))
        result = response.get("result")
        return read_answer(method, result if isinstance(result, dict) else {}, answer)

    def backlog(self) -> int:
        """Messages written but not yet taken by the client: how far behind it reads."""
        return self._writer.backlog()

    async def drained(self) -> None:
        """Wait while the client is far behind: streaming producers pace themselves by it."""
        await self._writer.drained()

    def workspace_for(self, cwd: Path) -> Workspace:
        # The app-server's clients have no buffers to share: files live on disk.
        return self._workspace

    # -- the client's answers ---------------------------------------------------------------

    def resolve(self, message: dict[str, Any]) -> None:
        """Hand a client response to the request it answers."""
        request_id = message.get("id")
        # Our requests' ids are ints; any other id answers nothing we asked.
        future = self._pending.get(request_id) if isinstance(request_id, int) else None
        if future is None:
            log.warning("response to unknown request id %r", message.get("id"))
            return
        if not future.done():
            future.set_result(message)

    def close(self) -> None:
        """No more answers will come: fail what is still waiting."""
        self.closed = True
        for future in self._pending.values():
            if not future.done():
                future.set_exception(ConnectionClosed())
