"""What both doors do with a client's message before routing it: limits, and decoding with a
clear JSON-RPC error instead of an exception.

Limits (documented in the README):

* `MAX_MESSAGE_BYTES`: one message (an app-server line, an LSP body) may be at most 64 MiB.
  A longer one is skipped without being held in memory and answered with an error.
* `MAX_NESTING_DEPTH`: arrays and objects may nest at most 128 deep. Deeper JSON would exhaust
  Python's recursion limit somewhere between the parser and the handlers.

When a message cannot be decoded, its request id is still looked for in its first bytes, so
the client's pending request gets its error rather than waiting forever.
"""

from __future__ import annotations

import json
import re
from typing import Any

from codex_lsp.protocol.jsonrpc import (
    INVALID_REQUEST as INVALID_REQUEST,
    PARSE_ERROR as PARSE_ERROR,
)

MAX_MESSAGE_BYTES = 64 * 1024 * 1024
MAX_NESTING_DEPTH = 128
# How much of an undecodable message is searched for its id.
ID_SEARCH_BYTES = 64 * 1024
# Error messages quote what the client sent; a quote of a 20 MB string helps nobody.
MAX_ERROR_MESSAGE_CHARS = 2000

RequestId = int | str


class MessageRejected(Exception):
    """A message that gets a JSON-RPC error instead of being routed."""

    def __init__(self, code: int, message: str, request_id: RequestId | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.request_id = request_id


def decode_message(body: bytes) -> Any:
    """The JSON value of `body`. Raises `MessageRejected` for what is not JSON (invalid
    UTF-8 included) or nests deeper than `MAX_NESTING_DEPTH`."""
    try:
        value = json.loads(body)
    except RecursionError:
        raise too_deep(body) from None
    except ValueError as err:  # JSONDecodeError and UnicodeDecodeError
        raise MessageRejected(PARSE_ERROR, f"Parse error: {err}") from None
    if nesting_exceeds(value, MAX_NESTING_DEPTH):
        raise too_deep(body)
    return value


def clip_error_message(message: str) -> str:
    """`message`, shortened to `MAX_ERROR_MESSAGE_CHARS` when it is longer."""
    if len(message) <= MAX_ERROR_MESSAGE_CHARS:
        return message
    return f"{message[:MAX_ERROR_MESSAGE_CHARS]}… ({len(message)} characters in all)"


def too_deep(body: bytes) -> MessageRejected:
    return MessageRejected(
        INVALID_REQUEST,
        f"Invalid request: JSON nested deeper than {MAX_NESTING_DEPTH} levels",
        request_id_hint(body[:ID_SEARCH_BYTES]),
    )


def too_large(size: int, prefix: bytes) -> MessageRejected:
    """The error for a message of `size` bytes (or more) that was skipped unread."""
    return MessageRejected(
        INVALID_REQUEST,
        f"Invalid request: the message is {size} bytes, over the limit of "
        f"{MAX_MESSAGE_BYTES} bytes",
        request_id_hint(prefix[:ID_SEARCH_BYTES]),
    )


def nesting_exceeds(value: Any, limit: int) -> bool:
    """Whether arrays and objects in `value` nest deeper than `limit` (checked without
    recursion, so the check itself cannot run out of stack)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        current, depth = stack.pop()
        if isinstance(current, dict):
            children: Any = current.values()
        elif isinstance(current, list):
            children = current
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|-?\d+')


def request_id_hint(prefix: bytes) -> RequestId | None:
    """The top-level `"id"` of a JSON object that starts with `prefix`, when it is there."""
    depth = 0
    expect_value = False
    key: bytes | None = None
    for match in _TOKEN.finditer(prefix):
        token = match.group()
        if token in (b"{", b"["):
            depth += 1
            expect_value = False
            continue
        if token in (b"}", b"]"):
            depth -= 1
            continue
        if depth != 1:
            continue
        if token == b":":
            expect_value = key == b'"id"'
            continue
        if token == b",":
            key, expect_value = None, False
            continue
        if expect_value:
            try:
                found = json.loads(token)
            except ValueError:
                return None
            return found if isinstance(found, int | str) else None
        key = token
    return None
