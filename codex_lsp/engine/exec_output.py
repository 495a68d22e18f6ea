"""Bounded capture of a command's output and its rendering for the model.

A command may print far more than anyone should keep: `RetainedOutput` holds only a head and a
tail of each stream (plus exact byte and line totals), so memory stays flat however much is
printed. `format_for_model` turns an `ExecOutput` into the `shell_command` text the model reads,
middle-truncated to the model's budget.
"""

from __future__ import annotations

from dataclasses import dataclass

# Per-stream retention cap (Codex keeps 1 MiB of each stream); half is head, half is tail.
RETAINED_BYTES_PER_STREAM = 1024 * 1024
# The model's default truncation budget: 10 000 tokens at ~4 bytes a token.
MODEL_BUDGET_BYTES = 40_000


def count_lines(data: bytes | str) -> int:
    """Lines as an editor counts them: a trailing newline does not open a new line."""
    if not data:
        return 0
    if isinstance(data, bytes):
        return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    return data.count("\n") + (0 if data.endswith("\n") else 1)


def _utf8_prefix_end(data: bytes, limit: int) -> int:
    """Largest cut <= limit that does not split a UTF-8 sequence."""
    if limit >= len(data):
        return len(data)
    cut = limit
    # Step back over continuation bytes (0b10xxxxxx) so the cut lands before a lead byte.
    while cut > 0 and (data[cut] & 0xC0) == 0x80:
        cut -= 1
    return cut


def _utf8_complete_end(data: bytes) -> int:
    """Length of `data` without a trailing, incomplete UTF-8 sequence."""
    i = len(data) - 1
    while i >= 0 and len(data) - i <= 4 and (data[i] & 0xC0) == 0x80:
        i -= 1
    if i < 0 or len(data) - i > 4:
        return len(data)  # not UTF-8 at all; leave it to the replacement decoder
    lead = data[i]
    if lead >= 0xF0:
        need = 4
    elif lead >= 0xE0:
        need = 3
    elif lead >= 0xC0:
        need = 2
    else:
        need = 1
    return len(data) if i + need <= len(data) else i


def _utf8_suffix_start(data: bytes, limit: int) -> int:
    """Smallest start with len(data) - start <= limit that does not split a UTF-8 sequence."""
    if limit >= len(data):
        return 0
    start = len(data) - limit
    while start < len(data) and (data[start] & 0xC0) == 0x80:
        start += 1
    return start


@dataclass(frozen=True)
class RetainedOutput:
    """What was kept of one stream: `head` then, if anything was dropped, `tail`.

    When `truncated` is false, `head + tail` is the complete output.
    """

    head: bytes
    tail: bytes
    total_bytes: int
    total_lines: int

    @classmethod
    def from_bytes(cls, data: bytes, cap: int = RETAINED_BYTES_PER_STREAM) -> RetainedOutput:
        buf = HeadTailBuffer(cap)
        buf.write(data)
        return buf.snapshot()

    @property
    def retained_bytes(self) -> int:
        return len(self.head) + len(self.tail)

    @property
    def omitted_bytes(self) -> int:
        return self.total_bytes - self.retained_bytes

    @property
    def truncated(self) -> bool:
        return self.omitted_bytes > 0

    @property
    def data(self) -> bytes:
        """Retained bytes; the gap (if any) between head and tail is not marked."""
        return self.head + self.tail

    def text(self) -> str:
        """Retained output decoded as UTF-8 with replacement characters."""
        if not self.truncated:
            return self.data.decode("utf-8", errors="replace")
        # Decode the halves apart so a character split by the gap doesn't garble its neighbours.
        head = self.head[: _utf8_complete_end(self.head)]
        skip = 0
        while skip < min(3, len(self.tail)) and (self.tail[skip] & 0xC0) == 0x80:
            skip += 1
        tail = self.tail[skip:]
        return head.decode("utf-8", errors="replace") + tail.decode("utf-8", errors="replace")


