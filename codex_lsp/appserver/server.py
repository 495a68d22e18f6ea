"""The app-server: the v2 API as JSON-RPC 2.0 over stdio, one JSON object per line.

The read loop only parses and routes, so it stays responsive: each client request runs in its
own task, and client responses go straight to the server request they answer. Until the client
sends `initialize`, every request is refused with "Not initialized"; a second `initialize` gets
"Already initialized". Malformed input (not JSON, too deep, too long, not a request, an id
already used by a request still in flight) is answered with the JSON-RPC error for it and the
server reads on. While the client leaves too much of the output unread, the loop stops
reading its requests until it catches up.

`AppServer` knows messages, not bytes: it reads lines from a `LineReader` and writes through
an `Outbox`, so another transport can drive it the same way.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Protocol

import anyio
from pydantic import ValidationError

from codex_lsp.api.initialize.handshake import initialize_response
from codex_lsp.api.port import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    ApiError,
)
from codex_lsp.api.validation import validation_message
from codex_lsp.appserver.connection import Connection
from codex_lsp.appserver.early_initialize import EarlyInitialize
from codex_lsp.protocol.common import dump
from codex_lsp.protocol.config.write import ConfigWarningNotification
from codex_lsp.protocol.initialize.models import InitializeParams
from codex_lsp.wire import preload
from codex_lsp.wire.input import MessageRejected, decode_message, too_large
from codex_lsp.wire.output import INPUT_PAUSE_BYTES, Outbox, OutputWriter
from codex_lsp.wire.stdio import LineReader, OversizedLine

if TYPE_CHECKING:
    from codex_lsp.api.server import ApiServer
    from codex_lsp.engine.services import EngineServices

log = logging.getLogger(__name__)


class MessageReader(Protocol):
    """Where a connection's messages come from, one at a time; `None` once it has ended."""

    async def readline(self) -> bytes | OversizedLine | None: ...

    def close(self) -> None: ...


def _is_request_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


