"""The app-server over WebSocket (`--listen ws://HOST:PORT`): one JSON-RPC message a frame.

Each connection is served by its own `AppServer` (the same message core as stdio) and so has
its own `initialize` and its own threads; they end when it closes. Before the handshake the
listener answers plain HTTP probes, as the reference server does: `GET /readyz` and
`GET /healthz` say 200, and any request carrying an `Origin` header is refused with 403, so a
web page cannot drive the agent from a browser. A handshake without `Authorization: Bearer
<token>` (see `listen.py`) is refused with 401.

Clients that have not proven themselves cost little and not for long: at most
`MAX_HANDSHAKING` connections may be opening at once (a new one drops the oldest: a real client
opens in milliseconds, so idle connections cannot keep it out), each for at most
`HANDSHAKE_TIMEOUT_S`. Once open, a message may be `MAX_MESSAGE_BYTES` long,
fragments counted together, and at most `MAX_QUEUED_MESSAGES` wait to be read.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable, Sequence
from http import HTTPStatus
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from codex_lsp.appserver.listen import WebSocketTarget, serve_until_signalled
from codex_lsp.appserver.server import AppServer
from codex_lsp.wire.door_token import TokenAuth
from codex_lsp.wire.listener import Unproven
from codex_lsp.wire.queued_outbox import QueuedOutbox
from codex_lsp.wire.stdio import OversizedLine

if TYPE_CHECKING:
    from codex_lsp.engine.services import EngineServices
    from codex_lsp.protocol.config.write import ConfigWarningNotification

log = logging.getLogger(__name__)

# Big enough for a long transcript or patch in one message; larger ones close the connection.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
# Messages received but not yet read, before the connection stops reading from its socket.
MAX_QUEUED_MESSAGES = 4
MAX_HANDSHAKING = 16
HANDSHAKE_TIMEOUT_S = 10.0
_PROBES = frozenset({"/readyz", "/healthz"})


class FrameWriter(QueuedOutbox[str]):
    """The connection's `Outbox`: messages sent as text frames, in order, by one task. A slow
    client makes `drained()` wait, as the stdio door's output does, so producers pace
    themselves instead of queueing without bound."""

    gone = (ConnectionClosed,)

    def __init__(self, websocket: ServerConnection) -> None:
        self._websocket = websocket
        super().__init__()

    def message(self, data: bytes) -> str:
        return data.decode("utf-8").rstrip("\n")

    async def send(self, message: str) -> None:
        await self._websocket.send(message)


class FrameReader:
    """The client's frames as the message core reads lines; `None` once the connection ends."""

    def __init__(self, websocket: ServerConnection) -> None:
        self._websocket = websocket

    async def readline(self) -> bytes | OversizedLine | None:
        try:
            message = await self._websocket.recv()
        except ConnectionClosed:
            return None
        return message.encode("utf-8") if isinstance(message, str) else message

    def close(self) -> None:
        pass


def _probe_or_refusal(auth: TokenAuth, request: Request) -> Response | None:
    """An HTTP answer that ends the request before any WebSocket handshake, or None."""
    path = request.path.split("?", 1)[0]
    if request.headers.get("Origin") is not None:
        return _plain(HTTPStatus.FORBIDDEN, "requests from web pages are not accepted\n")
    if path in _PROBES and request.headers.get("Upgrade") is None:
        return _plain(HTTPStatus.OK, "OK\n")
    if not auth.accepts(request.headers.get("Authorization")):
        return _plain(HTTPStatus.UNAUTHORIZED, "a valid Authorization: Bearer token is required\n")
    return None


def _plain(status: HTTPStatus, body: str) -> Response:
    headers = Headers([("Content-Type", "text/plain; charset=utf-8")])
    return Response(status.value, status.phrase, headers, body.encode("utf-8"))


async def serve_websocket(
    services_factory: Callable[[], EngineServices],
    codex_home: Path,
    target: WebSocketTarget,
    auth: TokenAuth,
    *,
    stop: anyio.Event,
    on_ready: Callable[[str], None] | None = None,
    config_warnings: Callable[[], Sequence[ConfigWarningNotification]] = tuple,
) -> None:
    """Serve WebSocket clients on `target` until `stop` is set; `config_warnings` reads what
    is wrong with config.toml, for each client to hear once its `initialize` is answered."""

    async def connection(websocket: ServerConnection) -> None:
        writer = FrameWriter(websocket)
        app = AppServer(services_factory, codex_home, writer, config_warnings=config_warnings())
        try:
            await app.serve(FrameReader(websocket))
        finally:
            await writer.flush_and_close()

    async with serve(
        connection,
        target.host,
        target.port,
        process_request=lambda _conn, request: _probe_or_refusal(auth, request),
        create_connection=_handshake_limited(),
        open_timeout=HANDSHAKE_TIMEOUT_S,
        max_size=MAX_MESSAGE_BYTES,
        max_queue=MAX_QUEUED_MESSAGES,
        compression=None,
        server_header=None,
    ) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        if on_ready is not None:
            on_ready(target.url(port))
        await stop.wait()


def _handshake_limited() -> type[ServerConnection]:
    """A connection class that counts the connections still opening (for one listener) and,
    while `MAX_HANDSHAKING` are, drops the oldest of them for a new one."""
    opening = Unproven(MAX_HANDSHAKING)

    class HandshakeLimited(ServerConnection):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)
            opening.admit(self, self.transport.abort)

        async def handshake(self, *args: Any, **kwargs: Any) -> None:
            try:
                await super().handshake(*args, **kwargs)
            finally:
                opening.release(self)

        def connection_lost(self, exc: Exception | None) -> None:
            opening.release(self)
            super().connection_lost(exc)

    return HandshakeLimited


def run_websocket(
    services_factory: Callable[[], EngineServices],
    codex_home: Path,
    target: WebSocketTarget,
    auth: TokenAuth,
    config_warnings: Callable[[], Sequence[ConfigWarningNotification]] = tuple,
    *,
    token_source: str = "the configured token",
) -> int:
    """Serve until SIGINT or SIGTERM; says where it listens on stderr once it does, and where
    the token clients must send is (never the token itself)."""

    def ready(url: str) -> None:
        print(
            f"codex-lsp app-server: listening on {url} (clients must send "
            f"Authorization: Bearer with {token_source})",
            file=sys.stderr,
            flush=True,
        )

    try:
        serve_until_signalled(
            lambda stop: serve_websocket(
                services_factory,
                codex_home,
                target,
                auth,
                stop=stop,
                on_ready=ready,
                config_warnings=config_warnings,
            )
        )
    except OSError as err:
        print(f"error: cannot listen on {target.url()}: {err.strerror or err}", file=sys.stderr)
        return 2
    return 0
