"""`codex-lsp app-server --listen unix://PATH`: the app-server protocol on a unix socket.

Each connection is one client with its own `initialize` and threads, one JSON object per line
as on stdio. The socket is for its owner alone: its directory is made (or must already be)
0700 and owned by this user, the socket itself is 0600, and each peer's uid is checked with
`SO_PEERCRED`, so another user is refused even where the file modes would let it through. A
sandboxed process of the same user is refused too (as by the warm per-user server): a session
started for it would run outside its sandbox.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import stat
import struct
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from codex_lsp.appserver.daemon_session import sandboxed_peer
from codex_lsp.appserver.listen import ListenError, serve_until_signalled
from codex_lsp.appserver.server import AppServer
from codex_lsp.wire.input import MAX_MESSAGE_BYTES
from codex_lsp.wire.queued_outbox import QueuedOutbox
from codex_lsp.wire.stdio import OversizedLine

if TYPE_CHECKING:
    from codex_lsp.engine.services import EngineServices
    from codex_lsp.protocol.config.write import ConfigWarningNotification

log = logging.getLogger(__name__)

_READ_CHUNK = 64 * 1024
_PREFIX_BYTES = 256


def prepare_socket_path(path: Path) -> None:
    """Make the socket's directory private (creating it 0700 if missing) and clear a stale
    socket; a `ListenError` when the place is not this user's alone."""
    if not path.is_absolute():
        raise ListenError(f"--listen unix://{path}: the socket path must be absolute")
    directory = path.parent
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(directory)
    except OSError as err:
        raise ListenError(f"cannot make {directory}: {err.strerror or err}") from None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise ListenError(f"{directory} is not a directory owned by this user")
    if stat.S_IMODE(info.st_mode) & 0o077:
        raise ListenError(
            f"{directory} is open to other users (mode {stat.S_IMODE(info.st_mode):o}): "
            "put the socket in a directory only you can enter (chmod 700)"
        )
    try:
        existing = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(existing.st_mode):
        raise ListenError(f"{path} exists and is not a socket")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
    except OSError:
        path.unlink(missing_ok=True)  # left by a server that is gone
    else:
        raise ListenError(f"{path}: another server is listening there")
    finally:
        probe.close()


def refusal(conn: socket.socket) -> str | None:
    """Why the peer of `conn` may not be served, or None."""
    pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
    if uid != os.getuid():
        return f"uid {uid} is not this user"
    confined = sandboxed_peer(pid)
    return None if confined is None else f"a sandboxed process ({confined})"


class StreamOutbox(QueuedOutbox[bytes]):
    """The connection's `Outbox`: lines written in order by one task; a slow client makes
    `drained()` wait, as on stdio."""

    def __init__(self, stream: asyncio.StreamWriter) -> None:
        self._stream = stream
        super().__init__()

    def message(self, data: bytes) -> bytes:
        return data if data.endswith(b"\n") else data + b"\n"

    async def send(self, message: bytes) -> None:
        self._stream.write(message)
        await self._stream.drain()

    def close(self) -> None:
        self._stream.close()


class StreamLines:
    """The client's lines; one longer than `MAX_MESSAGE_BYTES` is skipped as it arrives and
    handed over as an `OversizedLine`."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self._stream = stream
        self._buffer = b""

    async def readline(self) -> bytes | OversizedLine | None:
        skipped, prefix = 0, b""
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line, self._buffer = self._buffer[: end + 1], self._buffer[end + 1 :]
                if skipped:
                    return OversizedLine(skipped + len(line), prefix)
                return line
            if len(self._buffer) > MAX_MESSAGE_BYTES:
                prefix = prefix or self._buffer[:_PREFIX_BYTES]
                skipped += len(self._buffer)
                self._buffer = b""
            chunk = await self._stream.read(_READ_CHUNK)
            if not chunk:
                line, self._buffer = self._buffer, b""
                if skipped:
                    return OversizedLine(skipped + len(line), prefix)
                return line or None
            self._buffer += chunk

    def close(self) -> None:
        pass


async def serve_unix(
    services_factory: Callable[[], EngineServices],
    codex_home: Path,
    path: Path,
    *,
    stop: anyio.Event,
    on_ready: Callable[[str], None] | None = None,
    config_warnings: Callable[[], Sequence[ConfigWarningNotification]] = tuple,
) -> None:
    """Serve clients on the socket `path` until `stop` is set, then remove it."""
    prepare_socket_path(path)

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        why = refusal(sock) if sock is not None else "no peer credentials"
        if why is not None:
            log.warning("refused a connection: %s", why)
            writer.close()
            return
        outbox = StreamOutbox(writer)
        app = AppServer(services_factory, codex_home, outbox, config_warnings=config_warnings())
        try:
            await app.serve(StreamLines(reader))
        finally:
            await outbox.flush_and_close()

    old_umask = os.umask(0o177)  # the socket file is born 0600
    try:
        server = await asyncio.start_unix_server(connection, str(path))
    finally:
        os.umask(old_umask)
    os.chmod(path, 0o600)
    try:
        if on_ready is not None:
            on_ready(f"unix://{path}")
        await stop.wait()
    finally:
        server.close()
        with contextlib.suppress(OSError):
            path.unlink()


def run_unix(
    services_factory: Callable[[], EngineServices],
    codex_home: Path,
    path: Path,
    config_warnings: Callable[[], Sequence[ConfigWarningNotification]] = tuple,
) -> int:
    """Serve until SIGINT or SIGTERM; says where it listens on stderr once it does."""

    def ready(url: str) -> None:
        print(f"codex-lsp app-server: listening on {url}", file=sys.stderr, flush=True)

    try:
        serve_until_signalled(
            lambda stop: serve_unix(
                services_factory,
                codex_home,
                path,
                stop=stop,
                on_ready=ready,
                config_warnings=config_warnings,
            )
        )
    except ListenError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"error: cannot listen on unix://{path}: {err.strerror or err}", file=sys.stderr)
        return 2
    return 0
