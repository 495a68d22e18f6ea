"""One long-lived process on pipes or a pseudo-terminal, its output kept and streamed.

`ExecProcess.spawn` starts an argv (already wrapped by the sandbox when it must be) in a
session and process group of its own, so the whole group can be killed. With `tty=True` the
child gets a fresh PTY as its controlling terminal (so Ctrl-C written to it interrupts the
foreground job, and programs see a terminal); otherwise stdout and stderr are pipes and stdin
is either `/dev/null` or a pipe the owner may write to.

Output is read as it arrives and goes three ways: to listeners (live deltas), to a pending
buffer a poller drains (`collect`), and to bounded head-and-tail transcripts of each stream and
of both together. Every buffer is capped, so a process printing gigabytes costs constant memory.

When the process exits, whatever it started is given a moment to release the output, then its
process group is killed: nothing a command starts outlives it. `terminate` kills the group at
once. The module knows nothing of tools, approvals or JSON-RPC.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from codex_lsp.engine.exec import TERM_GRACE_S, kill_process_group
from codex_lsp.engine.exec_output import HeadTailBuffer, RetainedOutput
from codex_lsp.engine.unified_exec.spawn import (
    ProcessError,
    SpawnSpec,
    StdinClosedError,
    TerminalSize,
    child_setup,
    exit_code,
    set_winsize,
)
from codex_lsp.sandbox import STOP_NOW_SIGNAL

log = logging.getLogger(__name__)

__all__ = ["ExecProcess", "OutputListener", "Stream"]

Stream = Literal["stdout", "stderr"]
OutputListener = Callable[[Stream, bytes], None]

READ_CHUNK_BYTES = 64 * 1024
# After the process exits, how long what it started may keep the output open before the
# group is killed; output written in that window is still read.
DRAIN_GUARD_S = 2.0
# Once the process has exited, a poller waits at most this long for the last bytes.
POST_EXIT_CLOSE_WAIT_S = 0.05


@dataclass
class _Output:
    """Everything read so far, bounded."""

    cap: int
    pending: HeadTailBuffer = field(init=False)
    stdout: HeadTailBuffer = field(init=False)
    stderr: HeadTailBuffer = field(init=False)
    aggregated: HeadTailBuffer = field(init=False)

    def __post_init__(self) -> None:
        self.pending = HeadTailBuffer(self.cap)
        self.stdout = HeadTailBuffer(self.cap)
        self.stderr = HeadTailBuffer(self.cap)
        self.aggregated = HeadTailBuffer(self.cap)

    def feed(self, stream: Stream, chunk: bytes) -> None:
        self.pending.write(chunk)
        (self.stdout if stream == "stdout" else self.stderr).write(chunk)
        self.aggregated.write(chunk)

    def drain(self) -> bytes:
        """What arrived since the last drain (its middle dropped if it passed the cap)."""
        taken = self.pending.snapshot().data
        self.pending = HeadTailBuffer(self.cap)
        return taken


class ExecProcess:
    """A started process; create with `await ExecProcess.spawn(spec)`."""

    def __init__(self, spec: SpawnSpec) -> None:
        self.spec = spec
        self.tty = spec.tty
        self.started_at = time.monotonic()
        self._output = _Output(spec.retained_bytes)
        self._listeners: list[OutputListener] = []
        self._readers: dict[int, Stream] = {}
        self._stdin_fd: int | None = None
        self._pty_fd: int | None = None
        self._proc: asyncio.subprocess.Process | None = None
        self._changed = asyncio.Event()
        self._exited = asyncio.Event()
        self._closed = asyncio.Event()
        self._supervisor: asyncio.Task[None] | None = None
        self._killed = False
        self.ended_at: float | None = None

    # -- starting ---------------------------------------------------------------------------

    @classmethod
    async def spawn(cls, spec: SpawnSpec) -> ExecProcess:
        """Start `spec.argv`; raises `ProcessError` (naming the program) if it cannot start."""
        if not spec.argv:
            raise ProcessError("command must not be empty")
        process = cls(spec)
        await process._start()
        return process

    async def _start(self) -> None:
        spec = self.spec
        parent_fds: list[int] = []
        child_fds: list[int] = []
        try:
            if spec.tty:
                master, slave = os.openpty()
                parent_fds.append(master)
                child_fds.append(slave)
                set_winsize(master, spec.size)
                stdin_arg: int = slave
                stdout_arg, stderr_arg = slave, slave
                self._pty_fd = master
                self._readers[master] = "stdout"
            else:
                out_r, out_w = os.pipe()
                err_r, err_w = os.pipe()
                parent_fds += [out_r, err_r]
                child_fds += [out_w, err_w]
                stdout_arg, stderr_arg = out_w, err_w
                self._readers[out_r] = "stdout"
                self._readers[err_r] = "stderr"
                if spec.stdin == "pipe":
                    in_r, in_w = os.pipe()
                    parent_fds.append(in_w)
                    child_fds.append(in_r)
                    stdin_arg = in_r
                    self._stdin_fd = in_w
                else:
                    stdin_arg = subprocess.DEVNULL
            self._proc = await asyncio.create_subprocess_exec(
                *spec.argv,
                stdin=stdin_arg,
                stdout=stdout_arg,
                stderr=stderr_arg,
                cwd=spec.cwd,
                env=dict(spec.env),
                start_new_session=True,
                pass_fds=spec.pass_fds,
                preexec_fn=child_setup(spec),
            )
        except (OSError, subprocess.SubprocessError) as err:
            for fd in parent_fds:
                os.close(fd)
            reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
            raise ProcessError(f"failed to spawn {spec.argv[0]}: {reason}") from err
        finally:
            for fd in child_fds:
                os.close(fd)
        loop = asyncio.get_running_loop()
        for fd in self._readers:
            os.set_blocking(fd, False)
            loop.add_reader(fd, self._on_readable, fd)
        if self._stdin_fd is not None:
            os.set_blocking(self._stdin_fd, False)
        self._supervisor = loop.create_task(self._supervise())

    # -- output -----------------------------------------------------------------------------

    def add_listener(self, listener: OutputListener) -> None:
        """Call `listener(stream, chunk)` for every chunk read from now on."""
        self._listeners.append(listener)

    def remove_listener(self, listener: OutputListener) -> None:
        with contextlib.suppress(ValueError):
            self._listeners.remove(listener)

    def _on_readable(self, fd: int) -> None:
        try:
            chunk = os.read(fd, READ_CHUNK_BYTES)
        except BlockingIOError:
            return
        except OSError as err:
            # A PTY master reports EIO once every holder of the terminal is gone; any other
            # error also ends this stream rather than leave a reader spinning on it.
            if err.errno not in (errno.EIO, errno.EBADF):
                log.warning("reading process output failed: %s", err)
            chunk = b""
        if not chunk:
            self._close_reader(fd)
            return
        stream = self._readers[fd]
        self._output.feed(stream, chunk)
        for listener in list(self._listeners):
            try:
                listener(stream, chunk)
            except Exception:  # One listener's bug must not stop the output for the others.
                log.exception("an output listener failed")
        self._changed.set()

    def _close_reader(self, fd: int) -> None:
        if self._readers.pop(fd, None) is None:
            return
        asyncio.get_running_loop().remove_reader(fd)
        os.close(fd)
        if fd == self._pty_fd:
            self._pty_fd = None
        if not self._readers:
            self._closed.set()
        self._changed.set()

    def _close_all_readers(self) -> None:
        for fd in list(self._readers):
            self._close_reader(fd)

    async def collect(self, deadline: float) -> bytes:
        """Output since the last collect, gathered until the monotonic `deadline`, or until the
        process has exited and its output closed (waiting briefly for the last bytes)."""
        collected = bytearray()
        post_exit_deadline: float | None = None
        while True:
            self._changed.clear()
            chunk = self._output.drain()
            if chunk:
                collected += chunk
                if time.monotonic() >= deadline:
                    break
                continue
            if self._exited.is_set() and self._closed.is_set():
                break
            now = time.monotonic()
            if now >= deadline:
                break
            wait_until = deadline
            if self._exited.is_set():
                if post_exit_deadline is None:
                    post_exit_deadline = min(deadline, now + POST_EXIT_CLOSE_WAIT_S)
                if now >= post_exit_deadline:
                    break
                wait_until = post_exit_deadline
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), wait_until - now)
        return bytes(collected)

    def transcript(self) -> RetainedOutput:
        """Both streams interleaved as they arrived (bounded)."""
        return self._output.aggregated.snapshot()

    def stdout(self) -> RetainedOutput:
        return self._output.stdout.snapshot()

    def stderr(self) -> RetainedOutput:
        return self._output.stderr.snapshot()

    # -- input ------------------------------------------------------------------------------

    async def write(self, data: bytes) -> None:
        """Send `data` to the terminal or the stdin pipe."""
        fd = self._pty_fd if self.tty else self._stdin_fd
        if fd is None:
            raise StdinClosedError("stdin is closed")
        view = memoryview(data)
        loop = asyncio.get_running_loop()
        while view:
            try:
                written = os.write(fd, view)
            except BlockingIOError:
                ready = loop.create_future()
                loop.add_writer(fd, ready.set_result, None)
                try:
                    await ready
                finally:
                    loop.remove_writer(fd)
                continue
            except OSError as err:
                raise StdinClosedError(f"stdin is closed ({err.strerror})") from err
            view = view[written:]

    def close_stdin(self) -> None:
        """Close the stdin pipe (the program reads end-of-file); a terminal sends ^D instead."""
        if self.tty:
            raise ProcessError("a terminal has no stdin pipe to close")
        if self._stdin_fd is not None:
            os.close(self._stdin_fd)
            self._stdin_fd = None

    def resize(self, size: TerminalSize) -> None:
        if not self.tty:
            raise ProcessError("only a process started with a terminal can be resized")
        fd = self._pty_fd
        if fd is None:
            raise ProcessError("the terminal is closed")
        set_winsize(fd, size)
        if self._proc is not None and not self._exited.is_set():
            # Programs redraw on SIGWINCH; the kernel sends it only to the foreground group.
            kill_process_group(self._proc.pid, signal.SIGWINCH)

    # -- lifetime ---------------------------------------------------------------------------

    @property
    def pid(self) -> int:
        assert self._proc is not None
        return self._proc.pid

    @property
    def has_exited(self) -> bool:
        return self._exited.is_set()

    @property
    def exit_code(self) -> int | None:
        return exit_code(self._proc.returncode) if self._proc is not None else None

    @property
    def killed(self) -> bool:
        """Whether `terminate` ended it (rather than its own exit)."""
        return self._killed

    async def _supervise(self) -> None:
        proc = self._proc
        assert proc is not None
        try:
            await proc.wait()
            self.ended_at = time.monotonic()
            self._exited.set()
            self._changed.set()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closed.wait(), DRAIN_GUARD_S)
        finally:
            # What the command started dies with it, and so does its hold on our pipes.
            kill_process_group(proc.pid)
            if self.ended_at is None:
                self.ended_at = time.monotonic()
            self._close_all_readers()
            if self._stdin_fd is not None:
                with contextlib.suppress(OSError):
                    os.close(self._stdin_fd)
                self._stdin_fd = None
            self._closed.set()
            self._changed.set()

    def terminate(self) -> None:
        """Kill the process and everything in its group now; `wait` sees it end."""
        if self._proc is None or (self._closed.is_set() and self._exited.is_set()):
            return
        self._killed = not self._exited.is_set()
        if self.spec.sandboxed and self._killed:
            # The launcher kills the tree, processes that left the group included, and dies
            # as the command did; a SIGKILL of it would leave those behind where the kernel
            # gave it no PID namespace. The group's SIGKILL stays as the backstop.
            with contextlib.suppress(ProcessLookupError):
                os.kill(self._proc.pid, STOP_NOW_SIGNAL)
            asyncio.get_running_loop().call_later(TERM_GRACE_S, self._kill_if_running)
            return
        # The leader heads its own group, so this reaches it too. (Popen.kill would reap it
        # behind asyncio's back, which then reports exit code 255.)
        kill_process_group(self._proc.pid)

    def _kill_if_running(self) -> None:
        if self._proc is not None and not self._exited.is_set():
            kill_process_group(self._proc.pid)

    async def wait(self) -> int:
        """Wait until the process has exited and its output is closed; its exit code."""
        assert self._supervisor is not None
        await asyncio.shield(self._supervisor)
        code = self.exit_code
        return code if code is not None else -1

    async def wait_exit(self) -> None:
        """Wait until the process itself has exited (its output may still be draining)."""
        await self._exited.wait()
