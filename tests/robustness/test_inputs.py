"""Every class of bad input, to both doors: each gets a JSON-RPC error, and the server keeps
answering normal requests afterwards."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from tests.robustness.clients import Door

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
LIMIT = 64 * 1024 * 1024


def _deep(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def _with_deep_params(door: Door, msg_id: int, depth: int) -> bytes:
    body = door.message({"id": msg_id, "method": door.method("model/list"), "params": "DEEP"})
    return body.replace(b'"DEEP"', b'{"filter": ' + _deep(depth) + b"}")


@dataclass(frozen=True)
class Case:
    name: str
    body: Callable[[Door], bytes]
    code: int
    msg_id: int | None
    # Some errors must name what was wrong.
    mentions: str = ""


CASES = [
    Case("malformed JSON", lambda d: b'{"id": 5, "method": ', PARSE_ERROR, None),
    Case("invalid UTF-8", lambda d: b'\xff\xfe{"id": 6}', PARSE_ERROR, None),
    Case(
        "invalid UTF-8 inside a string",
        lambda d: d.message({"id": 7, "method": d.method("thread/read"), "params": {}}).replace(
            b"{}", b'{"threadId": "\xc3\x28"}'
        ),
        PARSE_ERROR,
        None,
    ),
    Case("nesting 1,000 deep", lambda d: _deep(1000), INVALID_REQUEST, None, "nested"),
    Case("nesting 100,000 deep", lambda d: _deep(100_000), INVALID_REQUEST, None, "nested"),
    Case(
        "params nesting 1,000 deep",
        lambda d: _with_deep_params(d, 8, 1000),
        INVALID_REQUEST,
        8,
        "nested",
    ),
    Case(
        "params nesting 200 deep",
        lambda d: _with_deep_params(d, 9, 200),
        INVALID_REQUEST,
        9,
        "nested",
    ),
    Case(
        "unknown method",
        lambda d: d.message({"id": 10, "method": d.method("no/such/method")}),
        METHOD_NOT_FOUND,
        10,
    ),
    Case(
        "invalid params",
        lambda d: d.message(
            {"id": 11, "method": d.method("thread/read"), "params": {"threadId": 5}}
        ),
        INVALID_PARAMS,
        11,
    ),
    Case(
        "params an array",
        lambda d: d.message({"id": 12, "method": d.method("thread/list"), "params": [1, 2]}),
        INVALID_PARAMS,
        12,
    ),
    Case(
        "params a string",
        lambda d: d.message({"id": 13, "method": d.method("thread/list"), "params": "all"}),
        INVALID_PARAMS,
        13,
    ),
    Case(
        "a batch array",
        lambda d: b"[" + d.message({"id": 14, "method": d.method("model/list")}) + b"]",
        INVALID_REQUEST,
        None,
    ),
    Case(
        "an id that is an object",
        lambda d: d.message({"id": {"n": 1}, "method": d.method("model/list")}),
        INVALID_REQUEST,
        None,
    ),
    Case("no method", lambda d: d.message({"id": 16}), INVALID_REQUEST, 16),
]


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_bad_input_gets_an_error_and_the_door_keeps_serving(shared_door: Door, case: Case) -> None:
    _assert_refused(shared_door, case)
    shared_door.assert_serving()


def _assert_refused(door: Door, case: Case) -> None:
    door.send_body(case.body(door))
    answer = door.next_response()
    assert "error" in answer, answer
    assert answer["error"]["code"] == case.code, answer
    assert answer["id"] == case.msg_id, answer
    assert case.mentions in answer["error"]["message"]


def test_a_huge_string_in_valid_json_gets_a_short_error(shared_door: Door) -> None:
    thread_id = "x" * 20_000_000
    msg_id = shared_door.request("thread/read", {"threadId": thread_id})
    answer = shared_door.response(msg_id)
    assert "error" in answer, str(answer)[:300]
    # The error says what is wrong without sending the 20 MB back.
    assert len(json.dumps(answer)) < 10_000
    shared_door.assert_serving()


def test_a_message_over_the_size_limit_is_refused_with_its_id(shared_door: Door) -> None:
    msg_id = 77
    body = shared_door.message(
        {"id": msg_id, "method": shared_door.method("thread/read"), "params": {"threadId": "y"}}
    ).replace(b'"y"', b'"' + b"y" * (LIMIT + 1024) + b'"')
    shared_door.send_body(body)
    answer = shared_door.response(msg_id)
    assert answer["error"]["code"] == INVALID_REQUEST
    assert str(LIMIT) in answer["error"]["message"]
    shared_door.assert_serving()


def test_a_50_mb_message_under_the_limit_is_read_and_answered(shared_door: Door) -> None:
    msg_id = shared_door.request("thread/read", {"threadId": "z" * 50_000_000})
    answer = shared_door.response(msg_id)
    assert answer["error"]["code"] == INVALID_REQUEST
    assert "thread not found" in answer["error"]["message"]
    shared_door.assert_serving()


# What a client may send before `initialize` that no server could read as a request: both
# doors answer the very first message before anything heavy loads, so each must be refused
# there as it is later, and `initialize` must still work after it.
_CASES_BY_NAME = {case.name: case for case in CASES}
FIRST_MESSAGE_CASES = [
    _CASES_BY_NAME[name]
    for name in (
        "malformed JSON",
        "invalid UTF-8",
        "nesting 1,000 deep",
        "nesting 100,000 deep",
        "a batch array",
        "an id that is an object",
    )
]


@pytest.mark.parametrize("case", FIRST_MESSAGE_CASES, ids=[c.name for c in FIRST_MESSAGE_CASES])
def test_bad_input_as_the_first_message_gets_an_error_then_initialize_works(
    raw_door: Door, case: Case
) -> None:
    _assert_refused(raw_door, case)
    raw_door.initialize()
    raw_door.assert_serving()


@pytest.mark.parametrize("raw_door", ["lsp"], indirect=True)
@pytest.mark.parametrize("sent", [0, 4096], ids=["no body", "part of a body"])
def test_a_first_message_longer_than_any_is_refused_and_initialize_still_works(
    raw_door: Door, sent: int
) -> None:
    # A length no server may read into memory, then (perhaps) part of what it announced.
    msg_id = 41
    start = b'{"jsonrpc": "2.0", "id": %d, "method": "initialize", "params": {"x": "' % msg_id
    raw_door.send_bytes(b"Content-Length: 100000000000\r\n\r\n" + (start + b"y" * sent)[:sent])
    answer = raw_door.next_response()
    assert answer["error"]["code"] == INVALID_REQUEST, answer
    assert "100000000000 bytes" in answer["error"]["message"]
    assert answer["id"] == (msg_id if sent else None)
    raw_door.initialize()
    raw_door.assert_serving()
