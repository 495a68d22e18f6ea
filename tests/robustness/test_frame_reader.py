"""The LSP frame reader on its own: the same messages and errors however the input is split
into reads, good and broken frames mixed."""

from __future__ import annotations

import json

import pytest

from codex_lsp.lsp.framing import FrameError, FrameReader


def _frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _body(n: int) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": n, "method": "m", "params": {"n": n}}).encode()


STREAM = b"".join(
    [
        _frame(_body(1)),
        b"Content-Length: 10\r\n\r\n" + _body(2),  # too short: the rest looks like a header
        _frame(_body(3)),
        b"\r\n",
        b"Content-Length: -1\r\n\r\n" + _body(4),
        _frame(_body(5)),
        b"Content-Length: 10\r\nContent-Length: 20\r\n\r\n" + _body(6),
        _frame(_body(7)),
        b"Content-Length: 99999999999\r\n\r\n" + _body(8),
        _frame(_body(9)),
        b"Content-Type: x\r\n\r\n" + _body(10),
        b"content-length: %d\r\nX-Extra: y\r\n\r\n" % len(_body(11)) + _body(11),
    ]
)


async def _outcomes(chunk_size: int) -> list[str]:
    chunks = [STREAM[i : i + chunk_size] for i in range(0, len(STREAM), chunk_size)]

    async def read() -> bytes:
        return chunks.pop(0) if chunks else b""

    reader = FrameReader(read, max_body=1024)
    outcomes: list[str] = []
    while (frame := await reader.next()) is not None:
        if isinstance(frame, FrameError):
            outcomes.append("error")
            continue
        try:
            outcomes.append(f"message {json.loads(frame)['id']}")
        except ValueError:
            outcomes.append("unparseable body")
    return outcomes


@pytest.mark.parametrize("chunk_size", [1, 2, 3, 5, 7, 16, 64, 100, 1000, len(STREAM)])
async def test_every_good_frame_is_read_however_the_input_is_split(chunk_size: int) -> None:
    outcomes = await _outcomes(chunk_size)
    assert [o for o in outcomes if o.startswith("message")] == [
        "message 1",
        "message 3",
        "message 5",
        "message 7",
        "message 9",
        "message 11",
    ]
    assert outcomes == await _outcomes(len(STREAM))
    # Each broken frame was reported: the short one (its body, then its tail), the negative
    # length, the conflicting lengths, the oversized one and the missing length.
    assert outcomes.count("unparseable body") == 1
    assert outcomes.count("error") == 5
