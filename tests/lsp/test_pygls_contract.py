"""What `codex_lsp/lsp/protocol.py` relies on in pygls's private API, one test per name.

pygls offers no public hook for what the LSP door needs (see that module), so it overrides or
reads private names of the pinned release. A pygls upgrade that renames one or changes how it
behaves fails here, by name, rather than as a server that silently stops answering.
"""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import Future
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcMethodNotFound
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol


class _Sink:
    """A writer that keeps what pygls writes, one JSON message per write."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        self.messages.append(json.loads(data))

    def close(self) -> None:
        pass


def _protocol() -> tuple[LanguageServerProtocol, _Sink]:
    server = LanguageServer("contract", "0")
    sink = _Sink()
    server.protocol.set_writer(sink, include_headers=False)
    return server.protocol, sink


def test_get_handler_raises_method_not_found_for_an_unregistered_method() -> None:
    # `codex/*` requests are routed by catching exactly this.
    protocol, _ = _protocol()
    with pytest.raises(JsonRpcMethodNotFound):
        protocol._get_handler("codex/thread/start")
    assert callable(protocol._get_handler(types.SHUTDOWN))


def test_send_handler_result_answers_a_finished_future_by_keyword_msg_id() -> None:
    # Overridden to skip requests that answered themselves; pygls calls it with `msg_id=`.
    protocol, sink = _protocol()
    future: Future[Any] = Future()
    future.set_result({"ok": True})
    protocol._request_futures["r1"] = future
    protocol._send_handler_result(future, msg_id="r1")
    assert sink.messages == [{"jsonrpc": "2.0", "id": "r1", "result": {"ok": True}}]
    assert "r1" not in protocol._request_futures


def test_send_response_writes_a_result_or_an_error() -> None:
    # Every response passes through it: the override tracks ids in flight there.
    protocol, sink = _protocol()
    protocol._send_response("a", result=[1])
    protocol._send_response("b", error=types.ResponseError(code=-32603, message="went wrong"))
    assert sink.messages[0] == {"jsonrpc": "2.0", "id": "a", "result": [1]}
    assert sink.messages[1]["id"] == "b"
    assert sink.messages[1]["error"] == {"code": -32603, "message": "went wrong"}


def test_send_data_writes_a_plain_dict_as_one_message() -> None:
    # Errors for unparseable messages and streamed notifications are written through it.
    protocol, sink = _protocol()
    protocol._send_data({"jsonrpc": "2.0", "method": "codex/x", "params": {"n": 1}})
    assert sink.messages == [{"jsonrpc": "2.0", "method": "codex/x", "params": {"n": 1}}]


async def test_request_futures_hold_the_futures_of_requests_sent_to_the_client() -> None:
    # `fail_request` fails an awaited request through it; `shutdown_done` waits on it.
    protocol, sink = _protocol()
    future = protocol.send_request("codex/question", {"q": 1}, msg_id="q1")
    assert protocol._request_futures["q1"] is future
    assert sink.messages[0]["id"] == "q1"
    protocol._request_futures.pop("q1").set_exception(RuntimeError("no answer"))
    with pytest.raises(RuntimeError):
        await asyncio.wrap_future(future)


def test_shutdown_flag_is_false_until_the_shutdown_request_is_handled() -> None:
    # Requests after `shutdown` are refused by reading it.
    protocol, _ = _protocol()
    assert protocol._shutdown is False
    protocol.handle_message(
        protocol.structure_message({"jsonrpc": "2.0", "id": 7, "method": types.SHUTDOWN})
    )
    assert protocol._shutdown is True


async def test_msg_id_is_the_request_id_inside_the_handlers_task() -> None:
    # The public property a forwarded `codex/*` handler reads its request's id from.
    protocol, _ = _protocol()
    seen: list[Any] = []

    @protocol._server.feature("codex/probe")
    async def probe(params: Any) -> None:
        seen.append(protocol.msg_id)

    protocol.handle_message(
        protocol.structure_message(
            {"jsonrpc": "2.0", "id": "m9", "method": "codex/probe", "params": {}}
        )
    )
    for _ in range(20):
        if seen:
            break
        await asyncio.sleep(0)
    assert seen == ["m9"]
