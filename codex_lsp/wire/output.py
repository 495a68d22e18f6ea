"""Messages out to the client's descriptor: in order, never blocking the caller, and bounded.

Output is on the path of every streamed delta, so a message is written straight from the
caller's thread when the descriptor can take it without blocking: no queue, no thread wake-up,
no wait for the GIL. That needs a non-blocking write that leaves the descriptor itself alone
(switching stdout to O_NONBLOCK, as asyncio's pipe transports do, would also change it for
every process sharing it, a terminal's stderr among them): a pipe is opened a second time
through `/proc/self/fd` with O_NONBLOCK on that private open file, and a socket is sent to with
MSG_DONTWAIT. When the client is slow and the pipe is full, or the output is something else
(a terminal, a file), messages go to a writer thread that does ordinary blocking writes, and
every later message queues behind them until it has caught up, so order is kept.

What waits in that queue is the server's backlog for a client that is not reading. It is never
dropped (a lost delta would corrupt the client's view of a turn); instead producers pace
themselves: `drained()` waits while more than `HIGH_WATER_BYTES` are queued until no more than
`LOW_WATER_BYTES` are. The engine awaits it between streamed events, and the doors stop
reading requests while the backlog is over `INPUT_PAUSE_BYTES`, so memory stays bounded
whatever the client does, and everything is delivered once it reads again.

Writes use `os.write` in a loop rather than a `BufferedWriter`: a buffered write interrupted
by a signal (a child process exiting, a profiler attaching) could emit part of a line twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import select
import socket
import stat
import threading
from collections.abc import Callable
from typing import BinaryIO, Protocol

log = logging.getLogger(__name__)

HIGH_WATER_BYTES = 1024 * 1024
LOW_WATER_BYTES = 256 * 1024
INPUT_PAUSE_BYTES = 8 * 1024 * 1024


class Outbox(Protocol):
    """Where a door's messages go: the byte transport under the message handling."""

    def write(self, data: bytes) -> None:
        """Queue one whole message; never blocks and never drops."""

    def backlog(self) -> int:
        """Messages queued but not yet taken by the client."""

    def pending_bytes(self) -> int:
        """Bytes queued but not yet taken by the client."""

    async def drained(self) -> None:
        """Return once the backlog is small (at once if it already is)."""


def _fileno(stream: BinaryIO | int) -> int | None:
    if isinstance(stream, int):
        return stream
    try:
        return stream.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is an OSError
        return None


