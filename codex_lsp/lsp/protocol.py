"""The JSON-RPC protocol of `codex-lsp serve`: pygls's LSP protocol with the gaps filled.

pygls answers unknown methods itself, but it routes no `codex/*` method it was not told about,
silently drops requests that arrive after `shutdown` (the client would wait forever), has no
way to answer a message it could not parse, answers two requests sharing an id with that same
id twice, and ends the process from inside the `exit` handler (with a traceback when `exit`
arrives before `shutdown` has finished). This subclass fills those gaps: a request reusing the
id of one still in flight is refused, and `exit` only records the exit status; the read loop
then lets `shutdown` finish and returns it. The rest of the server only ever sees pygls's
normal handler interface.

A `codex/*` request is answered from inside its own task, as soon as the API returns: pygls
would send it from the task's done-callback, one loop turn later, after the notifications the
API queued to follow the response (`codex/thread/started`, a review's `codex/turn/started`).
The app-server door writes its answers the same way, so both doors keep the order of the
real transcripts.

pygls has no public hooks for these, so the overrides below use six of its private names;
each says why next to it, pyproject pins the pygls release they were written against, and
`tests/lsp/test_pygls_contract.py` fails on an upgrade that changes any of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import cattrs
import orjson
from lsprotocol import converters, types
from pydantic import BaseModel
from pydantic_core import PydanticSerializationError
from pygls.exceptions import JsonRpcException, JsonRpcMethodNotFound
from pygls.protocol import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    LanguageServerProtocol,
)

from codex_lsp.protocol.jsonrpc import INVALID_REQUEST
from codex_lsp.wire.input import clip_error_message

if TYPE_CHECKING:
    from codex_lsp.wire.output import Outbox

logger = logging.getLogger(__name__)

CODEX_PREFIX = "codex/"

# A handler for `codex/<method>`: receives the v2 method name (without the prefix) and params.
CodexHandler = Callable[[str, Any, Any], Any]

# What a forwarded `codex/*` handler returns once it has written its own response.
_ANSWERED = object()


@functools.cache
def json_converter() -> cattrs.Converter:
    """lsprotocol's converter, leaving the params and results of untyped methods plain JSON.

    pygls's default turns such dicts into namedtuples; the v2 API and the clients' answers to
    `codex/*` requests are dicts and must stay dicts. One per process: building it resolves
    the types of every LSP class, and cattrs builds a hook per type on first use, which a
    session forked from the warm server then inherits instead of building again.
    """
    converter = converters.get_converter()
    for message_type in (JsonRPCRequestMessage, JsonRPCResponseMessage, JsonRPCNotification):
        converter.register_structure_hook(message_type, lambda data, cls: cls(**data))
    return converter


class CodexProtocol(LanguageServerProtocol):
    """LSP protocol that forwards `codex/*` requests and can answer unparseable messages."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.codex_handler: CodexHandler | None = None
        self.outbox: Outbox | None = None
        # Ids of the client's requests not answered yet.
        self._in_flight: set[int | str] = set()
        self._shutdown_id: int | str | None = None
        # Set by `exit`: the status the process ends with.
        self.exit_code: int | None = None

    def set_outbox(self, outbox: Outbox) -> None:
        """Write every message through `outbox`, whose backlog paces the engine."""
        self.outbox = outbox
        # pygls types its writer as its own protocol class; an Outbox has the same two methods.
        self.set_writer(outbox)  # type: ignore[arg-type]

    # Private: the one place pygls resolves a method name to a handler; public registration
    # (`feature`) wants every name up front, and the API's method list is its own business.
    def _get_handler(self, feature_name: str) -> Any:
        try:
            return super()._get_handler(feature_name)
        except JsonRpcMethodNotFound:
            # Every v2 method is served under `codex/`; the API itself decides which exist, so
            # a method added there needs no change here.
            handler = self.codex_handler
            if handler is None or not feature_name.startswith(CODEX_PREFIX):
                raise
            method = feature_name[len(CODEX_PREFIX) :]

            async def forward(params: Any) -> Any:
                # Set by pygls before it created this task; the task runs in a copy of it.
                msg_id = self.msg_id
                assert msg_id is not None  # a request's handler always runs with its id
                try:
                    result = await handler(method, params, msg_id)
                except JsonRpcException as err:
                    self._send_response(msg_id, error=err.to_response_error())
                    return _ANSWERED
                self._send_result(msg_id, result)
                return _ANSWERED

            return forward

    # Private: pygls answers from this done-callback; a forwarded request has answered
    # itself already (see the module's docstring) and must not be answered twice.
    def _send_handler_result(self, future: Any, *, msg_id: Any) -> None:
        if not future.cancelled() and future.exception() is None and future.result() is _ANSWERED:
            self._request_futures.pop(msg_id, None)
            return
        super()._send_handler_result(future, msg_id=msg_id)

    def handle_message(self, message: Any) -> None:
        method = getattr(message, "method", None)
        msg_id = getattr(message, "id", None)
        if method == types.EXIT:
            self.exit_code = 0 if self._shutdown_id is not None else 1
            return
        if method is None or msg_id is None:  # a notification, or the client's answer
            super().handle_message(message)
            return
        # After `shutdown` pygls ignores everything but `exit`; the LSP spec wants requests
        # answered with InvalidRequest so a client never waits on a reply that will not come.
        # Private `_shutdown`: pygls exposes no other sign that it has shut down.
        if self._shutdown or self._shutdown_id is not None:
            self.send_error(msg_id, INVALID_REQUEST, "the server is shutting down")
            return
        if msg_id in self._in_flight:
            self.send_error(
                msg_id,
                INVALID_REQUEST,
                f"id {msg_id!r} is already used by a request that has not been answered",
            )
            return
        self._in_flight.add(msg_id)
        if method == types.SHUTDOWN:
            self._shutdown_id = msg_id
        super().handle_message(message)

    # Private: every response pygls writes passes here, its own and ours, so this is where an
    # id leaves the in-flight set and an error message is clipped.
    def _send_response(self, msg_id: Any, result: Any = None, error: Any = None) -> None:
        self._in_flight.discard(msg_id)
        if error is not None and isinstance(getattr(error, "message", None), str):
            error.message = clip_error_message(error.message)
        super()._send_response(msg_id, result, error)

    async def shutdown_done(self) -> None:
        """Wait for the `shutdown` request in progress, if any, to be answered."""
        if self._shutdown_id is None:
            return
        # Private `_request_futures`: pygls keeps its handlers' futures nowhere else.
        future = self._request_futures.get(self._shutdown_id)
        if future is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await (future if asyncio.isfuture(future) else asyncio.wrap_future(future))
        # The answer is written by the future's done-callback, a few loop turns later.
        for _ in range(100):
            if self._shutdown_id not in self._in_flight:
                return
            await asyncio.sleep(0)

    def send_error(self, msg_id: int | str | None, code: int, message: str) -> None:
        """Answer a request (or, with `msg_id=None`, an unidentifiable message) with an error."""
        error = {"code": code, "message": clip_error_message(message)}
        # Private `_send_data`: pygls's only way to write a message it did not build itself.
        self._send_data({"jsonrpc": self.VERSION, "id": msg_id, "error": error})

    def fail_request(self, msg_id: int | str, error: Exception) -> None:
        """Fail our pending request `msg_id`: the client's answer to it was unusable.

        Without this the coroutine awaiting the answer (an approval, an edit) would wait forever.
        """
        future = self._request_futures.pop(msg_id, None)
        if future is not None and not future.done():
            future.set_exception(error)

    def send_notification(self, method: str, params: Any) -> None:
        """Send a notification whose params are already plain JSON values.

        Streaming deltas go through here, so it is the shortest way to the writer (see
        `_write_plain`).
        """
        message = {"jsonrpc": self.VERSION, "method": method, "params": params}
        if not self._write_plain(message):
            self._send_data(message)

    def send_model_notification(self, method: str, params: BaseModel) -> None:
        """Send a notification whose params are a pydantic model, written straight from it.

        The streaming path: the model becomes JSON in one step, with no intermediate dict.
        What pydantic will not write (a lone surrogate in a delta) goes the plain-values way.
        """
        writer = self.writer
        if writer is None:
            return
        try:
            params_json = params.__pydantic_serializer__.to_json(params, by_alias=True)
        except PydanticSerializationError:
            self.send_notification(method, params.model_dump(mode="json", by_alias=True))
            return
        body = b'{"jsonrpc":"%s","method":"%s","params":%s}' % (
            self.VERSION.encode(),
            method.encode(),
            params_json,
        )
        writer.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    def _send_result(self, msg_id: int | str, result: Any) -> None:
        """Answer a `codex/*` request with the API's result, plain JSON values as a rule.

        A resumed thread's answer can hold tens of thousands of items: cattrs would walk every
        one of them to find nothing to convert. Anything else goes through pygls.
        """
        self._in_flight.discard(msg_id)
        self._result_types.pop(msg_id, None)
        if not self._write_plain({"jsonrpc": self.VERSION, "id": msg_id, "result": result}):
            self._send_response(msg_id, result=result)

    def _write_plain(self, message: dict[str, Any]) -> bool:
        """Write `message` as one frame if it is plain JSON; False when it is not.

        No cattrs round trip and no debug log of the body; orjson encodes it, `json` what only
        `json` can (a lone surrogate, an integer past 64 bits).
        """
        writer = self.writer
        if writer is None:
            return True
        try:
            body = orjson.dumps(message)
        except TypeError:
            try:
                body = json.dumps(message).encode("ascii")
            except (TypeError, ValueError):
                return False
        writer.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        return True


def plain_handler(method: Callable[..., Any]) -> Callable[..., Any]:
    """A plain function calling `method`, which pygls can register as a feature or command.

    pygls tags the functions it registers with attributes, which a bound method cannot carry.
    The arguments stay unannotated on purpose: pygls passes the server as the first argument
    to any handler whose first parameter is annotated with a type the server is an instance of.
    """
    if inspect.iscoroutinefunction(method):

        async def call_async(*arguments):  # type: ignore[no-untyped-def]
            return await method(*arguments)

        return call_async

    def call(*arguments):  # type: ignore[no-untyped-def]
        return method(*arguments)

    return call
