"""run_exec against real processes: streaming, exit codes, bounded capture, timeouts, kills."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from codex_lsp.engine.exec import (
    MAX_OUTPUT_DELTAS,
    RETAINED_BYTES_PER_STREAM,
    TIMEOUT_EXIT_CODE,
    ExecParams,
    format_for_model,
    kill_process_group,
    run_exec,
)

# Generous upper bound so a broken implementation fails instead of hanging the suite.
HANG_GUARD_S = 30


def _proc_state(pid: int) -> str | None:
    """The /proc state letter of `pid`, or None if there is no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return stat.rsplit(")", 1)[1].split()[0]


def _alive(pid: int) -> bool:
    # A zombie has already died; it only waits for a parent (maybe a non-reaping init) to reap it.
    return _proc_state(pid) not in (None, "Z", "X")


def _group_members(pgid: int) -> list[int]:
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            members.append(int(entry.name))
    return members


async def _eventually_dead(pids: list[int]) -> list[int]:
    """Pids still alive after giving SIGKILL a moment to land."""
    with anyio.move_on_after(5):
        while any(_alive(p) for p in pids):
            await anyio.sleep(0.02)
    return [p for p in pids if _alive(p)]


@pytest.fixture
def spawned() -> Iterator[list[int]]:
    """Pids a test saw; anything left is killed so a failing test leaves no sleepers."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


def bash(script: str, cwd: Path, **kw: object) -> ExecParams:
    return ExecParams(argv=["bash", "-c", script], cwd=cwd, **kw)  # type: ignore[arg-type]


async def test_streams_output_in_order(tmp_path: Path) -> None:
    chunks: list[tuple[str, bytes]] = []
    script = "for i in $(seq 1 2000); do echo line $i; echo err $i >&2; done"
    with anyio.fail_after(HANG_GUARD_S):
        out = await run_exec(bash(script, tmp_path), on_output=lambda s, c: chunks.append((s, c)))
    expected_out = "".join(f"line {i}\n" for i in range(1, 2001))
    expected_err = "".join(f"err {i}\n" for i in range(1, 2001))
    assert b"".join(c for s, c in chunks if s == "stdout").decode() == expected_out
    assert b"".join(c for s, c in chunks if s == "stderr").decode() == expected_err
    assert out.stdout.text() == expected_out
    assert out.stderr.text() == expected_err
    assert out.stdout.total_lines == 2000
    assert not out.stdout.truncated
    # Interleaved capture holds everything from both streams.
    assert sorted(out.aggregated_output.splitlines()) == sorted(
        expected_out.splitlines() + expected_err.splitlines()
    )
    assert out.exit_code == 0
    assert not out.timed_out


@pytest.mark.parametrize(
    ("script", "code"),
    [("true", 0), ("exit 3", 3), ("exit 255", 255), ("kill -TERM $$", 128 + 15)],
)
async def test_exit_codes(tmp_path: Path, script: str, code: int) -> None:
    out = await run_exec(bash(script, tmp_path))
    assert out.exit_code == code


async def test_cwd_env_and_stdin(tmp_path: Path) -> None:
    env = {"PATH": os.environ["PATH"], "GREETING": "hi there"}
    # `cat` with no file reads stdin, which must be /dev/null (immediate EOF), never our tty.
    out = await run_exec(bash('pwd; echo "$GREETING"; cat; echo end', tmp_path, env=env))
    assert out.stdout.text() == f"{tmp_path}\nhi there\nend\n"


async def test_missing_program_raises(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        await run_exec(ExecParams(argv=["definitely-not-a-program-xyz"], cwd=tmp_path))


async def test_hundred_megabytes_keeps_head_and_tail(tmp_path: Path) -> None:
    calls = 0

    def count(_stream: str, _chunk: bytes) -> None:
        nonlocal calls
        calls += 1

    script = "head -c 100000000 /dev/zero | tr '\\0' 'a'; printf '\\nlast line\\n'"
    with anyio.fail_after(120):
        out = await run_exec(bash(script, tmp_path, timeout_ms=120_000), on_output=count)
    assert out.exit_code == 0
    total = 100_000_000 + len("\nlast line\n")
    assert out.stdout.total_bytes == total
    assert out.stdout.total_lines == 2
    assert out.stdout.truncated
    assert out.stdout.retained_bytes <= RETAINED_BYTES_PER_STREAM
    assert len(out.stdout.head) == RETAINED_BYTES_PER_STREAM // 2
    assert set(out.stdout.head) == {ord("a")}
    assert out.stdout.tail.endswith(b"aaa\nlast line\n")
    assert out.aggregated.retained_bytes <= RETAINED_BYTES_PER_STREAM
    assert out.aggregated.total_bytes == total
    # 100 MB arrives in far more than 10 000 reads; the delta stream stops at the cap.
    assert calls == MAX_OUTPUT_DELTAS
    text = format_for_model(out)
    # Truncation left both lines visible, so no `Total output lines` header.
    assert "Total output lines" not in text
    # 20 000 bytes kept from each end of the 40 000-byte budget; the marker counts the rest.
    assert f"…{-(-(total - 40_000) // 4)} tokens truncated…" in text
    assert len(text.encode()) < 41_000
    assert text.endswith("aaa\nlast line\n")


async def test_many_lines_counted(tmp_path: Path) -> None:
    out = await run_exec(bash("yes | head -c 20000000", tmp_path, timeout_ms=60_000))
    assert out.stdout.total_bytes == 20_000_000
    assert out.stdout.total_lines == 10_000_000
    assert out.stdout.head.startswith(b"y\ny\n")
    assert out.stdout.tail.endswith(b"y\ny\n")
    assert "Total output lines: 10000000\n" in format_for_model(out)


async def test_timeout_kills_process_group(tmp_path: Path, spawned: list[int]) -> None:
    script = "sleep 100 & echo $!; echo started >&2; sleep 100"
    with anyio.fail_after(HANG_GUARD_S):
        out = await run_exec(bash(script, tmp_path, timeout_ms=300))
    grandchild = int(out.stdout.text().split()[0])
    spawned.append(grandchild)
    assert out.timed_out
    assert out.exit_code == TIMEOUT_EXIT_CODE
    assert out.aggregated_output.startswith("command timed out after 300 milliseconds\n")
    assert await _eventually_dead([grandchild]) == []
    formatted = format_for_model(out)
    assert formatted.startswith("Exit code: 124\n")
    assert "Output:\ncommand timed out after 300 milliseconds\n" in formatted


async def test_timeout_kills_children_that_ignore_sigterm(
    tmp_path: Path, spawned: list[int]
) -> None:
    script = "trap '' TERM; (trap '' TERM; sleep 100) & echo $!; sleep 100"
    with anyio.fail_after(HANG_GUARD_S):
        out = await run_exec(bash(script, tmp_path, timeout_ms=300))
    pid = int(out.stdout.text().split()[0])
    spawned.append(pid)
    assert out.exit_code == TIMEOUT_EXIT_CODE
    assert await _eventually_dead([pid]) == []


async def _start_and_collect_pids(tmp_path: Path, ready: anyio.Event, pids: list[int]) -> None:
    seen = bytearray()

    def on_output(_stream: str, chunk: bytes) -> None:
        seen.extend(chunk)
        numbers = seen.decode().split()
        if len(numbers) >= 2 and not ready.is_set():
            pids.extend(int(n) for n in numbers[:2])
            ready.set()

    # `$$` is the group leader (its own session); `$!` the background sleep.
    script = "sleep 100 & echo $!; echo $$; sleep 100"
    await run_exec(bash(script, tmp_path, timeout_ms=None), on_output=on_output)


async def test_cancel_scope_kills_process_group(tmp_path: Path, spawned: list[int]) -> None:
    ready = anyio.Event()
    with anyio.fail_after(HANG_GUARD_S):
        async with anyio.create_task_group() as tg:
            tg.start_soon(_start_and_collect_pids, tmp_path, ready, spawned)
            await ready.wait()
            leader = spawned[1]
            assert len(_group_members(leader)) >= 2
            tg.cancel_scope.cancel()
    assert await _eventually_dead(spawned) == []
    assert _group_members(leader) == []


async def test_asyncio_task_cancel_kills_process_group(tmp_path: Path, spawned: list[int]) -> None:
    ready = anyio.Event()
    task = asyncio.ensure_future(_start_and_collect_pids(tmp_path, ready, spawned))
    with anyio.fail_after(HANG_GUARD_S):
        await ready.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert await _eventually_dead(spawned) == []
    assert _group_members(spawned[1]) == []


async def test_grandchild_holding_pipes_does_not_hang(tmp_path: Path, spawned: list[int]) -> None:
    # The shell exits at once, but the background sleep inherited stdout and stderr.
    script = "sleep 100 & echo $!; echo done"
    with anyio.fail_after(HANG_GUARD_S):
        out = await run_exec(bash(script, tmp_path, timeout_ms=60_000))
    pid = int(out.stdout.text().split()[0])
    spawned.append(pid)
    assert out.exit_code == 0
    assert not out.timed_out
    assert out.stdout.text().endswith("done\n")
    assert await _eventually_dead([pid]) == []


async def test_process_escaping_the_group_does_not_hang(tmp_path: Path, spawned: list[int]) -> None:
    # setsid puts the sleep in a new group, out of reach of the group kill, pipes still open.
    script = "setsid sleep 100 & echo $!; echo done"
    with anyio.fail_after(HANG_GUARD_S):
        out = await run_exec(bash(script, tmp_path, timeout_ms=60_000))
    spawned.append(int(out.stdout.text().split()[0]))
    assert out.exit_code == 0
    assert out.stdout.text().endswith("done\n")


async def test_callback_error_kills_command(tmp_path: Path, spawned: list[int]) -> None:
    def boom(_stream: str, chunk: bytes) -> None:
        spawned.extend(int(n) for n in chunk.split())
        raise ValueError("client went away")

    with anyio.fail_after(HANG_GUARD_S), pytest.raises(ValueError, match="client went away"):
        await run_exec(
            bash("sleep 100 & echo $!; sleep 100", tmp_path, timeout_ms=None), on_output=boom
        )
    assert await _eventually_dead(spawned) == []


async def test_kill_process_group_tolerates_missing_group() -> None:
    proc = await anyio.open_process(["true"], start_new_session=True)
    await proc.wait()
    await proc.aclose()
    kill_process_group(proc.pid)  # already gone: no error
