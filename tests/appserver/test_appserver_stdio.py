"""The app-server's line I/O: direct non-blocking writes that fall back to a writer thread
when the client is slow, without losing, doubling or reordering a line, and input that ends
on end of file or when a hang-up descriptor closes."""

from __future__ import annotations

import asyncio
import fcntl
import os
import socket
import threading

import pytest

from codex_lsp.wire.output import HIGH_WATER_BYTES, LOW_WATER_BYTES, OutputWriter
from codex_lsp.wire.stdio import LineReader, OversizedLine

LINES = [b'{"n":%d,"pad":"%s"}\n' % (n, b"x" * (n % 300)) for n in range(5000)]


def _drain(fd: int, into: bytearray, until: int) -> None:
    while len(into) < until:
        data = os.read(fd, 65536)
        if not data:
            return
        into += data


def _pipe() -> tuple[int, int]:
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, True)
    return read_end, write_end


@pytest.mark.parametrize("kind", ["pipe", "socket"])
def test_a_slow_reader_gets_every_line_once_and_in_order(kind: str) -> None:
    if kind == "pipe":
        read_end, write_end = _pipe()
    else:
        left, right = socket.socketpair()
        read_end, write_end = left.detach(), right.detach()
    writer = OutputWriter(write_end)
    # Nobody reads yet: the pipe fills, and later lines must queue behind the first that
    # did not fit rather than overtake it.
    for line in LINES:
        writer.write(line)
    assert writer._thread is not None, "the output filled up, so the thread took over"
    assert writer.backlog() > 0
    received = bytearray()
    expected = b"".join(LINES) + b'{"last":true}\n'
    reader = threading.Thread(target=_drain, args=(read_end, received, len(expected)))
    reader.start()
    writer.write(b'{"last":true}\n')
    writer.close()
    reader.join(10)
    assert bytes(received) == expected
    assert writer.backlog() == 0
    # The descriptor handed in is left as it was: still blocking.
    assert os.get_blocking(write_end)
    os.close(read_end)
    os.close(write_end)


def test_lines_go_straight_out_while_the_client_keeps_up() -> None:
    read_end, write_end = _pipe()
    writer = OutputWriter(write_end)
    for line in LINES[:50]:
        writer.write(line)
        assert os.read(read_end, 65536) == line
    assert writer._thread is None  # no thread was ever needed
    writer.close()
    os.close(read_end)
    os.close(write_end)


def test_a_closed_output_is_reported_once_and_later_lines_dropped(tmp_path) -> None:
    read_end, write_end = _pipe()
    os.close(read_end)
    broken = []
    writer = OutputWriter(write_end, on_broken=lambda: broken.append(True))
    writer.write(b"lost\n")
    writer.write(b"lost too\n")
    writer.close()
    assert writer.broken and broken == [True]
    os.close(write_end)

    # Outputs that are neither pipes nor sockets are written by the thread, in order.
    path = tmp_path / "out.jsonl"
    with open(path, "wb") as out:
        writer = OutputWriter(out)
        for line in LINES[:100]:
            writer.write(line)
        writer.close()
    assert path.read_bytes() == b"".join(LINES[:100])


async def test_input_lines_arrive_until_end_of_file_the_last_one_even_unterminated() -> None:
    read_end, write_end = _pipe()
    reader = LineReader(read_end, asyncio.get_running_loop())
    os.write(write_end, b'{"a":1}\n{"b"')
    assert await reader.readline() == b'{"a":1}\n'
    os.write(write_end, b':2}\n{"c":3}')
    os.close(write_end)
    assert await reader.readline() == b'{"b":2}\n'
    assert await reader.readline() == b'{"c":3}'
    assert await reader.readline() is None
    # Reading never switched the client's descriptor to non-blocking mode.
    assert not fcntl.fcntl(read_end, fcntl.F_GETFL) & os.O_NONBLOCK
    os.close(read_end)


async def test_input_read_before_the_reader_existed_comes_first_and_joins_what_follows() -> None:
    read_end, write_end = _pipe()
    # What an early reader took from the descriptor: a whole line and the start of another.
    reader = LineReader(read_end, asyncio.get_running_loop(), consumed=b'{"a":1}\n{"b"')
    assert await reader.readline() == b'{"a":1}\n'
    os.write(write_end, b":2}\n")
    os.close(write_end)
    assert await reader.readline() == b'{"b":2}\n'
    assert await reader.readline() is None
    os.close(read_end)


async def test_input_ends_when_the_hangup_descriptor_closes() -> None:
    read_end, write_end = _pipe()
    launcher, session = socket.socketpair()
    reader = LineReader(read_end, asyncio.get_running_loop(), hangup=session.fileno())
    os.write(write_end, b'{"a":1}\n')
    assert await reader.readline() == b'{"a":1}\n'
    launcher.close()  # the launcher went away; the client's pipe is still open
    assert await asyncio.wait_for(reader.readline(), 5) is None
    for fd in (read_end, write_end):
        os.close(fd)
    session.close()


async def test_drained_waits_while_the_client_is_far_behind() -> None:
    read_end, write_end = _pipe()
    writer = OutputWriter(write_end)
    line = b"x" * 1023 + b"\n"
    for _ in range(2048):  # 2 MiB, far more than the pipe holds
        writer.write(line)
    assert writer.pending_bytes() > HIGH_WATER_BYTES
    waiting = asyncio.ensure_future(writer.drained())
    await asyncio.sleep(0.05)
    assert not waiting.done(), "nobody read, so the producer must wait"
    received = bytearray()
    reader = threading.Thread(target=_drain, args=(read_end, received, 2048 * 1024))
    reader.start()
    await asyncio.wait_for(waiting, 10)
    assert writer.pending_bytes() <= LOW_WATER_BYTES
    reader.join(10)
    assert bytes(received) == line * 2048
    writer.close()
    os.close(read_end)
    os.close(write_end)


async def test_a_line_over_the_limit_is_skipped_and_the_next_one_is_whole() -> None:
    read_end, write_end = _pipe()
    reader = LineReader(read_end, asyncio.get_running_loop(), max_line=1000)
    long_line = b'{"id": 7, "params": "' + b"y" * 5000 + b'"}\n'

    def feed() -> None:
        for start in range(0, len(long_line), 300):
            os.write(write_end, long_line[start : start + 300])
        os.write(write_end, b'{"ok": true}\n')
        os.close(write_end)

    threading.Thread(target=feed).start()
    skipped = await reader.readline()
    assert isinstance(skipped, OversizedLine)
    assert skipped.size == len(long_line)
    assert skipped.prefix.startswith(b'{"id": 7')
    assert await reader.readline() == b'{"ok": true}\n'
    assert await reader.readline() is None
    os.close(read_end)
