"""Lines in and out of the process's standard streams (or descriptors a launcher handed over).

Output is on the path of every streamed delta, so a line is written straight from the caller's
thread when the descriptor can take it without blocking: no queue, no thread wake-up, no wait for
the GIL. That needs a non-blocking write that leaves the descriptor itself alone (switching
stdout to O_NONBLOCK, as asyncio's pipe transports do, would also change it for every process
sharing it, a terminal's stderr among them): a pipe is opened a second time through
`/proc/self/fd` with O_NONBLOCK on that private open file, and a socket is sent to with
MSG_DONTWAIT. When the client is slow and the pipe is full, or the output is something else
(a terminal, a file), lines go to a writer thread that does ordinary blocking writes, and every
later line queues behind them until it has caught up, so order is kept.

Writes use `os.write` in a loop rather than a `BufferedWriter`: a buffered write interrupted
by a signal (a child process exiting, a profiler attaching) could emit part of a line twice.

Input is read on the event loop itself (`add_reader`) for pipes, sockets and terminals, without
changing the descriptor's mode; a regular file, which epoll refuses, is read by a thread. A
`hangup` descriptor can be watched as well: when it closes, the input counts as ended. That is
how a session served for the `--attach` launcher ends when the launcher goes away.
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
from typing import BinaryIO

log = logging.getLogger(__name__)

_READ_SIZE = 1 << 16


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


class LineWriter:
    """Complete lines (bytes ending in `\\n`) out to one descriptor, in order; safe to call from
    any thread."""

    def __init__(self, stream: BinaryIO | int, on_broken: Callable[[], None] | None = None) -> None:
        self._stream = stream
        self._fd = _fileno(stream)
        self._on_broken = on_broken
        self.broken = False
        sender = _nonblocking_sender(self._fd) if self._fd is not None else None
        self._send, self._release = sender if sender is not None else (None, None)
        # `_pending` is what the thread has yet to write; while it is not empty, new lines
        # must queue behind it. The lock makes "queue empty, so write directly" one step.
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._pending: list[bytes] = []
        self._closing = False
        self._thread: threading.Thread | None = None

    def write(self, line: bytes) -> None:
        if self.broken:
            return
        with self._lock:
            if not self._pending and self._send is not None:
                try:
                    sent = self._send(line)
                except BlockingIOError:
                    sent = 0
                except OSError as err:
                    self._broke(err)
                    return
                if sent == len(line):
                    return
                line = line[sent:]
            self._pending.append(line)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="stdout-writer", daemon=True)
                self._thread.start()
            self._wake.notify()

    def pending(self) -> int:
        """Lines waiting for the client to read what is already in the pipe."""
        return len(self._pending)

    def close(self, timeout: float = 5.0) -> None:
        """Write out what is queued (waiting at most `timeout`), then release the output."""
        with self._lock:
            self._closing = True
            self._wake.notify()
            thread = self._thread
        if thread is not None:
            thread.join(timeout)
        if self._release is not None:
            with contextlib.suppress(OSError):
                self._release()
            self._send = self._release = None

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._pending and not self._closing:
                    self._wake.wait()
                if not self._pending:
                    return
                count = len(self._pending)
                data = b"".join(self._pending)
            # Lines keep arriving (and queueing) while this write blocks on a slow client.
            try:
                self._write_all(data)
            except OSError as err:
                with self._lock:
                    self._pending.clear()
                    self._broke(err)
                return
            with self._lock:
                del self._pending[:count]

    def _write_all(self, data: bytes) -> None:
        if self._fd is None:
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

    def _broke(self, err: OSError) -> None:
        if not self.broken:
            log.warning("output closed (%s); dropping further output", err)
            self.broken = True
            if self._on_broken is not None:
                self._on_broken()


class LineReader:
    """Lines of the client's input delivered to the event loop; `None` marks its end."""

    def __init__(
        self,
        stream: BinaryIO | int,
        loop: asyncio.AbstractEventLoop,
        *,
        hangup: int | None = None,
    ) -> None:
        self._queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._loop = loop
        self._stream = stream
        self._fd = _fileno(stream)
        self._partial = b""
        self._ended = False
        self._hangup = hangup
        self._watching = False
        if self._fd is not None:
            try:
                loop.add_reader(self._fd, self._readable)
                self._watching = True
            except (OSError, ValueError):  # a regular file: epoll will not watch it
                pass
        if not self._watching:
            threading.Thread(target=self._run, name="stdin-reader", daemon=True).start()
        if hangup is not None:
            loop.add_reader(hangup, self._hung_up)

    async def readline(self) -> bytes | None:
        return await self._queue.get()

    def close(self) -> None:
        """Stop watching the descriptors (the serve loop is done with them)."""
        if self._watching:
            self._loop.remove_reader(self._fd)  # type: ignore[arg-type]
            self._watching = False
        if self._hangup is not None:
            self._loop.remove_reader(self._hangup)
            self._hangup = None

    def _end(self) -> None:
        if not self._ended:
            self._ended = True
            if self._partial:
                self._queue.put_nowait(self._partial)
                self._partial = b""
            self._queue.put_nowait(None)
        self.close()

    # -- on the loop ------------------------------------------------------------------------

    def _readable(self) -> None:
        try:
            data = os.read(self._fd, _READ_SIZE)  # type: ignore[arg-type]
        except (BlockingIOError, InterruptedError):
            return
        except OSError as err:
            log.warning("input failed: %s", err)
            data = b""
        if not data:
            self._end()
            return
        lines = (self._partial + data).split(b"\n")
        self._partial = lines.pop()
        for line in lines:
            self._queue.put_nowait(line + b"\n")

    def _hung_up(self) -> None:
        try:
            data = os.read(self._hangup, 256)  # type: ignore[arg-type]
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._end()

    # -- on a thread (regular files, streams without a descriptor) --------------------------

    def _run(self) -> None:
        try:
            for line in iter(self._stream.readline, b""):  # type: ignore[union-attr]
                self._loop.call_soon_threadsafe(self._queue.put_nowait, line)
        except (OSError, ValueError) as err:
            log.warning("input failed: %s", err)
        finally:
            # The loop may already be gone when input ends during shutdown.
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._end)