def _nonblocking_sender(fd: int) -> tuple[Callable[[bytes], int], Callable[[], None]] | None:
    """A `send(data) -> bytes written` that never blocks on `fd` and leaves its mode alone,
    with the function that releases it; None when `fd` is not a pipe or a socket."""
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISFIFO(mode):
            twin = os.open(f"/proc/self/fd/{fd}", os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
            return (lambda data: os.write(twin, data)), (lambda: os.close(twin))
        if stat.S_ISSOCK(mode):
            sock = socket.socket(fileno=os.dup(fd))
            flags = socket.MSG_DONTWAIT | socket.MSG_NOSIGNAL
            return (lambda data: sock.send(data, flags)), sock.close
    except OSError as err:
        log.debug("no non-blocking twin for fd %d: %s", fd, err)
    return None


class OutputWriter:
    """Whole messages out to one descriptor, in order; `write` is safe from any thread."""

    def __init__(self, stream: BinaryIO | int, on_broken: Callable[[], None] | None = None) -> None:
        self._stream = stream
        self._fd = _fileno(stream)
        # Called once, from whichever thread found the client gone; may be set after creation.
        self.on_broken = on_broken
        self.broken = False
        sender = _nonblocking_sender(self._fd) if self._fd is not None else None
        self._send: Callable[[bytes], int] | None = None
        self._release: Callable[[], None] | None = None
        if sender is not None:
            self._send, self._release = sender
        # `_pending` is what the thread has yet to write; while it is not empty, new messages
        # must queue behind it. The lock makes "queue empty, so write directly" one step.
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._pending: list[bytes] = []
        self._pending_bytes = 0
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self._closing = False
        self._thread: threading.Thread | None = None

    def write(self, data: bytes) -> None:
        if self.broken:
            return
        failure: OSError | None = None
        gone = False
        with self._lock:
            if self._pending or self._send is None:
                self._queue(data)
                return
            try:
                sent = self._send(data)
            except BlockingIOError:
                sent = 0
            except OSError as err:
                failure, gone = err, self._drop_all()
            if failure is None:
                if sent < len(data):
                    self._queue(data[sent:])
                return
        # Said outside the lock: saying it may write a message here (a log record for the
        # editor's output panel), and the lock is not reentrant.
        if gone:
            self._said_broken(failure)

    def _queue(self, data: bytes) -> None:
        """Hand `data` to the writer thread; called with the lock held."""
        self._pending.append(data)
        self._pending_bytes += len(data)
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="client-writer", daemon=True)
            self._thread.start()
        self._wake.notify()

    def backlog(self) -> int:
        return len(self._pending)

    def pending_bytes(self) -> int:
        return self._pending_bytes

    async def drained(self) -> None:
        if self._pending_bytes <= HIGH_WATER_BYTES:
            return
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._lock:
            if self._pending_bytes <= LOW_WATER_BYTES or self.broken or self._closing:
                return
            self._waiters.append((loop, future))
        await future

    def close(self, timeout: float = 5.0) -> None:
        """Write out what is queued (waiting at most `timeout`), then release the output."""
        with self._lock:
            self._closing = True
            self._wake.notify()
            thread = self._thread
        if thread is not None:
            thread.join(timeout)
        with self._lock:
            self._wake_waiters()
        if self._release is not None:
            with contextlib.suppress(OSError):
                self._release()
            self._send = self._release = None

    # -- the writer thread ------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._pending and not self._closing:
                    self._wake.wait()
                if not self._pending:
                    return
                # Bounded batches: the backlog shrinks (and producers resume) as it goes out.
                count, size = 0, 0
                while count < len(self._pending) and size < LOW_WATER_BYTES:
                    size += len(self._pending[count])
                    count += 1
                data = b"".join(self._pending[:count])
            # Messages keep arriving (and queueing) while this write blocks on a slow client.
            try:
                self._write_all(data)
            except OSError as err:
                with self._lock:
                    gone = self._drop_all()
                if gone:
                    self._said_broken(err)
                return
            with self._lock:
                del self._pending[:count]
                self._pending_bytes -= size
                if self._pending_bytes <= LOW_WATER_BYTES:
                    self._wake_waiters()

    def _write_all(self, data: bytes) -> None:
        if self._fd is None:
            # Without a descriptor the stream is a file object (an int is a descriptor).
            self._stream.write(data)  # type: ignore[union-attr]
            self._stream.flush()  # type: ignore[union-attr]
            return
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._fd, view) :]
            except BlockingIOError:
                # Someone else made the descriptor non-blocking; wait until it can take more.
                select.select([], [self._fd], [])

    def _wake_waiters(self) -> None:
        """Release every `drained()` waiter; called with the lock held."""
        waiters, self._waiters = self._waiters, []
        for loop, future in waiters:
            with contextlib.suppress(RuntimeError):  # that loop is already closed
                loop.call_soon_threadsafe(_settle, future)

    def _drop_all(self) -> bool:
        """The client is gone: drop the backlog, let every waiter go, and refuse later
        messages; whether it was not known to be gone before. Called with the lock held."""
        self._pending.clear()
        self._pending_bytes = 0
        self._wake_waiters()
        first, self.broken = not self.broken, True
        return first

    def _said_broken(self, err: OSError) -> None:
        """Tell the log and `on_broken` that the client is gone; called without the lock."""
        log.warning("output closed (%s); dropping further output", err)
        if self.on_broken is not None:
            self.on_broken()


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
