"""Escape 4: processes outliving the command.

`setsid nohup …` kept running after the turn, after the timeout and after the server
exited, which is what let a leftover process race the engine's own writes. Nothing a
command starts may outlive it: its end, its timeout and an interrupt end the whole tree,
including processes that left its process group and session.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from codex_lsp.engine.exec import ExecOutput, ExecParams, OutputCallback, run_exec
from codex_lsp.engine.unified_exec import ExecProcess, SpawnSpec
from tests.sandbox.helpers import wrap
from tests.sandbox.lifetime import escaping_script, kill_survivors, lock_is_released

# Passes on the launcher's descriptors, as the server does.
SERVER = "import subprocess, sys; subprocess.call(sys.argv[1:], close_fds=False)"


@pytest.fixture
def lock(ws: Path) -> Iterator[tuple[Path, Path]]:
    # In `src/`: with Landlock alone the workspace's top level takes no new entries.
    lock, ready = ws / "src" / "holder.lock", ws / "src" / "holder.ready"
    lock.touch()
    yield lock, ready
    kill_survivors(str(lock))


async def _run(
    ws: Path, mode: str, script: str, timeout_ms: int, on_output: OutputCallback | None = None
) -> ExecOutput:
    with wrap(["bash", "-c", script], ws, mode) as wrapped:
        params = ExecParams(
            argv=wrapped.argv,
            cwd=ws,
            env=wrapped.env,
            timeout_ms=timeout_ms,
            pass_fds=wrapped.pass_fds,
        )
        return await run_exec(params, on_output=on_output)


async def test_the_end_of_the_command_ends_its_tree(
    ws: Path, lock: tuple[Path, Path], mode: str
) -> None:
    script = escaping_script(sys.executable, *lock, then="exit 0")
    output = await _run(ws, mode, script, 120_000)
    assert output.exit_code == 0, output.aggregated_output
    assert "ready" in output.aggregated_output
    assert lock_is_released(lock[0]), "the setsid'd process outlived its command"


async def test_the_timeout_ends_the_tree(ws: Path, lock: tuple[Path, Path], mode: str) -> None:
    script = escaping_script(sys.executable, *lock, then="sleep 600")
    output = await _run(ws, mode, script, 5_000)
    assert output.timed_out
    assert lock[1].read_text() == "locked"  # it did start before the timeout
    assert lock_is_released(lock[0]), "the setsid'd process outlived the timeout"


async def test_an_interrupt_ends_the_tree(ws: Path, lock: tuple[Path, Path], mode: str) -> None:
    script = escaping_script(sys.executable, *lock, then="sleep 600")
    started = anyio.Event()

    def on_output(_stream: str, chunk: bytes) -> None:
        if b"ready" in chunk:
            started.set()

    async with anyio.create_task_group() as tg:

        async def command() -> None:
            await _run(ws, mode, script, 600_000, on_output)

        tg.start_soon(command)
        await started.wait()
        tg.cancel_scope.cancel()  # what the engine's interrupt does to a running tool
    assert lock_is_released(lock[0]), "the setsid'd process outlived the interrupt"


def test_the_server_exiting_ends_the_tree(ws: Path, lock: tuple[Path, Path], mode: str) -> None:
    script = escaping_script(sys.executable, *lock, then="sleep 600")
    wrapped = wrap(["bash", "-c", script], ws, mode)
    # Stands in for the server: it starts the command and is then killed outright.
    with wrapped:
        server = subprocess.Popen(
            [sys.executable, "-c", SERVER, *wrapped.argv],
            env=wrapped.env,
            cwd=ws,
            stdout=subprocess.PIPE,
            start_new_session=True,
            pass_fds=wrapped.pass_fds,
        )
    try:
        assert server.stdout is not None
        assert server.stdout.readline() == b"ready\n"
        os.kill(server.pid, signal.SIGKILL)
        server.wait()
        assert lock_is_released(lock[0]), "the setsid'd process outlived the server"
    finally:
        server.stdout.close()


@pytest.mark.parametrize("pid_namespace", [True, False], ids=["pidns", "no-pidns"])
async def test_killing_a_terminal_session_ends_the_tree(
    ws: Path, lock: tuple[Path, Path], mode: str, pid_namespace: bool
) -> None:
    """What an interrupt, `command/exec/terminate` and a pruned session do to a process that
    `exec_command` or `command/exec` started, also where the kernel gives no PID namespace
    (a SIGKILL of the launcher would then leave what left the session behind)."""
    script = escaping_script(sys.executable, *lock, then="sleep 600")
    disabled = ("mountns," if mode == "landlock-only" else "") + "pidns"
    extra = {} if pid_namespace else {"CODEX_LSP_SANDBOX_DISABLE": disabled}
    with wrap(["bash", "-c", script], ws, mode, env=extra) as wrapped:
        spec = SpawnSpec(
            argv=wrapped.argv,
            cwd=ws,
            env=wrapped.env,
            sandboxed=True,
            pass_fds=wrapped.pass_fds,
        )
        process = await ExecProcess.spawn(spec)
    seen, deadline = b"", time.monotonic() + 60
    while b"ready" not in seen and time.monotonic() < deadline:
        seen += await process.collect(time.monotonic() + 0.5)
    assert b"ready" in seen, seen
    process.terminate()
    # Killed, as a SIGKILL would have it (the exit code clients see for a terminated command).
    assert await process.wait() == 128 + signal.SIGKILL
    assert process.killed
    assert lock_is_released(lock[0]), "the setsid'd process outlived the killed session"