class AppServer:
    """Routes one connection's messages; `serve` runs it until the input ends."""

    def __init__(
        self,
        services_factory: Callable[[], EngineServices],
        codex_home: Path,
        writer: Outbox,
        *,
        answered_initialize: int | str | None = None,
        config_warnings: Sequence[ConfigWarningNotification] = (),
    ) -> None:
        """`answered_initialize`: the id of an `initialize` request already answered for this
        connection (`early_initialize.py`); it is still read, for the client's options.
        `config_warnings`: what is wrong with config.toml, told once `initialize` is answered."""
        self.connection = Connection(writer)
        self._outbox = writer
        # Ids of the client's requests still being handled: an id may not be reused until
        # its request is answered, or the client could not tell the answers apart.
        self._in_flight: set[int | str] = set()
        self._services_factory = services_factory
        self._api: ApiServer | None = None
        self._codex_home = codex_home
        self._initialized = False
        self._answered_initialize = answered_initialize
        self._config_warnings = list(config_warnings)
        self._tasks: set[asyncio.Task[None]] = set()

    async def serve(self, reader: MessageReader) -> None:
        try:
            while (line := await reader.readline()) is not None:
                if isinstance(line, OversizedLine):
                    self._reject(too_large(line.size, line.prefix))
                elif line.strip():
                    self.receive(line)
                if self._outbox.pending_bytes() > INPUT_PAUSE_BYTES:
                    await self._outbox.drained()
        finally:
            reader.close()
            self.connection.close()
            for task in list(self._tasks):
                task.cancel()
            if self._api is not None:
                await self._api.aclose()

    @property
    def api(self) -> ApiServer:
        if self._api is None:
            module = importlib.import_module(preload.API_MODULE)
            self._api = module.ApiServer(self._services_factory, self.connection)
        return self._api

    # -- routing ----------------------------------------------------------------------------

    def receive(self, line: bytes) -> None:
        try:
            message = decode_message(line)
        except MessageRejected as err:
            self._reject(err)
            return
        if not isinstance(message, dict):
            self.connection.send_error(
                None, INVALID_REQUEST, "Invalid request: expected a JSON object"
            )
            return
        method, has_id = message.get("method"), "id" in message
        request_id = message.get("id")
        if has_id and not _is_request_id(request_id):
            self.connection.send_error(
                None, INVALID_REQUEST, "Invalid request: id must be a string or an integer"
            )
            return
        if method is None:
            if has_id and ("result" in message or "error" in message):
                self.connection.resolve(message)
            else:
                self.connection.send_error(
                    request_id, INVALID_REQUEST, "Invalid request: no method"
                )
            return
        if not isinstance(method, str):
            self.connection.send_error(
                request_id, INVALID_REQUEST, "Invalid request: method must be a string"
            )
            return
        if not has_id:
            self._notification(method, message.get("params"))
            return
        self._request(request_id, method, message.get("params"))

    def _reject(self, err: MessageRejected) -> None:
        log.warning("rejected a message: %s", err.message)
        self.connection.send_error(err.request_id, err.code, err.message)

    def _notification(self, method: str, params: Any) -> None:
        if method == "initialized":
            return
        log.info("ignoring client notification %s", method)

    def _request(self, request_id: Any, method: str, params: Any) -> None:
        if method == "initialize":
            self._initialize(request_id, params)
            return
        if not self._initialized:
            self.connection.send_error(request_id, INVALID_REQUEST, "Not initialized")
            return
        if request_id in self._in_flight:
            self.connection.send_error(
                request_id,
                INVALID_REQUEST,
                f"Invalid request: id {json.dumps(request_id)} is already used by a request "
                "that has not been answered",
            )
            return
        self._in_flight.add(request_id)
        task = asyncio.get_running_loop().create_task(self._run(request_id, method, params))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _initialize(self, request_id: Any, params: Any) -> None:
        if self._initialized:
            self.connection.send_error(request_id, INVALID_REQUEST, "Already initialized")
            return
        answered = request_id == self._answered_initialize
        self._answered_initialize = None
        try:
            parsed = InitializeParams.model_validate(params if params is not None else {})
        except ValidationError as err:
            if answered:  # the early answer accepts only params the API accepts too
                log.error("initialize was answered early, then refused: %s", err)
            else:
                self.connection.send_error(request_id, INVALID_PARAMS, validation_message(err))
            return
        capabilities = parsed.capabilities
        if capabilities is not None and capabilities.opt_out_notification_methods:
            self.connection.opted_out = frozenset(capabilities.opt_out_notification_methods)
        self._initialized = True
        if not answered:
            response = initialize_response(parsed, self._codex_home)
            self.connection.send_result(request_id, dump(response))
        for warning in self._config_warnings:
            self.connection.notify("configWarning", warning)
        # Load the API while the client reads the answer, ready for its first real request.
        preload.start()

    async def _run(self, request_id: Any, method: str, params: Any) -> None:
        try:
            with preload.handling():
                result = await self.api.handle(method, params, request_id)
        except ApiError as err:
            self.connection.send_error(request_id, err.code, err.message, err.data)
        except Exception as err:  # a bug in one request must not take the server down
            log.exception("%s failed", method)
            self.connection.send_error(request_id, INTERNAL_ERROR, f"Internal error: {err}")
        else:
            self.connection.send_result(request_id, result)
        finally:
            self._in_flight.discard(request_id)


def run_stdio(
    services_factory: Callable[[], EngineServices],
    codex_home: Path,
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
    *,
    hangup: int | None = None,
    early: EarlyInitialize | None = None,
    config_warnings: Sequence[ConfigWarningNotification] = (),
) -> int:
    """Serve stdin/stdout until stdin ends (or `hangup`, a descriptor, closes); the exit status.

    `early`: what `early_initialize.take_initialize` read from stdin, and answered, first;
    `config_warnings`: what is wrong with config.toml, told once `initialize` is answered."""
    writer = OutputWriter(stdout or sys.stdout.buffer)
    early = early or EarlyInitialize()

    async def main() -> None:
        loop = asyncio.get_running_loop()
        reader = LineReader(stdin or sys.stdin.buffer, loop, hangup=hangup, consumed=early.consumed)
        # A client that is gone ends the session at once, even if its input stays open.
        writer.on_broken = reader.hang_up
        server = AppServer(
            services_factory,
            codex_home,
            writer,
            answered_initialize=early.answered_id,
            config_warnings=config_warnings,
        )
        await server.serve(reader)

    try:
        anyio.run(main)
    finally:
        writer.close()
    return 0
