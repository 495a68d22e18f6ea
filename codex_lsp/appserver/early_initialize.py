"""The app-server's answer to `initialize`, written before the API, the engine and pydantic load.

A client's first message is `initialize`, and its answer names only the server, the platform
and `CODEX_HOME`: nothing the API or the engine knows. `take_initialize` reads the first line
from stdin (a byte at a time, so nothing past it is taken from the descriptor) and, when it is
an `initialize` request whose params the API would accept as they are, writes the same answer
the API would write. Anything else (another method, malformed JSON, params the API might
refuse or read differently) is left unanswered, for the server to handle as usual.

Either way every byte read is handed back (`EarlyInitialize.consumed`) for the server's line
reader to read first, so the server sees the client's input whole; the id of a request
answered here (`answered_id`) tells the server not to answer it a second time, while it still
takes the client's options (opted-out notifications) from it. A test compares this answer
with the API's own for several clients.

Only the standard library is imported here.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from codex_lsp.api.initialize.identity import platform_family, platform_os, user_agent

# An `initialize` line is a few hundred bytes; past this, leave the line to the server.
_LINE_LIMIT = 64 * 1024
# The capabilities the API reads, by the names it also accepts for them (snake_case): when a
# client uses those, the API's reading is left to the API.
_SNAKE_NAMES = frozenset(
    {"experimental_api", "request_attestation", "opt_out_notification_methods"}
)
_FLAGS = ("experimentalApi", "requestAttestation")


class EarlyInitialize:
    """What `take_initialize` read, and the id of the request it answered, if it did."""

    # A plain class: `dataclasses` would cost this path more than all the rest of it.
    __slots__ = ("answered_id", "consumed")

    def __init__(self, consumed: bytes = b"", answered_id: int | str | None = None) -> None:
        self.consumed = consumed
        self.answered_id = answered_id


def _read_line(fd: int) -> bytes:
    line = bytearray()
    while len(line) < _LINE_LIMIT:
        byte = os.read(fd, 1)
        if not byte:
            break
        line += byte
        if byte == b"\n":
            break
    return bytes(line)


def _is_str_or_none(value: object) -> bool:
    return value is None or isinstance(value, str)


def _client_info(params: dict[str, object]) -> tuple[str, str] | None:
    """The client's name and version, when the API would read the params exactly so."""
    if "client_info" in params:
        return None
    info = params.get("clientInfo")
    if not isinstance(info, dict):
        return None
    name, version = info.get("name"), info.get("version")
    if not isinstance(name, str) or not isinstance(version, str):
        return None
    if not _is_str_or_none(info.get("title")):
        return None
    capabilities = params.get("capabilities")
    if capabilities is None:
        return name, version
    if not isinstance(capabilities, dict) or _SNAKE_NAMES & capabilities.keys():
        return None
    if any(not isinstance(capabilities.get(flag, False), bool) for flag in _FLAGS):
        return None
    opted_out = capabilities.get("optOutNotificationMethods")
    if opted_out is not None and not (
        isinstance(opted_out, list) and all(isinstance(method, str) for method in opted_out)
    ):
        return None
    # Extensions are free-form JSON, which the server checks (nesting depth) before the API.
    if capabilities.get("extensions") is not None:
        return None
    return name, version


def initialize_answer(line: bytes, codex_home: Path) -> tuple[int | str, dict[str, str]] | None:
    """The id and result of `line` when it is an `initialize` request answerable here."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        # Deep nesting overflows the decoder's recursion: the server's reader refuses it.
        return None
    if not isinstance(message, dict) or message.get("method") != "initialize":
        return None
    request_id, params = message.get("id"), message.get("params")
    if not isinstance(request_id, (int, str)) or isinstance(request_id, bool):
        return None
    if not isinstance(params, dict) or (client := _client_info(params)) is None:
        return None
    result = {
        "userAgent": user_agent(*client),
        "codexHome": str(codex_home.resolve()),
        "platformFamily": platform_family(),
        "platformOs": platform_os(),
    }
    return request_id, result


def _write(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data) :]


def take_initialize(codex_home: Path, in_fd: int = 0, out_fd: int = 1) -> EarlyInitialize:
    """Read the client's first line and answer it if it is an answerable `initialize`."""
    try:
        line = _read_line(in_fd)
    except OSError:
        return EarlyInitialize()
    answer = initialize_answer(line, codex_home) if line.endswith(b"\n") else None
    if answer is None:
        return EarlyInitialize(line)
    request_id, result = answer
    # The connection's own encoding: compact, non-ASCII kept as is.
    body = json.dumps(
        {"id": request_id, "result": result}, ensure_ascii=False, separators=(",", ":")
    )
    try:
        _write(out_fd, (body + "\n").encode("utf-8"))
    except OSError:
        return EarlyInitialize(line)  # the client is gone; the read loop finds out
    return EarlyInitialize(line, request_id)
