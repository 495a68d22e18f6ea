"""Lines in and out of the process's standard streams.

Both directions use a dedicated thread with ordinary blocking I/O rather than asyncio pipe
transports: those switch the descriptor to non-blocking mode, which also breaks a stderr that
shares it (a terminal), and they do not accept regular files. One writer thread drains one queue,
so lines leave in the order they were queued and never interleave; it writes whatever has piled
up in a single call, so a burst of deltas costs one system call, not one each.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
from collections.abc import Callable
from typing import BinaryIO

log = logging.getLogger(__name__)

_STOP = object()


class LineWriter:
    """Queue complete lines (bytes ending in `\\n`); a thread writes them out in order."""

    def __init__(self, stream: BinaryIO, on_broken: Callable[[], None] | None = None) -> None:
        self._stream = stream
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._on_broken = on_broken
        self.broken = False
        self._thread = threading.Thread(target=self._run, name="stdout-writer", daemon=True)
        self._thread.start()

    def write(self, line: bytes) -> None:
        if not self.broken:
            self._queue.put(line)

    def close(self, timeout: float = 5.0) -> None:
        """Write what is queued, then stop the thread."""
        self._queue.put(_STOP)
        self._thread.join(timeout)

    def _run(self) -> None:
        pending = self._queue
        while True:
            item = pending.get()
            batch: list[bytes] = []
            stop = item is _STOP
            if not stop:
                batch.append(item)  # type: ignore[arg-type]
                while True:
                    try:
                        more = pending.get_nowait()
                    except queue.Empty:
                        break
                    if more is _STOP:
                        stop = True
                        break
                    batch.append(more)  # type: ignore[arg-type]
            if batch and not self.broken:
                try:
                    self._stream.write(b"".join(batch))
                    self._stream.flush()
                except (BrokenPipeError, OSError, ValueError) as err:
                    log.warning("stdout closed (%s); dropping further output", err)
                    self.broken = True
                    if self._on_broken is not None:
                        self._on_broken()
            if stop:
                return


class LineReader:
    """Lines of a binary stream delivered to the event loop; `None` marks end of input."""

    def __init__(self, stream: BinaryIO, loop: asyncio.AbstractEventLoop) -> None:
        self._queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._loop = loop
        self._stream = stream
        self._thread = threading.Thread(target=self._run, name="stdin-reader", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            for line in iter(self._stream.readline, b""):
                self._loop.call_soon_threadsafe(self._queue.put_nowait, line)
        except (OSError, ValueError) as err:
            log.warning("stdin failed: %s", err)
        finally:
            # The loop may already be gone when input ends during shutdown.
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._queue.put_nowait, None)

    async def readline(self) -> bytes | None:
        return await self._queue.get()
