"""Long-lived processes on pipes or a PTY, shared by the model's unified exec tools and by the
commands a client runs (`command/exec`).

* `process`: `ExecProcess`, one process with bounded, streamed, pollable output, input,
  resizing and a group kill; `spawn`: what it starts and how;
* `store`: `ProcessStore`, the processes a session keeps open for the model, by session id;
* `model_output`: the text a poll returns to the model.

Nothing here knows of tools, approvals or JSON-RPC: callers wrap argv for the sandbox first.
"""

from codex_lsp.engine.unified_exec.model_output import (
    DEFAULT_MAX_OUTPUT_TOKENS,
    ExecChunk,
    approx_tokens,
    format_chunk,
    new_chunk_id,
)
from codex_lsp.engine.unified_exec.process import ExecProcess, OutputListener, Stream
from codex_lsp.engine.unified_exec.spawn import (
    DEFAULT_TERMINAL_SIZE,
    OUTPUT_RETAINED_BYTES,
    ProcessError,
    SpawnSpec,
    StdinClosedError,
    TerminalSize,
)
from codex_lsp.engine.unified_exec.store import (
    MAX_PROCESSES,
    WARNING_PROCESSES,
    ProcessEntry,
    ProcessStore,
    too_many_processes_warning,
)

__all__ = [
    "DEFAULT_MAX_OUTPUT_TOKENS",
    "DEFAULT_TERMINAL_SIZE",
    "MAX_PROCESSES",
    "OUTPUT_RETAINED_BYTES",
    "WARNING_PROCESSES",
    "ExecChunk",
    "ExecProcess",
    "OutputListener",
    "ProcessEntry",
    "ProcessError",
    "ProcessStore",
    "SpawnSpec",
    "StdinClosedError",
    "Stream",
    "TerminalSize",
    "approx_tokens",
    "format_chunk",
    "new_chunk_id",
    "too_many_processes_warning",
]
