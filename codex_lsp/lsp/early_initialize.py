"""The answer to an editor's `initialize`, written before pygls, lsprotocol and the features load.

Importing pygls and lsprotocol and building every feature is most of a cold start of `codex-lsp
serve`, and the first answer an editor waits for needs none of it. `take_initialize` reads the
first message from stdin exactly (not one byte past it, so the ordinary read loop carries on
with the next message) and, when it is `initialize`, writes the answer pygls would write: the
same capabilities and server info for the same client. For the features this server registers,
only the position encoding and two text-sync flags depend on the client; a test compares this
answer with pygls's own for several editors' capabilities, so a new feature cannot drift from it.

The server is then built and the message replayed through it (`EarlyInitialize.replay`, run
in the event loop before the first read) with its second answer dropped, so pygls and the
features learn the client's capabilities, workspace folders and options as usual.

Only the standard library is imported here.
"""

from __future__ import annotations

import json
import logging
import os
import select
from collections.abc import Callable
from typing import Any, Protocol

from codex_lsp import __version__

logger = logging.getLogger(__name__)

SERVER_NAME = "codex-lsp"
# The commands the features register (`workspace/executeCommand`), in registration order.
COMMANDS = (
    "codex.newThread",
    "codex.ask",
    "codex.edit",
    "codex.interrupt",
    "codex.message",
    "codex.approve",
    "codex.deny",
    "codex.answer",
    "codex.sessionApprovals",
    "codex.revokeApproval",
    "codex.review",
    "codex.fixFinding",
    "codex.explainFinding",
    "codex.dismissFinding",
    "codex.undoTurn",
)
# What pygls offers, in the order it prefers when the client names none of them.
_ENCODINGS = ("utf-8", "utf-16", "utf-32")
_DEFAULT_ENCODING = "utf-16"
_TEXT_DOCUMENT_SYNC_INCREMENTAL = 2
# A header block is a few dozen bytes; one this long is not a header.
_HEADER_LIMIT = 64 * 1024
# An `initialize` is a few kilobytes. A first message longer than this is left unread, its
# header handed to the read loop, which reads it or refuses it as it does every message.
_BODY_LIMIT = 1024 * 1024
# How much of such a message's body is handed on with its header, at most.
_BODY_START = 64 * 1024
_PARSE_ERROR = -32700


def position_encoding(capabilities: dict[str, Any]) -> str:
    """The client's first preferred encoding that the server supports, else UTF-16."""
    general = capabilities.get("general")
    offered = general.get("positionEncodings") if isinstance(general, dict) else None
    if isinstance(offered, list):
        for encoding in offered:
            if encoding in _ENCODINGS:
                return str(encoding)
    return _DEFAULT_ENCODING


def _text_document_sync(capabilities: dict[str, Any]) -> dict[str, Any]:
    sync: dict[str, Any] = {
        "openClose": True,
        "change": _TEXT_DOCUMENT_SYNC_INCREMENTAL,
        "save": False,
    }
    text_document = capabilities.get("textDocument")
    offered = text_document.get("synchronization") if isinstance(text_document, dict) else None
    for key in ("willSave", "willSaveWaitUntil"):
        # pygls says `<the client's flag> and <a handler is registered>`; none is, so: false
        # when the client said true, the client's own value when it did not (none: no key).
        value = offered.get(key) if isinstance(offered, dict) else None
        if value is not None:
            sync[key] = False if value else value
    return sync


def initialize_result(params: dict[str, Any]) -> dict[str, Any]:
    """The `InitializeResult` for a client's `initialize` params."""
    capabilities: dict[str, Any] = {
        "positionEncoding": position_encoding(params["capabilities"]),
        "textDocumentSync": _text_document_sync(params["capabilities"]),
        "codeActionProvider": {"codeActionKinds": ["quickfix"]},
        "executeCommandProvider": {"commands": list(COMMANDS)},
        "workspace": {
            "workspaceFolders": {"supported": True, "changeNotifications": True},
            "fileOperations": {},
        },
    }
    return {
        "capabilities": capabilities,
        "serverInfo": {"name": SERVER_NAME, "version": __version__},
    }


def _is_request_id(value: object) -> bool:
    return isinstance(value, (int, str)) and not isinstance(value, bool)


