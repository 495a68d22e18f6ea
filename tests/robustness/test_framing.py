"""Abused LSP framing: every broken header gets an error at once (nothing hangs silently), and
the stream resynchronises so the client's next well-framed request is answered."""

from __future__ import annotations

import json

import pytest

from tests.robustness.clients import Door

LIMIT = 64 * 1024 * 1024


def _body(msg_id: int) -> bytes:
    message = {"jsonrpc": "2.0", "id": msg_id, "method": "codex/model/list", "params": {}}
    return json.dumps(message).encode()


LOST = _body(4)  # the body that travels with the broken header; it cannot be answered

BROKEN_HEADERS = {
    "Content-Length too small": b"Content-Length: 10\r\n\r\n" + LOST,
    "Content-Length negative": b"Content-Length: -5\r\n\r\n" + LOST,
    "Content-Length twice, differing": (
        b"Content-Length: 10\r\nContent-Length: %d\r\n\r\n" % len(LOST) + LOST
    ),
    "Content-Length missing": (
        b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + LOST
    ),
    "Content-Length not a number": b"Content-Length: twelve\r\n\r\n" + LOST,
    "Content-Length with a sign": b"Content-Length: +%d\r\n\r\n" % len(LOST) + LOST,
    "not a header at all": b"GET / HTTP/1.1\r\n\r\n",
    "a header block over 64 KiB": b"X-Padding: " + b"a" * 70_000 + b"\r\n\r\n" + LOST,
}


@pytest.mark.parametrize("raw", BROKEN_HEADERS.values(), ids=list(BROKEN_HEADERS))
def test_broken_framing_is_reported_and_the_stream_resynchronises(
    shared_lsp: Door, raw: bytes
) -> None:
    shared_lsp.send_bytes(raw)
    error = shared_lsp.next_response()
    assert error["id"] is None and error["error"]["code"] == -32700, error
    shared_lsp.assert_serving()


def test_a_length_over_the_limit_is_refused_with_the_id_and_the_stream_resynchronises(
    shared_lsp: Door,
) -> None:
    shared_lsp.send_bytes(b"Content-Length: 1000000000000\r\n\r\n" + _body(41))
    # The server never waits for the terabyte: the request it can see is refused at once.
    error = shared_lsp.response(41)
    assert error["error"]["code"] == -32600
    assert str(LIMIT) in error["error"]["message"]
    shared_lsp.assert_serving()


def test_a_header_with_bare_line_feeds_is_reported_when_the_next_message_arrives(
    shared_lsp: Door,
) -> None:
    shared_lsp.send_bytes(b"Content-Length: %d\n\n" % len(LOST) + LOST)
    answer_id = shared_lsp.request("model/list", {})
    error = shared_lsp.next_response()
    assert error["id"] is None and error["error"]["code"] == -32700, error
    assert "result" in shared_lsp.response(answer_id)


def test_well_formed_variants_are_accepted(shared_lsp: Door) -> None:
    body = _body(42)
    variants = [
        b"Content-Length: %d\r\nContent-Length: %d\r\n\r\n" % (len(body), len(body)),
        b"content-length:%d\r\nX-Other: 1\r\n\r\n" % len(body),
        b"\r\n\r\nContent-Type: application/vscode-jsonrpc\r\nContent-Length: %d\r\n\r\n"
        % len(body),
    ]
    for header in variants:
        shared_lsp.send_bytes(header + body)
        assert "result" in shared_lsp.next_response(), header
