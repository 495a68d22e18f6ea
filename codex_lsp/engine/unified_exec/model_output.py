"""The text an `exec_command` / `write_stdin` call returns to the model.

```
Chunk ID: 3f9a0c
Wall time: 1.2345 seconds
Process exited with code 0            (or: Process running with session ID 41235)
Original token count: 12
Output:
<output>
```

Tokens are counted as bytes / 4, rounded up. Output over the call's token budget keeps its head
and tail halves around `…N tokens truncated…`, after a warning line and the total line count.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from codex_lsp.engine.exec_output import count_lines, truncate_middle

__all__ = [
    "DEFAULT_MAX_OUTPUT_TOKENS",
    "ExecChunk",
    "approx_tokens",
    "format_chunk",
    "new_chunk_id",
]

DEFAULT_MAX_OUTPUT_TOKENS = 10_000
BYTES_PER_TOKEN = 4


def approx_tokens(text: str) -> int:
    return -(-len(text.encode("utf-8")) // BYTES_PER_TOKEN)


def new_chunk_id() -> str:
    return secrets.token_hex(3)


@dataclass(frozen=True, slots=True)
class ExecChunk:
    """One poll's worth of a process: what it printed since the last one, and its state."""

    output: str
    wall_time_s: float
    exit_code: int | None
    session_id: int | None
    chunk_id: str


def _truncated(text: str, max_tokens: int) -> str:
    tokens = approx_tokens(text)
    if tokens <= max_tokens:
        return text
    body = truncate_middle(text, max_tokens * BYTES_PER_TOKEN)
    return (
        f"Warning: truncated output (original token count: {tokens})\n"
        f"Total output lines: {count_lines(text)}\n\n{body}"
    )


def format_chunk(chunk: ExecChunk, max_output_tokens: int) -> str:
    lines = [f"Chunk ID: {chunk.chunk_id}", f"Wall time: {chunk.wall_time_s:.4f} seconds"]
    if chunk.session_id is not None:
        lines.append(f"Process running with session ID {chunk.session_id}")
    else:
        code = chunk.exit_code if chunk.exit_code is not None else -1
        lines.append(f"Process exited with code {code}")
    lines.append(f"Original token count: {approx_tokens(chunk.output)}")
    lines.append("Output:")
    return "\n".join(lines) + "\n" + _truncated(chunk.output, max_output_tokens)
