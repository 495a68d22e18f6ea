"""`codex-lsp proto --listen tcp://HOST:PORT`: the raw protocol's JSON lines over TCP, for one
client that has shown the token.

Whoever is served here can run commands as this user, so a connection is served only once its
first line is `Authorization: Bearer <token>` (the token in `$CODEX_HOME/listen-token` by
default, see `wire/door_token.py`); the Submissions follow, one per line, and the Events come
back the same way, as on stdio:

    Authorization: Bearer 3q2-7w…
    {"id":"1","op":{"type":"configure_session","cwd":"/path/to/repo"}}

A connection whose first line does not carry the token, is over `MAX_PROOF_BYTES`, or is not
complete within `PROOF_TIMEOUT_S`, gets one `error` event and is closed. At most
`MAX_UNPROVEN` connections may be proving themselves at once (a new one closes the oldest).
The first client to prove itself is the session's; later ones are closed, and the session
ends when its client goes away, as it does at the end of stdin.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from codex_lsp.wire.door_token import TokenAuth

MAX_PROOF_BYTES = 8 * 1024
PROOF_TIMEOUT_S = 10.0
MAX_UNPROVEN = 8
# One Submission per line, and no line longer than any door takes a message.
MAX_LINE_BYTES = 64 * 1024 * 1024
_READ_CHUNK = 64 * 1024
REFUSAL = "Unauthorized: the first line must be Authorization: Bearer <token>"

ReadLine = Callable[[], Awaitable[str]]
WriteLine = Callable[[str], Awaitable[None]]
Session = Callable[[ReadLine, WriteLine], Awaitable[None]]


class _Lines:
    """Lines from a stream, with what was read before they were asked for."""

    def __init__(self, reader: asyncio.StreamReader, buffered: bytes = b"") -> None:
        self._reader = reader
        self._buffer = bytearray(buffered)

    async def next(self, limit: int = MAX_LINE_BYTES) -> bytes | None:
        """The next line without its newline; None at the end, or past `limit` bytes."""
        while (end := self._buffer.find(b"\n")) < 0:
            if len(self._buffer) > limit:
                return None
            try:
                chunk = await self._reader.read(_READ_CHUNK)
            except ConnectionError:
                chunk = b""
            if not chunk:
                return None
            self._buffer += chunk
        if end > limit:
            return None
        line = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        return line


async def prove(lines: _Lines, auth: TokenAuth) -> bool:
    """Whether the first line carries the token, in time and within `MAX_PROOF_BYTES`."""
    try:
        async with asyncio.timeout(PROOF_TIMEOUT_S):
            first = await lines.next(MAX_PROOF_BYTES)
    except TimeoutError:
        return False
    if first is None:
        return False
    name, colon, value = first.decode("latin-1").partition(":")
    return bool(colon) and name.strip().lower() == "authorization" and auth.accepts(value.strip())


async def _refuse(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """One `error` event, then the connection closed; what the client sent meanwhile is read
    (a little, briefly) and dropped, so that closing does not reset the answer away."""
    event = {"id": "", "msg": {"type": "error", "message": REFUSAL}}
    with contextlib.suppress(ConnectionError, RuntimeError, OSError, TimeoutError):
        writer.write((json.dumps(event) + "\n").encode())
        writer.write_eof()
        async with asyncio.timeout(1.0):
            dropped = 0
            while dropped < MAX_PROOF_BYTES and (chunk := await reader.read(MAX_PROOF_BYTES)):
                dropped += len(chunk)
    writer.close()


async def serve(
    session: Session, host: str, port: int, auth: TokenAuth, token_path: Path | None
) -> None:
    """Listen on HOST:PORT and run `session` for the first client to show the token."""
    finished: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    client: asyncio.StreamWriter | None = None
    unproven: dict[asyncio.StreamWriter, None] = {}  # oldest first

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal client
        if client is not None:
            writer.close()  # one client per process, as with stdio
            return
        if len(unproven) >= MAX_UNPROVEN:
            oldest = next(iter(unproven))
            del unproven[oldest]
            oldest.transport.abort()
        unproven[writer] = None
        lines = _Lines(reader)
        try:
            proven = await prove(lines, auth)
        finally:
            unproven.pop(writer, None)
        if not proven:
            await _refuse(reader, writer)
            return
        if client is not None:
            writer.close()
            return
        client = writer

        async def read_line() -> str:
            line = await lines.next()
            return "" if line is None else line.decode("utf-8", "replace") + "\n"

        async def write_line(text: str) -> None:
            if writer.is_closing():
                return
            writer.write(text.encode())
            with contextlib.suppress(ConnectionError):
                await writer.drain()

        try:
            await session(read_line, write_line)
        finally:
            writer.close()
            if not finished.done():
                finished.set_result(None)

    listener = await asyncio.start_server(on_connect, host, port, limit=_READ_CHUNK)
    bound = ", ".join(f"{s.getsockname()[0]}:{s.getsockname()[1]}" for s in listener.sockets)
    # A client that starts the server with port 0 reads the real port from this first line.
    print(f"codex-lsp: listening on tcp://{bound}", file=sys.stderr, flush=True)
    where = f"the token in {token_path}" if token_path is not None else "the token"
    print(
        f"codex-lsp: the first line must be Authorization: Bearer with {where}",
        file=sys.stderr,
        flush=True,
    )
    async with listener:
        await finished
