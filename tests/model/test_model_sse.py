"""SSE parsing and retry arithmetic: the pure pieces under the model client."""

from __future__ import annotations

import json
import time
from email.utils import formatdate

import pytest

from codex_lsp.model import SseMessage, SseParser, backoff_delay, parse_retry_after, parse_try_again


def feed_all(chunks: list[bytes]) -> list[SseMessage]:
    parser = SseParser()
    out: list[SseMessage] = []
    for chunk in chunks:
        out.extend(parser.feed(chunk))
    out.extend(parser.close())
    return out


STREAM = (
    b": keep-alive comment\n"
    b"event: response.created\n"
    b'data: {"type":"response.created"}\n'
    b"\n"
    b"event: response.output_text.delta\n"
    b'data: {"type":"response.output_text.delta",\n'
    b'data: "delta":"h\xc3\xa9llo"}\n'
    b"\n"
    b"data: no event name\n"
    b"\n"
)
EXPECTED = [
    SseMessage("response.created", '{"type":"response.created"}'),
    SseMessage(
        "response.output_text.delta",
        '{"type":"response.output_text.delta",\n"delta":"héllo"}',
    ),
    SseMessage("message", "no event name"),
]


def test_whole_stream_in_one_chunk() -> None:
    assert feed_all([STREAM]) == EXPECTED
    assert json.loads(EXPECTED[1].data)["delta"] == "héllo"


@pytest.mark.parametrize("newline", [b"\n", b"\r\n", b"\r"])
def test_every_split_point_and_line_ending_gives_the_same_messages(newline: bytes) -> None:
    stream = STREAM.replace(b"\n", newline)
    for cut in range(1, len(stream)):
        assert feed_all([stream[:cut], stream[cut:]]) == EXPECTED, f"cut at {cut}"


def test_byte_by_byte_crlf() -> None:
    stream = STREAM.replace(b"\n", b"\r\n")
    assert feed_all([stream[i : i + 1] for i in range(len(stream))]) == EXPECTED


def test_crlf_split_between_chunks_is_one_line_end_not_two() -> None:
    # A CR at the end of one chunk and LF at the start of the next must not dispatch early.
    parser = SseParser()
    assert parser.feed(b"data: a\r") == []
    assert parser.feed(b"\ndata: b\r") == []
    assert parser.feed(b"\n\r\n") == [SseMessage("message", "a\nb")]


def test_no_space_after_colon_and_field_without_value() -> None:
    assert feed_all([b"data:x\ndata\n\n"]) == [SseMessage("message", "x\n")]


def test_id_is_kept_and_event_name_resets_after_dispatch() -> None:
    msgs = feed_all([b"id: 7\nevent: a\ndata: 1\n\ndata: 2\n\n"])
    assert msgs == [SseMessage("a", "1", "7"), SseMessage("message", "2", "7")]


def test_blank_lines_without_data_dispatch_nothing() -> None:
    assert feed_all([b"\n\n: ping\n\nevent: lonely\n\n"]) == []


def test_unterminated_message_at_close_is_dropped() -> None:
    # A connection cut mid-message must not look like a complete message.
    assert feed_all([b"data: complete\n\ndata: trunc"]) == [SseMessage("message", "complete")]
    assert feed_all([b"data: complete\n\ndata: whole line but no blank\n"]) == [
        SseMessage("message", "complete")
    ]


def test_leading_bom_is_ignored() -> None:
    assert feed_all([b"\xef\xbb", b"\xbfdata: x\n\n"]) == [SseMessage("message", "x")]


def test_large_event_split_across_many_chunks() -> None:
    payload = json.dumps({"delta": "x" * 200_000})
    stream = f"data: {payload}\n\n".encode()
    chunks = [stream[i : i + 1000] for i in range(0, len(stream), 1000)]
    assert feed_all(chunks) == [SseMessage("message", payload)]


def test_backoff_doubles_from_200ms_with_ten_percent_jitter() -> None:
    for attempt, base in [(1, 0.2), (2, 0.4), (3, 0.8), (5, 3.2)]:
        for _ in range(50):
            assert base * 0.9 <= backoff_delay(attempt) <= base * 1.1


def test_parse_retry_after_seconds_date_and_garbage() -> None:
    assert parse_retry_after({"Retry-After": "1.5"}) == 1.5
    assert parse_retry_after({"retry-after": "0"}) == 0.0
    assert parse_retry_after({}) is None
    assert parse_retry_after({"retry-after": "soon"}) is None
    future = formatdate(time.time() + 120, usegmt=True)
    assert 100 < parse_retry_after({"retry-after": future}) <= 121
    past = formatdate(time.time() - 120, usegmt=True)
    assert parse_retry_after({"retry-after": past}) == 0.0


@pytest.mark.parametrize(
    ("message", "seconds"),
    [
        ("Rate limit reached. Please try again in 1.5s.", 1.5),
        ("Please TRY AGAIN IN 250ms", 0.25),
        ("try again in 3 seconds", 3.0),
        ("try again in 1 second", 1.0),
        ("try again later", None),
        ("", None),
        (None, None),
    ],
)
def test_parse_try_again(message: str | None, seconds: float | None) -> None:
    assert parse_try_again(message) == seconds


def test_short_first_chunks_are_not_mistaken_for_a_bom() -> None:
    assert feed_all([b"\n", b"\ndata: x\n", b"\n"]) == [SseMessage("message", "x")]
    assert feed_all([b"\xef", b"\xbb", b"\xbf", b"data: y\n\n"]) == [SseMessage("message", "y")]
