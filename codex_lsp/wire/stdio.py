"""The client's input, delivered to the event loop: as chunks of bytes, or as lines.

Input is read on the event loop itself (`add_reader`) for pipes, sockets and terminals, without
changing the descriptor's mode; a regular file, which epoll refuses, is read by a thread. A
`hangup` descriptor can be watched as well: when it closes, the input counts as ended. That is
how a session served for the `--attach` launcher ends when the launcher goes away.

Reading stops while `BUFFER_LIMIT_BYTES` wait to be consumed, so a server that stops taking
requests (its output is backed up) makes a fast client block in its own writes instead of
growing this process's memory.

Lines are assembled in time linear in their length (a 50 MB line is read once, not copied
on every read), and a line longer than `MAX_MESSAGE_BYTES` is skipped as it arrives, never held
whole: the reader hands over an `OversizedLine` with its size and first bytes instead.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
import threading
from dataclasses import dataclass
from typing import BinaryIO

from codex_lsp.wire.input import ID_SEARCH_BYTES, MAX_MESSAGE_BYTES

log = logging.getLogger(__name__)

_READ_SIZE = 1 << 16
BUFFER_LIMIT_BYTES = 1 << 20


def _fileno(stream: BinaryIO | int) -> int | None:
    if isinstance(stream, int):
        return stream
    try:
        return stream.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is an OSError
        return None


class ChunkReader:
    """Bytes of the client's input as they arrive; `read()` returns b"" at the end."""

    def __init__(
        self,
        stream: BinaryIO | int,
        loop: asyncio.AbstractEventLoop,
        *,
        hangup: int | None = None,
    ) -> None:
        self._loop = loop
        self._stream = stream
        self._fd = _fileno(stream)
        self._chunks: collections.deque[bytes] = collections.deque()
        self._buffered = 0
        self._arrived: asyncio.Future[None] | None = None
        self._ended = False
        self._hangup = hangup
        self._watching = False
        self._paused = False
        self._room = threading.Event()  # for the thread: set while it may read on
        self._room.set()
        # The descriptor the loop watches (only one that exists is watched).
        self._watched_fd = -1 if self._fd is None else self._fd
        if self._fd is not None:
            try:
                loop.add_reader(self._fd, self._readable)
                self._watching = True
            except (OSError, ValueError):  # a regular file: epoll will not watch it
                pass
        if not self._watching:
            threading.Thread(target=self._run, name="client-reader", daemon=True).start()
        if hangup is not None:
            loop.add_reader(hangup, self._hung_up)

    async def read(self) -> bytes:
        while not self._chunks:
            if self._ended:
                return b""
            self._arrived = self._loop.create_future()
            await self._arrived
        chunk = self._chunks.popleft()
        self._buffered -= len(chunk)
        if self._buffered <= BUFFER_LIMIT_BYTES // 2:
            self._resume()
        return chunk

    def hang_up(self) -> None:
        """The client is gone (its output broke): the input counts as ended. Safe from any
        thread; a pipe whose writer still lingers (a launcher, a child) must not keep the
        session waiting for an end of file that may never come."""
        with contextlib.suppress(RuntimeError):  # the loop is already gone: so is the session
            self._loop.call_soon_threadsafe(self._end)

    def close(self) -> None:
        """Stop watching the descriptors (the serve loop is done with them)."""
        if self._watching:
            if not self._paused:
                self._loop.remove_reader(self._watched_fd)
            self._watching = False
        if self._hangup is not None:
            self._loop.remove_reader(self._hangup)
            self._hangup = None
        self._room.set()

    # -- on the loop ------------------------------------------------------------------------

    def _feed(self, chunk: bytes) -> None:
        if chunk:
            self._chunks.append(chunk)
            self._buffered += len(chunk)
            if self._buffered > BUFFER_LIMIT_BYTES:
                self._pause()
        else:
            self._end()
        if self._arrived is not None and not self._arrived.done():
            self._arrived.set_result(None)

    def _pause(self) -> None:
        if self._watching and not self._paused:
            self._loop.remove_reader(self._watched_fd)
        self._paused = True
        self._room.clear()

    def _resume(self) -> None:
        if self._paused:
            self._paused = False
            if self._watching:
                self._loop.add_reader(self._watched_fd, self._readable)
            self._room.set()

    def _end(self) -> None:
        if not self._ended:
            self._ended = True
            if self._arrived is not None and not self._arrived.done():
                self._arrived.set_result(None)
        self.close()

    def _readable(self) -> None:
        try:
            data = os.read(self._watched_fd, _READ_SIZE)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as err:
            log.warning("input failed: %s", err)
            data = b""
        self._feed(data)

    def _hung_up(self) -> None:
        try:
            # Only called while the hang-up descriptor is watched, so it is set.
            data = os.read(self._hangup, 256)  # type: ignore[arg-type]
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._end()

    # -- on a thread (regular files, streams without a descriptor) --------------------------

    def _read_blocking(self) -> bytes:
        if isinstance(self._stream, int):
            return os.read(self._stream, _READ_SIZE)
        read1 = getattr(self._stream, "read1", None)
        return read1(_READ_SIZE) if read1 is not None else self._stream.read(_READ_SIZE)

    def _run(self) -> None:
        try:
            while not self._ended:
                self._room.wait()
                chunk = self._read_blocking()
                if not chunk:
                    break
                self._loop.call_soon_threadsafe(self._feed, chunk)
        except (OSError, ValueError) as err:
            log.warning("input failed: %s", err)
        finally:
            # The loop may already be gone when input ends during shutdown.
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._end)