def _answerable(message: object) -> bool:
    """An `initialize` request whose params pygls will accept the same way."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return False
    params = message.get("params")
    return (
        message.get("method") == "initialize"
        and _is_request_id(message.get("id"))
        and isinstance(params, dict)
        and isinstance(params.get("capabilities"), dict)
    )


# -- reading and writing one frame ------------------------------------------------------------


class _Broken(Exception):
    """The first bytes are not an LSP header block."""


class _TooLong(Exception):
    """The first message is longer than `_BODY_LIMIT`; `header` is what was read of it."""

    def __init__(self, header: bytes) -> None:
        super().__init__()
        self.header = header


def _read_exactly(fd: int, size: int) -> bytes | None:
    chunks: list[bytes] = []
    while size:
        chunk = os.read(fd, size)
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int) -> bytes | None:
    """The next message body on `fd`, None at end of input; reads nothing past the body.

    The header is read a byte at a time (it is a few dozen bytes): a larger read could take
    the start of the next message, which the read loop must see.
    """
    header = bytearray()
    while not header.endswith(b"\r\n\r\n") and not header.endswith(b"\n\n"):
        byte = os.read(fd, 1)
        if not byte:
            return None
        if not header and byte in b"\r\n":
            continue  # blank lines between messages are harmless
        header += byte
        if len(header) > _HEADER_LIMIT:
            raise _Broken("a header block over 64 KiB")
    length: int | None = None
    for line in bytes(header).splitlines():
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            try:
                length = int(value.strip())
            except ValueError:
                length = None
    if length is None or length < 0:
        raise _Broken("a message header without a valid Content-Length")
    if length > _BODY_LIMIT:
        # With the header goes the start of the body that is already here (where the read
        # loop looks for the request's id to refuse it by); waiting for more could wait on a
        # length that was a lie.
        start = os.read(fd, _BODY_START) if select.select([fd], [], [], 0)[0] else b""
        raise _TooLong(bytes(header) + start)
    return _read_exactly(fd, length)


def write_message(fd: int, message: dict[str, Any]) -> None:
    body = json.dumps(message).encode("utf-8")
    data = b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
    while data:
        written = os.write(fd, data)
        data = data[written:]


# -- the handover to pygls -------------------------------------------------------------------


class _Writer(Protocol):
    def write(self, data: bytes) -> object: ...


class _HasWriter(Protocol):
    writer: Any


class EarlyInitialize:
    """What `take_initialize` read: the first message, and whether it was answered."""

    def __init__(
        self, body: bytes | None, answered_id: int | str | None = None, unread: bytes = b""
    ) -> None:
        self.body = body
        self.answered_id = answered_id
        # Input taken from stdin but not read as a message here: the read loop reads it first.
        self.unread = unread

    def replay(self, protocol: _HasWriter, dispatch: Callable[[Any, bytes], None]) -> None:
        """Hand the first message to the server (in its event loop, before the first read),
        dropping its answer to a request answered here already."""
        if self.body is None:
            return
        if self.answered_id is None:
            dispatch(protocol, self.body)
            return
        real = protocol.writer
        protocol.writer = _DropAnswer(real, self.answered_id)
        try:
            # pygls handles `initialize` synchronously: its answer is written before this
            # returns, and the real writer can go back in place.
            dispatch(protocol, self.body)
        finally:
            protocol.writer = real


class _DropAnswer:
    """A writer that drops the answer to one request and passes everything else on."""

    def __init__(self, real: _Writer, msg_id: int | str) -> None:
        self._real = real
        self._id = msg_id

    def write(self, data: bytes) -> object:
        _, _, body = data.partition(b"\r\n\r\n")
        try:
            message = json.loads(body)
        except ValueError:
            message = None
        if isinstance(message, dict) and "method" not in message and message.get("id") == self._id:
            if "error" in message:
                logger.warning("initialize was answered early, then failed: %s", message["error"])
            return None
        return self._real.write(data)


def take_initialize(in_fd: int = 0, out_fd: int = 1) -> EarlyInitialize:
    """Read the client's first message and answer it if it is `initialize`."""
    try:
        body = read_frame(in_fd)
    except _Broken as err:
        write_message(
            out_fd,
            {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": _PARSE_ERROR, "message": f"Parse error: {err}"},
            },
        )
        return EarlyInitialize(None)
    except _TooLong as long:
        return EarlyInitialize(None, unread=long.header)
    except OSError:
        return EarlyInitialize(None)
    if body is None:
        return EarlyInitialize(None)
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        # Malformed, or nested past the decoder's recursion: the read loop's decoder answers it.
        return EarlyInitialize(body)
    if not _answerable(message):
        return EarlyInitialize(body)
    msg_id = message["id"]
    try:
        write_message(
            out_fd, {"jsonrpc": "2.0", "id": msg_id, "result": initialize_result(message["params"])}
        )
    except OSError:
        return EarlyInitialize(body)  # the client is gone; the read loop finds out
    return EarlyInitialize(body, answered_id=msg_id)
