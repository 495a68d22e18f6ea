"""HTTP/1.1 on an asyncio `Protocol`, for `StreamingTransport`: one connection, and one
`Exchange` per request, whose bytes h11 frames and parses.

Received bytes land in the connection's buffer (reading pauses past 1 MiB unread) and go to
h11 as they come; the body iterator hands on all the data h11 can give from them, so a
streamed token is never held back waiting for the rest of its chunk. The idle timeout is one
timer per connection that re-arms itself from the time of the last byte, rather than a timer
(or a cancel scope) per read.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import h11
import httpx

from codex_lsp.model.limits import MAX_HTTP_FRAMING_BYTES, size

_HIGH_WATER = 1 << 20  # stop reading the socket when this much is buffered and unread

Key = tuple[bytes, bytes, int]  # scheme, host, port


class Connection(asyncio.Protocol):
    """One socket: received bytes collect in `buffer`; `receive()` waits for more."""

    def __init__(self, loop: asyncio.AbstractEventLoop, key: Key) -> None:
        self.loop = loop
        self.key = key
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.eof = False
        self.error: BaseException | None = None
        self.reused = False
        self._waiter: asyncio.Future[None] | None = None
        self._drained: asyncio.Future[None] | None = None
        self._paused = False
        # The idle timeout: one timer, re-armed from `_last_data` when it fires early.
        self._idle_timeout: float | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._last_data = 0.0

    # -- asyncio.Protocol --------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # asyncio hands every stream protocol a BaseTransport; a TCP connection's is writable.
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        self._last_data = self.loop.time()
        if len(self.buffer) > _HIGH_WATER and self.transport is not None and not self._paused:
            self._paused = True
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool:
        self.eof = True
        self._wake()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.eof = True
        self.error = exc
        self._wake()
        if self._drained is not None and not self._drained.done():
            self._drained.set_result(None)

    def pause_writing(self) -> None:
        self._drained = self.loop.create_future()

    def resume_writing(self) -> None:
        if self._drained is not None and not self._drained.done():
            self._drained.set_result(None)
        self._drained = None

    # -- used by the transport ---------------------------------------------------------------

    def reusable(self) -> bool:
        transport = self.transport
        if transport is None or transport.is_closing():
            return False
        return not self.eof and not self.buffer

    def take(self) -> bytes:
        """Everything buffered, and let the socket be read again."""
        data = bytes(self.buffer)
        self.buffer.clear()
        if self._paused and self.transport is not None:
            self._paused = False
            self.transport.resume_reading()
        return data

    async def receive(self, timeout: float | None) -> None:
        """Wait until more bytes, the end of the stream, or `timeout` seconds of silence."""
        if self.buffer or self.eof:
            return
        waiter = self._waiter = self.loop.create_future()
        if timeout is not None:
            self._idle_timeout = timeout
            self._last_data = self.loop.time()
            if self._timer is None:
                self._timer = self.loop.call_at(self._last_data + timeout, self._check_idle)
        try:
            await waiter
        finally:
            self._waiter = None

    async def send(self, data: bytes, timeout: float | None, request: httpx.Request) -> None:
        assert self.transport is not None
        self.transport.write(data)
        if self._drained is not None:
            try:
                async with asyncio.timeout(timeout):
                    await self._drained
            except TimeoutError:
                raise httpx.WriteTimeout("timed out sending the request", request=request) from None

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.transport is not None:
            self.transport.close()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _check_idle(self) -> None:
        self._timer = None
        waiter, idle = self._waiter, self._idle_timeout
        if waiter is None or waiter.done() or idle is None:
            return  # not waiting: the next `receive` arms the timer again
        due = self._last_data + idle
        if self.loop.time() >= due:
            waiter.set_exception(TimeoutError())
        else:
            self._timer = self.loop.call_at(due, self._check_idle)


class Exchange:
    """One request and its response on a connection, framed and parsed by h11.

    The peer is a model server the engine does not control, so its bytes go through h11, not
    through parsing of our own: h11 bounds a response head and every chunk-size line or
    trailer (`max_incomplete_event_size`), and hands body data on as it arrives, partial
    chunks included.
    """

    __slots__ = ("_answered", "_closed", "_conn", "_h11", "_request")

    def __init__(self, conn: Connection, request: httpx.Request) -> None:
        self._conn = conn
        self._request = request
        self._h11 = h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_HTTP_FRAMING_BYTES)
        self._closed = False
        self._answered = False

    def request_bytes(self, body: bytes) -> bytes:
        request = self._request
        try:
            head = h11.Request(
                method=request.method,
                target=request.url.raw_path,
                headers=list(request.headers.raw),
            )
            out = self._h11.send(head) or b""
            if body:
                out += self._h11.send(h11.Data(data=body)) or b""
            return out + (self._h11.send(h11.EndOfMessage()) or b"")
        except h11.LocalProtocolError as exc:
            raise httpx.LocalProtocolError(str(exc), request=request) from None

    async def next_event(
        self, timeout: float | None
    ) -> h11.Event | type[h11.NEED_DATA] | type[h11.PAUSED]:
        """The next event of the response, reading the socket as h11 needs more."""
        conn, parser = self._conn, self._h11
        while True:
            try:
                event = parser.next_event()
            except h11.RemoteProtocolError as exc:
                raise self._failure(exc) from None
            if type(event) is h11.Response:
                self._answered = True
            if event is not h11.NEED_DATA:
                return event  # PAUSED: both messages are done, which the caller sees first
            if conn.buffer:
                parser.receive_data(conn.take())
            elif conn.eof:
                if self._closed:
                    raise httpx.RemoteProtocolError(
                        "Server disconnected without sending a response.", request=self._request
                    )
                self._closed = True
                parser.receive_data(b"")
            else:
                await receive(conn, timeout, self._request)

    def poll(self) -> h11.Event | type[h11.NEED_DATA] | type[h11.PAUSED]:
        """The next event from what has arrived already, or NEED_DATA; never waits."""
        conn, parser = self._conn, self._h11
        if conn.buffer:
            parser.receive_data(conn.take())
        try:
            return parser.next_event()
        except h11.RemoteProtocolError as exc:
            raise self._failure(exc) from None

    def _failure(self, exc: h11.RemoteProtocolError) -> httpx.RemoteProtocolError:
        if self._closed and not self._answered:
            why = "Server disconnected without sending a response."
        else:
            why = _reason(exc)
        return httpx.RemoteProtocolError(why, request=self._request)

    def reusable(self) -> bool:
        """Whether both messages ended cleanly, keep-alive, with nothing after them."""
        parser = self._h11
        return (
            parser.our_state is h11.DONE
            and parser.their_state is h11.DONE
            and not parser.trailing_data[0]
            and not self._conn.buffer
        )


def _reason(exc: h11.RemoteProtocolError) -> str:
    text = str(exc)
    if "Receive buffer too long" in text:
        return (
            "the server sent a response head, chunk-size line or trailer longer than "
            f"{size(MAX_HTTP_FRAMING_BYTES)}"
        )
    if "without sending complete message body" in text or "incomplete" in text:
        return f"peer closed connection without sending complete message body: {text}"
    return text


async def read_head(
    exchange: Exchange, timeouts: dict[str, float | None], request: httpx.Request
) -> tuple[int, list[tuple[bytes, bytes]], bytes, bytes]:
    """The status line and headers of the final (non-1xx) response; the body stays buffered."""
    while True:
        event = await exchange.next_event(timeouts.get("read"))
        if isinstance(event, h11.InformationalResponse):
            continue  # 100 Continue, 103 Early Hints: the real answer follows
        if isinstance(event, h11.Response):
            headers = [(bytes(name), bytes(value)) for name, value in event.headers]
            version = b"HTTP/" + bytes(event.http_version)
            return event.status_code, headers, version, bytes(event.reason)
        if isinstance(event, h11.ConnectionClosed):
            raise httpx.RemoteProtocolError(
                "Server disconnected without sending a response.", request=request
            )
        raise httpx.RemoteProtocolError(f"unexpected {type(event).__name__}", request=request)


async def receive(conn: Connection, timeout: float | None, request: httpx.Request) -> None:
    try:
        await conn.receive(timeout)
    except TimeoutError:
        raise httpx.ReadTimeout("timed out waiting for the server", request=request) from None


class ResponseBody(httpx.AsyncByteStream):
    """A response body as it arrives: Content-Length, chunked, or until the server closes.
    Each step hands on all the data h11 has from what the socket gave."""

    def __init__(
        self,
        conn: Connection,
        exchange: Exchange,
        release: Callable[[Connection, bool], None],
        read_timeout: float | None,
    ) -> None:
        self._conn: Connection | None = conn
        self._exchange = exchange
        self._release = release
        self._timeout = read_timeout
        self._done = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self._conn is None:
            return
        exchange = self._exchange
        while not self._done:
            event = await exchange.next_event(self._timeout)
            parts: list[bytes] = []
            while isinstance(event, h11.Data):
                parts.append(bytes(event.data))
                event = exchange.poll()
            if parts:
                yield parts[0] if len(parts) == 1 else b"".join(parts)
            if isinstance(event, (h11.EndOfMessage, h11.ConnectionClosed)):
                self._done = True
        await self.aclose()

    async def aclose(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            self._release(conn, self._done and self._exchange.reusable())
