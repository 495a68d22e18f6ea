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
The first client to prove itself is the session's; later ones are closed (all of this is
`wire/listener.py`), and the session ends when its client goes away, as it does at the end of
stdin.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
from collections.abc import Awaitable, Callable
from pathlib import Path

from codex_lsp.wire.door_token import TokenAuth
from codex_lsp.wire.listener import READ_CHUNK, announce, read_proof, serve_first_proven

# One Submission per line, and no line longer than any door takes a message.
MAX_LINE_BYTES = 64 * 1024 * 1024
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
                chunk = await self._reader.read(READ_CHUNK)
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


async def prove(reader: asyncio.StreamReader, auth: TokenAuth) -> _Lines | None:
    """The client's lines after the first, if the first carries the token within
    `MAX_PROOF_BYTES`; None if it does not."""
    proof = await read_proof(reader, b"\n")
    if proof is None:
        return None
    first, rest = proof
    name, colon, value = first.decode("latin-1").partition(":")
    if colon and name.strip().lower() == "authorization" and auth.accepts(value.strip()):
        return _Lines(reader, rest)
    return None


async def serve(
    session: Session, host: str, port: int, auth: TokenAuth, token_path: Path | None
) -> None:
    """Listen on HOST:PORT and run `session` for the first client to show the token."""

    async def client(
        _reader: asyncio.StreamReader, writer: asyncio.StreamWriter, lines: _Lines
    ) -> None:
        async def read_line() -> str:
            line = await lines.next()
            return "" if line is None else line.decode("utf-8", "replace") + "\n"

        async def write_line(text: str) -> None:
            if writer.is_closing():
                return
            writer.write(text.encode())
            with contextlib.suppress(ConnectionError):
                await writer.drain()

        await session(read_line, write_line)

    event = {"id": "", "msg": {"type": "error", "message": REFUSAL}}
    await serve_first_proven(
        host,
        port,
        prove=lambda reader: prove(reader, auth),
        refusal=(json.dumps(event) + "\n").encode(),
        session=client,
        on_listening=functools.partial(
            announce, scheme="tcp://", proof="the first line must be", token_path=token_path
        ),
    )
