"""Incremental Server-Sent Events parser: bytes in, `(event, data)` messages out.

This is the hot path between the socket and the user's screen, so it works on whole chunks:
`bytes.splitlines` finds every line end in C, and Python only touches each *line*, never each
byte. It follows the WHATWG event-stream rules that matter for model servers: `\\n`, `\\r\\n`
and bare `\\r` line ends (also when a `\\r\\n` pair is split across two chunks), multi-line
`data:`, `:` comments, one optional space after the colon, and the default event name
`message`.

A server cannot make it hold unbounded input: a line, an event's data and the whole stream
have ceilings (`limits.py`); going over raises `ModelError`.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable
from typing import NamedTuple

from codex_lsp.model.limits import (
    MAX_RESPONSE_BYTES,
    MAX_SSE_EVENT_BYTES,
    MAX_SSE_LINE_BYTES,
    size,
    too_much,
)

_CR = 0x0D
_BOM = b"\xef\xbb\xbf"


class SseMessage(NamedTuple):
    event: str
    data: str
    id: str | None = None


class SseParser:
    """Feed raw chunks with `feed()`; each call returns the messages those bytes completed."""

    __slots__ = ("_buf", "_data", "_data_chars", "_event", "_id", "_received", "_started")

    def __init__(self) -> None:
        self._buf = bytearray()
        self._event = ""
        self._data: list[str] = []
        self._data_chars = 0
        self._id: str | None = None
        self._started = False
        self._received = 0

    def feed(self, chunk: bytes) -> list[SseMessage]:
        if not chunk:
            return []
        self._received += len(chunk)
        if self._received > MAX_RESPONSE_BYTES:
            raise too_much(f"a response of more than {size(MAX_RESPONSE_BYTES)}")
        buf = self._buf
        old_len = len(buf)
        buf += chunk
        if not self._started:
            # A UTF-8 BOM may open the stream, possibly split across the first chunks.
            if len(buf) < 3 and _BOM.startswith(buf):
                return []
            self._started = True
            if buf.startswith(_BOM):
                del buf[:3]
                old_len = 0
                if not buf:
                    return []
        # A trailing CR may be the first half of CRLF; keep it until the next byte decides.
        limit = len(buf) - 1 if buf[-1] == _CR else len(buf)
        # Earlier bytes held no line end (or only that held-back CR), so search the new part.
        start = max(0, old_len - 1)
        end = max(buf.rfind(b"\n", start, limit), buf.rfind(b"\r", start, limit))
        if end < 0:
            if len(buf) > MAX_SSE_LINE_BYTES:
                raise _long_line()
            return []
        complete = bytes(buf[: end + 1])
        del buf[: end + 1]
        if len(buf) > MAX_SSE_LINE_BYTES:
            raise _long_line()
        return self._lines(complete.splitlines())

    def close(self) -> list[SseMessage]:
        """End of stream. A message without its closing blank line is dropped, as the spec says:
        a connection cut mid-message must not look like a complete one."""
        out: list[SseMessage] = []
        if self._buf.endswith(b"\r"):
            # The CR held back in case an LF followed: at the end it is a line end after all.
            out = self._lines(bytes(self._buf).splitlines())
        self._buf.clear()
        self._data = []
        self._data_chars = 0
        self._event = ""
        return out

    def _lines(self, lines: list[bytes]) -> list[SseMessage]:
        out: list[SseMessage] = []
        data = self._data
        for raw in lines:
            if not raw:
                if data:
                    out.append(SseMessage(self._event or "message", "\n".join(data), self._id))
                    data = []
                    self._data_chars = 0
                self._event = ""
                continue
            if len(raw) > MAX_SSE_LINE_BYTES:
                raise _long_line()
            line = raw.decode("utf-8", "replace")
            colon = line.find(":")
            if colon == 0:
                continue  # comment / keep-alive
            if colon < 0:
                name, value = line, ""
            else:
                name = line[:colon]
                value = (
                    line[colon + 2 :] if line[colon + 1 : colon + 2] == " " else line[colon + 1 :]
                )
            if name == "data":
                self._data_chars += len(value)
                if self._data_chars > MAX_SSE_EVENT_BYTES:
                    raise too_much(f"an SSE event of more than {size(MAX_SSE_EVENT_BYTES)}")
                data.append(value)
            elif name == "event":
                self._event = value
            elif name == "id" and "\0" not in value:
                self._id = value
            # `retry` and unknown fields carry nothing a model client needs.
        self._data = data
        return out


def _long_line() -> Exception:
    return too_much(f"an SSE line of more than {size(MAX_SSE_LINE_BYTES)}")


async def aiter_sse(chunks: AsyncIterable[bytes]) -> AsyncGenerator[SseMessage]:
    """Messages from an async byte stream, such as `httpx.Response.aiter_bytes()`."""
    parser = SseParser()
    async for chunk in chunks:
        for message in parser.feed(chunk):
            yield message
    for message in parser.close():
        yield message