@dataclass(frozen=True)
class OversizedLine:
    """A line longer than the limit, skipped: its length and its first bytes."""

    size: int
    prefix: bytes


class LineReader:
    """Lines of the client's input (each ending in `\\n`, except perhaps the last);
    `None` marks the end."""

    def __init__(
        self,
        stream: BinaryIO | int,
        loop: asyncio.AbstractEventLoop,
        *,
        hangup: int | None = None,
        max_line: int = MAX_MESSAGE_BYTES,
        consumed: bytes = b"",
    ) -> None:
        """`consumed`: input already read from `stream` by someone else, to be read first."""
        self._chunks = ChunkReader(stream, loop, hangup=hangup)
        self._max_line = max_line
        self._ready: collections.deque[bytes | OversizedLine] = collections.deque()
        # The line being assembled, as the pieces read so far.
        self._parts: list[bytes] = []
        self._size = 0
        self._skipping = False  # the current line is over the limit: count it, keep nothing
        self._ended = False
        if consumed:
            self._split(consumed)

    async def readline(self) -> bytes | OversizedLine | None:
        while not self._ready:
            if self._ended:
                return None
            chunk = await self._chunks.read()
            if chunk:
                self._split(chunk)
            else:
                self._ended = True
                if self._size:
                    self._finish(b"")
        return self._ready.popleft()

    def hang_up(self) -> None:
        """See `ChunkReader.hang_up`."""
        self._chunks.hang_up()

    def close(self) -> None:
        self._chunks.close()

    def _split(self, chunk: bytes) -> None:
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            self._finish(chunk[start : end + 1])
            start = end + 1
        if start < len(chunk):
            self._add(chunk[start:] if start else chunk)

    def _add(self, piece: bytes) -> None:
        self._size += len(piece)
        if self._skipping:
            return
        if self._size > self._max_line:
            # Keep only what an error message needs: the id is near the start.
            head = b"".join(self._parts)[:ID_SEARCH_BYTES]
            self._parts = [head] if len(head) >= ID_SEARCH_BYTES else [head, piece]
            self._skipping = True
            return
        self._parts.append(piece)

    def _finish(self, piece: bytes) -> None:
        self._add(piece)
        if self._skipping:
            prefix = b"".join(self._parts)[:ID_SEARCH_BYTES]
            self._ready.append(OversizedLine(self._size, prefix))
        elif len(self._parts) == 1:
            self._ready.append(self._parts[0])
        else:
            self._ready.append(b"".join(self._parts))
        self._parts, self._size, self._skipping = [], 0, False
