"""An `Outbox` over an asyncio connection: messages sent in order by one task, and a slow
client makes `drained()` wait.

The app-server's connection doors (a unix socket, a WebSocket) take messages from the engine's
threads and its event loop alike; one task sends them in order, and producers pace themselves
against `HIGH_WATER_BYTES` as they do on stdio (`output.py`), so a client that stops reading
holds up its own session instead of growing the server without bound. A door supplies how one
message is sent and how the connection is closed.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from abc import ABC, abstractmethod
from typing import Generic, TypeVar

from codex_lsp.wire.output import HIGH_WATER_BYTES, LOW_WATER_BYTES

Message = TypeVar("Message", bytes, str)


class QueuedOutbox(ABC, Generic[Message]):
    """The messages written, queued for one sending task; see the module's docstring."""

    # What ends the sending when the connection is gone.
    gone: tuple[type[BaseException], ...] = (OSError,)

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._messages: collections.deque[Message] = collections.deque()
        self._bytes = 0
        self._ready = asyncio.Event()
        self._low = asyncio.Event()
        self._low.set()
        self._closing = False
        self._task = self._loop.create_task(self._send_all())

    @abstractmethod
    def message(self, data: bytes) -> Message:
        """What is sent for `data`, one message as the engine writes it."""

    @abstractmethod
    async def send(self, message: Message) -> None:
        """Send one message, waiting while the connection cannot take more."""

    def close(self) -> None:
        """Close the connection once everything was sent (by default: nothing to do)."""

    def write(self, data: bytes) -> None:
        message = self.message(data)
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            self._push(message)
        else:  # from a worker thread
            self._loop.call_soon_threadsafe(self._push, message)

    def backlog(self) -> int:
        """Messages not yet handed to the connection: how far behind the client reads."""
        return len(self._messages)

    def pending_bytes(self) -> int:
        return self._bytes

    async def drained(self) -> None:
        if self._bytes > HIGH_WATER_BYTES:
            self._low.clear()
        await self._low.wait()

    async def flush_and_close(self) -> None:
        """Send what was written (unless the connection is gone), then close."""
        self._closing = True
        self._ready.set()
        with contextlib.suppress(*self.gone, asyncio.CancelledError):
            await self._task
        self.close()

    def _push(self, message: Message) -> None:
        self._messages.append(message)
        self._bytes += len(message)
        self._ready.set()

    async def _send_all(self) -> None:
        try:
            while True:
                while self._messages:
                    message = self._messages.popleft()
                    await self.send(message)
                    self._bytes -= len(message)
                    if self._bytes <= LOW_WATER_BYTES:
                        self._low.set()
                if self._closing:
                    return
                self._ready.clear()
                await self._ready.wait()
        finally:
            self._low.set()  # nobody waits on a connection that is gone
