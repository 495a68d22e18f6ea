"""`codex-lsp serve --tcp HOST:PORT`: one editor over TCP, once it has shown the token.

Whoever is served here can run commands as this user, so a connection is served only once it
has proven itself, the LSP way: its first message carries, in its header block beside
`Content-Length`, the header `Authorization: Bearer <token>` (the token in
`$CODEX_HOME/listen-token` by default, see `wire/door_token.py`). For example:

    Authorization: Bearer 3q2-7w…\\r\\n
    Content-Length: 123\\r\\n
    \\r\\n
    {"jsonrpc":"2.0","id":0,"method":"initialize",…}

A connection whose first header block does not carry the token, is over
`MAX_PROOF_BYTES`, or is not complete within `PROOF_TIMEOUT_S`, is answered with one JSON-RPC
error (id null) and closed. At most `MAX_UNPROVEN` connections may be proving themselves at
once: a new one closes the oldest (an editor proves itself at once, so connections left idle
cannot keep it out). The first connection to prove itself is the server's
editor, as on stdio; later ones are closed. The `Authorization` line is dropped before the
message is read as usual.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from codex_lsp.lsp.transport import read_first, run_loop, serve_stream
from codex_lsp.protocol.jsonrpc import INVALID_REQUEST
from codex_lsp.wire.door_token import TokenAuth
from codex_lsp.wire.output import HIGH_WATER_BYTES, LOW_WATER_BYTES

if TYPE_CHECKING:
    from codex_lsp.lsp.server import CodexLanguageServer

_READ_CHUNK = 64 * 1024
MAX_PROOF_BYTES = 8 * 1024
PROOF_TIMEOUT_S = 10.0
MAX_UNPROVEN = 8
_HEADER_END = b"\r\n\r\n"
_REFUSAL = "Unauthorized: the first message must carry the header Authorization: Bearer <token>"


class _TransportOutbox:
    """An asyncio stream writer as an `Outbox`: its transport buffers, `drain` paces."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer
        writer.transport.set_write_buffer_limits(high=HIGH_WATER_BYTES, low=LOW_WATER_BYTES)

    def write(self, data: bytes) -> None:
        if not self._writer.is_closing():
            self._writer.write(data)

    def backlog(self) -> int:
        # The transport counts bytes, not messages; a delta is some hundreds of bytes.
        return self.pending_bytes() // 512

    def pending_bytes(self) -> int:
        return self._writer.transport.get_write_buffer_size()

    async def drained(self) -> None:
        if self.pending_bytes() > HIGH_WATER_BYTES:
            with contextlib.suppress(ConnectionError):
                await self._writer.drain()


async def first_message(reader: asyncio.StreamReader, auth: TokenAuth) -> bytes | None:
    """What the client sent so far, without its `Authorization` line, if its first header
    block carries the token; None if it does not, or takes too long or too many bytes."""
    data = bytearray()
    try:
        async with asyncio.timeout(PROOF_TIMEOUT_S):
            while (end := data.find(_HEADER_END)) < 0:
                if len(data) > MAX_PROOF_BYTES:
                    return None
                chunk = await reader.read(MAX_PROOF_BYTES)
                if not chunk:
                    return None
                data += chunk
    except (TimeoutError, ConnectionError):
        return None
    if end > MAX_PROOF_BYTES:
        return None
    kept, proven = [], False
    for line in bytes(data[:end]).split(b"\r\n"):
        name, colon, value = line.partition(b":")
        if colon and name.strip().lower() == b"authorization":
            proven = auth.accepts(value.decode("latin-1").strip())
            if not proven:
                return None
        else:
            kept.append(line)
    return b"\r\n".join(kept) + bytes(data[end:]) if proven else None


def _refuse(writer: asyncio.StreamWriter) -> None:
    error = {"code": INVALID_REQUEST, "message": _REFUSAL}
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": error}).encode()
    with contextlib.suppress(ConnectionError, RuntimeError):
        writer.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    writer.close()


async def _serve_tcp(
    server: CodexLanguageServer, host: str, port: int, auth: TokenAuth, token_path: Path | None
) -> int:
    finished: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    editor: asyncio.StreamWriter | None = None
    unproven: dict[asyncio.StreamWriter, None] = {}  # oldest first

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal editor
        if editor is not None:
            writer.close()  # one editor per server process, as with stdio
            return
        if len(unproven) >= MAX_UNPROVEN:
            oldest = next(iter(unproven))
            del unproven[oldest]
            oldest.transport.abort()
        unproven[writer] = None
        try:
            first = await first_message(reader, auth)
        finally:
            unproven.pop(writer, None)
        if first is None:
            _refuse(writer)
            return
        if editor is not None:
            writer.close()
            return
        editor = writer
        outbox = _TransportOutbox(writer)
        server.protocol.set_outbox(outbox)
        code = 0
        try:
            read = read_first(first, lambda: reader.read(_READ_CHUNK))
            code = await serve_stream(server, read, outbox)
        finally:
            if not finished.done():
                finished.set_result(code)

    # The stream reader's own buffer stays small: a client that is not read from waits.
    listener = await asyncio.start_server(on_connect, host, port, limit=_READ_CHUNK)
    bound = ", ".join(f"{s.getsockname()[0]}:{s.getsockname()[1]}" for s in listener.sockets)
    # Editors that start the server with port 0 read the real port from this first line.
    print(f"codex-lsp: listening on {bound}", file=sys.stderr, flush=True)
    where = f"the token in {token_path}" if token_path is not None else "the token"
    print(
        f"codex-lsp: the first message must carry Authorization: Bearer with {where}",
        file=sys.stderr,
        flush=True,
    )
    try:
        async with listener:
            return await finished
    finally:
        await server.close()


def run_tcp(
    server: CodexLanguageServer,
    host: str,
    port: int,
    auth: TokenAuth,
    token_path: Path | None = None,
) -> int:
    """Serve the first client on HOST:PORT to show the token; the process exit status."""
    return run_loop(_serve_tcp(server, host, port, auth, token_path))
