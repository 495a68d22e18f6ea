"""`ExecProcess`: real processes on pipes and on a PTY, their output, input, size and end."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from codex_lsp.engine.unified_exec import (
    ExecProcess,
    ProcessError,
    SpawnSpec,
    StdinClosedError,
    TerminalSize,
)

ENV = {**os.environ, "PS1": "$ ", "TERM": "dumb", "LC_ALL": "C.UTF-8"}
# Generous bounds that only turn a hang into a failure; nothing here asserts how long it took.
WAIT_S = 20.0


def spec(argv: list[str], tmp_path: Path, **fields: object) -> SpawnSpec:
    return SpawnSpec(argv=argv, cwd=tmp_path, env=ENV, **fields)  # type: ignore[arg-type]


async def read_until(process: ExecProcess, needle: bytes) -> bytes:
    """Collect output until `needle` shows up (or fail after WAIT_S)."""
    seen = b""
    deadline = time.monotonic() + WAIT_S
    while needle not in seen:
        assert time.monotonic() < deadline, f"never saw {needle!r}; got {seen!r}"
        seen += await process.collect(min(deadline, time.monotonic() + 0.5))
    return seen


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is as good as gone; only a running process counts.
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def ends(pid: int) -> bool:
    """Whether `pid` is gone (a killed process takes a moment to be torn down)."""
    deadline = time.monotonic() + WAIT_S
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


async def test_pipes_keep_streams_apart_and_report_the_exit_code(tmp_path: Path) -> None:
    process = await ExecProcess.spawn(
        spec(["sh", "-c", "echo out; echo err >&2; exit 3"], tmp_path)
    )
    assert await process.wait() == 3
    assert process.stdout().data == b"out\n"
    assert process.stderr().data == b"err\n"
    assert sorted(process.transcript().data.splitlines()) == [b"err", b"out"]
    assert await process.collect(time.monotonic() + WAIT_S) in (b"out\nerr\n", b"err\nout\n")


async def test_collect_returns_what_arrived_since_the_last_collect(tmp_path: Path) -> None:
    process = await ExecProcess.spawn(
        spec(["sh", "-c", "echo one; read _; echo two"], tmp_path, stdin="pipe")
    )
    assert await read_until(process, b"one\n") == b"one\n"
    await process.write(b"go\n")
    assert await read_until(process, b"two\n") == b"two\n"
    assert await process.wait() == 0


async def test_a_pty_process_talks_like_a_terminal(tmp_path: Path) -> None:
    process = await ExecProcess.spawn(
        spec(["bash", "--norc", "--noprofile"], tmp_path, tty=True, size=TerminalSize(30, 100))
    )
    await read_until(process, b"$ ")
    await process.write(b"tty -s && echo is-a-tty; stty size\n")
    out = await read_until(process, b"30 100")
    assert b"is-a-tty" in out
    assert b"\r\n" in out  # the terminal's line discipline, not a pipe
    process.resize(TerminalSize(rows=40, cols=120))
    await process.write(b"stty size\n")
    await read_until(process, b"40 120")
    await process.write(b"exit 5\n")
    assert await process.wait() == 5


async def test_ctrl_c_reaches_the_foreground_job_of_a_pty(tmp_path: Path) -> None:
    process = await ExecProcess.spawn(spec(["bash", "--norc", "--noprofile"], tmp_path, tty=True))
    await read_until(process, b"$ ")
    await process.write(b"sleep 300\n")
    await read_until(process, b"sleep 300")
    await process.write(b"\x03")
    await read_until(process, b"$ ")
    # The shell survives; the sleep died of SIGINT (130).
    await process.write(b"echo status $?\n")
    await read_until(process, b"status 130")
    await process.write(b"exit\n")
    assert await process.wait() == 0


async def test_writing_to_a_process_without_stdin_fails_clearly(tmp_path: Path) -> None:
    process = await ExecProcess.spawn(spec(["sleep", "30"], tmp_path))
    with pytest.raises(StdinClosedError):
        await process.write(b"x")
    with pytest.raises(ProcessError):
        process.resize(TerminalSize(rows=1, cols=1))
    process.terminate()
    await process.wait()


async def test_closing_stdin_ends_a_reader(tmp_path: Path) -> None:
    process = await ExecProcess.spawn(spec(["cat"], tmp_path, stdin="pipe"))
    await process.write(b"hello\n")
    process.close_stdin()
    assert await process.wait() == 0
    assert process.stdout().data == b"hello\n"


async def test_terminate_kills_the_whole_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    process = await ExecProcess.spawn(
        spec(["sh", "-c", f"sleep 300 & echo $! > {pidfile}; wait"], tmp_path)
    )
    deadline = time.monotonic() + WAIT_S
    while not pidfile.exists() or not pidfile.read_text().strip():
        assert time.monotonic() < deadline
        await process.collect(time.monotonic() + 0.05)
    child = int(pidfile.read_text())
    assert alive(child)
    process.terminate()
    assert await process.wait() == 128 + signal.SIGKILL
    assert process.killed
    assert await ends(child)


async def test_what_a_finished_command_left_behind_dies_with_it(tmp_path: Path) -> None:
    # The background sleep keeps stdout open after its parent exits; it must not outlive it.
    pidfile = tmp_path / "child.pid"
    process = await ExecProcess.spawn(
        spec(["sh", "-c", f"sleep 300 & echo $! > {pidfile}; echo started"], tmp_path)
    )
    assert await process.wait() == 0
    assert process.stdout().data == b"started\n"
    assert await ends(int(pidfile.read_text()))


async def test_output_is_capped_head_and_tail(tmp_path: Path) -> None:
    script = "import sys; sys.stdout.write('A' * 100 + 'B' * 5_000_000 + 'Z' * 100)"
    process = await ExecProcess.spawn(
        spec([sys.executable, "-c", script], tmp_path, retained_bytes=64 * 1024)
    )
    assert await process.wait() == 0
    kept = process.stdout()
    assert kept.total_bytes == 5_000_200
    assert kept.retained_bytes == 64 * 1024
    assert kept.data.startswith(b"A" * 100) and kept.data.endswith(b"Z" * 100)
    polled = await process.collect(time.monotonic() + WAIT_S)
    assert len(polled) == 64 * 1024 and polled.endswith(b"Z" * 100)


async def test_a_program_that_cannot_start_is_named(tmp_path: Path) -> None:
    with pytest.raises(ProcessError, match="failed to spawn /nonexistent/tool"):
        await ExecProcess.spawn(spec(["/nonexistent/tool"], tmp_path))
    with pytest.raises(ProcessError, match="must not be empty"):
        await ExecProcess.spawn(spec([], tmp_path))
