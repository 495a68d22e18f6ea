"""LSP base-protocol framing: `Content-Length` headers, then exactly that many bytes of body.

Framing is where one bad message can take every later one with it: a length too small leaves
the rest of a body to be read as headers, one too large swallows the messages after it. This
reader checks each header block strictly and, when one is wrong, reports a `FrameError` and
resynchronises: it skips ahead to the next `Content-Length:` in the stream and reads on from
there, so the client's next well-framed message is served.

* A header block is `Name: value` lines ending in an empty line (`\\r\\n` line ends), at most
  `MAX_HEADER_BYTES` long. `Content-Length` is required, once (or repeated with the same value),
  as a non-negative decimal integer; `Content-Type` and other well-formed headers are ignored.
* A body may be at most `MAX_MESSAGE_BYTES` (64 MiB). A longer one is not read into memory:
  the error is reported and the stream resynchronised.
* A length shorter than the body it came with cannot be seen in the header; the body then
  fails to parse (the caller answers that), and the rest of it fails as a header block here.

The reader works on chunks from any byte source and keeps a single buffer, consumed from the
front, so reading is linear in the input however it is split.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from codex_lsp.wire.input import ID_SEARCH_BYTES, MAX_MESSAGE_BYTES

MAX_HEADER_BYTES = 64 * 1024
_HEADER_END = b"\r\n\r\n"
_HEADER_LINE = re.compile(rb"([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[ \t]*(.*?)[ \t]*")
_CONTENT_LENGTH = re.compile(rb"content-length[ \t]*:", re.IGNORECASE)
_TOKEN_TAIL = len(b"content-length:") + 16  # bytes kept while skipping, for a split token


@dataclass(frozen=True)
class FrameError:
    """A header block that could not be used; the reader has skipped past it."""

    message: str
    # For a body too long to read: its first bytes (where a request id would be).
    prefix: bytes = b""
    size: int | None = None


class FrameReader:
    """Message bodies from a byte source; `read` is the source (b"" at its end)."""

    def __init__(
        self, read: Callable[[], Awaitable[bytes]], max_body: int = MAX_MESSAGE_BYTES
    ) -> None:
        self._read = read
        self._max_body = max_body
        self._buffer = bytearray()
        self._start = 0  # bytes before this are consumed
        self._eof = False
        # After a framing error: skip to the next header before reading on. Done lazily, so
        # the error is reported at once rather than when the next message arrives.
        self._lost = False

    async def next(self) -> bytes | FrameError | None:
        """The next body, a `FrameError`, or None once the input has ended."""
        if self._lost:
            self._lost = False
            await self._skip_to_header()
        found = await self._header_block()
        if found is None:
            return None
        if isinstance(found, FrameError):
            return found
        block, size = found
        length = _content_length(block)
        if isinstance(length, _Garbage):
            # Not a header block at all, likely the tail of a body sent with a length too
            # short: the real header may start inside it.
            self._consume(1)
            self._lost = True
            return FrameError(length.message)
        self._consume(size)
        if isinstance(length, FrameError):
            self._lost = True
            return length
        if length > self._max_body:
            # Only what is already here: the rest may never come, if the length was a lie.
            prefix = bytes(self._buffer[self._start : self._start + ID_SEARCH_BYTES])
            self._lost = True
            return FrameError(
                f"a message of {length} bytes is over the limit of {self._max_body} bytes",
                prefix=prefix,
                size=length,
            )
        if not await self._fill(length):
            return None  # the stream ended inside the body
        body = bytes(self._buffer[self._start : self._start + length])
        self._consume(length)
        return body

    # -- headers --------------------------------------------------------------------------------

    async def _header_block(self) -> tuple[bytes, int] | FrameError | None:
        """The next header block (without its blank line) and its size with it, unconsumed."""
        # Bytes after `_start` already searched (offsets, as reading may move the buffer).
        searched = 0
        while True:
            # Blank lines between messages are harmless.
            while self._buffer.startswith(b"\r\n", self._start):
                self._consume(2)
                searched = max(0, searched - 2)
            end = self._buffer.find(_HEADER_END, self._start + max(0, searched - 3))
            if end >= 0 and end - self._start <= MAX_HEADER_BYTES:
                block = bytes(self._buffer[self._start : end])
                return block, end + len(_HEADER_END) - self._start
            if end >= 0 or len(self._buffer) - self._start > MAX_HEADER_BYTES:
                self._consume(1)
                self._lost = True
                return FrameError(f"a header block over {MAX_HEADER_BYTES} bytes")
            searched = len(self._buffer) - self._start
            if not await self._more():
                return None

    # -- the buffer -----------------------------------------------------------------------------

    async def _more(self) -> bool:
        if self._eof:
            return False
        chunk = await self._read()
        if not chunk:
            self._eof = True
            return False
        if self._start and self._start >= len(self._buffer) // 2:
            del self._buffer[: self._start]
            self._start = 0
        self._buffer += chunk
        return True

    async def _fill(self, size: int) -> bool:
        while len(self._buffer) - self._start < size:
            if not await self._more():
                return False
        return True

    def _consume(self, size: int) -> None:
        self._start += size
        if self._start >= len(self._buffer):
            self._buffer.clear()
            self._start = 0

    async def _skip_to_header(self) -> None:
        """Drop input up to the next `Content-Length:`, never holding more than a chunk."""
        while True:
            match = _CONTENT_LENGTH.search(self._buffer, self._start)
            if match is not None:
                self._consume(match.start() - self._start)
                return
            keep = min(_TOKEN_TAIL, len(self._buffer) - self._start)
            self._consume(len(self._buffer) - self._start - keep)
            if not await self._more():
                return


@dataclass(frozen=True)
class _Garbage:
    """Bytes where a header block should be that are not one."""

    message: str


def _content_length(block: bytes) -> int | FrameError | _Garbage:
    lengths: set[bytes] = set()
    for line in block.split(b"\r\n"):
        header = _HEADER_LINE.fullmatch(line)
        if header is None:
            return _Garbage(f"a malformed header line {_show(line)}")
        if header.group(1).lower() == b"content-length":
            lengths.add(header.group(2))
    if not lengths:
        return FrameError("a header block without Content-Length")
    if len(lengths) > 1:
        shown = ", ".join(sorted(_show(value) for value in lengths))
        return FrameError(f"conflicting Content-Length headers ({shown})")
    value = lengths.pop()
    if not value.isdigit():
        return FrameError(f"Content-Length {_show(value)} is not a non-negative integer")
    return int(value)


def _show(raw: bytes) -> str:
    text = raw[:80].decode("utf-8", "replace")
    return repr(text + ("…" if len(raw) > 80 else ""))
