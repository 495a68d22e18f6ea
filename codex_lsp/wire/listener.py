"""What every listening door does before it serves anyone: let connections prove themselves,
cheaply and not for long, and serve only those that do.

Whoever a listening door serves can run commands as this user, so a connection is served only
once it has shown the token (`door_token.py`), and one that has not costs little:

* `Unproven`: the connections still proving themselves, at most a cap of them; one more drops
  the oldest (a real client proves itself in milliseconds, so connections left idle cannot
  keep it out). The WebSocket door counts its handshakes with it.
* `read_proof`: the bytes up to a delimiter (the end of a line, of a header block), no more
  than `MAX_PROOF_BYTES` of them.
* `serve_first_proven`: a TCP listener for the doors that serve one client a process, as on
  stdio (`serve --tcp`, `proto --listen`): a connection must prove itself within
  `PROOF_TIMEOUT_S`, or it is answered with the door's refusal and closed; the first to prove
  itself is served; every later one is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Generic, TypeVar

log = logging.getLogger(__name__)

MAX_PROOF_BYTES = 8 * 1024
PROOF_TIMEOUT_S = 10.0
MAX_UNPROVEN = 8
# How long, and how much, a refused client's input is read and dropped after the refusal, so
# that closing with unread input does not reset the refusal away before the client reads it.
_REFUSAL_LINGER_S = 1.0
# The stream reader's own buffer stays small: a client that is not read from waits.
READ_CHUNK = 64 * 1024

Proof = TypeVar("Proof")
Result = TypeVar("Result")


class Unproven:
    """The connections of one listener still proving themselves, oldest first."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._waiting: dict[object, Callable[[], None]] = {}

    def admit(self, connection: object, abort: Callable[[], None]) -> None:
        """Count `connection` in, dropping the oldest (by `abort`) if `limit` are waiting."""
        if len(self._waiting) >= self._limit:
            oldest = next(iter(self._waiting))
            log.warning("dropped a connection still proving itself: %d were", self._limit)
            self._waiting.pop(oldest)()
        self._waiting[connection] = abort

    def release(self, connection: object) -> None:
        """`connection` has proven itself, or is gone."""
        self._waiting.pop(connection, None)


async def read_proof(reader: asyncio.StreamReader, delimiter: bytes) -> tuple[bytes, bytes] | None:
    """The bytes before the first `delimiter`, and those read after it; None when the client
    stops first or sends more than `MAX_PROOF_BYTES` without it."""
    data = bytearray()
    while (end := data.find(delimiter)) < 0:
        if len(data) > MAX_PROOF_BYTES:
            return None
        chunk = await reader.read(MAX_PROOF_BYTES)
        if not chunk:
            return None
        data += chunk
    if end > MAX_PROOF_BYTES:
        return None
    return bytes(data[:end]), bytes(data[end + len(delimiter) :])


async def _refuse(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, answer: bytes
) -> None:
    """`answer`, then the connection closed; what the client sent meanwhile is read (a little,
    briefly) and dropped."""
    with contextlib.suppress(ConnectionError, RuntimeError, OSError, TimeoutError):
        writer.write(answer)
        writer.write_eof()
        async with asyncio.timeout(_REFUSAL_LINGER_S):
            dropped = 0
            while dropped < MAX_PROOF_BYTES and (chunk := await reader.read(MAX_PROOF_BYTES)):
                dropped += len(chunk)
    writer.close()


class _FirstProven(Generic[Proof, Result]):
    """The connection handler of `serve_first_proven`."""

    def __init__(
        self,
        prove: Callable[[asyncio.StreamReader], Awaitable[Proof | None]],
        refusal: bytes,
        session: Callable[[asyncio.StreamReader, asyncio.StreamWriter, Proof], Awaitable[Result]],
    ) -> None:
        self._prove = prove
        self._refusal = refusal
        self._session = session
        self._unproven = Unproven(MAX_UNPROVEN)
        self._client: asyncio.StreamWriter | None = None
        self.finished: asyncio.Future[Result | None] = asyncio.get_running_loop().create_future()

    async def on_connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._client is not None:
            writer.close()  # one client per process, as with stdio
            return
        # Counted until proven or refused: a refusal lingers a moment, and that is capped too.
        self._unproven.admit(writer, writer.transport.abort)
        try:
            proof = await self._proof(reader)
            if proof is None:
                await _refuse(reader, writer, self._refusal)
                return
        finally:
            self._unproven.release(writer)
        if self._client is not None:
            writer.close()
            return
        self._client = writer
        result: Result | None = None
        try:
            result = await self._session(reader, writer, proof)
        finally:
            writer.close()
            if not self.finished.done():
                self.finished.set_result(result)

    async def _proof(self, reader: asyncio.StreamReader) -> Proof | None:
        try:
            async with asyncio.timeout(PROOF_TIMEOUT_S):
                return await self._prove(reader)
        except (TimeoutError, ConnectionError):
            return None


def announce(bound: str, *, scheme: str, proof: str, token_path: Path | None) -> None:
    """Say on stderr where the door listens, and where the token it asks for is (never the
    token itself). A client that starts the server on port 0 reads the port from the first
    line."""
    print(f"codex-lsp: listening on {scheme}{bound}", file=sys.stderr, flush=True)
    where = f"the token in {token_path}" if token_path is not None else "the token"
    print(f"codex-lsp: {proof} Authorization: Bearer with {where}", file=sys.stderr, flush=True)


async def serve_first_proven(
    host: str,
    port: int,
    *,
    prove: Callable[[asyncio.StreamReader], Awaitable[Proof | None]],
    refusal: bytes,
    session: Callable[[asyncio.StreamReader, asyncio.StreamWriter, Proof], Awaitable[Result]],
    on_listening: Callable[[str], None],
) -> Result | None:
    """Listen on HOST:PORT and run `session` for the first client whose `prove` answers
    something other than None (it is given that answer); the session's result, once it ends.

    `prove` reads the client's proof (with `read_proof`) and checks it; a client that fails
    it, or takes longer than `PROOF_TIMEOUT_S`, is sent `refusal` and closed. `on_listening`
    is told the bound addresses (`HOST:PORT, ...`) once the listener is up (see `announce`).
    """
    door = _FirstProven(prove, refusal, session)
    listener = await asyncio.start_server(door.on_connect, host, port, limit=READ_CHUNK)
    on_listening(", ".join(f"{s.getsockname()[0]}:{s.getsockname()[1]}" for s in listener.sockets))
    async with listener:
        return await door.finished
