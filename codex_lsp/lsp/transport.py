"""The read loop of `codex-lsp serve`, over stdio or one TCP connection (`tcp.py`).

pygls's own loop logs and forgets a body that is not JSON or whose params do not fit the LSP
types, so a client waiting on that request hangs. This loop answers them as JSON-RPC says:
-32700 for a body that is not JSON (id null), -32600 for JSON that is not a request or nests
too deep, -32602 for params of the wrong shape; then it reads on. Broken framing is reported the
same way and the stream resynchronised (see `framing`). Handlers themselves are pygls's business.

Output goes through a bounded `Outbox` rather than pygls's blocking stdout writer: a client
that stops reading neither blocks the event loop nor grows the backlog without bound (the engine
paces its streaming by it, and this loop stops reading requests while it is over
`INPUT_PAUSE_BYTES`).

On stdio the protocol takes private copies of fds 0 and 1 and points the originals at
/dev/null and stderr, so neither a stray `print` nor a child process that inherits them can
corrupt or swallow the message stream.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from cattrs import transform_error
from pygls.exceptions import JsonRpcException

from codex_lsp.lsp.framing import FrameError, FrameReader
from codex_lsp.protocol.jsonrpc import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR
from codex_lsp.wire.input import MessageRejected, decode_message, too_large
from codex_lsp.wire.output import (
    INPUT_PAUSE_BYTES,
    Outbox,
    OutputWriter,
)
from codex_lsp.wire.stdio import ChunkReader

if TYPE_CHECKING:
    from codex_lsp.lsp.protocol import CodexProtocol
    from codex_lsp.lsp.server import CodexLanguageServer

logger = logging.getLogger(__name__)

_READ_CHUNK = 64 * 1024


def _valid_id(value: Any) -> bool:
    return isinstance(value, (int, str)) and not isinstance(value, bool)


def _camel_path(problem: str) -> str:
    """`... @ $.params.text_document` -> `... @ params.textDocument`: the names as sent."""
    text, at, path = problem.rpartition(" @ ")
    if not at:
        return problem
    path = re.sub(r"_([a-z])", lambda m: m.group(1).upper(), path.removeprefix("$."))
    return f"{text} @ {path}"


def _params_problem(error: JsonRpcException) -> str:
    cause = error.__cause__
    if cause is None:
        return error.message
    try:
        problems = transform_error(cause, path="$")
    except Exception:
        return str(cause)
    return "; ".join(_camel_path(problem) for problem in problems)


def dispatch(protocol: CodexProtocol, body: bytes) -> None:
    """Decode one message and hand it to the protocol, answering what pygls would drop."""
    try:
        data = decode_message(body)
    except MessageRejected as err:
        protocol.send_error(err.request_id, err.code, err.message)
        return
    msg_id = data.get("id") if isinstance(data, dict) else None
    if not _valid_id(msg_id):
        msg_id = None
    if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
        protocol.send_error(msg_id, INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 object")
        return
    if data.get("id") is not None and msg_id is None:
        message = "Invalid Request: id must be a string or an integer"
        protocol.send_error(None, INVALID_REQUEST, message)
        return
    method = data.get("method")
    if "method" in data and not isinstance(method, str):
        protocol.send_error(msg_id, INVALID_REQUEST, "Invalid Request: method must be a string")
        return
    if method is None and "result" not in data and "error" not in data:
        protocol.send_error(msg_id, INVALID_REQUEST, "Invalid Request: no method, result or error")
        return
    if method is not None:
        # JSON-RPC lets a request omit params; pygls's generic message types require the key.
        data.setdefault("params", None)
    try:
        message = protocol.structure_message(data)
    except JsonRpcException as err:
        problem = _params_problem(err)
        if method is not None and msg_id is not None:
            protocol.send_error(msg_id, INVALID_PARAMS, f"Invalid params for {method}: {problem}")
        elif method is None and msg_id is not None:
            logger.warning("the client's answer to request %s is malformed: %s", msg_id, problem)
            protocol.fail_request(msg_id, err)
        else:
            logger.warning("dropped a malformed %s notification: %s", method, problem)
        return
    protocol.handle_message(message)


async def serve_stream(
    server: CodexLanguageServer, read: Callable[[], Awaitable[bytes]], outbox: Outbox
) -> int:
    """Read and dispatch messages until the stream ends or the client says `exit`; the exit
    status: 0 after `shutdown`, 1 without it (as the LSP specification asks), 0 at end of input.
    """
    protocol = server.protocol
    frames = FrameReader(read)
    while protocol.exit_code is None:
        frame = await frames.next()
        if frame is None:
            return 0
        if isinstance(frame, FrameError):
            _framing_error(protocol, frame)
            continue
        try:
            dispatch(protocol, frame)
        except Exception:
            # A handler that fails synchronously must not end the loop for everyone else.
            logger.exception("failed to handle a message")
        if outbox.pending_bytes() > INPUT_PAUSE_BYTES:
            # The client is not reading its answers: stop reading its requests until it does.
            await outbox.drained()
    await protocol.shutdown_done()
    return protocol.exit_code


def _framing_error(protocol: CodexProtocol, error: FrameError) -> None:
    logger.warning("bad message framing: %s", error.message)
    if error.size is not None:
        rejected = too_large(error.size, error.prefix)
        protocol.send_error(rejected.request_id, rejected.code, rejected.message)
        return
    protocol.send_error(None, PARSE_ERROR, f"Parse error: {error.message}")


# -- stdio -----------------------------------------------------------------------------------


def _claim_stdio() -> tuple[int, int]:
    """Take fds 0 and 1 for the protocol and leave harmless stand-ins in their place."""
    in_fd, out_fd = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return in_fd, out_fd


async def _serve_stdio(
    server: CodexLanguageServer,
    in_fd: int,
    out_fd: int,
    before_reading: Callable[[], None] | None,
    hangup: int | None,
    unread: bytes,
) -> int:
    reader = ChunkReader(in_fd, asyncio.get_running_loop(), hangup=hangup)
    # An editor that is gone ends the session at once, even if its input stays open.
    writer = OutputWriter(out_fd, on_broken=reader.hang_up)
    server.protocol.set_outbox(writer)
    try:
        if before_reading is not None:
            before_reading()
        return await serve_stream(server, read_first(unread, reader.read), writer)
    finally:
        reader.close()
        await server.close()
        # What is queued still goes out (the answer to `shutdown` among it), within reason.
        await asyncio.to_thread(writer.close)


def run_stdio(
    server: CodexLanguageServer,
    *,
    before_reading: Callable[[], None] | None = None,
    hangup: int | None = None,
    unread: bytes = b"",
) -> int:
    """Serve the client on stdin/stdout; return the process exit status.

    `before_reading` runs in the event loop once output is set up, before the first read (the
    early `initialize` is replayed there); when `hangup`, a descriptor, closes, the input
    counts as ended. `unread` is input already taken from stdin, read before the rest.
    """
    in_fd, out_fd = _claim_stdio()
    return run_loop(_serve_stdio(server, in_fd, out_fd, before_reading, hangup, unread))


def read_first(
    unread: bytes, read: Callable[[], Awaitable[bytes]]
) -> Callable[[], Awaitable[bytes]]:
    """`read`, after handing out `unread` (if any) as the first chunk."""
    pending = [unread] if unread else []

    async def read_on() -> bytes:
        return pending.pop() if pending else await read()

    return read_on


def run_loop(main: Any) -> int:
    """Run the door's coroutine; the process exit status."""
    try:
        code = asyncio.run(main)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        logger.warning("the client closed the connection")
        return 1
    return code if isinstance(code, int) else 0
