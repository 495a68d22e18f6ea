"""Framing and the read loop of `codex-lsp serve`, over stdio or one TCP connection.

pygls's own loop logs and forgets a body that is not JSON or whose params do not fit the LSP
types, so a client waiting on that request hangs. This loop answers them as JSON-RPC says:
-32700 for a body that is not JSON (id null), -32600 for JSON that is not a request, -32602
for params of the wrong shape; then it reads on. Handlers themselves are pygls's business.

On stdio the protocol takes private copies of fds 0 and 1 and points the originals at
/dev/null and stderr, so neither a stray `print` nor a child process that inherits them can
corrupt or swallow the message stream.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, BinaryIO

from cattrs import transform_error
from pygls.exceptions import JsonRpcException
from pygls.io_ import StdoutWriter

if TYPE_CHECKING:
    from codex_lsp.lsp.protocol import CodexProtocol
    from codex_lsp.lsp.server import CodexLanguageServer

logger = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602

# Header lines are short; a longer one is garbage, reported and skipped.
_HEADER_LIMIT = 64 * 1024
_READ_CHUNK = 64 * 1024


class _BadHeader(Exception):
    """A header block without a usable Content-Length."""


async def read_message(reader: asyncio.StreamReader) -> bytes | None:
    """The next message body, None at end of stream; raises `_BadHeader` for broken framing."""
    length: int | None = None
    seen_header = False
    broken = False
    while True:
        try:
            line = await reader.readline()
        except ValueError:  # a line over the limit: the reader has already dropped it
            broken = True
            seen_header = True
            continue
        if not line:
            return None
        if not line.strip():
            if seen_header:
                break
            continue  # blank lines between messages are harmless
        seen_header = True
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            try:
                length = int(value.strip())
            except ValueError:
                broken = True
    if broken or length is None or length < 0:
        raise _BadHeader("a message header without a valid Content-Length")
    try:
        return await reader.readexactly(length)
    except asyncio.IncompleteReadError:
        return None


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
        problems = transform_error(cause, path="$")  # type: ignore[arg-type]
    except Exception:
        return str(cause)
    return "; ".join(_camel_path(problem) for problem in problems)


def dispatch(protocol: CodexProtocol, body: bytes) -> None:
    """Decode one message and hand it to the protocol, answering what pygls would drop."""
    try:
        data = json.loads(body)
    except ValueError as err:  # JSONDecodeError and UnicodeDecodeError both land here
        protocol.send_error(None, PARSE_ERROR, f"Parse error: {err}")
        return
    msg_id = data.get("id") if isinstance(data, dict) else None
    if not _valid_id(msg_id):
        msg_id = None
    if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
        protocol.send_error(msg_id, INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 object")
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


async def serve_stream(server: CodexLanguageServer, reader: asyncio.StreamReader) -> None:
    """Read and dispatch messages until the stream ends or the server is told to exit."""
    protocol = server.protocol
    while True:
        try:
            body = await read_message(reader)
        except _BadHeader as err:
            protocol.send_error(None, PARSE_ERROR, f"Parse error: {err}")
            continue
        if body is None:
            return
        try:
            dispatch(protocol, body)
        except Exception:
            # A handler that fails synchronously must not end the loop for everyone else.
            logger.exception("failed to handle a message")


# -- stdio -----------------------------------------------------------------------------------


def _claim_stdio() -> tuple[int, BinaryIO]:
    """Take fds 0 and 1 for the protocol and leave harmless stand-ins in their place."""
    in_fd = os.dup(0)
    out = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return in_fd, out


def _pump(fd: int, loop: asyncio.AbstractEventLoop, reader: asyncio.StreamReader) -> None:
    """Feed a blocking fd into an asyncio reader from a daemon thread.

    A daemon thread (rather than pygls's executor) cannot keep the process alive at exit when
    the client never closes its end of the pipe.
    """
    try:
        while True:
            try:
                chunk = os.read(fd, _READ_CHUNK)
            except OSError:
                chunk = b""
            if not chunk:
                loop.call_soon_threadsafe(reader.feed_eof)
                return
            loop.call_soon_threadsafe(reader.feed_data, chunk)
    except RuntimeError:
        return  # the loop closed first: the server is gone


def _watch_hangup(loop: asyncio.AbstractEventLoop, fd: int, hung_up: Callable[[], None]) -> None:
    """Call `hung_up` once `fd` reaches its end (the warm start's launcher is gone)."""

    def readable() -> None:
        try:
            data = os.read(fd, 256)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            loop.remove_reader(fd)
            hung_up()

    loop.add_reader(fd, readable)


async def _serve_stdio(
    server: CodexLanguageServer,
    in_fd: int,
    out: BinaryIO,
    before_reading: Callable[[], None] | None,
    hangup: int | None,
) -> None:
    reader = asyncio.StreamReader(limit=_HEADER_LIMIT)
    loop = asyncio.get_running_loop()
    threading.Thread(
        target=_pump, args=(in_fd, loop, reader), name="lsp-stdin", daemon=True
    ).start()
    server.protocol.set_writer(StdoutWriter(out))
    if hangup is not None:
        _watch_hangup(loop, hangup, reader.feed_eof)
    try:
        if before_reading is not None:
            before_reading()
        await serve_stream(server, reader)
    finally:
        await server.close()


def run_stdio(
    server: CodexLanguageServer,
    *,
    before_reading: Callable[[], None] | None = None,
    hangup: int | None = None,
) -> int:
    """Serve the client on stdin/stdout; return the process exit status.

    `before_reading` runs in the event loop once output is set up, before the first read (the
    early `initialize` is replayed there); when `hangup`, a descriptor, closes, the input
    counts as ended.
    """
    in_fd, out = _claim_stdio()
    return _run(_serve_stdio(server, in_fd, out, before_reading, hangup))


# -- tcp -------------------------------------------------------------------------------------


async def _serve_tcp(server: CodexLanguageServer, host: str, port: int) -> None:
    finished = asyncio.Event()
    busy = False

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal busy
        if busy:  # one editor per server process, as with stdio
            writer.close()
            return
        busy = True
        server.protocol.set_writer(writer)  # type: ignore[arg-type]
        try:
            await serve_stream(server, reader)
        finally:
            finished.set()

    listener = await asyncio.start_server(on_connect, host, port, limit=_HEADER_LIMIT)
    bound = ", ".join(f"{s.getsockname()[0]}:{s.getsockname()[1]}" for s in listener.sockets)
    # Editors that start the server with port 0 read the real port from here.
    print(f"codex-lsp: listening on {bound}", file=sys.stderr, flush=True)
    try:
        async with listener:
            await finished.wait()
    finally:
        await server.close()


def run_tcp(server: CodexLanguageServer, host: str, port: int) -> int:
    """Accept one client on HOST:PORT and serve it; return the process exit status."""
    return _run(_serve_tcp(server, host, port))


def _run(main: Any) -> int:
    try:
        asyncio.run(main)
    except SystemExit as done:
        # pygls ends the process from the `exit` handler: 0 after `shutdown`, 1 without.
        return done.code if isinstance(done.code, int) else 0
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        logger.warning("the client closed the connection")
        return 1
    return 0
