"""HTTP/1.1 on an asyncio `Protocol`, for `StreamingTransport`: one connection, the request
head, the response head, and a response body read as it arrives.

Received bytes land in the connection's buffer and the body iterator takes all there is each
time it runs: a chunked body is decoded in place and a partial chunk handed on at once, so a
streamed token is never held back waiting for the rest of its chunk. The idle timeout is one
timer per connection that re-arms itself from the time of the last byte, rather than a timer
(or a cancel scope) per read.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import httpx

from codex_lsp.model.limits import MAX_CHUNK_FRAMING_BYTES

_MAX_HEAD = 64 * 1024
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


def request_head(request: httpx.Request) -> bytes:
    url = request.url
    lines = [b"%s %s HTTP/1.1" % (request.method.encode("ascii"), url.raw_path)]
    lines.extend(b"%s: %s" % (name, value) for name, value in request.headers.raw)
    return b"\r\n".join(lines) + b"\r\n\r\n"


async def read_head(
    conn: Connection, timeouts: dict[str, float | None], request: httpx.Request
) -> tuple[int, list[tuple[bytes, bytes]], bytes, bytes]:
    """The status line and headers of the final (non-1xx) response; the body stays buffered."""
    while True:
        end = conn.buffer.find(b"\r\n\r\n")
        while end < 0:
            if len(conn.buffer) > _MAX_HEAD:
                raise httpx.RemoteProtocolError("response head too large", request=request)
            if conn.eof:
                raise httpx.RemoteProtocolError(
                    "Server disconnected without sending a response.", request=request
                )
            await receive(conn, timeouts.get("read"), request)
            end = conn.buffer.find(b"\r\n\r\n")
        head = bytes(conn.buffer[:end])
        del conn.buffer[: end + 4]
        status_line, *header_lines = head.split(b"\r\n")
        try:
            version, code, *rest = status_line.split(b" ", 2)
            status = int(code)
        except ValueError:
            raise httpx.RemoteProtocolError(
                f"malformed status line {status_line[:80]!r}", request=request
            ) from None
        if 100 <= status < 200 and status != 101:
            continue  # 100 Continue, 103 Early Hints: the real answer follows
        headers = []
        for line in header_lines:
            name, sep, value = line.partition(b":")
            if not sep:
                raise httpx.RemoteProtocolError(
                    f"malformed header line {line[:80]!r}", request=request
                )
            headers.append((name.strip(), value.strip()))
        return status, headers, version, rest[0] if rest else b""


async def receive(conn: Connection, timeout: float | None, request: httpx.Request) -> None:
    try:
        await conn.receive(timeout)
    except TimeoutError:
        raise httpx.ReadTimeout("timed out waiting for the server", request=request) from None


class ResponseBody(httpx.AsyncByteStream):
    """A response body as it arrives: Content-Length, chunked, or until the server closes."""

    def __init__(
        self,
        conn: Connection,
        release: Callable[[Connection, bool], None],
        headers: list[tuple[bytes, bytes]],
        version: bytes,
        read_timeout: float | None,
        request: httpx.Request,
    ) -> None:
        self._conn: Connection | None = conn
        self._release = release
        self._timeout = read_timeout
        self._request = request
        fields = {name.lower(): value for name, value in headers}
        self._chunked = b"chunked" in fields.get(b"transfer-encoding", b"").lower()
        length = fields.get(b"content-length")
        self._left = int(length) if length is not None and not self._chunked else -1
        self._keep = version == b"HTTP/1.1" and fields.get(b"connection", b"").lower() != b"close"
        if not self._chunked and self._left < 0:
            self._keep = False  # the body ends when the connection does
        self._done = self._left == 0
        # Chunked decoding state: bytes left in the current chunk, or -1 before a size line.
        self._chunk_left = -1
        self._pending = bytearray()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        conn = self._conn
        if conn is None:
            return
        while not self._done:
            if conn.buffer:
                data = conn.take()
            elif conn.eof:
                if self._chunked or self._left > 0:
                    why = "incomplete chunked read" if self._chunked else "incomplete body"
                    raise httpx.RemoteProtocolError(
                        f"peer closed connection without sending complete message body: {why}",
                        request=self._request,
                    )
                self._done = True
                break
            else:
                await receive(conn, self._timeout, self._request)
                continue
            out = self._decode(data)
            if out:
                yield out
        await self.aclose()

    def _decode(self, data: bytes) -> bytes:
        if not self._chunked:
            if self._left >= 0:
                data = data[: self._left]
                self._left -= len(data)
                self._done = self._left == 0
            return data
        buf = self._pending
        buf += data
        out = bytearray()
        pos = 0
        while True:
            if self._chunk_left > 0:
                take = min(self._chunk_left, len(buf) - pos)
                out += buf[pos : pos + take]
                pos += take
                self._chunk_left -= take
                if self._chunk_left:
                    break  # the rest of this chunk is still on its way: hand on what came
                self._chunk_left = -2  # the CRLF after the data
            if self._chunk_left == -2:
                if len(buf) - pos < 2:
                    break
                pos += 2
                self._chunk_left = -1
            line_end = buf.find(b"\r\n", pos)
            if line_end < 0:
                self._check_framing(len(buf) - pos)
                break
            line = bytes(buf[pos:line_end])
            try:
                size = int(line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                raise httpx.RemoteProtocolError(
                    f"malformed chunk size {line[:40]!r}", request=self._request
                ) from None
            if size == 0:
                # The last chunk; trailers (rare) end with an empty line.
                rest = buf.find(b"\r\n\r\n", pos)
                if rest < 0:
                    self._check_framing(len(buf) - pos)
                    break
                pos = rest + 4
                self._done = True
                break
            pos = line_end + 2
            self._chunk_left = size
        del buf[:pos]
        return bytes(out)

    def _check_framing(self, pending: int) -> None:
        # A chunk-size line or trailer section still waiting for its end: never unbounded.
        if pending > MAX_CHUNK_FRAMING_BYTES:
            raise httpx.RemoteProtocolError(
                "chunked body framing line too long", request=self._request
            )

    async def aclose(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            reusable = self._done and self._keep and not self._pending
            self._release(conn, reusable)
