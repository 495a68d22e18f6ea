"""`codex-lsp serve --tcp HOST:PORT`: one editor over TCP, once it has shown the token.

Whoever is served here can run commands as this user, so a connection is served only once it
has proven itself, the LSP way: its first message carries, in its header block beside
`Content-Length`, the header `Authorization: Bearer <token>` (the token in
`$CODEX_HOME/listen-token` by default, see `wire/door_token.py`). For example:

    Authorization: Bearer 3q2-7w…\\r\\n
    Content-Length: 123\\r\\n
    \\r\\n
    {"jsonrpc":"2.0","id":0,"method":"initialize",…}

A connection whose first header block does not carry the token, is over `MAX_PROOF_BYTES`, or
is not complete within `PROOF_TIMEOUT_S`, is answered with one JSON-RPC error (id null) and
closed. At most `MAX_UNPROVEN` connections may be proving themselves at once: a new one closes
the oldest (an editor proves itself at once, so connections left idle cannot keep it out). The
first connection to prove itself is the server's editor, as on stdio; later ones are closed
(all of this is `wire/listener.py`). The `Authorization` line is dropped before the message is
read as usual.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
from pathlib import Path
from typing import TYPE_CHECKING

from codex_lsp.lsp.transport import read_first, run_loop, serve_stream
from codex_lsp.protocol.jsonrpc import INVALID_REQUEST
from codex_lsp.wire.door_token import TokenAuth
from codex_lsp.wire.listener import READ_CHUNK, announce, read_proof, serve_first_proven
from codex_lsp.wire.output import HIGH_WATER_BYTES, LOW_WATER_BYTES

if TYPE_CHECKING:
    from codex_lsp.lsp.server import CodexLanguageServer

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
    block carries the token; None if it does not, or is over `MAX_PROOF_BYTES`."""
    proof = await read_proof(reader, _HEADER_END)
    if proof is None:
        return None
    head, rest = proof
    kept, proven = [], False
    for line in head.split(b"\r\n"):
        name, colon, value = line.partition(b":")
        if colon and name.strip().lower() == b"authorization":
            proven = auth.accepts(value.decode("latin-1").strip())
            if not proven:
                return None
        else:
            kept.append(line)
    return b"\r\n".join(kept) + _HEADER_END + rest if proven else None


def _refusal() -> bytes:
    error = {"code": INVALID_REQUEST, "message": _REFUSAL}
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": error}).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


async def _serve_tcp(
    server: CodexLanguageServer, host: str, port: int, auth: TokenAuth, token_path: Path | None
) -> int:
    async def editor(
        reader: asyncio.StreamReader, writer: asyncio.StreamWriter, first: bytes
    ) -> int:
        outbox = _TransportOutbox(writer)
        server.protocol.set_outbox(outbox)
        read = read_first(first, lambda: reader.read(READ_CHUNK))
        return await serve_stream(server, read, outbox)

    try:
        code = await serve_first_proven(
            host,
            port,
            prove=lambda reader: first_message(reader, auth),
            refusal=_refusal(),
            session=editor,
            on_listening=functools.partial(
                announce, scheme="", proof="the first message must carry", token_path=token_path
            ),
        )
    finally:
        await server.close()
    return code or 0


def run_tcp(
    server: CodexLanguageServer,
    host: str,
    port: int,
    auth: TokenAuth,
    token_path: Path | None = None,
) -> int:
    """Serve the first client on HOST:PORT to show the token; the process exit status."""
    return run_loop(_serve_tcp(server, host, port, auth, token_path))
