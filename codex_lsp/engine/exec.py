"""Running one command for the engine's shell tools.

`run_exec` starts the command in a session of its own (so its whole process group can be killed),
streams output chunks to a callback as they arrive, keeps only a bounded head and tail of each
stream, and guarantees that on timeout, on cancellation (the engine's interrupt) or when a
grandchild keeps the pipes open, every process the command started is killed.

Stopping is SIGTERM to the group, a grace for the leader to exit, then SIGKILL. A sandboxed
command's leader is the sandbox launcher, which on SIGTERM ends the command's whole tree itself
(processes that left the group included) and exits; the grace is long enough for that.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import anyio
from anyio.abc import ByteReceiveStream, Process

from codex_lsp.engine.exec_output import (
    MODEL_BUDGET_BYTES,
    RETAINED_BYTES_PER_STREAM,
    ExecOutput,
    HeadTailBuffer,
    RetainedOutput,
    format_for_model,
    truncate_middle,
)

__all__ = [
    "DEFAULT_TIMEOUT_MS",
    "MAX_OUTPUT_DELTAS",
    "MODEL_BUDGET_BYTES",
    "RETAINED_BYTES_PER_STREAM",
    "TIMEOUT_EXIT_CODE",
    "ExecOutput",
    "ExecParams",
    "OutputCallback",
    "RetainedOutput",
    "format_for_model",
    "kill_process_group",
    "run_exec",
    "truncate_middle",
]

DEFAULT_TIMEOUT_MS = 10_000
TIMEOUT_EXIT_CODE = 124
# Shells report death by signal N as 128 + N; the model knows that convention.
SIGNAL_EXIT_BASE = 128
# Codex sends at most this many output-delta events per call; a flood would swamp the client.
MAX_OUTPUT_DELTAS = 10_000
READ_CHUNK_BYTES = 8192
# After the command exits, how long a grandchild may keep our pipes open before we kill the group.
DRAIN_GUARD_S = 2.0
# How long the leader gets to exit on SIGTERM before the group gets SIGKILL; the sandbox
# launcher needs a quarter of a second to end a tree that ignores SIGTERM.
TERM_GRACE_S = 1.0
# After SIGKILL, the pipes close at once unless a process escaped the group; don't wait on those.
POST_KILL_DRAIN_S = 0.5

OutputCallback = Callable[[str, bytes], None]


@dataclass(frozen=True)
class ExecParams:
    """One command to run.

    `env` is the child's complete environment (None inherits ours). `timeout_ms=None` means no
    timeout; tool calls that omit a timeout should pass `DEFAULT_TIMEOUT_MS`.
    """

    argv: list[str]
    cwd: Path
    env: dict[str, str] | None = None
    timeout_ms: int | None = DEFAULT_TIMEOUT_MS
    # Descriptors the child inherits: the sandbox launcher's (`PreparedCommand.pass_fds`).
    pass_fds: tuple[int, ...] = ()


def kill_process_group(pid: int, sig: int = signal.SIGKILL) -> None:
    """Send `sig` to the process group led by `pid`; a group that is already gone is fine."""
    # PermissionError: the group id now belongs to someone else's processes, so ours are gone.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


class _Capture:
    """Bounded buffers for both streams plus the capped stream of output deltas."""

    def __init__(self, on_output: OutputCallback | None) -> None:
        self.stdout = HeadTailBuffer()
        self.stderr = HeadTailBuffer()
        self.aggregated = HeadTailBuffer()
        self._on_output = on_output
        self._deltas = 0

    def feed(self, stream: str, chunk: bytes) -> None:
        (self.stdout if stream == "stdout" else self.stderr).write(chunk)
        self.aggregated.write(chunk)
        if self._on_output is not None and self._deltas < MAX_OUTPUT_DELTAS:
            self._deltas += 1
            self._on_output(stream, chunk)


async def _pump(stream: ByteReceiveStream, name: str, capture: _Capture) -> None:
    while True:
        try:
            chunk = await stream.receive(READ_CHUNK_BYTES)
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            return
        capture.feed(name, chunk)


async def _drain(proc: Process, capture: _Capture, done: anyio.Event) -> None:
    assert proc.stdout is not None and proc.stderr is not None
    async with anyio.create_task_group() as tg:
        tg.start_soon(_pump, proc.stdout, "stdout", capture)
        tg.start_soon(_pump, proc.stderr, "stderr", capture)
    done.set()


async def _wait_with_timeout(proc: Process, timeout_ms: int | None) -> bool:
    """Wait for the command to exit; False if the timeout came first."""
    if timeout_ms is None:
        await proc.wait()
        return True
    with anyio.move_on_after(max(timeout_ms, 0) / 1000):
        await proc.wait()
        return True
    return False


async def _terminate_group(proc: Process) -> None:
    kill_process_group(proc.pid, signal.SIGTERM)
    with anyio.move_on_after(TERM_GRACE_S):
        await proc.wait()
    # SIGKILL regardless: grandchildren may ignore SIGTERM even when the leader obeyed it.
    kill_process_group(proc.pid, signal.SIGKILL)
    await proc.wait()


async def _close(proc: Process) -> None:
    """Close our pipe ends and reap the child, never waiting long."""
    with anyio.CancelScope(shield=True), anyio.move_on_after(POST_KILL_DRAIN_S + 1.5):
        await proc.aclose()


def _exit_code(returncode: int | None, timed_out: bool) -> int:
    if timed_out:
        return TIMEOUT_EXIT_CODE
    if returncode is None:
        return -1
    if returncode < 0:
        return SIGNAL_EXIT_BASE - returncode
    return returncode


async def run_exec(params: ExecParams, *, on_output: OutputCallback | None = None) -> ExecOutput:
    """Run `params.argv` to completion (or timeout) and return its bounded output.

    `on_output(stream, chunk)` is called for each chunk read, in order per stream, for at most
    `MAX_OUTPUT_DELTAS` chunks. Raises OSError if the program cannot be started. If the caller is
    cancelled, or `on_output` raises, the command's whole process group is killed first.
    """
    started = time.monotonic()
    # Shielded so a cancel can't land between fork and our holding the pid; it is delivered at
    # the next checkpoint instead, inside the block that kills the group.
    with anyio.CancelScope(shield=True):
        proc = await anyio.open_process(
            params.argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=params.cwd,
            env=params.env,
            start_new_session=True,
            pass_fds=params.pass_fds,
        )
    capture = _Capture(on_output)
    drained = anyio.Event()
    timed_out = False
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(_drain, proc, capture, drained)
            timed_out = not await _wait_with_timeout(proc, params.timeout_ms)
            if timed_out:
                await _terminate_group(proc)
            with anyio.move_on_after(DRAIN_GUARD_S):
                await drained.wait()
            if not drained.is_set():
                # Something the command started still holds stdout/stderr open.
                kill_process_group(proc.pid)
                with anyio.move_on_after(POST_KILL_DRAIN_S):
                    await drained.wait()
            # A process that left the group can hold the pipes forever; stop reading them.
            tg.cancel_scope.cancel()
    except BaseException as exc:
        with anyio.CancelScope(shield=True):
            await _terminate_group(proc)
        await _close(proc)
        # A failing on_output surfaces wrapped in (nested) task-group groups; unwrap it so
        # callers see the error they raised.
        leaf: BaseException = exc
        while isinstance(leaf, BaseExceptionGroup) and len(leaf.exceptions) == 1:
            leaf = leaf.exceptions[0]
        if leaf is not exc:
            raise leaf from exc
        raise
    await _close(proc)
    return ExecOutput(
        exit_code=_exit_code(proc.returncode, timed_out),
        stdout=capture.stdout.snapshot(),
        stderr=capture.stderr.snapshot(),
        aggregated=capture.aggregated.snapshot(),
        duration_s=time.monotonic() - started,
        timed_out=timed_out,
        timeout_ms=params.timeout_ms,
    )