class HeadTailBuffer:
    """Keeps the first and last `cap // 2` bytes written, counting everything."""

    def __init__(self, cap: int = RETAINED_BYTES_PER_STREAM) -> None:
        self._head_cap = cap // 2
        self._tail_cap = cap - self._head_cap
        self._head = bytearray()
        self._tail = bytearray()
        self.total_bytes = 0
        self._newlines = 0
        self._ends_with_newline = False

    def write(self, chunk: bytes) -> None:
        if not chunk:
            return
        self.total_bytes += len(chunk)
        self._newlines += chunk.count(b"\n")
        self._ends_with_newline = chunk.endswith(b"\n")
        room = self._head_cap - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        if not chunk:
            return
        if len(chunk) >= self._tail_cap:
            self._tail[:] = chunk[-self._tail_cap :]
            return
        self._tail += chunk
        excess = len(self._tail) - self._tail_cap
        if excess > 0:
            # bytearray deletes from the front without moving the rest (CPython keeps an offset).
            del self._tail[:excess]

    @property
    def total_lines(self) -> int:
        if self.total_bytes == 0:
            return 0
        return self._newlines + (0 if self._ends_with_newline else 1)

    def snapshot(self) -> RetainedOutput:
        return RetainedOutput(
            head=bytes(self._head),
            tail=bytes(self._tail),
            total_bytes=self.total_bytes,
            total_lines=self.total_lines,
        )


@dataclass(frozen=True)
class ExecOutput:
    """The result of one command run.

    `aggregated` holds stdout and stderr interleaved in arrival order; `aggregated_output` is its
    text, with the timeout notice in front when the command was cut short.
    """

    exit_code: int
    stdout: RetainedOutput
    stderr: RetainedOutput
    aggregated: RetainedOutput
    duration_s: float
    timed_out: bool = False
    timeout_ms: int | None = None

    @property
    def timeout_prefix(self) -> str:
        if not self.timed_out:
            return ""
        return f"command timed out after {self.timeout_ms} milliseconds\n"

    @property
    def aggregated_output(self) -> str:
        return self.timeout_prefix + self.aggregated.text()


def _truncate_parts(head: bytes, tail: bytes, total_bytes: int, budget_bytes: int) -> str:
    """Middle-truncate content known by its first bytes `head` and last bytes `tail`.

    `total_bytes` is the length of the whole content, which may exceed what head and tail hold.
    """
    budget = max(budget_bytes, 0)
    left_end = _utf8_prefix_end(head, budget // 2)
    right_start = _utf8_suffix_start(tail, budget - budget // 2)
    left = head[:left_end]
    right = tail[right_start:]
    removed = total_bytes - len(left) - len(right)
    tokens = -(-removed // 4)  # ceil: even one dropped byte is reported
    return (
        left.decode("utf-8", errors="replace")
        + f"…{tokens} tokens truncated…"
        + right.decode("utf-8", errors="replace")
    )


def truncate_middle(text: str, budget_bytes: int = MODEL_BUDGET_BYTES) -> str:
    """`text` unchanged if it fits in `budget_bytes` of UTF-8, else its head and tail halves
    around a `…N tokens truncated…` marker (N ≈ removed bytes / 4, rounded up)."""
    data = text.encode("utf-8")
    if len(data) <= budget_bytes:
        return text
    return _truncate_parts(data, data, len(data), budget_bytes)


def _model_text(output: ExecOutput, budget_bytes: int) -> tuple[str, int]:
    """The (possibly truncated) output text and the line count of the full output."""
    prefix = output.timeout_prefix
    retained = output.aggregated
    total_lines = count_lines(prefix) + retained.total_lines
    if not retained.truncated:
        return truncate_middle(prefix + retained.text(), budget_bytes), total_lines
    prefix_bytes = prefix.encode("utf-8")
    text = _truncate_parts(
        prefix_bytes + retained.head,
        retained.tail,
        len(prefix_bytes) + retained.total_bytes,
        budget_bytes,
    )
    return text, total_lines


def format_for_model(output: ExecOutput, *, budget_bytes: int = MODEL_BUDGET_BYTES) -> str:
    """The `shell_command` result text the model sees."""
    text, total_lines = _model_text(output, budget_bytes)
    lines = [f"Exit code: {output.exit_code}", f"Wall time: {output.duration_s:.1f} seconds"]
    if count_lines(text) != total_lines:
        lines.append(f"Total output lines: {total_lines}")
    lines.append("Output:")
    return "\n".join(lines) + "\n" + text
